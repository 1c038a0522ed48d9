import Foundation

/// Tells when new transactions arrive in a container's history — SwiftData's
/// `HistoryObserver` (iOS 27): an `@Observable` object whose ``eventCounter``
/// goes up each time saves matching its criteria are recorded, so code outside
/// SwiftUI (or a SwiftUI view) can react and then fetch what changed.
///
/// ```swift
/// let observer = try HistoryObserver(observedModels: [Trip.self], modelContainer: container)
/// withObservationTracking {
///     _ = observer.eventCounter
/// } onChange: {
///     // New Trip transactions: fetch them after the token last processed.
/// }
/// ```
///
/// It sees every save of the container's document: those of every context
/// of every container on the package in this process (autosaves included),
/// `deleteAllData()` aside (it records no transaction), and those of other
/// processes — a package watcher notices their commits, and the container
/// takes them in, as its contexts then show at their next fetch (see
/// <doc:ObservingHistory>).
///
/// **Which transactions count.** Those after ``historyTokens``' position for
/// the container's shared document: with `historyTokens` `nil`, the position when the
/// observer was made (only later saves count); otherwise the token given for
/// ``ModelContainer``'s store identifier (its package's path), or the start of
/// the history when none is given for it. A transaction counts when it changes
/// an object of one of ``observedModels`` (any, when empty) and, when
/// ``authors`` is not empty, its author is one of them. Each time one or more
/// such transactions arrive together the counter goes up by one: it counts
/// events, not transactions (fetch the history to see them).
///
/// **Threading.** The observer belongs to the isolation it was made in (the
/// `isolation` argument, the caller's by default), and ``eventCounter`` and
/// ``historyTokens`` change only there. Made on the main actor, it updates at
/// once when the save is made on the main actor (`save()` or an autosave of
/// the main context returns with the counter already up), and otherwise in a
/// task on the main actor soon after; made on another actor, in a task on that
/// actor; made outside any actor, on the thread that saved (or the watcher's
/// queue, for another process), serialized by a lock. Saves that arrive before
/// the task runs make one event.
///
/// The observer holds its container; the container's shared document holds the
/// observer weakly: an observer that goes away is no longer told, and the
/// package watcher stops with the shared document's last observer.
@Observable
public final class HistoryObserver: @unchecked Sendable {
    /// The container whose document's history is observed.
    @ObservationIgnored public let modelContainer: ModelContainer
    /// The model classes whose changes count; empty: every change counts.
    @ObservationIgnored public let observedModels: [any PersistentModel.Type]
    /// The authors (``ModelContext/author``) whose transactions count; empty: every author's, and none.
    @ObservationIgnored public let authors: Set<String>

    /// How many times transactions matching the observer's criteria arrived:
    /// up by one per arrival (several saves taken together count once).
    ///
    /// Changes only on the observer's isolation (see the type's discussion).
    public private(set) var eventCounter = 0

    /// The observer's position in the history, keyed by store identifier: a
    /// ``DefaultHistoryToken`` after the last transaction it has looked at
    /// (matching or not). Pass it to a later observer, or compare it with the
    /// tokens of ``ModelContext/fetchHistory(_:)``'s transactions.
    public private(set) var historyTokens: [String: any HistoryToken]

    @ObservationIgnored private let isolation: (any Actor)?
    @ObservationIgnored private let storeIdentifier: String
    @ObservationIgnored private let entityNames: Set<String>
    /// Recursive: a change handler run by a mutation below may save, which tells this observer again.
    @ObservationIgnored private let lock = NSRecursiveLock()
    /// Transactions told and not yet looked at, and whether a task will look at them.
    @ObservationIgnored private var pending: [StoredTransaction] = []
    @ObservationIgnored private var isScheduled = false
    /// The number of the last transaction looked at.
    @ObservationIgnored private var position: Int64

