/// A ``SchemaMigrationPlan`` checked against a container's schema, ready to
/// bring a package's stored graph to it.
///
/// Everything happens on graphs in memory: the stored graph is never changed,
/// each stage works on a copy in a store of its own, and the package is
/// written (by the document store) only once the last stage has succeeded.
struct StagedMigration {
    /// One version of the plan.
    struct Version {
        let identifier: Schema.Version
        let schema: Schema
        let name: String
    }

    /// The plan's versions, oldest first.
    let versions: [Version]
    /// The stage that starts at each version, by index into `versions`, with the index it ends at.
    let stages: [Int: (stage: MigrationStage, to: Int)]
    /// The container's version, an index into `versions`.
    let target: Int
    /// The package's path, for errors.
    let package: String

    /// Checks the plan: distinct version numbers, stages between listed
    /// versions going forward (one at most from each), and the container's
    /// schema among the versions.
    ///
    /// - Throws: ``ModelError/schema(_:)`` for a version whose models do not
    ///   make a valid schema; ``ModelError/migration(package:_:)`` with
    ///   ``MigrationError/invalidPlan(reason:)``.
    init(plan: any SchemaMigrationPlan.Type, current: Schema, package: String) throws(ModelError) {
        self.package = package
        func invalid(_ reason: String) -> ModelError { .migration(package: package, .invalidPlan(reason: reason)) }
        var versions: [Version] = []
        for type in plan.schemas {
            let schema = Schema(versionedSchema: type)
            do { try schema.validate() } catch { throw .schema(error) }
            let version = Version(identifier: type.versionIdentifier, schema: schema, name: String(describing: type))
            if let twin = versions.first(where: { $0.identifier == version.identifier }) {
                throw invalid("\(twin.name) and \(version.name) both have version \(version.identifier)")
            }
            versions.append(version)
        }
        guard !versions.isEmpty else { throw invalid("its schemas list no version") }
        versions.sort { $0.identifier < $1.identifier }
        self.versions = versions

        var stages: [Int: (stage: MigrationStage, to: Int)] = [:]
        for stage in plan.stages {
            let (fromType, toType) = (stage.fromVersion, stage.toVersion)
            guard let from = versions.firstIndex(where: { $0.identifier == fromType.versionIdentifier }),
                let to = versions.firstIndex(where: { $0.identifier == toType.versionIdentifier })
            else {
                let missing = versions.contains { $0.identifier == fromType.versionIdentifier } ? toType : fromType
                throw invalid("a stage names \(String(describing: missing)), which its schemas do not list")
            }
            guard from < to else {
                throw invalid("the stage from \(versions[from].name) to \(versions[to].name) does not go forward")
            }
            if let other = stages[from] {
                throw invalid("two stages start at \(versions[from].name) (to \(versions[other.to].name) and to \(versions[to].name))")
            }
            stages[from] = (stage, to)
        }
        self.stages = stages

        // The container's version: the one it declares, else the latest whose models it has.
        if let declared = current.declaredVersion {
            guard let index = versions.firstIndex(where: { $0.identifier == declared }) else {
                throw invalid("the container's schema has version \(declared), which its schemas do not list")
            }
            guard Self.matches(current, versions[index].schema) else {
                throw invalid("the container's schema differs from the models of \(versions[index].name)")
            }
            target = index
        } else if let index = versions.lastIndex(where: { Self.matches(current, $0.schema) }) {
            target = index
        } else {
            throw invalid("the container's models are none of its versions")
        }
        if let (_, to) = stages.first(where: { $0.key < target && $0.value.to > target })?.value {
            throw invalid("a stage goes past the container's version \(versions[target].identifier) to \(versions[to].identifier)")
        }
    }

    /// Whether a stored schema has a version's entities (defaults aside, which
    /// model code may compute anew in every process).
    static func matches(_ stored: Schema, _ version: Schema) -> Bool {
        stored.differsOnlyInDefaultsOrIndexes(from: version)
    }

    /// The closure the document store runs on the graph it reads.
    var storedGraphMigration: StoredGraphMigration {
        StoredGraphMigration(
            migrate: { (graph, _) throws(ModelError) in try migrate(graph) },
            isSettled: { schema in (try? start(for: schema)) == target })
    }

    /// The version the plan ends at: the container's.
    var targetVersion: Schema.Version { versions[target].identifier }

