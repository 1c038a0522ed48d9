/// Containers for model classes: the schema is derived from the classes.
extension ModelContainer {
    /// Creates a container for model classes, SwiftData's
    /// `ModelContainer(for: Trip.self, Accommodation.self, configurations: …)`.
    ///
    /// Relationship destinations are included by traversal, so the root
    /// classes are enough. An existing package whose stored schema differs
    /// from the classes' is migrated on open when the change is lightweight.
    ///
    /// - Throws: ``ModelError/schema(_:)`` when the classes do not make a valid
    ///   schema; otherwise as ``init(for:configurations:)``.
    public convenience init(for forTypes: any PersistentModel.Type..., configurations: ModelConfiguration...) throws(ModelError) {
        try self.init(for: Schema(forTypes), configurations: configurations)
    }

    /// Creates a container for an array of model classes.
    public convenience init(for forTypes: [any PersistentModel.Type], configurations: ModelConfiguration...) throws(ModelError) {
        try self.init(for: Schema(forTypes), configurations: configurations)
    }

    /// Creates a container for an array of model classes, as
    /// `ModelContainer([Trip.self, Accommodation.self])`.
    public convenience init(_ forTypes: [any PersistentModel.Type], configurations: ModelConfiguration...) throws(ModelError) {
        try self.init(for: Schema(forTypes), configurations: configurations)
    }
}

extension ContainerCore {
    /// Refuses a value a model class's `Codable` property could not read back,
    /// so reading a property never meets one.
    ///
    /// - Throws: ``GraphError/typeMismatch(entity:attribute:expected:value:)``.
    func checkModelValue(_ value: Value, entity: String, attribute: String) throws(GraphError) {
        guard let accepts = modelValueChecks[entity]?[attribute], !accepts(value) else { return }
        let type = schema.modelTypeList[entity].map { "a value the \(String(describing: $0)) class can read" } ?? "a readable value"
        throw .typeMismatch(entity: entity, attribute: attribute, expected: type, value: value.description)
    }

}

extension ModelContainer {
    /// Checks every stored value of the `Codable` properties of a document opened with model classes.
    ///
    /// Externally stored values are skipped: checking them would read every
    /// blob on open. The getter reads one that does not decode leniently and
    /// reports it, as it does for a value a newer class no longer reads.
    static func checkModelValues(_ modelValueChecks: [String: [String: (Value) -> Bool]], in graph: ObjectGraph) throws(ModelError) {
        for (entityName, checks) in modelValueChecks {
            guard let entity = graph.layout.entityIndex[entityName] else { continue }
            let layout = graph.layout.entities[entity]
            let table = graph.tables[entity]
            for (name, accepts) in checks {
                guard let attribute = layout.attributeIndex[name], !layout.attributes[attribute].isExternal else { continue }
                for row in 0..<table.rowCount where table.isLive[row] {
                    let value = graph.value(ObjectRef(entity: entity, row: row), attribute)
                    guard !accepts(value) else { continue }
                    throw .graph(.typeMismatch(entity: entityName, attribute: name,
                                               expected: "a value the \(entityName) class can read",
                                               value: "\(value) (object \(table.ids[row]))"))
                }
            }
        }
    }
}
