/// What brings a package's stored graph to the container's schema when the
/// container has a migration plan, in place of the lightweight migration.
///
/// The context layer cannot name the typed layer's `SchemaMigrationPlan`, so
/// the plan (``StagedMigration``) hands the store this closure.
struct StoredGraphMigration {
    /// Takes the graph as read and the package's path; returns the graph under
    /// the container's schema, whether stages ran (so the package must be
    /// rewritten now), and the names the stored schema's entities and
    /// properties took on the way (for the history). The graph given must not
    /// be used afterwards.
    let migrate: (ObjectGraph, String) throws(ModelError) -> (graph: ObjectGraph, rewrite: Bool, renaming: SchemaRenaming)
    /// Whether a graph with this schema is already where the plan ends (no
    /// stage would run): a store another container opened without the plan
    /// may then be shared.
    let isSettled: (Schema) -> Bool
}
