/// One step of a ``SchemaMigrationPlan``: from one version of the models to a
/// later one, SwiftData's `MigrationStage`.
///
/// The closures are `@Sendable` so that a stage can be a `static let` in
/// Swift 6 language mode.
public enum MigrationStage: Sendable {
    /// Carries the objects over unchanged, under the rules of a lightweight
    /// migration (docs/FORMAT.md, "Lightweight migration"): renames declared
    /// with `originalName`, added properties with defaults or optional, removed
    /// properties, new entities, added uniqueness when no two objects clash.
    case lightweight(fromVersion: any VersionedSchema.Type, toVersion: any VersionedSchema.Type)
    /// Runs code around a lightweight step.
    ///
    /// `willMigrate` gets a ``ModelContext`` over the old version's models,
    /// to make the data fit the new version (remove duplicates before a
    /// property becomes unique); `didMigrate` gets one over the new version's,
    /// to fill what the new version added. What either leaves unsaved is
    /// saved when it returns. Anything either throws stops the whole plan
    /// and leaves the package as it was
    /// (``MigrationError/stageFailed(from:to:step:message:)``).
    case custom(
        fromVersion: any VersionedSchema.Type, toVersion: any VersionedSchema.Type,
        willMigrate: (@Sendable (ModelContext) throws -> Void)?,
        didMigrate: (@Sendable (ModelContext) throws -> Void)?)

    /// The version the stage starts from.
    var fromVersion: any VersionedSchema.Type {
        switch self {
        case .lightweight(let from, _), .custom(let from, _, _, _): return from
        }
    }

    /// The version the stage ends at.
    var toVersion: any VersionedSchema.Type {
        switch self {
        case .lightweight(_, let to), .custom(_, let to, _, _): return to
        }
    }
}