    /// Where the plan starts for a stored schema: the version it records, if
    /// that version's models match it, else the first version whose models do.
    ///
    /// - Throws: ``MigrationError/backwardMigration(stored:current:)`` or
    ///   ``MigrationError/unknownModelVersion(stored:)``.
    func start(for stored: Schema) throws(ModelError) -> Int {
        let current = versions[target].identifier
        if let recorded = stored.declaredVersion, recorded > current {
            throw .migration(package: package, .backwardMigration(stored: recorded, current: current))
        }
        let recordedIndex = stored.declaredVersion.flatMap { recorded in
            versions.firstIndex { $0.identifier == recorded && Self.matches(stored, $0.schema) }
        }
        guard let start = recordedIndex ?? versions.firstIndex(where: { Self.matches(stored, $0.schema) }) else {
            throw .migration(package: package, .unknownModelVersion(stored: stored.declaredVersion))
        }
        guard start <= target else {
            throw .migration(package: package, .backwardMigration(stored: versions[start].identifier, current: current))
        }
        return start
    }

    /// The stored graph brought to the container's version, and whether any
    /// stage ran (so the package must be rewritten).
    ///
    /// The start is the version the package records, if its models match the
    /// stored schema, else the first version whose models do (a package saved
    /// without a version). Consecutive versions with no stage between them are
    /// bridged by a lightweight step.
    func migrate(_ stored: ObjectGraph) throws(ModelError) -> (graph: ObjectGraph, rewrite: Bool, renaming: SchemaRenaming) {
        let start = try start(for: stored.schema)
        var graph = stored.adopting(versions[start].schema)
        var renaming = try renaming(from: stored.schema, to: start)
        var index = start
        while index < target {
            let to: Int
            if let (stage, next) = stages[index] {
                graph = try run(stage, on: graph, from: index, to: next)
                to = next
            } else {
                to = index + 1
                graph = try lightweightStep(graph, to: to)
            }
            renaming = renaming.followed(by: try self.renaming(from: versions[index].schema, to: to))
            index = to
        }
        // What the container would refuse after opening must stop the plan before anything is written.
        try versions[target].schema.modelValueChecks.checkStoredValues(in: graph)
        return (graph, start < target, renaming)
    }

    /// The names `schema`'s entities and properties take at version `index`
    /// (what a stage's lightweight step renames), for what names them outside the graph.
    private func renaming(from schema: Schema, to index: Int) throws(ModelError) -> SchemaRenaming {
        do { return try SchemaRenaming(from: schema, to: versions[index].schema) } catch { throw .migration(package: package, error) }
    }

    /// One stage: `willMigrate` over the old models, the lightweight step, `didMigrate` over the new ones.
    private func run(_ stage: MigrationStage, on graph: ObjectGraph, from: Int, to: Int) throws(ModelError) -> ObjectGraph {
        guard case .custom(_, _, let willMigrate, let didMigrate) = stage else {
            return try lightweightStep(graph, to: to)
        }
        var graph = graph
        if let willMigrate { graph = try runCode(willMigrate, on: graph, at: from, step: "willMigrate", from: from, to: to) }
        graph = try lightweightStep(graph, to: to)
        if let didMigrate { graph = try runCode(didMigrate, on: graph, at: to, step: "didMigrate", from: from, to: to) }
        return graph
    }

    /// The graph under version `index`'s schema, by the lightweight rules.
    private func lightweightStep(_ graph: ObjectGraph, to index: Int) throws(ModelError) -> ObjectGraph {
        do { return try graph.brought(to: versions[index].schema) } catch { throw .migration(package: package, error) }
    }

    /// Runs a stage's code with a context over version `index`'s models, in a
    /// store of its own, and returns what it saved (what it left unsaved is
    /// saved for it).
    private func runCode(
        _ code: @Sendable (ModelContext) throws -> Void, on graph: ObjectGraph, at index: Int,
        step: String, from: Int, to: Int
    ) throws(ModelError) -> ObjectGraph {
        let schema = versions[index].schema
        let sharedDocument = SharedDocument.inMemory(graph)
        let core = ContainerCore(
            schema: schema, configurations: [ModelConfiguration(isStoredInMemoryOnly: true)],
            modelValueChecks: schema.modelValueChecks, sharedDocument: sharedDocument)
        let context = ModelContext(ModelContainer(core: core))
        do {
            try code(context)
            if context.hasChanges { try context.save() }
        } catch {
            throw .migration(
                package: package,
                .stageFailed(
                    from: versions[from].identifier, to: versions[to].identifier,
                    step: step, message: String(describing: error)))
        }
        return try sharedDocument.withSavedGraph { graph throws(ModelError) in graph }
    }
}
