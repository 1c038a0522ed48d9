/// The first difference between two schemas, named for a person: what
/// ``MergeError/schemaMismatch(side:difference:)`` reports.
enum SchemaDifference {
    /// `nil` when the schemas are equal. `first` and `second` name the two
    /// schemas in the text: "only in the base" and "not in the base" by
    /// default, "only in ours" and "only in theirs" when both are named.
    static func first(between base: Schema, and other: Schema, first: String = "the base", second: String? = nil)
        -> String?
    {
        guard base != other else { return nil }
        let absent = second.map { "is only in \($0)" } ?? "is not in \(first)"
        let names = base.entities.map(\.name)
        let otherNames = other.entities.map(\.name)
        for name in names where !otherNames.contains(name) { return "entity \(name) is only in \(first)" }
        for name in otherNames where !names.contains(name) { return "entity \(name) \(absent)" }
        if names != otherNames { return "the entities are in another order" }
        for (entity, otherEntity) in zip(base.entities, other.entities) where entity != otherEntity {
            let attributes = entity.attributes.map(\.name)
            let otherAttributes = otherEntity.attributes.map(\.name)
            for name in attributes where !otherAttributes.contains(name) { return "attribute \(entity.name).\(name) is only in \(first)" }
            for name in otherAttributes where !attributes.contains(name) { return "attribute \(entity.name).\(name) \(absent)" }
            for (attribute, otherAttribute) in zip(entity.attributes, otherEntity.attributes) where attribute != otherAttribute {
                return "attribute \(entity.name).\(attribute.name) is declared differently"
            }
            let relationships = entity.relationships.map(\.name)
            let otherRelationships = otherEntity.relationships.map(\.name)
            for name in relationships where !otherRelationships.contains(name) {
                return "relationship \(entity.name).\(name) is only in \(first)"
            }
            for name in otherRelationships where !relationships.contains(name) {
                return "relationship \(entity.name).\(name) \(absent)"
            }
            for (relationship, otherRelationship) in zip(entity.relationships, otherEntity.relationships)
            where relationship != otherRelationship {
                return "relationship \(entity.name).\(relationship.name) is declared differently"
            }
            return "entity \(entity.name) is declared differently (its order, constraints or indexes)"
        }
        return "the schemas differ"
    }
}
