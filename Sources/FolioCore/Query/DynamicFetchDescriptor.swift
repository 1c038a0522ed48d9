import Foundation

/// What to fetch through the dynamic API: an entity, a predicate, a sort order
/// and a window — `FetchDescriptor` for code without model types.
public struct DynamicFetchDescriptor: Hashable, Sendable {
    /// A sort key: an attribute name (or a to-one path such as `category.name`) and a direction.
    public struct SortKey: Hashable, Sendable {
        /// An attribute, a to-one path such as `category.name`, or `animals.@count`.
        public var keyPath: String
        /// Whether smaller values come first.
        public var ascending: Bool
        /// Creates a sort key.
        public init(_ keyPath: String, ascending: Bool = true) {
            self.keyPath = keyPath
            self.ascending = ascending
        }
    }

    /// The entity to fetch.
    public var entity: String
    /// Which objects match; `nil` matches all.
    public var predicate: ObjectPredicate?
    /// Sort keys, most significant first; ties keep insertion order.
    ///
    /// Values sort in Folio's total order (`Value`'s `<`): `nil` first, then
    /// by kind, numbers of every type by value — so an any-value attribute
    /// sorts too, and descending is ascending reversed. A key whose values
    /// have no order (an array, set, dictionary or `codable` attribute) makes
    /// the fetch throw ``ModelError/unsortable(entity:attribute:)``.
    public var sortBy: [SortKey]
    /// The most objects to return; `nil` for no limit.
    public var fetchLimit: Int?
    /// How many matching objects to skip first.
    public var fetchOffset: Int?
    /// Whether unsaved changes are included (default `true`); `false` reads the last saved state.
    public var includePendingChanges: Bool

    /// Whether the objects of the entity's subentities (``Schema/Entity/superentity``,
    /// model inheritance) are included, after the entity's own (default `true`,
    /// as SwiftData's fetch of a superclass includes its subclasses).
    public var includesSubentities: Bool
    /// Creates a descriptor.
    public init(
        entity: String, predicate: ObjectPredicate? = nil, sortBy: [SortKey] = [],
        fetchLimit: Int? = nil, fetchOffset: Int? = nil, includePendingChanges: Bool = true,
        includesSubentities: Bool = true
    ) {
        self.entity = entity
        self.includesSubentities = includesSubentities
        self.predicate = predicate
        self.sortBy = sortBy
        self.fetchLimit = fetchLimit
        self.fetchOffset = fetchOffset
        self.includePendingChanges = includePendingChanges
    }
}
