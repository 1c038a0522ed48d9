import Foundation

/// What a save records in the document's history.
extension ModelContext {
    /// The transaction a save of this context's changes records: what it
    /// inserts, updates (which properties) and deletes, with the tombstones of
    /// deleted objects' `preserveValueOnDeletion` attributes; `nil` when the
    /// changes cancel out. Call once merged and settled, as a save does.
    ///
    /// - Complexity: O(changes), plus a pass over an entity's rows when most of
    ///   them are new (their identifiers then come in row order, sorted already).
    func makeStoredTransaction(at timestamp: Date = Date()) -> StoredTransaction? {
        // A merge just before the save may have made an edit equal to what another context
        // saved meanwhile: every edited object is compared with the saved state again.
        unsettled.formUnion(updated.keys)
        settleTracking()
        let layout = graph.layout
        let entityCount = layout.entities.count
        var transaction = StoredTransaction(number: 0, timestamp: StoredTransaction.recordedTimestamp(timestamp), author: author,
                                            bundleIdentifier: StoredTransaction.currentBundleIdentifier,
                                            processIdentifier: StoredTransaction.currentProcessIdentifier)
        var insertedIDs = [IdentifierRuns](repeating: IdentifierRuns(), count: entityCount)
        var insertedCount = [Int](repeating: 0, count: entityCount)
        // Live ones only, so that a count equal to an entity's live rows means every live row is new.
        for ref in inserted where graph.isLive(ref) { insertedCount[Int(ref.entity)] += 1 }
        for entity in 0..<entityCount where insertedCount[entity] > 0 {
            let table = graph.tables[entity]
            var unordered: [UInt64] = []
            if insertedCount[entity] * 4 >= table.rowCount {
                // Rows usually hold ascending identifiers: runs straight away, no array of them all.
                // When every live row is new (a bulk insert), no row needs looking up.
                let allNew = insertedCount[entity] == table.liveCount
                for row in 0..<table.rowCount
                where table.isLive[row] && (allNew || inserted.contains(ObjectRef(entity: entity, row: row))) {
                    let id = table.ids[row]
                    if unordered.isEmpty, insertedIDs[entity].append(id) { continue }
                    if unordered.isEmpty { unordered = Array(insertedIDs[entity]) }
                    unordered.append(id)
                }
                if unordered.isEmpty { continue }
            } else {
                for ref in inserted where Int(ref.entity) == entity && table.isLive[Int(ref.row)] {
                    unordered.append(table.ids[Int(ref.row)])
                }
            }
            insertedIDs[entity] = IdentifierRuns(unordered.sorted())
        }
        var updates: [Int: [[Int]: [UInt64]]] = [:]
        for (ref, properties) in updated where graph.isLive(ref) {
            let entity = layout.entities[Int(ref.entity)]
            // Hidden inverses have no name to report; an object changed only there is not reported.
            let visible = properties.sorted().filter { $0 < entity.attributes.count || entity.links[$0 - entity.attributes.count].name != nil }
            guard !visible.isEmpty else { continue }
            updates[Int(ref.entity), default: [:]][visible, default: []].append(graph.tables[Int(ref.entity)].ids[Int(ref.row)])
        }
        var deletedIDs = [[UInt64]](repeating: [], count: entityCount)
        // Only what this save deletes from the saved state: another context may have saved the same delete.
        for ref in deleted where !graph.isLive(ref) && existedAtSave(ref) {
            deletedIDs[Int(ref.entity)].append(graph.tables[Int(ref.entity)].ids[Int(ref.row)])
        }
        for entity in 0..<entityCount {
            let described = layout.entities[entity], attributes = described.attributes
            let preserved = attributes.indices.filter { attributes[$0].options.contains(.preserveValueOnDeletion) }
            transaction.appendChanges(of: described.name, inserted: insertedIDs[entity], updated: updates[entity] ?? [:],
                                      propertyName: { $0 < attributes.count ? attributes[$0].name
                                          : described.links[$0 - attributes.count].name ?? "" },
                                      deleted: deletedIDs[entity],
                                      preserved: preserved.map { (attributes[$0].name, attributes[$0].type) }) { id, slot in
                preservedValue(id, attribute: preserved[slot])
            }
        }
        return transaction.isEmpty ? nil : transaction
    }

    /// A deleted object's last value of a `preserveValueOnDeletion`
    /// attribute (its tombstone's): as the context holds it, else as saved.
    private func preservedValue(_ id: UInt64, attribute index: Int) -> Value? {
        if let ref = graph.index[id] { return try? graph.loadValue(ref, index) }
        if let saved = baseline.index[id] { return try? baseline.loadValue(saved, index) }
        return nil
    }
}
