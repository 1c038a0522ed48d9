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
///
/// **Several containers on one package.** As in SwiftData, a program may open
/// the same package with several containers: the process keeps one shared document per
/// package (one lock, one saved state), so each container's contexts see the
/// others' saves on their next fetch, and none is refused as a second writer.
/// Another *process* writing the package refuses a container that may save
/// (``PackageError/locked(path:)``); one opened with `allowsSave: false` is
/// never refused.
///
/// **Ownership.** The container owns its ``mainContext``; the main context
/// refers back to it without owning it, so dropping the container frees both
/// (and the package's lock, once no other container or context uses the
/// package). A context you create with ``ModelContext/init(_:)`` keeps its
/// container alive, as does a model its context, so a program that keeps only
/// a context or a model can go on using it. A program that keeps the main
/// context alone can go on using it too: its ``ModelContext/container`` is then
/// a new container on the same shared document, whose main context it is.
public final class ModelContainer: @unchecked Sendable {
    /// The document's schema.
    public var schema: Schema { core.schema }
    /// The configurations; Folio stores everything through the first.
    public var configurations: [ModelConfiguration] { core.configurations }

    /// What the container's contexts share with it: schema, configuration, shared document.
    let core: ContainerCore
    private let lock = NSLock()
    /// Owned here; the main context holds the container weakly.
    private var mainContextStorage: ModelContext?

    var configuration: ModelConfiguration { core.configuration }
    var sharedDocument: SharedDocument { core.sharedDocument }
    var package: DocumentPackage? { core.sharedDocument.package }

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
    /// A package already open in this process is shared with the containers
    /// that have it open (they must use the same schema).
    ///
    /// - Throws: ``ModelError/schema(_:)`` for an invalid schema,
    ///   ``ModelError/configuration(_:)`` for more than one configuration, a
    ///   configuration name or group identifier that is not a plain file name, a
    ///   configuration whose `schema` names entities `schema` lacks, or a package
    ///   open in this process with another schema,
    ///   ``ModelError/package(_:)`` when the package cannot be read or another
    ///   process writes it (unless `allowsSave` is off),
    ///   ``ModelError/migration(package:_:)`` when its schema cannot be migrated.
    public convenience init(for schema: Schema, configurations: [ModelConfiguration]) throws(ModelError) {
        try self.init(for: schema, configurations: configurations, migration: nil)
    }

    /// Creates a container whose package is brought to `schema` by `migration`
    /// (a migration plan) rather than by the lightweight migration.
    init(
        for schema: Schema, configurations: [ModelConfiguration],
        migration: StoredGraphMigration?
    ) throws(ModelError) {
        do { try schema.validate() } catch { throw .schema(error) }
        try Self.check(configurations, against: schema)
        let configurations = configurations.isEmpty ? [ModelConfiguration()] : configurations
        let checks = schema.modelValueChecks
        let configuration = configurations[0]
        let sharedDocument: SharedDocument
        if let url = configuration.packageURL {
            sharedDocument = try SharedDocument.open(
                url: url, allowsSave: configuration.allowsSave, schema: schema,
                migration: migration)
            try sharedDocument.withSavedGraph { graph throws(ModelError) in try checks.checkStoredValues(in: graph) }
        } else {
            sharedDocument = SharedDocument.inMemory(ObjectGraph(schema: schema))
        }
        core = ContainerCore(schema: schema, configurations: configurations, modelValueChecks: checks, sharedDocument: sharedDocument)
    }

