import Foundation

/// SwiftData's save notifications.
extension ModelContext {
    /// Posted through `NotificationCenter.default` just before a context
    /// saves changes (explicitly, at the end of a transaction, or as an
    /// autosave), on the saving thread; the object is the context.
    public static let willSave = Notification.Name("Folio.ModelContext.willSave")

    /// Posted through `NotificationCenter.default` once a context's save is
    /// done, on the saving thread; the object is the context, and the user info
    /// holds the identifiers saved under ``NotificationKey``'s keys.
    ///
    /// ```swift
    /// NotificationCenter.default.addObserver(forName: ModelContext.didSave, object: nil, queue: nil) { note in
    ///     let inserted = note.userInfo?[ModelContext.NotificationKey.insertedIdentifiers.rawValue]
    ///         as? [PersistentIdentifier] ?? []
    /// }
    /// ```
    ///
    /// For an autosave it is posted when the save is published (what other
    /// contexts merge), which may be before the background write reaches the
    /// disk. A save that fails posts nothing.
    public static let didSave = Notification.Name("Folio.ModelContext.didSave")

    /// The keys of ``didSave``'s user info — SwiftData's `ModelContext.NotificationKey`.
    public enum NotificationKey: String, Sendable {
        /// `[PersistentIdentifier]`: the objects the save inserted.
        case insertedIdentifiers
        /// `[PersistentIdentifier]`: the objects the save changed.
        case updatedIdentifiers
        /// `[PersistentIdentifier]`: the objects the save deleted.
        case deletedIdentifiers
    }

    /// Posts ``willSave``.
    func postWillSave() {
        NotificationCenter.default.post(name: ModelContext.willSave, object: self)
    }

    /// Posts ``didSave`` with the identifiers of what the save recorded.
    func postDidSave(_ transaction: StoredTransaction?) {
        // Sized once and filled run by run: a cascade's save names a hundred thousand objects.
        func identifiers(_ lists: [(entity: String, ids: IdentifierRuns)]) -> [PersistentIdentifier] {
            var result: [PersistentIdentifier] = []
            result.reserveCapacity(lists.reduce(0) { $0 + $1.ids.count })
            for list in lists {
                for run in list.ids.runs {
                    for id in run { result.append(PersistentIdentifier(entityName: list.entity, id: id)) }
                }
            }
            return result
        }
        let userInfo: [String: [PersistentIdentifier]] = [
            NotificationKey.insertedIdentifiers.rawValue: identifiers(transaction?.inserted.map { ($0.entity, $0.ids) } ?? []),
            NotificationKey.updatedIdentifiers.rawValue: identifiers(transaction?.updated.map { ($0.entity, $0.ids) } ?? []),
            NotificationKey.deletedIdentifiers.rawValue: identifiers(transaction?.deleted.map { ($0.entity, $0.ids) } ?? []),
        ]
        NotificationCenter.default.post(name: ModelContext.didSave, object: self, userInfo: userInfo)
    }
}
