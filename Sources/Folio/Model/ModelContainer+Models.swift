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
