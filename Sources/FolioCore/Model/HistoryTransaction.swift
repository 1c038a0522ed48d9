import Foundation

/// A transaction of a document's history: the changes one save made — SwiftData's `HistoryTransaction`.
///
/// Folio's one conforming type is ``DefaultHistoryTransaction``, which
/// ``ModelContext/fetchHistory(_:)`` returns.
public protocol HistoryTransaction: Hashable, Identifiable, Sendable {
    /// The type of the transaction's token.
    associatedtype TokenType: HistoryToken
    /// The type of the transaction's identifier.
    associatedtype TransactionIdentifier: Comparable, Hashable, Sendable

    /// The transaction's identifier, unique within the document.
    var transactionIdentifier: TransactionIdentifier { get }
    /// The point in the history just after this transaction.
    var token: TokenType { get }
    /// The ``ModelContext/author`` of the context that saved.
    var author: String? { get }
    /// When the save was made.
    var timestamp: Date { get }
    /// What the save changed, one change per object.
    var changes: [HistoryChange] { get }
    /// The document the transaction belongs to.
    var storeIdentifier: String { get }
}

/// A point in a document's history, to ask for what changed after it — SwiftData's `HistoryToken`.
///
/// Keep the token of the last transaction you processed (it is `Codable`),
/// and fetch the transactions whose token is greater next time.
public protocol HistoryToken: Comparable, Hashable, Identifiable, Sendable {}

/// The token of a ``DefaultHistoryTransaction``: its transaction's number.
///
/// Numbers grow with every save of the document and are never reused — also
/// not after ``ModelContext/deleteHistory(_:)`` or
/// ``ModelContainer/deleteAllData(errorHandler:)`` — so a token kept across
/// launches still compares with the transactions saved after it. Its text form
/// (``description``) is the number, which the REPL's `changes since N` takes.
public struct DefaultHistoryToken: HistoryToken, Codable, LosslessStringConvertible {
    /// The number of the transaction this token follows.
    public let transactionNumber: Int64

    /// The token just after transaction number `transactionNumber`; `0` is the
    /// start of the history (every transaction is after it).
    public init(transactionNumber: Int64) { self.transactionNumber = transactionNumber }

    /// Reads the text form, a transaction number (`"42"`); `nil` for anything else.
    public init?(_ description: String) {
        guard let number = Int64(description), number >= 0 else { return nil }
        transactionNumber = number
    }

    /// The transaction number, as text.
    public var description: String { String(transactionNumber) }

    /// The transaction number.
    public var id: Int64 { transactionNumber }

    /// Orders tokens as the transactions they follow were saved.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.transactionNumber < rhs.transactionNumber }
}
