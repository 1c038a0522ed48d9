/// Brings the three versions of a merge to one schema before the per-object
/// merge: the schema of the side that changed it, reached from the other
/// versions by the library's lightweight migration (``ObjectGraph/migrated(to:)``).
///
/// - Equal schemas (``SchemaDifference``): nothing to do.
/// - One side changed the schema, or both changed it alike: that schema is the
///   newer one, and the other versions are migrated to it (ours added an
///   attribute, theirs did not: base and theirs are migrated to ours' schema).
/// - Both sides changed it, differently: refused. Their union would have to
///   be made up by the merge (which side's default, delete rule, version and
///   entity order?), so the merge asks for one side to be migrated to the
///   other's schema first.
/// - A version that cannot be migrated to the newer schema (a type changed, an
///   attribute became required and an object holds nil, a declared version
///   would go backward): refused, naming the side and the reason.
struct MergeSchemaAlignment {
    var base: ObjectGraph
    var ours: ObjectGraph
    var theirs: ObjectGraph

    /// The three versions under one schema; the graphs given are only read
    /// (a version migrated is a new graph).
    ///
    /// - Throws: ``MergeError/schemaMismatch(side:difference:)`` naming the
    ///   side and the difference when the versions cannot be brought to one schema.
    /// - Complexity: O(1) for equal schemas; else O(objects × properties + links)
    ///   of each version migrated.
    init(base: ObjectGraph, ours: ObjectGraph, theirs: ObjectGraph) throws(MergeError) {
        (self.base, self.ours, self.theirs) = (base, ours, theirs)
        let oursDifference = SchemaDifference.first(between: base.schema, and: ours.schema)
        let theirsDifference = SchemaDifference.first(between: base.schema, and: theirs.schema)
        let side: MergeError.Side
        let difference: String
        switch (oursDifference, theirsDifference) {
        case (nil, nil):
            return
        case (let changed?, nil):
            (side, difference) = (.ours, changed)
        case (nil, let changed?):
            (side, difference) = (.theirs, changed)
        case (let changed?, _?):
            if let apart = SchemaDifference.first(between: ours.schema, and: theirs.schema, first: "ours", second: "theirs") {
                throw .schemaMismatch(side: .theirs, difference: "both sides changed the schema, differently: \(apart)")
            }
            (side, difference) = (.ours, changed)
        }
        let target = side == .ours ? ours.schema : theirs.schema
        func migrate(_ graph: ObjectGraph, blamed: MergeError.Side) throws(MergeError) -> ObjectGraph {
            guard SchemaDifference.first(between: graph.schema, and: target) != nil else { return graph }
            if let stored = graph.schema.declaredVersion, let current = target.declaredVersion, stored > current {
                throw .schemaMismatch(
                    side: blamed,
                    difference: "\(difference); "
                        + "\(MigrationError.backwardMigration(stored: stored, current: current))")
            }
            do { return try graph.migrated(to: target) } catch {
                throw .schemaMismatch(side: blamed, difference: "\(difference), not a lightweight migration: \(error)")
            }
        }
        // The base's data failing names the side that changed the schema; an edited side's, that side.
        self.base = try migrate(base, blamed: side)
        self.ours = try migrate(ours, blamed: .ours)
        self.theirs = try migrate(theirs, blamed: .theirs)
    }
}
