import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One document's saved state in this process: the last saved graph, the
/// change sets contexts still have to merge, the identifier counter, the
/// fingerprint of the package's commit file (`manifest.xml`) and its write lock.
///
/// The process keeps **one store per package**, shared by every container
/// open on it (``DocumentStore/open(url:allowsSave:schema:)`` looks it up in a
/// registry keyed by the package's canonical path, holding stores weakly), so
/// two containers on one URL see each other's saves and never lock each other
/// out. Containers and contexts hold their store strongly; when the last of
/// them goes, the store goes, and with it the lock. An in-memory container has
/// a store of its own, in no registry.
///
/// Change sets are kept only while a live context still needs them: every
/// context registers the generation it has merged up to, and a change set
/// every registered context has seen is dropped (a context created later
/// checks out the saved graph and needs none).
///
/// **Saving and writing.** A save's in-memory part (merge, validate, publish the
/// change set, replace the saved graph) is done under the store's lock and costs
/// what changed. Writing the package is apart: an explicit save writes before it
/// publishes, on its caller's thread; an autosave publishes and hands the write
/// to the store's ``BackgroundWriter``, which writes the latest saved state
/// (an immutable graph: the saved graph is replaced, never edited) off the
/// editing thread. ``writtenGeneration`` says how far the package on disk has
/// caught up; a failed background write leaves it behind, so the next save,
/// ``flush()``, the container's teardown or the process's exit writes again.
final class DocumentStore: @unchecked Sendable {
    /// The package, `nil` in memory.
    let package: DocumentPackage?
    /// The registry key (the package's canonical path), `nil` in memory.
    let key: String?

    /// Recursive: a context released while the store is busy unregisters itself.
    private let lock = NSRecursiveLock()
    /// The last saved state: replaced, never mutated, so contexts can keep it as a baseline.
    private var savedGraph: ObjectGraph
    private var generation = 0
    private var changeSets: [ChangeSet] = []
    /// The writer every context's inserts draw identifiers from: one lane per
    /// store, drawn at its first insert, its sequence only moving forward (an
    /// undone insert uses its number up).
    private var allocator: IdentifierAllocator
    /// The document file as this store last read or wrote it (`nil`: there was none).
    private var fingerprint: FileFingerprint?
    /// Identifiers of objects saved since the package was last written successfully:
    /// a save rewrites the parts holding them, and a failed write leaves them here.
    private var unwrittenChanges: Set<UInt64> = []
    /// Whether a save since the last successful write could not say exactly
    /// what it changed (see ``ModelContext/savedObjectNumbers()``): the next
    /// write then compares every part with what is on disk.
    private var unwrittenUnknown = false

    /// What the next write must rewrite: `nil` when not known exactly.
    private var unwrittenSet: Set<UInt64>? { unwrittenUnknown ? nil : unwrittenChanges }

    /// Adds a save's changed objects (`nil`: not known exactly) to what is unwritten.
    ///
    /// The smaller set goes into the larger, as for a write: after a write (nothing
    /// unwritten) an autosave's set is kept as it is, not hashed again on the
    /// editing thread (100,000 identifiers for a cascade of 100,000).
    private func addUnwritten(_ changed: Set<UInt64>?) {
        guard let changed else { unwrittenUnknown = true; return }
        if unwrittenChanges.count >= changed.count {
            unwrittenChanges.formUnion(changed)
        } else {
            unwrittenChanges = changed.union(unwrittenChanges)
        }
    }

    /// Everything is on disk.
    private func clearUnwritten() {
        unwrittenChanges.removeAll()
        unwrittenUnknown = false
    }
    /// Held while a container that may write the package is open on this store.
    private var writeLock: PackageLock? {
        // Only a lock taken is shown: one let go stays in the slot (weakly) while
        // another store going away still holds it open.
        didSet { if let writeLock { lockSlot.held = writeLock } }
    }
    /// Shows the registry this store's lock, weakly (see ``LockSlot``).
    let lockSlot = LockSlot()
    /// The schema of the package as it is on disk (`nil`: nothing written
    /// yet): what a migration plan would start from, which an in-memory
    /// migration does not change until a save writes it.
    private var diskSchemaStorage: Schema?
    /// Each live context on this store, with the generation it has merged up to.
    private var contextGenerations: [ObjectIdentifier: Int] = [:]
    /// Writes autosaves in the background, and orders every write; `nil` in memory.
    let writer: BackgroundWriter?
    /// The generation the package on disk holds: behind ``generation`` while a
    /// background write is pending or after one failed.
    private var writtenGeneration = 0
    /// Why the last background write failed, until a write succeeds.
    private var writeFailure: PackageError?
    /// The contexts still to be told of ``writeFailure`` (those whose autosaves it carried).
    private var unreportedFailure: Set<ObjectIdentifier> = []
    /// The contexts whose autosaves the next background write carries.
    private var autosavers: Set<ObjectIdentifier> = []
    /// The document's history: a transaction per save, written with the save
    /// it records (the package's, read with it; in memory, kept here only).
    private var history: HistoryLog
    /// What learning the history's heads read, kept so learning them again
    /// (after another writer's save is taken in) reads only the files that changed.
    private var headsCache = HistoryLog.HeadsCache()
    /// Told of every saved state published (``StoreObserver``), weakly; with the
    /// package watcher that runs while any is registered.
    let observers = StoreObservers()

