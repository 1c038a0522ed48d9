/// What the merge needs to know of a schema, worked out once: how each
/// attribute merges and which side of each relationship is the fact.
///
/// Format 3's rule (docs/FORMAT.md): a to-one whose inverse is to-many is the
/// fact, and the to-many is the order of the membership it derives; between
/// two to-ones, or two to-manys, the side whose `(entity, relationship)` sorts
/// first is the fact; a relationship with no inverse is its own fact.
struct MergeSchema {
    /// How an attribute's cells merge.
    enum AttributeRule: Equatable {
        /// Whole value: changed on both sides to different values is a conflict.
        case cell
        /// A set: element by element, never a conflict.
        case set
        /// A string-keyed dictionary: key by key, each key a cell.
        case dictionary
    }

    /// What a relationship's cells are to the merge.
    enum LinkRole: Equatable {
        /// The relationship is the fact: its merged value decides the link.
        case fact
        /// A to-one derived from its inverse's facts.
        case derivedToOne
        /// A to-many whose members its inverse's facts decide; its list is their order.
        case derivedOrder
    }

    struct Attribute {
        var name: String
        var rule: AttributeRule
        var type: ValueType
        var isTransient: Bool
    }

    struct Link {
        var name: String
        var destination: String
        /// The entities whose objects it may hold: the destination and, when
        /// it has subentities, every entity inheriting from it.
        var destinations: Set<String>
        var isToMany: Bool
        var isOptional: Bool
        var role: LinkRole
        /// The inverse's name, if declared.
        var inverse: String?
        /// What deleting a destination object does to the object holding it:
        /// the inverse's delete rule (`nullify` without a declared inverse).
        var ruleOnDestinationDelete: Schema.Relationship.DeleteRule
        var minimumCount: Int
        var maximumCount: Int
    }

    struct Entity {
        var name: String
        var attributes: [Attribute]
        var links: [Link]
        /// The unique groups the loader checks (no transient or externally
        /// stored member), as member names: attributes and to-one relationships.
        var uniqueGroups: [[String]]

        func link(named name: String) -> Link? { links.first { $0.name == name } }
    }

    let schema: Schema
    let entities: [String: Entity]
    /// Entity names in schema order, for deterministic passes.
    let entityOrder: [String]

    init(_ schema: Schema) {
        self.schema = schema
        var entities: [String: Entity] = [:]
        for entity in schema.entities {
            let attributes = entity.attributes.map { attribute -> Attribute in
                var type = attribute.type
                while case .optional(let wrapped) = type { type = wrapped }
                let rule: AttributeRule
                switch type {
                case .set: rule = .set
                case .dictionary: rule = .dictionary
                default: rule = .cell
                }
                return Attribute(name: attribute.name, rule: rule, type: attribute.type, isTransient: attribute.isTransient)
            }
            let links = entity.relationships.map { relationship -> Link in
                let inverse = relationship.inverse.flatMap { name in
                    schema.entity(named: relationship.destination)?.relationship(named: name)
                }
                return Link(
                    name: relationship.name, destination: relationship.destination,
                    destinations: Set(schema.hierarchy(of: relationship.destination)),
                    isToMany: relationship.isToMany, isOptional: relationship.isToMany && relationship.isOptional,
                    // An inherited relationship has its declaring entity's role: the entity its
                    // inverse points at (a subentity's own name would sort elsewhere).
                    role: Self.role(entity: inverse?.destination ?? entity.name, relationship, inverse: inverse),
                    inverse: inverse?.name,
                    ruleOnDestinationDelete: inverse?.deleteRule ?? .nullify,
                    minimumCount: relationship.minimumModelCount, maximumCount: relationship.maximumModelCount)
            }
            let uniqueGroups = entity.uniquenessConstraints.filter { group in
                group.allSatisfy { name in
                    if let attribute = entity.attribute(named: name) { return !attribute.isTransient && !attribute.isExternal }
                    return entity.relationship(named: name).map { !$0.isToMany } ?? false
                }
            }
            entities[entity.name] = Entity(name: entity.name, attributes: attributes, links: links, uniqueGroups: uniqueGroups)
        }
        self.entities = entities
        entityOrder = schema.entities.map(\.name)
    }

    /// Which side of a relationship pair is the fact.
    static func role(entity: String, _ relationship: Schema.Relationship, inverse: Schema.Relationship?) -> LinkRole {
        guard let inverse else { return .fact }
        switch (relationship.isToMany, inverse.isToMany) {
        case (false, true): return .fact
        case (true, false): return .derivedOrder
        default:
            let mine = (entity, relationship.name)
            let other = (relationship.destination, inverse.name)
            if mine <= other { return .fact }
            return relationship.isToMany ? .derivedOrder : .derivedToOne
        }
    }
}
