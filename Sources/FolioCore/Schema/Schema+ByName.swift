extension Schema {
    /// The entities by name, as SwiftData's `Schema.entitiesByName`.
    ///
    /// ```swift
    /// let trip = container.schema.entitiesByName["Trip"]
    /// let isUnique = trip?.attributesByName["name"]?.isUnique
    /// ```
    public var entitiesByName: [String: Entity] {
        Dictionary(entities.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }
}

extension Schema.Entity {
    /// The attributes by name, as SwiftData's `Schema.Entity.attributesByName`.
    public var attributesByName: [String: Schema.Attribute] {
        Dictionary(attributes.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The relationships by name, as SwiftData's `Schema.Entity.relationshipsByName`.
    public var relationshipsByName: [String: Schema.Relationship] {
        Dictionary(relationships.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }
}