    private init(package: DocumentPackage?, key: String?, graph: ObjectGraph, history: HistoryLog = HistoryLog(),
                 fingerprint: FileFingerprint?, writeLock: PackageLock?, carriedLock: PackageLock? = nil,
                 diskSchema: Schema?) {
        self.package = package
        self.history = history
        // Saves write format 3, whose history is files per writer: a format-2 package's
        // history is brought into that layout now, before a save appends to it.
        if let package, !package.writesFormat2 { self.history.adoptFileLayout(in: package.folder, limits: graph.limits) }
        #if DEBUG
        // A store opened by a test of format 2 keeps writing it, on its background writer's thread too.
        if let package, DocumentPackage.writesFormat2OnThisTask { DocumentPackage.writeFormat2(true, under: package.url.path) }
        #endif
        self.key = key
        savedGraph = graph
        allocator = IdentifierAllocator()
        self.fingerprint = fingerprint
        self.writeLock = writeLock
        // A read-only store shows the lock a going store still holds, for a later
        // container that may save to take over (see ``LockSlot``).
        lockSlot.held = writeLock ?? carriedLock
        diskSchemaStorage = diskSchema
        writer = package == nil ? nil : BackgroundWriter()
        if package != nil { _ = DocumentStore.installExitFlush }
    }

    deinit {
        #if DEBUG
        if let key { DocumentStore.teardownHook(for: key)?(.started) }
        #endif
        // The last holder is gone: whatever was saved and not yet written is written now,
        // before an open on another thread (which no longer finds this store) reads the package.
        flushReportingFailure()
        lockSlot.storeDidFlush()
        guard let key else { return }
        #if DEBUG
        DocumentStore.teardownHook(for: key)?(.flushed)
        #endif
        // Closing the lock and leaving the registry is one step for an open on
        // another thread: it either takes the lock over or finds it closed.
        DocumentStore.registry.remove(key, ifStore: ObjectIdentifier(self)) { writeLock = nil }
    }

    /// The saved graph's schema.
    var schema: Schema {
        lock.lock()
        defer { lock.unlock() }
        return savedGraph.schema
    }

