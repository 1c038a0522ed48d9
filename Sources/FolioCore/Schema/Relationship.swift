extension Schema {
    /// A link from objects of one entity to objects of another, with an inverse
    /// kept in sync on both sides and a delete rule.
    ///
    /// Mirrors SwiftData's `Schema.Relationship`. A to-many relationship is ordered
    /// as its array is; the order is saved.
    public struct Relationship: Hashable, Sendable {
        /// Relationship options, as `@Relationship` spells them.
        public enum Option: Hashable, Sendable {
            /// A to-one relationship no two objects may share: a uniqueness
            /// constraint of that one relationship (``Schema/Entity/uniquenessConstraints``),
            /// keyed by the related object's identity. Inserting an object that
            /// holds the same related object as a live one updates that one
            /// instead. A to-many relationship cannot be unique.
            case unique
        }

        /// What deleting an object does to the objects this relationship reaches,
        /// with Core Data's and SwiftData's meaning.
        public enum DeleteRule: String, Hashable, Sendable, CaseIterable {
            /// Deleting the source deletes the destination objects too.
            case cascade
            /// Deleting the source removes it from the destinations' inverse (the default).
            case nullify
            /// The source cannot be saved as deleted while it still reaches destinations.
            case deny
            /// Nothing is done to the destinations; their inverse is left as it is.
            case noAction
        }

        /// The relationship's name; a Swift identifier.
        public var name: String
        /// The name of the entity at the other end.
        public var destination: String
        /// Whether the relationship holds many objects (an ordered array) or at most one.
        public var isToMany: Bool
        /// Whether a to-many relationship may hold no collection at all (`nil`,
        /// as `var tags: [Tag]?` declares), apart from an empty one. An object
        /// starts with none until a collection is set or an object is linked
        /// (from either side); removing the last object leaves an empty one.
        /// Only to-many relationships have it: a to-one always may be `nil`.
        public var isOptional: Bool
        /// The name of the relationship on the destination that points back, if any.
        public var inverse: String?
        /// What deleting a source object does to its destinations.
        public var deleteRule: DeleteRule
        /// The fewest objects a to-many relationship may hold at save (0: no minimum).
        public var minimumModelCount: Int
        /// The most objects a to-many relationship may hold at save (0: no maximum).
        public var maximumModelCount: Int
        /// The relationship's name in an earlier version of the schema, for renames.
        public var originalName: String?

        /// Creates a relationship.
        public init(
            _ name: String,
            to destination: String,
            toMany: Bool = false,
            isOptional: Bool = false,
            inverse: String? = nil,
            deleteRule: DeleteRule = .nullify,
            minimumModelCount: Int = 0,
            maximumModelCount: Int = 0,
            originalName: String? = nil
        ) {
            self.name = name
            self.destination = destination
            self.isToMany = toMany
            self.isOptional = isOptional
            self.inverse = inverse
            self.deleteRule = deleteRule
            self.minimumModelCount = minimumModelCount
            self.maximumModelCount = maximumModelCount
            self.originalName = originalName
        }
    }
}
