/// How to bring a document saved by any earlier version of an app's models to
/// the current one, SwiftData's `SchemaMigrationPlan`.
///
/// ```swift
/// enum TripsMigrationPlan: SchemaMigrationPlan {
///     static var schemas: [any VersionedSchema.Type] { [TripsV1.self, TripsV2.self, TripsV3.self] }
///     static var stages: [MigrationStage] { [v1ToV2, v2ToV3] }
///
///     static let v1ToV2 = MigrationStage.lightweight(fromVersion: TripsV1.self, toVersion: TripsV2.self)
///     static let v2ToV3 = MigrationStage.custom(
///         fromVersion: TripsV2.self, toVersion: TripsV3.self,
///         willMigrate: { context in
///             // Version 3 makes `name` unique: remove the duplicates first.
///             var seen = Set<String>()
///             for trip in try context.fetch(FetchDescriptor<TripsV2.Trip>()) where !seen.insert(trip.name).inserted {
///                 context.delete(trip)
///             }
///             try context.save()
///         },
///         didMigrate: nil)
/// }
///
/// let container = try ModelContainer(for: Schema(versionedSchema: TripsV3.self),
///                                    migrationPlan: TripsMigrationPlan.self,
///                                    configurations: ModelConfiguration(url: tripsURL))
/// ```
///
/// Opening a package with a plan finds the version it was saved with — the
/// version its schema records, or, for a package saved without one, the
/// first version whose models match its schema — and runs the stages from
/// there to the container's version, in order. Two consecutive versions with
/// no stage between them are migrated as by a lightweight stage. The package
/// is rewritten once, when the whole plan has succeeded; when any stage fails
/// it is left as it was, byte for byte. docs/FORMAT.md ("Versioned schemas")
/// gives the rules.
public protocol SchemaMigrationPlan {
    /// Every version of the models, oldest first.
    static var schemas: [any VersionedSchema.Type] { get }
    /// The steps between versions, in the order they run.
    static var stages: [MigrationStage] { get }
}