    /// Refuses configurations a one-package container would silently ignore.
    private static func check(_ configurations: [ModelConfiguration], against schema: Schema) throws(ModelError) {
        guard configurations.count <= 1 else {
            let names = configurations.map { "'\($0.name)'" }.joined(separator: ", ")
            throw .configuration(
                "Folio keeps a container's objects in one document package; "
                    + "give one configuration, not \(configurations.count) (\(names))")
        }
        if let problem = configurations.first?.packageLocationProblem { throw .configuration(problem) }
        guard let configuration = configurations.first, let stored = configuration.schema else { return }
        let known = Set(schema.entities.map(\.name))
        let unknown = stored.entities.map(\.name).filter { !known.contains($0) }
        guard unknown.isEmpty else {
            throw .configuration(
                "configuration '\(configuration.name)' stores \(unknown.joined(separator: ", ")), "
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
    /// With `allowsSave: false` the package is opened read-only: it takes no
    /// lock, so it opens even while another process writes the package.
    ///
    /// `undoJournal` keeps the undo of the document's editing between
    /// sessions (``ModelConfiguration/undoJournal``; `nil`, the default, keeps none).
    ///
    /// - Throws: ``ModelError/package(_:)``.
    public init(contentsOf url: URL, allowsSave: Bool = true, undoJournal: UndoJournalLimits? = nil) throws(ModelError) {
        let sharedDocument = try SharedDocument.open(url: url, allowsSave: allowsSave, schema: nil)
        var configuration = ModelConfiguration(url: url, allowsSave: allowsSave)
        configuration.undoJournal = undoJournal
        core = ContainerCore(
            schema: sharedDocument.schema, configurations: [configuration],
            modelValueChecks: .none, sharedDocument: sharedDocument)
    }

    /// Waits for the package's write under way, and writes what autosaves left
    /// unwritten: a program that drops its container finds the package on disk
    /// holding everything saved. A failure is logged (``FolioLog``): no one is left to tell.
    deinit {
        core.sharedDocument.flushReportingFailure()
    }

    /// A container over a core of its own, with no main context yet: what a
    /// migration stage's context works in.
    init(core: ContainerCore) {
        self.core = core
    }

    /// A container over an existing core whose main context is `mainContext`:
    /// what a main context whose container was dropped hands out.
    init(core: ContainerCore, mainContext: ModelContext) {
        self.core = core
        mainContextStorage = mainContext
    }

    /// The main-actor context, created on first use, with autosave on and, as
    /// SwiftData's, no undo manager: set `mainContext.undoManager = UndoManager()`
    /// to record undo.
    ///
    /// The container owns it: it lives as long as the container, and it does not
    /// keep the container alive (see "Ownership" above).
    @MainActor public var mainContext: ModelContext {
        lock.lock()
        if let context = mainContextStorage {
            lock.unlock()
            return context
        }
        lock.unlock()
        let context = ModelContext(mainOf: self)
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
    /// a failure to write, or a read-only configuration, is reported to
    /// `errorHandler` (logged through ``FolioLog`` when it is `nil`).
    public func deleteAllData(errorHandler: ((ModelError) -> Void)? = nil) {
        do { try erase() } catch { Self.report(error, to: errorHandler) }
    }

    /// Deletes every object from the store at once, keeping the schema —
    /// SwiftData's later name for ``deleteAllData(errorHandler:)``, which
    /// throws instead of reporting.
    ///
    /// The same guarantee: the package is rewritten empty before this returns,
    /// so no byte of a deleted object's values is left in it (none of Folio's
    /// blobs or temporary files either; files it did not write are left
    /// alone). The document's history goes too, since its tombstones hold
    /// values; later transactions go on numbering after it. Contexts see the deletion on their next fetch or save, each as
    /// an undoable step, "Delete All Data", whose undo brings the objects back
    /// as unsaved inserts (in memory only, until that context saves).
    /// - Throws: ``ModelError/saveNotAllowed`` for a read-only configuration;
    ///   ``ModelError/package(_:)`` when the package cannot be written (the
    ///   store is then left as it was).
    public func erase() throws(ModelError) {
        guard configuration.allowsSave else { throw .saveNotAllowed }
        try sharedDocument.deleteAllData()
        // The undo journal keeps deleted objects' values: it goes with them.
        sharedDocument.package?.removeUndoJournal()
    }

    func report(_ error: ModelError, to handler: ((ModelError) -> Void)?) { Self.report(error, to: handler) }

    static func report(_ error: ModelError, to handler: ((ModelError) -> Void)?) {
        if let handler { handler(error) } else { FolioLog.report(error) }
    }
}
