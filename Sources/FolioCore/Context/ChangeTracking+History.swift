import Foundation

/// What a save records in the document's history.
extension ChangeTracking {
    /// The transaction a save of this context's changes records: what it
    /// inserts, updates (which properties) and deletes, with the tombstones of
    /// deleted objects' `preserveValueOnDeletion` attributes; `nil` when the
    /// changes cancel out. Call once merged and settled, as a save does
    /// (``ModelContext/makeStoredTransaction(at:)``).
    ///
    /// - Complexity: O(changes), plus a word per 64 rows of the entities with
    ///   inserts or deletes. Rows usually hold ascending identifiers, so the
    ///   identifiers come sorted already.
    func storedTransaction(
        graph: ObjectGraph, baseline: ObjectGraph, author: String?,
        at timestamp: Date
    ) -> StoredTransaction? {
        let layout = graph.layout
        let entityCount = layout.entities.count
        var transaction = StoredTransaction(
            number: 0, timestamp: StoredTransaction.recordedTimestamp(timestamp), author: author,
            bundleIdentifier: StoredTransaction.currentBundleIdentifier,
            processIdentifier: StoredTransaction.currentProcessIdentifier)
        var updates: [Int: [[Int]: [UInt64]]] = [:]
        for (ref, properties) in updated where graph.isLive(ref) {
            let entity = layout.entities[Int(ref.entity)]
            // Hidden inverses have no name to report; an object changed only there is not reported.
            let visible = properties.sorted().filter { $0 < entity.attributes.count || entity.links[$0 - entity.attributes.count].name != nil }
            guard !visible.isEmpty else { continue }
            updates[Int(ref.entity), default: [:]][visible, default: []].append(graph.tables[Int(ref.entity)].ids[Int(ref.row)])
        }
        for entity in 0..<entityCount {
            let table = graph.tables[entity]
            // Runs straight away, with no array of them all, while the rows hold ascending identifiers.
            var insertedIDs = IdentifierRuns()
            var unordered: [UInt64] = []
            inserted.forEachRow(of: entity) { row in
                guard table.isLive[row] else { return }
                let id = table.ids[row]
                if unordered.isEmpty, insertedIDs.append(id) { return }
                if unordered.isEmpty { unordered = Array(insertedIDs) }
                unordered.append(id)
            }
            if !unordered.isEmpty { insertedIDs = IdentifierRuns(unordered.sorted()) }
            var deletedIDs: [UInt64] = []
            // Only what this save deletes from the saved state: another context may have saved the same delete.
            deleted.forEachRow(of: entity) { row in
                let id = table.ids[row]
                if !table.isLive[row], let saved = baseline.index[id], baseline.isLive(saved) { deletedIDs.append(id) }
            }
            let described = layout.entities[entity], attributes = described.attributes
            let preserved = attributes.indices.filter { attributes[$0].options.contains(.preserveValueOnDeletion) }
            transaction.appendChanges(
                of: described.name, inserted: insertedIDs,
                updated: updates[entity] ?? [:],
                propertyName: {
                    $0 < attributes.count
                        ? attributes[$0].name
                        : described.links[$0 - attributes.count].name ?? ""
                },
                deleted: deletedIDs,
                preserved: preserved.map { (attributes[$0].name, attributes[$0].type) }
            ) { id, slot in
                Self.preservedValue(id, attribute: preserved[slot], graph: graph, baseline: baseline)
            }
        }
        return transaction.isEmpty ? nil : transaction
    }

    /// A deleted object's last value of a `preserveValueOnDeletion`
    /// attribute (its tombstone's): as the context holds it, else as saved.
    private static func preservedValue(_ id: UInt64, attribute index: Int, graph: ObjectGraph, baseline: ObjectGraph) -> Value? {
        if let ref = graph.index[id] { return try? graph.loadValue(ref, index) }
        if let saved = baseline.index[id] { return try? baseline.loadValue(saved, index) }
        return nil
    }
}

extension ModelContext {
    /// The transaction a save of this context's changes records
    /// (``ChangeTracking/storedTransaction(graph:baseline:author:at:)``), with
    /// every edited object compared with the saved state again first: a merge
    /// just before the save may have made an edit equal to what another
    /// context saved meanwhile.
    func makeStoredTransaction(at timestamp: Date = Date()) -> StoredTransaction? {
        settleEveryEdit()
        return tracking.storedTransaction(graph: graph, baseline: baseline, author: author, at: timestamp)
    }

    /// Compares every edited object with the saved state again, not only
    /// those edited since the last settle.
    func settleEveryEdit() {
        tracking.unsettled.formUnion(tracking.updated.keys)
        settleTracking()
    }
}
