/// What a stored value must also pass, beyond its attribute's type, in a
/// container made from model classes: a value each `Codable` property's type
/// can read back, so a property read never meets one it cannot.
///
/// The typed layer above knows the classes and fills the table (its
/// ``ModelTypes``, the schema's annotation, is a ``ModelValueCheckSource``);
/// the context layer, which cannot name them, applies it — on open to every
/// stored value, and to each value the dynamic API sets.
struct ModelValueChecks {
    /// By entity, then attribute: whether a value is one the property reads.
    var accepts: [String: [String: (Value) -> Bool]]
    /// The class behind each entity, as messages name it.
    var classNames: [String: String]

    /// No checks: a container made from a schema without classes.
    static var none: ModelValueChecks { ModelValueChecks(accepts: [:], classNames: [:]) }

    var isEmpty: Bool { accepts.isEmpty }

    /// Refuses a value the class's property could not read back.
    ///
    /// - Throws: ``GraphError/typeMismatch(entity:attribute:expected:value:)``.
    func check(_ value: Value, entity: String, attribute: String) throws(GraphError) {
        guard let accepts = accepts[entity]?[attribute], !accepts(value) else { return }
        let type = classNames[entity].map { "a value the \($0) class can read" } ?? "a readable value"
        throw .typeMismatch(entity: entity, attribute: attribute, expected: type, value: value.description)
    }

    /// Checks every stored value of the checked properties in a graph (a
    /// document opened or migrated with model classes).
    ///
    /// Externally stored values are skipped: checking them would read every
    /// blob on open. The getter reads one that does not decode leniently and
    /// reports it, as it does for a value a newer class no longer reads.
    ///
    /// - Throws: ``ModelError/graph(_:)`` with
    ///   ``GraphError/typeMismatch(entity:attribute:expected:value:)``.
    /// - Complexity: O(objects of the checked entities × checked attributes).
    func checkStoredValues(in graph: ObjectGraph) throws(ModelError) {
        for (entityName, checks) in accepts {
            guard let entity = graph.layout.entityIndex[entityName] else { continue }
            let layout = graph.layout.entities[entity]
            let table = graph.tables[entity]
            for (name, accepts) in checks {
                guard let attribute = layout.attributeIndex[name], !layout.attributes[attribute].isExternal else { continue }
                for row in 0..<table.rowCount where table.isLive[row] {
                    let value = graph.value(ObjectRef(entity: entity, row: row), attribute)
                    guard !accepts(value) else { continue }
                    throw .graph(
                        .typeMismatch(
                            entity: entityName, attribute: name,
                            expected: "a value the \(entityName) class can read",
                            value: "\(value) (object \(table.ids[row]))"))
                }
            }
        }
    }
}

extension ContainerCore {
    /// Refuses a value the container's model classes could not read back
    /// (``ModelValueChecks/check(_:entity:attribute:)``).
    func checkModelValue(_ value: Value, entity: String, attribute: String) throws(GraphError) {
        guard !modelValueChecks.isEmpty else { return }
        try modelValueChecks.check(value, entity: entity, attribute: attribute)
    }
}

/// A schema annotation that brings the value checks of the classes behind it
/// (the typed layer's ``ModelTypes``).
protocol ModelValueCheckSource: SchemaAnnotation {
    var valueChecks: ModelValueChecks { get }
}

extension Schema {
    /// The checks the classes this schema was made from add; none for a schema
    /// read from a document or written by hand.
    var modelValueChecks: ModelValueChecks {
        (annotation as? any ModelValueCheckSource)?.valueChecks ?? .none
    }
}