    /// Observes the history of `modelContainer`'s document.
    ///
    /// - Parameters:
    ///   - historyTokens: where to start, keyed by store identifier
    ///     (``DefaultHistoryTransaction/storeIdentifier``); `nil`: from now. With
    ///     tokens, transactions already past them that match make ``eventCounter``
    ///     start at 1.
    ///   - observedModels: the model classes whose changes count; empty: all.
    ///   - authors: the transaction authors that count; empty: all.
    ///   - modelContainer: the container to observe.
    ///   - isolation: where the observer's properties change; the caller's.
    /// - Throws: ``ModelError/package(_:)`` when the history cannot be read;
    ///   ``ModelError/configuration(_:)`` for a token of this store that is not
    ///   a ``DefaultHistoryToken``.
    /// - Complexity: reads the history once (O(transactions)); afterwards each
    ///   save costs O(its changes) to check.
    public init(
        historyTokens: [String: any HistoryToken]? = nil, observedModels: [any PersistentModel.Type] = [],
        authors: Set<String> = [], modelContainer: ModelContainer,
        isolation: isolated (any Actor)? = #isolation
    ) throws {
        self.modelContainer = modelContainer
        self.observedModels = observedModels
        self.authors = authors
        self.isolation = isolation
        let storeIdentifier = modelContainer.core.storeIdentifier
        self.storeIdentifier = storeIdentifier
        entityNames = Set(observedModels.map { $0.entityName })
        var start: Int64 = 0
        if let token = historyTokens?[storeIdentifier] {
            guard let token = token as? DefaultHistoryToken else {
                throw ModelError.configuration("a HistoryObserver takes DefaultHistoryToken for \(storeIdentifier), not \(type(of: token))")
            }
            start = token.transactionNumber
        }
        position = start
        self.historyTokens = [storeIdentifier: DefaultHistoryToken(transactionNumber: start)]
        // Registered before the history is read: a save in between is in what is read, or told after.
        let sharedDocument = modelContainer.sharedDocument
        sharedDocument.addObserver(self)
        let stored: [StoredTransaction]
        do { stored = try sharedDocument.historyTransactions() } catch {
            sharedDocument.removeObserver(ObjectIdentifier(self))
            throw error
        }
        if historyTokens == nil {
            lock.withLock { position = max(position, stored.last?.number ?? 0) }
        } else {
            lock.withLock { pending += stored }
        }
        lookAtPending()
    }

    deinit {
        modelContainer.sharedDocument.removeObserver(ObjectIdentifier(self))
    }

    /// Looks at the transactions told since last time: moves the position past
    /// them and counts one event if any matches. On the observer's isolation
    /// (or, without one, under its lock).
    private func lookAtPending() {
        lock.lock()
        defer { lock.unlock() }
        isScheduled = false
        guard !pending.isEmpty else { return }
        let told = pending.sorted { $0.number < $1.number }
        pending.removeAll()
        let new = told.filter { $0.number > position }
        guard let last = new.last else { return }
        position = last.number
        let matched = new.contains(where: matches)
        historyTokens = [storeIdentifier: DefaultHistoryToken(transactionNumber: last.number)]
        if matched { eventCounter += 1 }
    }

    /// Whether a transaction counts: by one of ``authors`` (if any), changing one of ``observedModels`` (if any).
    private func matches(_ transaction: StoredTransaction) -> Bool {
        if !authors.isEmpty {
            guard let author = transaction.author, authors.contains(author) else { return false }
        }
        guard !entityNames.isEmpty else { return true }
        return transaction.inserted.contains { entityNames.contains($0.entity) }
            || transaction.updated.contains { entityNames.contains($0.entity) }
            || transaction.deleted.contains { entityNames.contains($0.entity) }
    }

    /// Runs ``lookAtPending()`` on `actor`.
    private static func lookAtPending(_ observer: HistoryObserver?, on actor: isolated any Actor) {
        observer?.lookAtPending()
    }
}

extension HistoryObserver: DocumentObserver {
    /// Keeps the transactions told and has them looked at on the observer's
    /// isolation: at once when that is here (no isolation, or the main actor
    /// on the main thread), else in one task for everything told meanwhile.
    func documentDidPublish(_ sharedDocument: SharedDocument, transactions: [StoredTransaction]) {
        let schedule = lock.withLock { () -> Bool in
            pending += transactions
            guard !isScheduled else { return false }
            isScheduled = true
            return true
        }
        guard schedule else { return }
        guard let isolation else { return lookAtPending() }
        if isolation === MainActor.shared, Self.isOnMainActor { return lookAtPending() }
        Task { [weak self] in await Self.lookAtPending(self, on: isolation) }
    }

    /// Marks the main queue, where the main actor's jobs run (on Linux, not
    /// always on the main thread: after `dispatchMain()` a worker thread drains it).
    private static let mainQueueKey: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()

    /// Whether the caller runs on the main actor: on the main thread, or in a job of the main queue.
    static var isOnMainActor: Bool {
        Thread.isMainThread || DispatchQueue.getSpecific(key: mainQueueKey) == true
    }
}
