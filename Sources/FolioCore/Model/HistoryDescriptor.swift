import Foundation

/// Which transactions of a document's history to fetch or delete, and in
/// what order — SwiftData's `HistoryDescriptor`.
///
/// ```swift
/// var descriptor = HistoryDescriptor<DefaultHistoryTransaction>(
///     predicate: #Predicate { $0.token > lastToken && $0.author != "widget" })
/// descriptor.fetchLimit = 100
/// ```
///
/// Without a sort, transactions come oldest first.
public struct HistoryDescriptor<T: HistoryTransaction> {
    /// The transactions to select; `nil` selects all.
    public var predicate: Predicate<T>?
    /// The order of the result, after which ``fetchLimit`` applies; empty: oldest first.
    public var sortBy: [SortDescriptor<T>]
    /// The most transactions to return; `nil` for no limit.
    public var fetchLimit: Int?

    /// Describes the transactions `predicate` selects (all, if `nil`), oldest first.
    public init(predicate: Predicate<T>? = nil) {
        self.predicate = predicate
        sortBy = []
    }

    /// Describes the transactions `predicate` selects, in the order `sortBy` gives.
    public init(predicate: Predicate<T>? = nil, sortBy: [SortDescriptor<T>]) {
        self.predicate = predicate
        self.sortBy = sortBy
    }
}
