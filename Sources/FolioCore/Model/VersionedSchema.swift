/// One version of an app's models, SwiftData's `VersionedSchema`.
///
/// Declare each version as a type listing its model classes, usually an enum
/// with the classes nested in it, and name the current one with a typealias:
///
/// ```swift
/// enum TripsV1: VersionedSchema {
///     static let versionIdentifier = Schema.Version(1, 0, 0)
///     static var models: [any PersistentModel.Type] { [Trip.self] }
///
///     @Model final class Trip {
///         var name: String
///         init(name: String) { self.name = name }
///     }
/// }
/// typealias Trip = TripsV1.Trip
/// ```
///
/// Entities are named after the classes (`Trip`, not `TripsV1.Trip`), so the
/// same class name in two versions is the same entity. A ``SchemaMigrationPlan``
/// lists the versions and how to move from one to the next.
public protocol VersionedSchema: SendableMetatype {
    /// This version's number; the plan orders its versions by it.
    static var versionIdentifier: Schema.Version { get }
    /// This version's model classes; the classes they relate to are included by traversal.
    static var models: [any PersistentModel.Type] { get }
}

extension Schema {
    /// The schema of one version of an app's models, SwiftData's `Schema(versionedSchema:)`.
    ///
    /// Its ``version`` is the type's `versionIdentifier`, which a package saved
    /// with it records.
    public init(versionedSchema: any VersionedSchema.Type) {
        self.init(versionedSchema.models, version: versionedSchema.versionIdentifier)
    }

    /// The schema of model classes at a given version, SwiftData's `Schema(_:version:)`.
    public init(_ types: [any PersistentModel.Type], version: Schema.Version) {
        self.init(types)
        declaredVersion = version
    }
}
