import Foundation

/// What to fetch: models of one type matching a `#Predicate`, in a
/// `SortDescriptor` order, optionally windowed — SwiftData's `FetchDescriptor`.
///
/// ```swift
/// let now = Date.now
/// var upcoming = FetchDescriptor<Trip>(predicate: #Predicate { $0.startDate > now },
///                                      sortBy: [SortDescriptor(\.startDate)])
/// upcoming.fetchLimit = 50
/// let trips = try context.fetch(upcoming)
/// ```
public struct FetchDescriptor<T: PersistentModel> {
    /// Which models to select; `nil` selects all.
    public var predicate: Predicate<T>?
    /// The order, most significant first; by identifier (insertion order) when empty.
    public var sortBy: [SortDescriptor<T>]
    /// At most this many models.
    public var fetchLimit: Int?
    /// Skip this many models first.
    public var fetchOffset: Int?
    /// Whether unsaved inserts and deletes count (`true`, the default) or only
    /// the objects that existed at the last save.
    ///
    /// With `false`, the predicate and sort still see the models' current
    /// values (a model is a view of the context's state, not of the store), so
    /// unsaved edits count; the dynamic API's `DynamicFetchDescriptor` reads
    /// the saved values instead.
    public var includePendingChanges: Bool = true
    /// Accepted for source compatibility; Folio reads the graph in memory, so there is nothing to prefetch.
    public var relationshipKeyPathsForPrefetching: [PartialKeyPath<T>] = []
    /// Accepted for source compatibility; every property is always available.
    public var propertiesToFetch: [PartialKeyPath<T>] = []

    /// Creates a descriptor.
    public init(predicate: Predicate<T>? = nil, sortBy: [SortDescriptor<T>] = []) {
        self.predicate = predicate
        self.sortBy = sortBy
    }
}
