/// Containers for model classes: the schema is derived from the classes.
extension ModelContainer {
    /// Creates a container for model classes, SwiftData's
    /// `ModelContainer(for: Trip.self, Accommodation.self, migrationPlan: …, configurations: …)`.
    ///
    /// Relationship destinations are included by traversal, so the root
    /// classes are enough. An existing package whose stored schema differs
    /// from the classes' is migrated on open: by `migrationPlan` when given
    /// (see ``init(for:migrationPlan:configurations:)-(Schema,_,[ModelConfiguration])``),
    /// else when the change is lightweight.
    ///
    /// - Throws: ``ModelError/schema(_:)`` when the classes do not make a valid
    ///   schema; otherwise as ``init(for:configurations:)-(Schema,[ModelConfiguration])``.
    public convenience init(
        for forTypes: any PersistentModel.Type..., migrationPlan: (any SchemaMigrationPlan.Type)? = nil,
        configurations: ModelConfiguration...
    ) throws(ModelError) {
        try self.init(for: Schema(forTypes), migrationPlan: migrationPlan, configurations: configurations)
    }

    /// Creates a container for an array of model classes.
    public convenience init(
        for forTypes: [any PersistentModel.Type], migrationPlan: (any SchemaMigrationPlan.Type)? = nil,
        configurations: ModelConfiguration...
    ) throws(ModelError) {
        try self.init(for: Schema(forTypes), migrationPlan: migrationPlan, configurations: configurations)
    }

    /// Creates a container for a schema whose package is brought to it by a
    /// migration plan, SwiftData's `ModelContainer(for:migrationPlan:configurations:)`.
    ///
    /// Opening a package finds the version it was saved with and runs the
    /// plan's stages from there to `givenSchema`'s version, in order (see
    /// ``SchemaMigrationPlan``). The package is rewritten once, when every stage
    /// has succeeded (not at all with `allowsSave: false`: the migrated objects
    /// then live in memory); if any fails, it is left as it was, byte for byte.
    /// Without a plan this is ``init(for:configurations:)-(Schema,[ModelConfiguration])``.
    ///
    /// - Throws: ``ModelError/migration(package:_:)`` with
    ///   ``MigrationError/invalidPlan(reason:)`` for a plan that does not hold
    ///   together (checked before the package is touched),
    ///   ``MigrationError/unknownModelVersion(stored:)`` when the package's
    ///   schema is none of the plan's versions,
    ///   ``MigrationError/backwardMigration(stored:current:)`` when it was saved
    ///   by a later version, ``MigrationError/stageFailed(from:to:step:message:)``
    ///   when a custom stage throws, or the lightweight step's own error;
    ///   otherwise as ``init(for:configurations:)-(Schema,[ModelConfiguration])``.
    public convenience init(
        for givenSchema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)? = nil,
        configurations: [ModelConfiguration]
    ) throws(ModelError) {
        guard let migrationPlan else {
            try self.init(for: givenSchema, configurations: configurations, migration: nil)
            return
        }
        let path = configurations.first?.packageURL?.path ?? "in memory"
        let staged = try StagedMigration(plan: migrationPlan, current: givenSchema, package: path)
        // Classes given without a version are the plan's version they match: a package they
        // create records it, so the plan never runs its stages on it again.
        var schema = givenSchema
        if schema.declaredVersion == nil { schema.declaredVersion = staged.targetVersion }
        try self.init(for: schema, configurations: configurations, migration: staged.storedGraphMigration)
    }

    /// Creates a container for a schema and a migration plan, with the configurations listed.
    public convenience init(
        for givenSchema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)? = nil,
        configurations: ModelConfiguration...
    ) throws(ModelError) {
        try self.init(for: givenSchema, migrationPlan: migrationPlan, configurations: configurations)
    }

    /// Creates a container for an array of model classes, as
    /// `ModelContainer([Trip.self, Accommodation.self])`.
    public convenience init(_ forTypes: [any PersistentModel.Type], configurations: ModelConfiguration...) throws(ModelError) {
        try self.init(for: Schema(forTypes), configurations: configurations)
    }
}
