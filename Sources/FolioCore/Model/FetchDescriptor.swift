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
    /// The relationships whose destinations to load with the result — a hint,
    /// as in SwiftData, that never changes what a fetch returns.
    ///
    /// Folio holds the whole graph in memory, so a relationship read is
    /// already a column read with nothing to prefetch; the hint is accepted
    /// (by ``ModelContext/fetch(_:)`` and ``ModelContext/fetch(_:batchSize:)``
    /// alike) so SwiftData code compiles and behaves the same.
    public var relationshipKeyPathsForPrefetching: [PartialKeyPath<T>] = []
    /// The properties to load with the result — a hint, as in SwiftData, that
    /// never changes what a fetch returns.
    ///
    /// Every property of a Folio model reads the document in memory on
    /// access, so a property left out is still readable and costs nothing
    /// more; a batched fetch holds no property values at all, only identifiers.
    public var propertiesToFetch: [PartialKeyPath<T>] = []

    /// Creates a descriptor.
    public init(predicate: Predicate<T>? = nil, sortBy: [SortDescriptor<T>] = []) {
        self.predicate = predicate
        self.sortBy = sortBy
    }
}
