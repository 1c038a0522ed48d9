import Foundation

/// A save's history transaction, built when first needed: by the write that
/// persists it (in the background for an autosave), or by whoever reads the
/// history or is told of the save before that. A cascade's transaction
/// names every object it deleted, so building it on the editing thread would
/// cost the editing thread a step per object for a record no one may read
/// before the write.
///
/// The building function is the saving context's, over values it captured
/// (its tracking and the saved graph, which no one edits), so it may run on
/// any thread and gives the same transaction wherever it runs. It runs once:
/// a second reader waits for the first and gets its result.
final class PendingTransaction: @unchecked Sendable {
    private let lock = NSLock()
    /// What builds the transaction (`nil` once built).
    private var build: (@Sendable () -> StoredTransaction?)?
    /// The transaction once built (`.some(nil)`: the changes cancelled out).
    private var built: StoredTransaction??
    /// Once the history recorded it: the transaction numbered, and the merge
    /// of a branched history the history recorded first, if any. Set by the
    /// shared document under its lock.
    private var recordedState: (transaction: StoredTransaction?, merge: StoredTransaction?)?

    /// A transaction `build` makes when first needed.
    init(building build: @escaping @Sendable () -> StoredTransaction?) {
        self.build = build
    }

    /// A transaction already made (`nil`: the changes cancelled out).
    init(_ transaction: StoredTransaction?) {
        built = .some(transaction)
    }

    /// The transaction, unnumbered, built now if it was not; `nil` when the changes cancelled out.
    var transaction: StoredTransaction? {
        lock.lock()
        defer { lock.unlock() }
        if let built { return built }
        let made = build?() ?? nil
        built = .some(made)
        build = nil
        return made
    }

    /// Whether the transaction is built (tests).
    var isBuilt: Bool {
        lock.lock()
        defer { lock.unlock() }
        return built != nil
    }

    /// What the history recorded for it; `nil` while it waits to be recorded.
    var recorded: (transaction: StoredTransaction?, merge: StoredTransaction?)? {
        lock.lock()
        defer { lock.unlock() }
        return recordedState
    }

    /// Notes what the history recorded for it.
    func didRecord(_ transaction: StoredTransaction?, merge: StoredTransaction?) {
        lock.lock()
        defer { lock.unlock() }
        recordedState = (transaction, merge)
    }
}
