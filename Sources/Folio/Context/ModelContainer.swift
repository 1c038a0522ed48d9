import Foundation

/// Owns a document's schema, its storage and its last saved state, and hands
/// out contexts to edit it — SwiftData's `ModelContainer` over the dynamic core.
///
/// ```swift
/// let container = try ModelContainer(for: schema, configurations: ModelConfiguration(url: zooURL))
/// let context = ModelContext(container)
/// ```
///
/// Several contexts can work on one container. Each is a scratchpad: a save in
/// one is merged into the container's saved state, and the others see it on
/// their next fetch or save, keeping their own unsaved edits. Identifiers are
/// handed out by the container, so contexts never clash.
///
/// A container is `Sendable`; its shared state is behind a lock.
public final class ModelContainer: @unchecked Sendable {
    /// The document's schema.
    public let schema: Schema
    /// The configurations; Folio stores everything through the first.
    public let configurations: [ModelConfiguration]

    private let lock = NSLock()
    /// The last saved state: replaced, never mutated, so contexts can keep it as a baseline.
    private var savedGraph: ObjectGraph
    private var generation = 0
    private var changeSets: [ChangeSet] = []
    private var nextID: UInt64
    private var mainContextStorage: ModelContext?
    /// The document file as this container last read or wrote it (`nil`: there was none).
    private var fingerprint: FileFingerprint?
    /// Held while this container may write its package (not for read-only or in-memory ones).
    private var writeLock: PackageLock?
    /// What a value of a model class's `Codable` property must also pass (see `Schema.modelValueChecks`).
    let modelValueChecks: [String: [String: (Value) -> Bool]]

    var configuration: ModelConfiguration { configurations.first ?? ModelConfiguration(isStoredInMemoryOnly: true) }
    var package: DocumentPackage? { configuration.url.map(DocumentPackage.init(url:)) }

    /// Creates a container for a schema, opening the configuration's package if it
    /// exists or starting empty.
    ///
    /// A package whose stored schema differs from `schema` by a lightweight
    /// change (added attributes with defaults or optional, removed attributes,
    /// renames declared with `originalName`, new entities and relationships) is
    /// migrated in memory on open and written in the new shape by the next save;
    /// any other difference throws and leaves the package untouched
    /// (docs/FORMAT.md, "Lightweight migration").
    ///
    /// - Throws: ``ModelError/schema(_:)`` for an invalid schema,
    ///   ``ModelError/configuration(_:)`` for more than one configuration or a
    ///   configuration whose `schema` names entities `schema` lacks,
    ///   ``ModelError/package(_:)`` when the package cannot be read,
    ///   ``ModelError/migration(package:_:)`` when its schema cannot be migrated.
    public init(for schema: Schema, configurations: [ModelConfiguration]) throws(ModelError) {
        do { try schema.validate() } catch { throw .schema(error) }
        try Self.check(configurations, against: schema)
        self.schema = schema
        self.configurations = configurations.isEmpty ? [ModelConfiguration()] : configurations
        let checks = schema.modelValueChecks
        modelValueChecks = checks
        var graph = ObjectGraph(schema: schema)
        let configuration = self.configurations[0]
        if let url = configuration.url, FileManager.default.fileExists(atPath: url.path) {
            let package = DocumentPackage(url: url)
            if configuration.allowsSave {
                do { writeLock = try PackageLock(path: url.path) } catch { throw .package(error) }
            }
            fingerprint = package.fingerprint
            do { graph = try package.read() } catch { throw .package(error) }
            if graph.schema.differsOnlyInDefaults(from: schema) {
                graph = graph.adopting(schema)
            } else if graph.schema != schema {
                // Lightweight migration, in memory: the package is rewritten by the next save.
                do { graph = try graph.migrated(to: schema) } catch { throw .migration(package: url.path, error) }
            }
            try Self.checkModelValues(checks, in: graph)
        }
        savedGraph = graph
        nextID = graph.nextID
    }

    /// Refuses configurations a one-package container would silently ignore.
    private static func check(_ configurations: [ModelConfiguration], against schema: Schema) throws(ModelError) {
        guard configurations.count <= 1 else {
            let names = configurations.map { "'\($0.name)'" }.joined(separator: ", ")
            throw .configuration("Folio keeps a container's objects in one document package; "
                                 + "give one configuration, not \(configurations.count) (\(names))")
        }
        guard let configuration = configurations.first, let stored = configuration.schema else { return }
        let known = Set(schema.entities.map(\.name))
        let unknown = stored.entities.map(\.name).filter { !known.contains($0) }
        guard unknown.isEmpty else {
            throw .configuration("configuration '\(configuration.name)' stores \(unknown.joined(separator: ", ")), "
                                 + "which the container's schema does not have")
        }
    }

    /// Creates a container for a schema with the given configurations.
    public convenience init(for schema: Schema, configurations: ModelConfiguration...) throws(ModelError) {
        try self.init(for: schema, configurations: configurations)
    }