    /// Runs `body` on the saved graph, with the lock held.
    func withSavedGraph<Result>(_ body: (ObjectGraph) throws(ModelError) -> Result) throws(ModelError) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(savedGraph)
    }

    // MARK: Opening

    /// A store of its own for an in-memory container.
    static func inMemory(_ graph: ObjectGraph) -> DocumentStore {
        DocumentStore(package: nil, key: nil, graph: graph, fingerprint: nil, writeLock: nil, diskSchema: nil)
    }

    /// The process's store for the package at `url`: the one already open if
    /// there is one that can serve this container, else a new one read from disk.
    ///
    /// A container that may save needs the store to hold the package's write
    /// lock: a store opened by read-only containers takes it now, if the
    /// package is still as that store read it; otherwise a fresh store is read
    /// (and registered), and the read-only containers keep their old one.
    ///
    /// - Parameters:
    ///   - schema: the container's schema; `nil` takes the schema stored in the package
    ///     (which must then exist). A package in an older shape is migrated in memory.
    /// - Throws: ``ModelError/package(_:)`` (``PackageError/locked(path:)`` when
    ///   another process writes it and `allowsSave`), ``ModelError/migration(package:_:)``,
    ///   ``ModelError/configuration(_:)`` when the package is open in this process
    ///   with another schema.
    ///   - migration: what brings the stored graph to `schema` instead of the
    ///     lightweight migration (a migration plan); run only when the package is
    ///     read, not when a store already open is shared.
    static func open(url: URL, allowsSave: Bool, schema: Schema?,
                     migration: StoredGraphMigration? = nil) throws(ModelError) -> DocumentStore {
        let key = canonicalPath(url)
        // The registry stays locked while the package is read, so two threads never read one
        // package into two stores. Its lock is recursive, so a migration stage's code may open
        // other packages on this thread; opens on other threads wait until the read is done.
        return try registry.withLock { () throws(ModelError) -> DocumentStore in
            var inherited: PackageLock?
            if let entry = registry.entry(key) {
                if let existing = entry.store {
                    if !allowsSave, !existing.isCurrent {
                        // Another program changed the package since this store read it:
                        // a reader gets what is on disk now, in a store of its own.
                        return try read(url: url, key: nil, allowsSave: false, schema: schema, migration: migration,
                                        inherited: nil)
                    }
                    // Before any lock is taken for it: a refused container must leave no lock behind.
                    if let schema, existing.schema != schema {
                        throw .configuration("\(url.path) is open in this process with a different schema; "
                                             + "close the other container first")
                    }
                    // A plan's stages run when a package is read; a store another container
                    // opened without them must already be where the plan ends.
                    if let migration, let onDisk = existing.diskSchema, !migration.isSettled(onDisk) {
                        throw .configuration("\(url.path) is open in this process by a container without the "
                                             + "migration plan, at an earlier version; close it first, or open "
                                             + "the package with the plan first")
                    }
                    if try existing.canServe(allowsSave: allowsSave) { return existing }
                } else {
                    // The last store is going away on another thread: its last write must land
                    // before the package is read here, or this store would start from an older
                    // state (and its first save be refused as a conflict).
                    entry.slot.waitForLastWrite()
                }
                // A store going away (this entry's, or one it took its lock from) may not have closed
                // its lock yet: carry the lock over instead of being refused by it.
                inherited = entry.slot.held
            }
            let store = try read(url: url, key: key, allowsSave: allowsSave, schema: schema, migration: migration,
                                 inherited: inherited)
            registry.register(WeakStore(store: store, slot: store.lockSlot), for: key)
            return store
        }
    }

    /// Reads the package into a new store, taking its lock first when `allowsSave`
    /// (`inherited`, when this process still holds it open; a read-only store only shows it).
    private static func read(url: URL, key: String?, allowsSave: Bool, schema: Schema?, migration: StoredGraphMigration?,
                             inherited: PackageLock?) throws(ModelError) -> DocumentStore {
        let package = DocumentPackage(url: url)
        func takeLock() throws(PackageError) -> PackageLock {
            if let inherited { return inherited }
            return try PackageLock(path: url.path)
        }
        guard let schema else {
            // The schema stored in the package: it must exist.
            let writeLock: PackageLock?
            do {
                writeLock = allowsSave && FileManager.default.fileExists(atPath: url.path) ? try takeLock() : nil
            } catch { throw .package(error) }
            let fingerprint = package.fingerprint
            let graph: ObjectGraph, history: HistoryLog
            do { (graph, history) = try package.readDocument(limits: .standard) } catch { throw .package(error) }
            return DocumentStore(package: package, key: key, graph: graph, history: history, fingerprint: fingerprint,
                                 writeLock: writeLock, carriedLock: inherited, diskSchema: graph.schema)
        }
        guard FileManager.default.fileExists(atPath: url.path) else {
            // A new document: the lock is taken when the first save creates it.
            return DocumentStore(package: package, key: key, graph: ObjectGraph(schema: schema), fingerprint: nil, writeLock: nil,
                                 carriedLock: inherited, diskSchema: nil)
        }
        let writeLock: PackageLock?
        do { writeLock = allowsSave ? try takeLock() : nil } catch { throw .package(error) }
        var fingerprint = package.fingerprint
        var graph: ObjectGraph
        let read: (graph: ObjectGraph, history: HistoryLog)
        do { read = try package.readDocument(limits: .standard) } catch { throw .package(error) }
        graph = read.graph
        var diskSchema = graph.schema
        var history = read.history
        if let migration {
            // A migration plan's stages: the package is rewritten now, once all of them succeeded.
            let migrated = try migration.migrate(graph, url.path)
            graph = migrated.graph
            rename(&history, in: package, from: diskSchema, by: migrated.renaming)
            if migrated.rewrite, allowsSave {
                do { fingerprint = try package.write(graph, expecting: fingerprint, history: history) } catch { throw .package(error) }
                diskSchema = graph.schema
            }
        } else {
            graph = try lightweightMigration(of: graph, to: schema, package: url.path)
            if graph.schema != diskSchema {
                let renaming: SchemaRenaming
                do { renaming = try SchemaRenaming(from: diskSchema, to: graph.schema) } catch { throw .migration(package: url.path, error) }
                rename(&history, in: package, from: diskSchema, by: renaming)
            }
        }
        return DocumentStore(package: package, key: key, graph: graph, history: history, fingerprint: fingerprint,
                             writeLock: writeLock, carriedLock: inherited, diskSchema: diskSchema)
    }

    /// Brings the history read with a package under the names its migrated
    /// schema gives (nothing to do when every name is kept): a document's
    /// history names only what its schema declares, so the save that writes
    /// the migrated schema writes the renamed history with it.
    private static func rename(_ history: inout HistoryLog, in package: DocumentPackage, from stored: Schema,
                               by renaming: SchemaRenaming) {
        guard !renaming.keepsEveryName(of: stored) else { return }
        history.rename(in: package.folder, limits: .standard, storedSchema: stored, entity: renaming.entity,
                       property: renaming.property)
    }

    /// The stored graph under the container's schema, migrated in memory when
    /// the two differ (the package is rewritten by the next save).
    ///
    /// - Throws: ``MigrationError/backwardMigration(stored:current:)`` when both
    ///   schemas declare versions and the stored one is later: a lightweight
    ///   migration would drop what the later version added.
    private static func lightweightMigration(of graph: ObjectGraph, to schema: Schema,
                                             package path: String) throws(ModelError) -> ObjectGraph {
        if let stored = graph.schema.declaredVersion, let current = schema.declaredVersion, stored > current {
            throw .migration(package: path, .backwardMigration(stored: stored, current: current))
        }
        // The graph takes the container's schema (its classes, its defaults). With the same
        // entities it keeps the version the package records, unless the container declares one.
        var target = schema
        if target.declaredVersion == nil, graph.schema.differsOnlyInDefaultsOrIndexes(from: schema, inAnyOrder: true) {
            target.declaredVersion = graph.schema.declaredVersion
        }
        do { return try graph.brought(to: target) } catch { throw .migration(package: path, error) }
    }

    /// The schema of the package as on disk; `nil` before its first save.
    var diskSchema: Schema? {
        lock.lock()
        defer { lock.unlock() }
        return diskSchemaStorage
    }

    /// Whether the package on disk is still what this store last read or wrote.
    private var isCurrent: Bool {
        // Not between a background write's rename and the fingerprint it records.
        guard let writer else { return true }
        return writer.exclusively { isCurrentLocked }
    }

    private var isCurrentLocked: Bool {
        lock.lock()
        defer { lock.unlock() }
        guard let package else { return true }
        return FileFingerprint.matches(fingerprint, package.commitItem)
    }

    /// Whether a new container with `allowsSave` can share this store; takes the
    /// write lock for it if needed. Called with the registry locked.
    private func canServe(allowsSave: Bool) throws(ModelError) -> Bool {
        guard let writer else { return true }
        return try writer.exclusively { () throws(ModelError) in try canServeLocked(allowsSave: allowsSave) }
    }

    private func canServeLocked(allowsSave: Bool) throws(ModelError) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard allowsSave, writeLock == nil, let package else { return true }
        // Opened read-only so far: share it only if the package is still what this store read.
        guard FileFingerprint.matches(fingerprint, package.commitItem) else { return false }
        guard FileManager.default.fileExists(atPath: package.url.path) else { return true }
        let taken: PackageLock
        // The lock a going store still holds, if any: a second `flock` would be refused by it.
        if let held = lockSlot.held {
            taken = held
        } else {
            do { taken = try PackageLock(path: package.url.path) } catch { throw .package(error) }
        }
        // Another process may have saved between the check and the lock.
        guard FileFingerprint.matches(fingerprint, package.commitItem) else { return false }
        writeLock = taken
        return true
    }

    /// The package's path as the kernel resolves it, so two spellings of one
    /// package share a store; for a package not created yet, its parent's.
    static func canonicalPath(_ url: URL) -> String {
        let path = url.standardizedFileURL.path
        if let resolved = realpath(path, nil) {
            defer { free(resolved) }
            return String(cString: resolved)
        }
        let parent = (path as NSString).deletingLastPathComponent
        if let resolved = realpath(parent, nil) {
            defer { free(resolved) }
            return String(cString: resolved) + "/" + (path as NSString).lastPathComponent
        }
        return path
    }

    // MARK: Shared state, for contexts

    /// A new identifier for a context's insert, from the store's lane (drawn
    /// at the first insert, avoiding every lane the saved document's objects
    /// and its history use); `nil` when no lane is left.
    func allocateID() -> UInt64? {
        lock.lock()
        defer { lock.unlock() }
        let saved = savedGraph, history = self.history
        return allocator.next { lane in
            saved.index.lanes.contains(lane) || saved.allocator.reservedLanes.contains(lane) || history.namesLane(lane)
        }
    }

    /// A copy of the saved state and its generation, for a context starting
    /// over; registers the context as having seen everything up to it.
    func checkout(for context: ObjectIdentifier) -> (graph: ObjectGraph, baseline: ObjectGraph, generation: Int) {
        lock.lock()
        defer { lock.unlock() }
        contextGenerations[context] = generation
        pruneChangeSets()
        return (savedGraph.copy(), savedGraph, generation)
    }

    /// Change sets saved after `generation`, for a context to merge; the context
    /// is registered as having merged them.
    func changes(after generation: Int, for context: ObjectIdentifier)
        -> (changes: [ChangeSet], baseline: ObjectGraph, generation: Int) {
        lock.lock()
        defer { lock.unlock() }
        guard generation < self.generation else { return ([], savedGraph, self.generation) }
        let pending = changeSets.filter { $0.generation > generation }
        contextGenerations[context] = self.generation
        pruneChangeSets()
        return (pending, savedGraph, self.generation)
    }

    /// Forgets a context that is going away.
    func unregister(_ context: ObjectIdentifier) {
        lock.lock()
        defer { lock.unlock() }
        contextGenerations[context] = nil
        autosavers.remove(context)
        unreportedFailure.remove(context)
        pruneChangeSets()
    }

    /// How many change sets are kept (for tests and diagnostics).
    var changeSetCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return changeSets.count
    }

    /// Saves what a context hands over: publishes it as the new saved state
    /// and writes the package, or answers ``SaveRequest/Outcome/stale`` when
    /// another context saved since the request's generation (the context
    /// merges and asks again). Never calls back into a context.
    ///
    /// - Parameter inBackground: an autosave: the change is published now and
    ///   the package written by the background writer (an in-memory store has
    ///   nothing to write). Otherwise the write under way is waited for, then the
    ///   package is written before anything is published: a failure throws and
    ///   leaves the store as it was.
    ///
    /// Observers (``StoreObserver``) are told once the save is published and the locks let go.
    func save(_ request: SaveRequest, inBackground: Bool = false) throws(ModelError) -> SaveRequest.Outcome {
        let outcome: SaveRequest.Outcome
        // The merge of a branched history this save persisted first, if any.
        var merge: StoredTransaction?
        if let writer, !inBackground {
            outcome = try writer.exclusively { () throws(ModelError) -> SaveRequest.Outcome in
                try commit(request, writing: true, merge: &merge)
            }
        } else {
            outcome = try commit(request, writing: false, merge: &merge)
        }
        // A save that did not throw published its state.
        if case .committed(let recorded, _, _) = outcome {
            notifyObservers { (merge.map { [$0] } ?? []) + (recorded.map { [$0] } ?? []) }
        }
        return outcome
    }

    /// Whether a context other than `context` is registered: one that will
    /// merge the next save's change set.
    func hasOtherContexts(than context: ObjectIdentifier) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return contextGenerations.keys.contains { $0 != context }
    }

    /// A save's work under the store's lock; with `writing`, the package's write too.
    ///
    /// The first transaction a store appends to a history it read learns that
    /// history's heads (``HistoryLog/learnHeads(in:limits:schema:recordingMerge:cache:)``,
    /// a read of every history file, once): a history a Git merge branched
    /// gets its merge transaction first, persisted by this write and handed
    /// back in `merge`.
    private func commit(_ request: SaveRequest, writing: Bool,
                        merge: inout StoredTransaction?) throws(ModelError) -> SaveRequest.Outcome {
        lock.lock()
        defer { lock.unlock() }
        let others = contextGenerations.keys.contains { $0 != request.context }
        // Another context saved since this one merged (its save may clash: two inserts of
        // one unique value), or a context that will merge this save's change set appeared.
        guard request.basedOn == generation, request.changeSet != nil || !others else { return .stale }
        // What this save changes on disk: the parts holding these objects (both ends of a link edit).
        // With other contexts live, merges and undo rebased over them can change objects
        // in ways tracking does not follow: every part is then compared with the disk.
        let changed: Set<UInt64>? = package == nil ? [] : others ? nil : request.changed
        // The history as it will be once this save is published: written by the same commit.
        var history = self.history
        var recorded = request.transaction
        if let transaction = recorded {
            if history.heads == nil {
                merge = history.learnHeads(in: package?.folder, limits: savedGraph.limits, schema: savedGraph.schema,
                                           recordingMerge: true, cache: &headsCache)
            }
            recorded?.number = history.append(transaction)
        }
        if writing, let package {
            // The request's graph holds every saved state merged, so this write catches the package up.
            // The smaller set goes into the larger: a save of 100,000 inserts with nothing
            // left unwritten hashes none of them again.
            let unwritten = unwrittenSet.flatMap { set in
                changed.map { set.count >= $0.count ? set.union($0) : $0.union(set) }
            }
            do throws(PackageError) {
                try writeNow(package, request.graph, generation: generation + 1, changed: unwritten, history: &history)
            } catch {
                throw .package(error)
            }
        }
        self.history = history
        var changeSet = request.changeSet ?? ChangeSet(generation: 0)
        changeSet.generation = generation + 1
        commit(changeSet, graph: request.graph)
        contextGenerations[request.context] = generation
        pruneChangeSets()
        if !writing {
            addUnwritten(changed)
            scheduleBackgroundWrite(for: request.context)
        }
        return .committed(recorded, baseline: savedGraph, generation: generation)
    }

    /// The one place the package is written with a saved state (the migration
    /// at open aside). Call with the writer's lock held (a background write
    /// holds no store lock meanwhile: `graph` is an immutable snapshot).
    ///
    /// - Returns: the fingerprint of the document just written.
    /// - Parameter changed: the identifiers of every object changed since the
    ///   package was last written (`nil`: unknown, every part is written).
    private func writePackage(_ package: DocumentPackage, _ graph: ObjectGraph, expecting expected: FileFingerprint?,
                              changed: Set<UInt64>?, history: HistoryLog) throws(PackageError) -> FileFingerprint? {
        try package.write(graph, expecting: .some(expected), changed: changed, history: history)
    }

    /// Writes `graph` and `history` on this thread as the package's content for
    /// `generation`, and records it: nothing is left unwritten. Call with the
    /// writer's lock and the store's lock held.
    private func writeNow(_ package: DocumentPackage, _ graph: ObjectGraph, generation written: Int, changed: Set<UInt64>?,
                          history: inout HistoryLog) throws(PackageError) {
        try didWrite(graph, generation: written,
                     fingerprint: try writePackage(package, graph, expecting: fingerprint, changed: changed, history: history))
        history.didWrite(history)
        clearUnwritten()
    }

    /// Records a successful write of the saved state of `generation`. Call with the lock held.
    private func didWrite(_ graph: ObjectGraph, generation written: Int, fingerprint: FileFingerprint?) throws(PackageError) {
        self.fingerprint = fingerprint
        diskSchemaStorage = graph.schema
        writtenGeneration = max(writtenGeneration, written)
        writeFailure = nil
        unreportedFailure.removeAll()
        // A package this store created: hold it from now on.
        if writeLock == nil, let package {
            // The lock a going store still holds, if any: a second `flock` would be refused by it.
            if let held = lockSlot.held { writeLock = held } else { writeLock = try PackageLock(path: package.url.path) }
        }
    }

    // MARK: Writing in the background

    /// Hands the package's write to the background writer, for the autosave of `context`.
    /// Call with the lock held.
    private func scheduleBackgroundWrite(for context: ObjectIdentifier?) {
        guard let writer, writtenGeneration < generation else { return }
        if let context { autosavers.insert(context) }
        // Weakly, and only while the write lock is held: a job never keeps a store alive
        // past its teardown, which waits for that lock (and writes, if the job had not).
        writer.schedule { [weak self] in writer.exclusively { self?.writeInBackground() } }
    }

    /// The background writer's job, run with the write lock held: writes the
    /// latest saved state, if the package does not hold it yet. The store's
    /// lock is held only to take the state and to record the outcome, not while
    /// writing, so contexts save (in memory) and merge meanwhile.
    private func writeInBackground() {
        guard let writer else { return }
        #if DEBUG
        let injected = writer.beforeBackgroundWrite?()
        #else
        let injected: PackageError? = nil
        #endif
        lock.lock()
        guard let package, writtenGeneration < generation else {
            autosavers.removeAll()
            lock.unlock()
            return
        }
        // Immutable from here: the saved graph is replaced by later saves, never edited.
        let graph = savedGraph, target = generation, expected = fingerprint, carried = autosavers, history = self.history
        // Taken with the state they describe; a failed write puts them back.
        let changed = unwrittenSet
        clearUnwritten()
        autosavers.removeAll()
        lock.unlock()
        var result: Result<FileFingerprint?, PackageError>
        if let injected {
            result = .failure(injected)
        } else {
            do throws(PackageError) {
                result = .success(try writePackage(package, graph, expecting: expected, changed: changed, history: history))
            }
            catch { result = .failure(error) }
        }
        lock.lock()
        defer { lock.unlock() }
        do throws(PackageError) {
            try didWrite(graph, generation: target, fingerprint: try result.get())
            self.history.didWrite(history)
        } catch {
            writeFailure = error
            addUnwritten(changed)
            unreportedFailure.formUnion(carried)
            // No context to tell (every one that autosaved is gone): logged, never silently.
            if carried.allSatisfy({ contextGenerations[$0] == nil }) { ModelContainer.report(.package(error), to: nil) }
        }
    }

    /// The failure of a background write that carried `context`'s autosave, once:
    /// the context reports it to its ``ModelContext/autosaveErrorHandler``.
    func takeWriteFailure(for context: ObjectIdentifier) -> ModelError? {
        lock.lock()
        defer { lock.unlock() }
        guard let writeFailure, unreportedFailure.remove(context) != nil else { return nil }
        return .package(writeFailure)
    }

    /// Whether a background write failed and no write has succeeded since.
    var hasFailedWrite: Bool {
        lock.lock()
        defer { lock.unlock() }
        return writeFailure != nil && writtenGeneration < generation
    }

    /// An autosave with nothing new of its own, after a failed background write:
    /// writes the saved state again, in the background.
    func retryFailedWrite(for context: ObjectIdentifier) {
        lock.lock()
        defer { lock.unlock() }
        guard writeFailure != nil else { return }
        scheduleBackgroundWrite(for: context)
    }

    /// Makes the package hold the latest saved state: waits for the write under
    /// way, then writes on this thread what is still unwritten (a queued
    /// autosave, or one whose write failed).
    ///
    /// - Throws: ``ModelError/package(_:)`` when that write fails; the state stays
    ///   unwritten, for the next save.
    func flush() throws(ModelError) {
        guard let writer else { return }
        try writer.exclusively { () throws(ModelError) in
            lock.lock()
            defer { lock.unlock() }
            guard let package, writtenGeneration < generation else { return }
            do throws(PackageError) {
                try writeNow(package, savedGraph, generation: generation, changed: unwrittenSet, history: &history)
            } catch {
                writeFailure = error
                throw .package(error)
            }
        }
    }

    /// ``flush()`` where no one can be told of a failure (a container's
    /// teardown, the store's, the process's exit): the failure is logged (``FolioLog``).
    func flushReportingFailure() {
        do { try flush() } catch { ModelContainer.report(error, to: nil) }
    }

    /// Tests only: waits until the background writes scheduled so far have run.
    func waitForBackgroundWrites() {
        writer?.drain()
    }

    /// Whether the package on disk holds the latest saved state.
    var isWritten: Bool {
        lock.lock()
        defer { lock.unlock() }
        return package == nil || writtenGeneration == generation
    }

    /// Flushes every store open in this process: run at exit, so that no saved
    /// state is lost to a program that ends right after an autosave.
    static func flushAll() {
        for store in registry.liveStores() { store.flushReportingFailure() }
    }

    /// Installs ``flushAll()`` as an `atexit` handler, once, when the first store with a package is made.
    private static let installExitFlush: Void = {
        atexit { DocumentStore.flushAll() }
    }()

    /// Empties the store, writing the package empty unless in memory (after
    /// the write under way: a pending autosave's state is superseded).
    func deleteAllData() throws(ModelError) {
        if let writer {
            try writer.exclusively { () throws(ModelError) in try deleteAllDataLocked() }
        } else {
            try deleteAllDataLocked()
        }
        notifyObservers { [] }
    }

    private func deleteAllDataLocked() throws(ModelError) {
        lock.lock()
        defer { lock.unlock() }
        let empty = ObjectGraph(schema: savedGraph.schema)
        empty.nextID = savedGraph.nextID
        empty.allocator = savedGraph.allocator
        // The history goes too (its tombstones hold values); its numbering goes on.
        var emptyHistory = history
        emptyHistory.removeAll()
        if let package {
            do throws(PackageError) {
                try writeNow(package, empty, generation: generation + 1, changed: nil, history: &emptyHistory)
            } catch {
                throw .package(error)
            }
        }
        history = emptyHistory
        var changeSet = ChangeSet(generation: generation + 1)
        changeSet.isDeleteAll = true
        for table in savedGraph.tables {
            for row in 0..<table.rowCount where table.isLive[row] { changeSet.deletions.append(table.ids[row]) }
        }
        commit(changeSet, graph: empty)
        pruneChangeSets()
    }

    // MARK: Another process's saves

    /// Takes in what another process saved since this store last read or
    /// wrote the package: reads the package as it is now and publishes the
    /// difference from the saved graph as a change set, as another context's
    /// save is published, with the package's graph as the saved graph and its
    /// history and fingerprint as this store's. Every context of every
    /// container on this store merges it at its next access, keeping its own
    /// unsaved edits (``ModelContext/mergeSavedChanges()``).
    ///
    /// Nothing is done — and `false` returned — when the package is still what
    /// this store read or wrote, when it is in memory, or when saves of this
    /// store are not written yet (a pending or failed background write: the
    /// package changed under a holder of its write lock, and that write reports
    /// the conflict; taking the package in would lose those saves).
    ///
    /// A package saved with another schema (a later version) is brought to this
    /// store's schema as an open would (a lightweight migration).
    ///
    /// - Returns: whether the package had changed and was taken in (its
    ///   change set may be empty: another process deleted history only).
    /// - Throws: ``ModelError/package(_:)`` when the package cannot be read;
    ///   ``ModelError/migration(package:_:)`` when it cannot be brought to this
    ///   store's schema. The store is then as it was.
    /// - Complexity: a read of the package, then O(objects) to compare it with
    ///   the saved graph, column by column (``ObjectGraph/changedIdentifiers(since:)``);
    ///   the change set holds the objects that differ.
    /// - Threading: any thread. Holds the writer's lock throughout (no write of
    ///   this store runs meanwhile, and ``isCurrent`` waits for it), and the
    ///   store's lock only to compare and publish, not while reading.
    @discardableResult
    func takeInOutsideSave() throws(ModelError) -> Bool {
        guard let package, let writer else { return false }
        let taken = try writer.exclusively { () throws(ModelError) -> Bool in
            guard !isCurrentLocked else { return false }
            // Taken before the read, as an open does: a commit during the read makes the
            // store not current again, and the next call takes in what it added.
            let newFingerprint = package.fingerprint
            let read: (graph: ObjectGraph, history: HistoryLog)
            do throws(PackageError) { read = try package.readDocument(limits: .standard) } catch { throw .package(error) }
            lock.lock()
            defer { lock.unlock() }
            // Saves of this store the package does not hold yet: not taken over.
            guard writtenGeneration == generation else { return false }
            let graph = try Self.lightweightMigration(of: read.graph, to: savedGraph.schema, package: package.url.path)
            let changeSet = Self.changeSet(from: savedGraph, to: graph, generation: generation + 1)
            fingerprint = newFingerprint
            diskSchemaStorage = read.graph.schema
            var history = read.history
            if !package.writesFormat2 { history.adoptFileLayout(in: package.folder, limits: graph.limits) }
            self.history = history
            commit(changeSet, graph: graph)
            writtenGeneration = generation
            clearUnwritten()
            pruneChangeSets()
            return true
        }
        if taken {
            // The package's whole history as taken in: observers keep what is past their position.
            notifyObservers {
                do throws(ModelError) { return try historyTransactions() } catch {
                    ModelContainer.report(error, to: nil)
                    return []
                }
            }
        }
        return taken
    }

    /// What turns `old` into `new`, two versions of one document under one
    /// schema: the identifiers of the objects `new` holds differently
    /// (inserted or changed) and of those it no longer holds, and its conflict
    /// records when they differ.
    ///
    /// - Complexity: O(objects of both) to compare, then O(changed objects).
    static func changeSet(from old: ObjectGraph, to new: ObjectGraph, generation: Int) -> ChangeSet {
        var changeSet = ChangeSet(generation: generation)
        let candidates: [UInt64]
        if let changed = new.changedIdentifiers(since: old) {
            candidates = changed.sorted()
        } else {
            // Not comparable column by column: every object of either is a candidate.
            var all = Set<UInt64>()
            for graph in [old, new] {
                for table in graph.tables {
                    for row in 0..<table.rowCount where table.isLive[row] { all.insert(table.ids[row]) }
                }
            }
            candidates = all.sorted()
        }
        for id in candidates {
            if let ref = new.index[id], new.isLive(ref) {
                changeSet.upserts.append(id)
            } else if let ref = old.index[id], old.isLive(ref) {
                changeSet.deletions.append(id)
            }
        }
        if new.conflicts != old.conflicts { changeSet.conflicts = new.conflicts }
        return changeSet
    }

    // MARK: History

    /// Every transaction of the document's history, oldest first.
    ///
    /// When another process has written the package since this store read or
    /// wrote it, the history is read from the package as it is now (which holds
    /// that process's transactions); otherwise from this store, which also
    /// holds the transactions of saves still being written.
    ///
    /// - Throws: ``ModelError/package(_:)`` for a history segment missing or damaged.
    func historyTransactions() throws(ModelError) -> [StoredTransaction] {
        if let package, !isCurrent {
            var attempts = 0
            while true {
                let before = FileIO.identity(package.commitPath)
                do {
                    let onDisk = package.readHistory()
                    return try onDisk.log.transactions(in: package.folder, limits: .standard, schema: onDisk.schema)
                } catch {
                    // A writer's commit may remove the segments the manifest read named: read again.
                    attempts += 1
                    guard attempts < DocumentPackage.maximumReadAttempts, before != FileIO.identity(package.commitPath) else {
                        throw .package(error)
                    }
                }
            }
        }
        lock.lock()
        defer { lock.unlock() }
        do { return try history.transactions(in: package?.folder, limits: savedGraph.limits, schema: savedGraph.schema) }
        catch { throw .package(error) }
    }

    /// Deletes the transactions `shouldDelete` selects from the history, and
    /// writes the package at once (with whatever autosaves left unwritten):
    /// the segment files that held them are replaced, so none of their bytes
    /// stays in the package.
    ///
    /// - Returns: how many transactions were deleted.
    /// - Throws: ``ModelError/package(_:)`` when a segment cannot be read or the
    ///   write fails (the history is then as it was); ``ModelError/saveNotAllowed``
    ///   for a read-only configuration.
    @discardableResult
    func deleteHistory(allowsSave: Bool, where shouldDelete: (StoredTransaction) -> Bool) throws(ModelError) -> Int {
        // A read-only configuration changes nothing, in memory too (as its saves are refused).
        guard allowsSave else { throw .saveNotAllowed }
        guard let writer else { return try deleteHistoryLocked(where: shouldDelete) }
        return try writer.exclusively { () throws(ModelError) -> Int in try deleteHistoryLocked(where: shouldDelete) }
    }

    private func deleteHistoryLocked(where shouldDelete: (StoredTransaction) -> Bool) throws(ModelError) -> Int {
        lock.lock()
        defer { lock.unlock() }
        var history = self.history
        let removed: Int
        do { removed = try history.remove(where: shouldDelete, in: package?.folder, limits: savedGraph.limits, schema: savedGraph.schema) }
        catch { throw .package(error) }
        guard removed > 0 else { return 0 }
        if let package {
            do throws(PackageError) {
                try writeNow(package, savedGraph, generation: generation, changed: unwrittenSet, history: &history)
            } catch {
                throw .package(error)
            }
        }
        self.history = history
        return removed
    }

    /// Publishes a saved state. Call with the lock held.
    private func commit(_ changeSet: ChangeSet, graph: ObjectGraph) {
        generation = changeSet.generation
        changeSets.append(changeSet)
        savedGraph = graph
    }

    /// Drops the change sets every live context has merged. Call with the lock held.
    private func pruneChangeSets() {
        guard let first = changeSets.first else { return }
        let oldest = contextGenerations.values.min() ?? generation
        guard first.generation <= oldest else { return }
        changeSets.removeAll { $0.generation <= oldest }
    }

    // MARK: The registry

    /// A registry entry: the store, weakly, and its lock's slot.
    struct WeakStore {
        weak var store: DocumentStore?
        let slot: LockSlot
    }

    /// Where a store shows the registry its write lock, weakly, and when its
    /// teardown has written the package.
    ///
    /// A store's weak references read `nil` as soon as its `deinit` starts, but
    /// its lock closes only after; an open on another thread in between takes
    /// the lock over from here (the same open file description, so still held),
    /// rather than being refused by the lock of a store that is going away. The
    /// slot keeps showing a lock its store let go for as long as another store
    /// holds it open (one that carried it over and went away first leaves its
    /// entry, with this slot, in the registry until then), and a read-only
    /// store shows the lock it found, for a later container that may save.
    final class LockSlot: @unchecked Sendable {
        private let condition = NSCondition()
        private weak var lockStorage: PackageLock?
        private var isFlushed = false

        var held: PackageLock? {
            get { condition.lock(); defer { condition.unlock() }; return lockStorage }
            set { condition.lock(); defer { condition.unlock() }; lockStorage = newValue }
        }

        /// Called by the store's `deinit` once it has written what it had saved.
        func storeDidFlush() {
            condition.lock()
            defer { condition.unlock() }
            isFlushed = true
            condition.broadcast()
        }

        /// Waits until the store of this slot, going away, has written what it had saved.
        /// Its flush takes no registry lock, so an open may wait with the registry locked.
        func waitForLastWrite() {
            condition.lock()
            defer { condition.unlock() }
            while !isFlushed { condition.wait() }
        }
    }

    /// The process's stores by canonical path, held weakly.
    final class Registry: @unchecked Sendable {
        /// Recursive: a store released while the registry is locked removes its own entry.
        private let lock = NSRecursiveLock()
        private var stores: [String: WeakStore] = [:]

        /// Runs `body` with the registry locked. No access to the table spans
        /// the call, so `body` may open other packages on this thread.
        func withLock<Result>(_ body: () throws(ModelError) -> Result) throws(ModelError) -> Result {
            lock.lock()
            defer { lock.unlock() }
            return try body()
        }

        /// The entry for a package, if any.
        func entry(_ key: String) -> WeakStore? {
            lock.lock()
            defer { lock.unlock() }
            return stores[key]
        }

        /// Registers a store under its package's key, replacing any entry there.
        func register(_ entry: WeakStore, for key: String) {
            lock.lock()
            defer { lock.unlock() }
            stores[key] = entry
        }

        func remove(_ key: String, ifStore identity: ObjectIdentifier, releasing release: () -> Void) {
            lock.lock()
            defer { lock.unlock() }
            release()
            // The entry is this store's (now nil, as it is going) unless a newer store replaced it.
            // It stays while its lock is still open (a store that lent it is still going away):
            // an open meanwhile must find that lock to carry over, since a new one would be refused.
            if let entry = stores[key], entry.store.map(ObjectIdentifier.init) ?? identity == identity,
               entry.slot.held == nil {
                stores[key] = nil
            }
        }

        /// The live stores, held strongly until the caller is done with them.
        func liveStores() -> [DocumentStore] {
            lock.lock()
            defer { lock.unlock() }
            return stores.values.compactMap(\.store)
        }

        /// Whether a live store is registered under `key` (for tests).
        func contains(_ key: String) -> Bool {
            lock.lock()
            defer { lock.unlock() }
            return stores[key]?.store != nil
        }
    }

    static let registry = Registry()

    #if DEBUG
    // A test seam, compiled into debug builds only: a release teardown takes no lock for it.

    /// Where a store's teardown can be held by a test.
    enum TeardownStage: Sendable {
        /// The `deinit` has started: the registry's weak reference reads `nil`, nothing is written yet.
        case started
        /// The package is written; the store has not yet closed its lock or left the registry.
        case flushed
    }

    /// Runs `hook` at each stage of the teardown of the store of the package
    /// with registry key `key` (until called with `nil`): it may block, to hold
    /// the teardown while a test opens the package on another thread.
    static func onTeardown(of key: String, _ hook: (@Sendable (TeardownStage) -> Void)?) {
        teardownHookLock.withLock { teardownHooks[key] = hook }
    }

    fileprivate static func teardownHook(for key: String) -> (@Sendable (TeardownStage) -> Void)? {
        teardownHookLock.withLock { teardownHooks[key] }
    }

    private static let teardownHookLock = NSLock()
    nonisolated(unsafe) private static var teardownHooks: [String: @Sendable (TeardownStage) -> Void] = [:]
    #endif
}
