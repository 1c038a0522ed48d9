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
        let updates = updateGroups(graph: graph)
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

    /// The updated objects a transaction reports, by entity and by the
    /// properties they changed (sorted; hidden inverses left out, and an
    /// object changed only there left out). O(updated objects).
    func updateGroups(graph: ObjectGraph) -> [Int: [[Int]: [UInt64]]] {
        let layout = graph.layout
        var updates: [Int: [[Int]: [UInt64]]] = [:]
        for (ref, properties) in updated where graph.isLive(ref) {
            let entity = layout.entities[Int(ref.entity)]
            // Hidden inverses have no name to report; an object changed only there is not reported.
            let visible = properties.sorted().filter { $0 < entity.attributes.count || entity.links[$0 - entity.attributes.count].name != nil }
            guard !visible.isEmpty else { continue }
            updates[Int(ref.entity), default: [:]][visible, default: []].append(graph.tables[Int(ref.entity)].ids[Int(ref.row)])
        }
        return updates
    }

    /// The identifiers ``storedTransaction(graph:baseline:author:at:)`` records,
    /// in its order, without building it: what `didSave` reports, made in one
    /// pass over the tracking's rows. Call once merged and settled.
    ///
    /// - Complexity: O(changes), plus a word per 64 rows of the entities with
    ///   inserts or deletes; a sort only of an entity whose rows do not hold
    ///   ascending identifiers.
    func savedIdentifiers(graph: ObjectGraph, baseline: ObjectGraph) -> SavedIdentifiers {
        let layout = graph.layout
        var saved = SavedIdentifiers()
        saved.inserted.reserveCapacity(inserted.count)
        saved.deleted.reserveCapacity(deleted.count)
        /// Appends `rows`' identifiers `include` keeps, ascending.
        func collect(_ rows: ObjectRefSet, of entity: Int, into list: inout [PersistentIdentifier], _ include: (Int, UInt64) -> Bool) {
            let table = graph.tables[entity], name = layout.entities[entity].name
            let start = list.count
            var ascending = true, last: UInt64 = 0
            rows.forEachRow(of: entity) { row in
                let id = table.ids[row]
                guard include(row, id) else { return }
                if id <= last { ascending = false }
                last = id
                list.append(PersistentIdentifier(entityName: name, id: id))
            }
            if !ascending { list[start...].sort { $0.id < $1.id } }
        }
        let updates = updateGroups(graph: graph)
        for entity in 0..<layout.entities.count {
            let table = graph.tables[entity], name = layout.entities[entity].name
            collect(inserted, of: entity, into: &saved.inserted) { row, _ in table.isLive[row] }
            for (_, ids) in (updates[entity] ?? [:]).sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) {
                saved.updated += ids.sorted().map { PersistentIdentifier(entityName: name, id: $0) }
            }
            // As the transaction: only what this save deletes from the saved state. An object
            // usually has the same row there (both graphs grew from one saved state): no lookup then.
            let savedTable = baseline.tables[entity]
            collect(deleted, of: entity, into: &saved.deleted) { row, id in
                guard !table.isLive[row] else { return false }
                if row < savedTable.rowCount, savedTable.ids[row] == id { return savedTable.isLive[row] }
                guard let ref = baseline.index[id] else { return false }
                return baseline.isLive(ref)
            }
        }
        return saved
    }

    /// Whether a save of this tracking deletes objects with
    /// `preserveValueOnDeletion` attributes, whose tombstones read values.
    func deletesPreservedValues(in graph: ObjectGraph) -> Bool {
        guard !deleted.isEmpty else { return false }
        return graph.layout.entities.indices.contains { entity in
            deleted.count(of: entity) > 0
                && graph.layout.entities[entity].attributes.contains { $0.options.contains(.preserveValueOnDeletion) }
        }
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

    /// ``makeStoredTransaction(at:)`` built when the history first needs it
    /// (``PendingTransaction``), over this tracking as it is now: the edits
    /// are settled here, the transaction is built from `snapshot` (the graph
    /// the save publishes) and the baseline, which no one edits. A save that
    /// deletes objects with preserved values builds it at once: their
    /// tombstones may read values from the package, which only this thread does.
    func makePendingTransaction(snapshot: ObjectGraph, at timestamp: Date = Date()) -> PendingTransaction {
        settleEveryEdit()
        let tracking = self.tracking, author = self.author
        guard !tracking.deletesPreservedValues(in: graph) else {
            return PendingTransaction(tracking.storedTransaction(graph: graph, baseline: baseline, author: author, at: timestamp))
        }
        // Saved states: replaced by later saves, never edited, so another thread may read them.
        nonisolated(unsafe) let snapshot = snapshot, baseline = self.baseline
        return PendingTransaction { tracking.storedTransaction(graph: snapshot, baseline: baseline, author: author, at: timestamp) }
    }

    /// Compares every edited object with the saved state again, not only
    /// those edited since the last settle.
    func settleEveryEdit() {
        tracking.unsettled.formUnion(tracking.updated.keys)
        settleTracking()
    }
}