    /// Opens an existing package with the schema stored in it — for generic tools
    /// and the REPL, which have no Swift types compiled in.
    ///
    /// - Throws: ``ModelError/package(_:)``.
    public init(contentsOf url: URL, allowsSave: Bool = true) throws(ModelError) {
        let graph: ObjectGraph
        let package = DocumentPackage(url: url)
        if allowsSave, FileManager.default.fileExists(atPath: url.path) {
            do { writeLock = try PackageLock(path: url.path) } catch { throw .package(error) }
        }
        fingerprint = package.fingerprint
        do { graph = try package.read() } catch { throw .package(error) }
        schema = graph.schema
        configurations = [ModelConfiguration(url: url, allowsSave: allowsSave)]
        modelValueChecks = [:]
        savedGraph = graph
        nextID = graph.nextID
    }

    /// The main-actor context, created on first use, with autosave on and an undo manager.
    @MainActor public var mainContext: ModelContext {
        lock.lock()
        if let context = mainContextStorage {
            lock.unlock()
            return context
        }
        lock.unlock()
        let context = ModelContext(self, isMain: true)
        lock.lock()
        defer { lock.unlock() }
        if let existing = mainContextStorage { return existing }
        mainContextStorage = context
        return context
    }

    /// Deletes every object from the store at once, keeping the schema.
    ///
    /// The package is rewritten empty (none of Folio's blobs or temporary files
    /// are left; files it did not write are left alone). Contexts see the deletion on their next fetch or save; each
    /// records it as an undoable step, "Delete All Data", whose undo brings the
    /// objects back as unsaved inserts. Like SwiftData's, this does not throw:
    /// a failure to write is reported to `errorHandler` (stderr by default).
    public func deleteAllData(errorHandler: ((ModelError) -> Void)? = nil) {
        lock.lock()
        defer { lock.unlock() }
        let empty = ObjectGraph(schema: schema)
        empty.nextID = nextID
        if !configuration.isStoredInMemoryOnly, let package {
            do throws(PackageError) {
                fingerprint = try package.write(empty, expecting: fingerprint)
            } catch {
                report(.package(error), to: errorHandler)
                return
            }
        }
        var changeSet = ChangeSet(generation: generation + 1)
        changeSet.isDeleteAll = true
        for table in savedGraph.tables {
            for row in 0..<table.rowCount where table.isLive[row] { changeSet.deletions.append(table.ids[row]) }
        }
        commit(changeSet, graph: empty)
    }

    // MARK: Shared state, for contexts

    func allocateID() -> UInt64 {
        lock.lock()
        defer { lock.unlock() }
        let id = nextID
        nextID += 1
        return id
    }

    /// A copy of the saved state and its generation, for a new context.
    func checkout() -> (graph: ObjectGraph, baseline: ObjectGraph, generation: Int) {
        lock.lock()
        defer { lock.unlock() }
        return (savedGraph.copy(), savedGraph, generation)
    }

    /// Change sets saved after `generation`, for a context to merge.
    func changes(after generation: Int) -> (changes: [ChangeSet], baseline: ObjectGraph, generation: Int) {
        lock.lock()
        defer { lock.unlock() }
        return (changeSets.filter { $0.generation > generation }, savedGraph, self.generation)
    }

    /// Saves a context: merges what others saved, writes the package, publishes the change.
    func save(_ context: ModelContext) throws(ModelError) {
        lock.lock()
        defer { lock.unlock() }
        context.merge(changeSets.filter { $0.generation > context.baseGeneration }, baseline: savedGraph)
        context.graph.nextID = max(context.graph.nextID, nextID)
        // A read-only configuration refuses saves, in memory too (SwiftData's `allowsSave`).
        guard configuration.allowsSave else { throw .saveNotAllowed }
        if !configuration.isStoredInMemoryOnly {
            if let package {
                do throws(PackageError) {
                    fingerprint = try package.write(context.graph, expecting: fingerprint)
                    // A package this container created: hold it from now on.
                    if writeLock == nil { writeLock = try PackageLock(path: package.url.path) }
                } catch {
                    throw .package(error)
                }
            }
        }
        commit(context.makeChangeSet(generation: generation + 1), graph: context.graph.copy())
        context.didSave(baseline: savedGraph, generation: generation)
    }

    /// Publishes a saved state. Call with the lock held.
    private func commit(_ changeSet: ChangeSet, graph: ObjectGraph) {
        generation = changeSet.generation
        changeSets.append(changeSet)
        savedGraph = graph
        nextID = max(nextID, graph.nextID)
    }

    func report(_ error: ModelError, to handler: ((ModelError) -> Void)?) {
        if let handler { handler(error) } else { FileHandle.standardError.write(Data("folio: \(error)\n".utf8)) }
    }
}
