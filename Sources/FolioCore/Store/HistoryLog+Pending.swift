/// Saves' transactions the log holds before they are built: a save records
/// its transaction here in O(1), and the log builds and appends the pending
/// ones, in order, before anything reads or writes it. An autosave's write
/// builds them on the background writer, so the editing thread never does.
extension HistoryLog {
    /// A save's transaction waiting to be recorded, with the time of the save.
    struct Pending: Equatable, Sendable {
        let transaction: PendingTransaction
        /// Milliseconds since 1970 when the save was recorded: what numbers it in format 3.
        let clock: Int64

        static func == (lhs: Self, rhs: Self) -> Bool { lhs.transaction === rhs.transaction && lhs.clock == rhs.clock }
    }

    /// Pending transactions past this many are recorded at once, so a run of
    /// saves with no write between them (in memory, nothing writes) holds few
    /// graph snapshots.
    static let pendingLimit = 8

    /// Whether saves' transactions wait to be recorded.
    var hasPending: Bool { !pending.isEmpty }

    /// Records a save's transaction, to be built and appended by
    /// ``recordPending(in:limits:schema:cache:)``, numbered as if appended now. O(1).
    mutating func appendPending(_ transaction: PendingTransaction) {
        pending.append(Pending(transaction: transaction, clock: Self.clockMilliseconds()))
    }

    /// Builds the pending transactions and appends them, oldest first, each
    /// as a save appends its own: the first one a log read from a package
    /// appends learns the history's heads first (and, for a history a Git
    /// merge branched, records the merge transaction before it). Each
    /// ``PendingTransaction`` is told what was recorded for it.
    ///
    /// - Complexity: what building them costs (their changes), plus what
    ///   appending them costs (``append(_:clock:)``).
    mutating func recordPending(in package: PackageFolder?, limits: DocumentLimits, schema: Schema?, cache: inout HeadsCache) {
        guard !pending.isEmpty else { return }
        let waiting = pending
        pending.removeAll()
        for entry in waiting {
            var recorded = entry.transaction.transaction
            var merge: StoredTransaction?
            if let transaction = recorded {
                if heads == nil {
                    merge = learnHeads(in: package, limits: limits, schema: schema, recordingMerge: true, cache: &cache)
                }
                recorded?.number = append(transaction, clock: entry.clock)
            }
            entry.transaction.didRecord(recorded, merge: merge)
        }
    }
}
