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
    func postDidSave(_ identifiers: consuming SavedIdentifiers) {
        let saved = SavedIdentifiersBox(consume identifiers)
        do {
            let userInfo: [String: [PersistentIdentifier]] = [
                NotificationKey.insertedIdentifiers.rawValue: saved.identifiers.inserted,
                NotificationKey.updatedIdentifiers.rawValue: saved.identifiers.updated,
                NotificationKey.deletedIdentifiers.rawValue: saved.identifiers.deleted,
            ]
            NotificationCenter.default.post(name: ModelContext.didSave, object: self, userInfo: userInfo)
        }
        // Freeing a cascade's identifiers is a release per string of each: done off this thread,
        // once no observer holds them (an observer that kept them frees them when it lets go).
        guard saved.identifiers.count >= SavedIdentifiers.releasedElsewhere else { return }
        DispatchQueue.global(qos: .utility).async { withExtendedLifetime(saved) {} }
    }
}

/// The identifiers a save recorded, as ``ModelContext/didSave`` reports
/// them: inserted, updated and deleted, each in the order of the save's
/// history transaction (entity by entity in schema order; identifiers
/// ascending; updates grouped by the properties they changed).
struct SavedIdentifiers: Equatable, Sendable {
    var inserted: [PersistentIdentifier] = []
    var updated: [PersistentIdentifier] = []
    var deleted: [PersistentIdentifier] = []

    /// From this many identifiers on, the lists are freed on another thread.
    static let releasedElsewhere = 4096

    init() {}

    /// The identifiers `transaction` records (none for `nil`).
    init(_ transaction: StoredTransaction?) {
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
        inserted = identifiers(transaction?.inserted.map { ($0.entity, $0.ids) } ?? [])
        updated = identifiers(transaction?.updated.map { ($0.entity, $0.ids) } ?? [])
        deleted = identifiers(transaction?.deleted.map { ($0.entity, $0.ids) } ?? [])
    }

    /// How many identifiers the three lists hold.
    var count: Int { inserted.count + updated.count + deleted.count }
}

/// The lists of a ``SavedIdentifiers`` held by reference, so their last
/// release can be handed to another thread.
private final class SavedIdentifiersBox: Sendable {
    let identifiers: SavedIdentifiers

    init(_ identifiers: SavedIdentifiers) { self.identifiers = identifiers }
}
