extension Schema {
    /// A kind of object: a name, its attributes and its relationships.
    ///
    /// Mirrors SwiftData's `Schema.Entity`.
    public struct Entity: Hashable, Sendable {
        /// The entity's name; a Swift identifier, also the XML element name of its objects.
        public var name: String
        /// The stored properties, in declaration order.
        public var attributes: [Attribute]
        /// The relationships, in declaration order.
        public var relationships: [Relationship]
        /// The entity's name in an earlier version of the schema, for renames.
        public var originalName: String?
        /// Groups of attributes whose values, taken together, no two objects
        /// may share — SwiftData's `uniquenessConstraints`, written with `#Unique`.
        ///
        /// A group of one attribute means what the attribute's `.unique`
        /// option means. An object with `nil` in any attribute of a group
        /// shares that group's values with no other (as SQL's `UNIQUE`).
        /// Inserting an object whose values match a live object's in every
        /// attribute of a group updates that object instead (an upsert), as
        /// for `.unique`.
        public var uniquenessConstraints: [[String]]

        /// Creates an entity.
        public init(
            _ name: String,
            attributes: [Attribute] = [],
            relationships: [Relationship] = [],
            originalName: String? = nil,
            uniquenessConstraints: [[String]] = []
        ) {
            self.name = name
            self.attributes = attributes
            self.relationships = relationships
            self.originalName = originalName
            self.uniquenessConstraints = uniquenessConstraints
        }

        /// The attribute with the given name, if any. O(attributes).
        public func attribute(named name: String) -> Attribute? {
            attributes.first { $0.name == name }
        }

        /// The relationship with the given name, if any. O(relationships).
        public func relationship(named name: String) -> Relationship? {
            relationships.first { $0.name == name }
        }
    }
}
