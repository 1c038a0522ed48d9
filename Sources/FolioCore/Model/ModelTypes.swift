/// The model classes a schema was made from, by entity name: what the typed
/// layer keeps with a ``Schema`` (as its ``SchemaAnnotation``), so a container
/// made from the schema can make models of any entity and check the values
/// their `Codable` properties must read back.
struct ModelTypes: ModelValueCheckSource, @unchecked Sendable {
    /// The classes, by entity name.
    let byEntity: [String: any PersistentModel.Type]

    init(_ byEntity: [String: any PersistentModel.Type]) { self.byEntity = byEntity }

    /// What each class's `Codable` properties accept, by entity then
    /// attribute, beyond the attribute's type.
    var valueChecks: ModelValueChecks {
        var accepts: [String: [String: (Value) -> Bool]] = [:]
        for (entity, type) in byEntity {
            for property in ModelMetadata.of(type).properties {
                if let test = property.accepts { accepts[entity, default: [:]][property.name] = test }
            }
        }
        return ModelValueChecks(accepts: accepts, classNames: byEntity.mapValues { String(describing: $0) })
    }
}

extension Schema {
    /// The model classes this schema was made from, by entity name (empty for a
    /// schema read from a document or written by hand).
    var modelTypes: [String: any PersistentModel.Type] {
        (annotation as? ModelTypes)?.byEntity ?? [:]
    }
}
