import Foundation

/// One save of a document as its history records it — SwiftData's `DefaultHistoryTransaction`.
///
/// ```swift
/// let descriptor = HistoryDescriptor<DefaultHistoryTransaction>(
///     predicate: #Predicate { $0.token > lastToken })
/// for transaction in try context.fetchHistory(descriptor) {
///     for change in transaction.changes {
///         if case .insert(let insert as DefaultHistoryInsert<Trip>) = change { … }
///     }
///     lastToken = transaction.token
/// }
/// ```
///
/// Every save that changes something records one transaction, autosaves and
/// the saves of background contexts too. It is written into the package by
/// the same commit as the save's objects, so another process, or the next
/// launch, reads the same history.
public struct DefaultHistoryTransaction: HistoryTransaction {
    /// The transaction's number: 1 for the document's first save, one more for each save after.
    public let transactionIdentifier: Int64
    /// The token just after this transaction.
    public let token: DefaultHistoryToken
    /// The ``ModelContext/author`` of the context that saved, if it set one.
    public let author: String?
    /// When the save was made.
    public let timestamp: Date
    /// The changes, by object: inserts first, then updates, then deletes, each by entity then identifier.
    ///
    /// Made when first read, one per object (a transaction that inserted a
    /// million objects makes a million): ``changeGroups`` has the same
    /// changes as ranges of identifiers, at the size the history stores them.
    public var changes: [HistoryChange] { changeList.changes }
    /// The changes as the history stores them: by kind, entity (and updated
    /// properties), with identifiers as ranges — inserts, then updates, then deletes.
    public let changeGroups: [HistoryChangeGroup]
    /// The preserved values of the deleted objects that have a tombstone, by
    /// identifier (also in each delete's ``HistoryDelete/preservedValues``).
    public let tombstones: [(id: PersistentIdentifier, values: [(name: String, value: Value)])]
    /// Makes ``changes`` once, when first asked for.
    let changeList: HistoryChangeList
    /// The program that saved: its bundle identifier, or its executable's name where there is no bundle.
    public let bundleIdentifier: String
    /// The process that saved, as a decimal process identifier.
    public let processIdentifier: String
    /// The document: the package's path (`/dev/null` in memory).
    public let storeIdentifier: String

    /// The transaction's number, as `Identifiable` asks.
    public var id: Int64 { transactionIdentifier }

    /// Transactions are equal when they have the same number in the same document.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.transactionIdentifier == rhs.transactionIdentifier && lhs.storeIdentifier == rhs.storeIdentifier
    }

    /// Hashes the number.
    public func hash(into hasher: inout Hasher) { hasher.combine(transactionIdentifier) }
}

/// A transaction's ``DefaultHistoryTransaction/changes``, made on first use
/// and kept: a summary of a large transaction (the REPL's `changes`, a
/// predicate on tokens) never makes one change per object.
final class HistoryChangeList: @unchecked Sendable {
    private let lock = NSLock()
    private var make: (() -> [HistoryChange])?
    private var made: [HistoryChange]?

    init(_ make: @escaping () -> [HistoryChange]) { self.make = make }

    /// Whether the changes have been made (what tests check to see that they are not made unasked).
    var isMade: Bool { lock.withLock { made != nil } }

    var changes: [HistoryChange] {
        lock.withLock {
            if let made { return made }
            let changes = make?() ?? []
            made = changes
            make = nil
            return changes
        }
    }
}
