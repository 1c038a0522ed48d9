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
        /// The name of the entity this one inherits from, SwiftData's
        /// `superentity` (a `@Model` class that subclasses another): `nil` for
        /// an entity at the root of its hierarchy.
        ///
        /// A subentity lists every property it has, inherited ones first, in
        /// the superentity's order and equal to the superentity's: so its
        /// objects read alone, and an index into the superentity's
        /// ``attributes`` or ``relationships`` names the same property in the
        /// subentity. ``Schema/validate()`` checks it. A fetch of an entity
        /// includes the objects of its subentities (see ``Schema/hierarchy(of:)``).
        public var superentity: String?
        /// The uniqueness constraints that are not an attribute's `.unique`
        /// option: groups of several properties, and a group of one
        /// relationship (or of a name validation will refuse). What the
        /// document's `<unique>` elements hold.
        ///
        /// Keeping a one-attribute group only as the attribute's option gives
        /// each constraint one stored form, so two entities that say the same
        /// thing in the two spellings are equal (a package's stored schema and
        /// the classes' schema compare equal).
        private(set) var declaredConstraints: [[String]] = []
        /// The entity's indexes, SwiftData's `#Index`: each names one or more
        /// attributes (a compound index orders by the first, then the next…).
        ///
        /// An index changes no stored value and no rule: it lets a fetch whose
        /// predicate tests the first attribute(s) for equality or a range find
        /// the matching objects without reading every object. Adding or
        /// removing one needs no migration (SwiftData counts it a lightweight
        /// change). Each must name distinct stored attributes of a scalar type
        /// (not a relationship, a collection, `codable`, `any`, or an
        /// externally stored attribute); ``Schema/validate()`` refuses others
        /// with ``SchemaError/invalidIndex(entity:attributes:reason:)``.
        public var indexes: [[String]] = []

        /// Creates an entity.
        ///
        /// `superentity` names the entity it inherits from (``superentity``).
        /// `uniquenessConstraints` adds to the attributes' `.unique` options: a
        /// one-attribute group marks that attribute `.unique`, as
        /// ``uniquenessConstraints`` describes. `indexes` lists the entity's
        /// indexes (``indexes``), each as the names of its attributes.
        public init(
            _ name: String,
            attributes: [Attribute] = [],
            relationships: [Relationship] = [],
            originalName: String? = nil,
            uniquenessConstraints: [[String]] = [],
            indexes: [[String]] = [],
            superentity: String? = nil
        ) {
            self.name = name
            self.attributes = attributes
            self.relationships = relationships
            self.originalName = originalName
            self.superentity = superentity
            self.uniquenessConstraints += uniquenessConstraints
            self.indexes = indexes
        }

        /// Groups of properties whose values, taken together, no two objects
        /// may share — SwiftData's `uniquenessConstraints`, written with
        /// `#Unique` — including each `.unique` attribute as a group of one,
        /// first and in declaration order, as SwiftData reports it
        /// (`[["name"]]` for `@Attribute(.unique) var name`).
        ///
        /// A group names attributes and to-one relationships; a relationship
        /// contributes the identity of the object it holds. An object with
        /// `nil` in any member of a group (no value, or no related object)
        /// shares that group's values with no other, as with SQL's `UNIQUE`.
        /// Inserting an object whose values match a live object's in every
        /// member of a group updates that object instead (an upsert).
        ///
        /// A group of one attribute is that attribute's `.unique` option:
        /// setting this property marks `.unique` exactly the (non-transient)
        /// attributes listed alone, and clears it from the others. So
        /// `entity.uniquenessConstraints.append(["code"])` is
        /// `@Attribute(.unique) var code`, and assigning `[]` removes every
        /// constraint.
        public var uniquenessConstraints: [[String]] {
            get {
                let single = attributes.filter(\.isUnique).map { [$0.name] }
                return single + declaredConstraints.filter { !single.contains($0) }
            }
            set {
                let alone = Set(newValue.filter { $0.count == 1 }.map { $0[0] })
                for index in attributes.indices {
                    let attribute = attributes[index]
                    if !alone.contains(attribute.name) {
                        attributes[index].options.remove(.unique)
                    } else if !attribute.isTransient {
                        attributes[index].options.insert(.unique)
                    }
                }
                // A transient attribute listed alone stays a constraint (unless it is
                // already `.unique`), so validation refuses it as `#Unique` on it.
                declaredConstraints = newValue.filter { group in
                    !(group.count == 1 && attributes.contains { $0.name == group[0] && $0.isUnique })
                }
            }
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
