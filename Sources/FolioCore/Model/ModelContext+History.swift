import Foundation

/// SwiftData's history API: what changed, save by save.
extension ModelContext {
    /// The transactions of the document's history that `descriptor` selects,
    /// oldest first unless it sorts them — SwiftData's `fetchHistory(_:)`.
    ///
    /// ```swift
    /// let token = DefaultHistoryToken(transactionNumber: lastSeen)
    /// let changed = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(
    ///     predicate: #Predicate { $0.token > token }))
    /// ```
    ///
    /// The history is the document's, not this context's: it holds every save
    /// of every context and process that wrote the package, autosaves too, and
    /// is read from the package when another process wrote it since this
    /// container read it. Unsaved changes are not in it.
    ///
    /// - Throws: ``ModelError/package(_:)`` when a history file is missing or
    ///   damaged; what `descriptor`'s predicate throws.
    /// - Complexity: O(transactions in the history); each change is typed by the
    ///   model class of its entity.
    public func fetchHistory<T: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>) throws -> [T] {
        let stored = try sharedDocument.historyTransactions()
        let storeIdentifier = core.storeIdentifier
        var result: [T] = []
        for transaction in stored {
            guard let typed = historyTransaction(transaction, storeIdentifier: storeIdentifier) as? T else { continue }
            if let predicate = descriptor.predicate, try !predicate.evaluate(typed) { continue }
            result.append(typed)
        }
        if !descriptor.sortBy.isEmpty { result.sort(using: descriptor.sortBy) }
        if let limit = descriptor.fetchLimit { result = Array(result.prefix(max(0, limit))) }
        return result
    }

    /// Deletes the transactions of the document's history that `descriptor`
    /// selects — SwiftData's `deleteHistory(_:)` — and writes the package at once.
    ///
    /// ```swift
    /// // Everything every reader has seen:
    /// try context.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>(
    ///     predicate: #Predicate { $0.token <= oldestTokenStillNeeded }))
    /// ```
    ///
    /// Deleted transactions are gone from the package, tombstone values and
    /// all: the history files that held them are replaced. Transaction numbers
    /// are not reused, so tokens kept by readers stay comparable. Not undoable.
    /// The descriptor's sort and limit apply before the delete (the first
    /// `fetchLimit` transactions in its order are deleted).
    ///
    /// - Throws: ``ModelError/package(_:)`` when the history cannot be read or
    ///   the package written (nothing is deleted then);
    ///   ``ModelError/saveNotAllowed`` for a read-only configuration; what the
    ///   predicate throws.
    public func deleteHistory<T: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>) throws {
        let selected = Set(try fetchHistory(descriptor).compactMap { ($0 as? DefaultHistoryTransaction)?.transactionIdentifier })
        guard !selected.isEmpty else { return }
        try sharedDocument.deleteHistory(allowsSave: core.configuration.allowsSave) { selected.contains($0.number) }
        // The undo journal keeps deleted objects' values, as the history did: it goes too.
        sharedDocument.package?.removeUndoJournal()
    }

    /// A stored transaction as the typed API shows it: its groups as stored,
    /// its one change per object made only when ``DefaultHistoryTransaction/changes`` is read.
    ///
    /// - Complexity: O(runs and tombstones of the transaction); reading
    ///   `changes` then costs O(objects it names).
    func historyTransaction(_ stored: StoredTransaction, storeIdentifier: String) -> DefaultHistoryTransaction {
        var groups: [HistoryChangeGroup] = []
        for objects in stored.inserted {
            groups.append(
                HistoryChangeGroup(
                    kind: .insert, entityName: objects.entity, updatedAttributeNames: [],
                    identifierRanges: objects.ids.runs, count: objects.ids.count))
        }
        for update in stored.updated {
            groups.append(
                HistoryChangeGroup(
                    kind: .update, entityName: update.entity, updatedAttributeNames: update.properties,
                    identifierRanges: update.ids.runs, count: update.ids.count))
        }
        for objects in stored.deleted {
            groups.append(
                HistoryChangeGroup(
                    kind: .delete, entityName: objects.entity, updatedAttributeNames: [],
                    identifierRanges: objects.ids.runs, count: objects.ids.count))
        }
        let types = schema.modelTypes
        return DefaultHistoryTransaction(
            transactionIdentifier: stored.number,
            token: DefaultHistoryToken(transactionNumber: stored.number), author: stored.author,
            timestamp: stored.timestamp, changeGroups: groups,
            tombstones: stored.tombstones.map {
                (PersistentIdentifier(entityName: $0.entity, id: $0.id, storeIdentifier: storeIdentifier), $0.values.map { ($0.name, $0.value) })
            },
            changeList: HistoryChangeList { Self.changes(of: stored, types: types, store: storeIdentifier) },
            bundleIdentifier: stored.bundleIdentifier,
            processIdentifier: stored.processIdentifier, storeIdentifier: storeIdentifier)
    }

    /// One change per object a stored transaction names, typed by the model
    /// classes (``DynamicModel`` for an entity no class declares).
    private static func changes(
        of stored: StoredTransaction, types: [String: any PersistentModel.Type],
        store: String
    ) -> [HistoryChange] {
        var changes: [HistoryChange] = []
        func next() -> Int64 { stored.number &* (1 << 32) &+ Int64(changes.count) }
        func modelType(_ entity: String) -> any PersistentModel.Type { types[entity] ?? DynamicModel.self }
        for objects in stored.inserted {
            let type = modelType(objects.entity)
            for id in objects.ids {
                changes.append(
                    .insert(
                        Self.insert(
                            type, PersistentIdentifier(entityName: objects.entity, id: id, storeIdentifier: store),
                            next(), stored.number)))
            }
        }
        // Stored grouped by the properties changed; shown by entity, then identifier.
        var updates: [(entity: String, id: UInt64, properties: [String])] = []
        for update in stored.updated {
            updates += update.ids.map { (update.entity, $0, update.properties) }
        }
        let entityOrder = Dictionary(stored.updated.enumerated().map { ($1.entity, $0) }, uniquingKeysWith: { first, _ in first })
        updates.sort { (entityOrder[$0.entity] ?? 0, $0.id) < (entityOrder[$1.entity] ?? 0, $1.id) }
        for update in updates {
            changes.append(
                .update(
                    Self.update(
                        modelType(update.entity), PersistentIdentifier(entityName: update.entity, id: update.id, storeIdentifier: store),
                        next(), stored.number, update.properties)))
        }
        var tombstones: [UInt64: [(name: String, value: Value)]] = [:]
        for tombstone in stored.tombstones { tombstones[tombstone.id] = tombstone.values.map { ($0.name, $0.value) } }
        for objects in stored.deleted {
            let type = modelType(objects.entity)
            for id in objects.ids {
                changes.append(
                    .delete(
                        Self.delete(
                            type, PersistentIdentifier(entityName: objects.entity, id: id, storeIdentifier: store), next(), stored.number,
                            tombstones[id] ?? [])))
            }
        }
        return changes
    }

    private static func insert<Model: PersistentModel>(
        _ type: Model.Type, _ id: PersistentIdentifier, _ change: Int64,
        _ transaction: Int64
    ) -> any HistoryInsert {
        DefaultHistoryInsert<Model>(changedPersistentIdentifier: id, changeIdentifier: change, transactionIdentifier: transaction)
    }

    private static func update<Model: PersistentModel>(
        _ type: Model.Type, _ id: PersistentIdentifier, _ change: Int64,
        _ transaction: Int64, _ names: [String]
    ) -> any HistoryUpdate {
        let keyPaths = names.compactMap { name in
            ModelMetadata.of(Model.self).property(named: name)?.keyPath as? PartialKeyPath<Model>
        }
        return DefaultHistoryUpdate<Model>(
            changedPersistentIdentifier: id, changeIdentifier: change, transactionIdentifier: transaction,
            updatedAttributes: keyPaths, updatedAttributeNames: names)
    }

    private static func delete<Model: PersistentModel>(
        _ type: Model.Type, _ id: PersistentIdentifier, _ change: Int64,
        _ transaction: Int64, _ values: [(name: String, value: Value)]
    ) -> any HistoryDelete {
        DefaultHistoryDelete<Model>(
            changedPersistentIdentifier: id, changeIdentifier: change, transactionIdentifier: transaction,
            tombstone: HistoryTombstone(values: values))
    }
}
