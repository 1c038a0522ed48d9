/// The first difference between two schemas, named for a person: what
/// ``MergeError/schemaMismatch(side:difference:)`` reports.
enum SchemaDifference {
    /// `nil` when the schemas are equal.
    static func first(between base: Schema, and other: Schema) -> String? {
        guard base != other else { return nil }
        let names = base.entities.map(\.name)
        let otherNames = other.entities.map(\.name)
        for name in names where !otherNames.contains(name) { return "entity \(name) is only in the base" }
        for name in otherNames where !names.contains(name) { return "entity \(name) is not in the base" }
        if names != otherNames { return "the entities are in another order" }
        for (entity, otherEntity) in zip(base.entities, other.entities) where entity != otherEntity {
            let attributes = entity.attributes.map(\.name)
            let otherAttributes = otherEntity.attributes.map(\.name)
            for name in attributes where !otherAttributes.contains(name) { return "attribute \(entity.name).\(name) is only in the base" }
            for name in otherAttributes where !attributes.contains(name) { return "attribute \(entity.name).\(name) is not in the base" }
            for (attribute, otherAttribute) in zip(entity.attributes, otherEntity.attributes) where attribute != otherAttribute {
                return "attribute \(entity.name).\(attribute.name) is declared differently"
            }
            let relationships = entity.relationships.map(\.name)
            let otherRelationships = otherEntity.relationships.map(\.name)
            for name in relationships where !otherRelationships.contains(name) {
                return "relationship \(entity.name).\(name) is only in the base"
            }
            for name in otherRelationships where !relationships.contains(name) {
                return "relationship \(entity.name).\(name) is not in the base"
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
