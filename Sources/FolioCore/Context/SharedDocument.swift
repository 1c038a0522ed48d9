import Foundation

/// One document's saved state in this process, shared by the contexts of
/// every container open on its package: the last saved graph, its
/// generation, the change sets contexts still have to merge, the identifier
/// counter and the history; and the save protocol that replaces them (a
/// context's ``SaveRequest`` is committed, or answered stale).
///
/// The process keeps **one shared document per package** (``DocumentRegistry``, which
/// holds shared documents weakly), so two containers on one URL see each other's saves
/// and never lock each other out. Containers and contexts hold their shared document
/// strongly; when the last of them goes, the shared document goes, and with it the
/// package's write lock. An in-memory container has a shared document of its own, in no
/// registry.
///
/// Change sets are kept only while a live context still needs them: every
/// context registers the generation it has merged up to, and a change set
/// every registered context has seen is dropped (a context created later
/// checks out the saved graph and needs none).
///
/// **Saving and writing.** A save's in-memory part (merge, validate, publish the
/// change set, replace the saved graph) is done under the shared document's lock and costs
/// what changed. Writing the package is apart (``PackageWriter``, in
/// `SharedDocument+Writing`): an explicit save writes before it publishes, on
/// its caller's thread; an autosave publishes and hands the write to the
/// shared document's ``BackgroundWriter``, which writes the latest saved state (an
/// immutable graph: the saved graph is replaced, never edited) off the editing
/// thread. Opening and migrating (`SharedDocument+Opening`), another process's
/// saves (`+OutsideSaves`), the history (`+History`) and observers
/// (`+Observers`) are extensions.
final class SharedDocument: @unchecked Sendable {
    /// The package, `nil` in memory.
    let package: DocumentPackage?
    /// The registry key (the package's canonical path), `nil` in memory or outside the registry.
    let key: String?

    /// Guards every `var` below (and what ``PackageWriter`` knows of the disk). Recursive:
    /// a context released while the shared document is busy unregisters itself.
    let lock = NSRecursiveLock()
    /// The last saved state: replaced, never mutated, so contexts can keep it as a baseline.
    var savedGraph: ObjectGraph
    var generation = 0
    var changeSets: [ChangeSet] = []
    /// The writer every context's inserts draw identifiers from: one lane per
    /// shared document, drawn at its first insert, its sequence only moving forward (an
    /// undone insert uses its number up).
    var allocator: IdentifierAllocator
    /// Each live context on this shared document, with the generation it has merged up to.
    var contextGenerations: [ObjectIdentifier: Int] = [:]
    /// The document's history: a transaction per save, written with the save
    /// it records (the package's, read with it; in memory, kept here only).
    var history: HistoryLog
    /// What learning the history's heads read, kept so learning them again
    /// (after another writer's save is taken in) reads only the files that changed.
    var headsCache = HistoryLog.HeadsCache()
    /// What writes the package and what the package on disk holds; `nil` in memory.
    var disk: PackageWriter?
    /// The undo journal waiting for the package to hold its state (`SharedDocument+UndoJournal`).
    var undoJournal = UndoJournalQueue()
    /// Shows the registry this shared document's write lock, weakly (see ``PackageLockSlot``).
    let lockSlot: PackageLockSlot
    /// Orders every write of the package and runs autosaves' writes; `nil` in memory.
    let writer: BackgroundWriter?
    /// Told of every saved state published (``DocumentObserver``), weakly; with the
    /// package watcher that runs while any is registered.
    let observers = DocumentObservers()

    init(
        package: DocumentPackage?, key: String?, graph: ObjectGraph, history: HistoryLog = HistoryLog(),
        fingerprint: FileFingerprint?, writeLock: PackageLock?, carriedLock: PackageLock? = nil, diskSchema: Schema?
    ) {
        self.package = package
        self.history = history
        // Saves write format 3, whose history is files per writer: a format-2 package's
        // history is brought into that layout now, before a save appends to it.
        if let package, !package.writesFormat2 { self.history.adoptFileLayout(in: package.folder, limits: graph.limits) }
        #if DEBUG
        // A shared document opened by a test of format 2 keeps writing it, on its background writer's thread too.
        if let package, DocumentPackage.writesFormat2OnThisTask { DocumentPackage.writeFormat2(true, under: package.url.path) }
        #endif
        self.key = key
        savedGraph = graph
        allocator = IdentifierAllocator()
        let slot = PackageLockSlot()
        lockSlot = slot
        disk = package.map { PackageWriter(package: $0, fingerprint: fingerprint, schema: diskSchema, lock: writeLock, slot: slot) }
        // A read-only shared document shows the lock a going shared document still holds, for a later
        // container that may save to take over (see ``PackageLockSlot``).
        slot.held = writeLock ?? carriedLock
        writer = package == nil ? nil : BackgroundWriter()
        if package != nil { _ = SharedDocument.installExitFlush }
    }

    deinit {
        #if DEBUG
        if let key { DocumentRegistry.teardownHook(for: key)?(.started) }
        #endif
        // The last holder is gone: whatever was saved and not yet written is written now,
        // before an open on another thread (which no longer finds this shared document) reads the package.
        flushReportingFailure()
        lockSlot.holderDidFlush()
        guard let key else { return }
        #if DEBUG
        DocumentRegistry.teardownHook(for: key)?(.flushed)
        #endif
        // Closing the lock and leaving the registry is one step for an open on
        // another thread: it either takes the lock over or finds it closed.
        DocumentRegistry.shared.remove(key, ifDocument: ObjectIdentifier(self)) { disk?.releaseLock() }
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

    // MARK: Shared state, for contexts

    /// A new identifier for a context's insert, from the shared document's lane (drawn
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
        -> (changes: [ChangeSet], baseline: ObjectGraph, generation: Int)
    {
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
        disk?.forget(context)
        pruneChangeSets()
    }

    /// How many change sets are kept (for tests and diagnostics).
    var changeSetCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return changeSets.count
    }

    /// Whether a context other than `context` is registered: one that will
    /// merge the next save's change set.
    func hasOtherContexts(than context: ObjectIdentifier) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return contextGenerations.keys.contains { $0 != context }
    }

    // MARK: Saving

    /// Saves what a context hands over: publishes it as the new saved state
    /// and writes the package, or answers ``SaveRequest/Outcome/stale`` when
    /// another context saved since the request's generation (the context
    /// merges and asks again). Never calls back into a context.
    ///
    /// - Parameter inBackground: an autosave: the change is published now and
    ///   the package written by the background writer (an in-memory shared document has
    ///   nothing to write). Otherwise the write under way is waited for, then the
    ///   package is written before anything is published: a failure throws and
    ///   leaves the shared document as it was.
    ///
    /// Observers (``DocumentObserver``) are told once the save is published and the locks let go.
    func save(_ request: SaveRequest, inBackground: Bool = false) throws(ModelError) -> SaveRequest.Outcome {
        let outcome: SaveRequest.Outcome
        if let writer, !inBackground {
            outcome = try writer.exclusively { () throws(ModelError) -> SaveRequest.Outcome in
                try commit(request, writing: true)
            }
        } else {
            outcome = try commit(request, writing: false)
        }
        // A save that did not throw published its state. Observers read its transaction
        // (and the merge of a branched history recorded first, if any): it is built now.
        if case .committed = outcome {
            notifyObservers {
                lock.withLock { recordPendingHistory() }
                let recorded = request.transaction.recorded
                return (recorded?.merge.map { [$0] } ?? []) + (recorded?.transaction.map { [$0] } ?? [])
            }
        }
        return outcome
    }

    /// A save's work under the shared document's lock; with `writing`, the package's write too.
    ///
    /// The save's transaction goes into the history pending (``HistoryLog/appendPending(_:)``):
    /// it is built and appended when the history is next read or written, by
    /// this write when `writing`, else by the background write. The first
    /// transaction a shared document appends to a history it read learns that
    /// history's heads (``HistoryLog/learnHeads(in:limits:schema:recordingMerge:cache:)``,
    /// a read of every history file, once): a history a Git merge branched
    /// gets its merge transaction first, persisted by the same write.
    private func commit(_ request: SaveRequest, writing: Bool) throws(ModelError) -> SaveRequest.Outcome {
        lock.lock()
        defer { lock.unlock() }
        let others = contextGenerations.keys.contains { $0 != request.context }
        // Another context saved since this one merged (its save may clash: two inserts of
        // one unique value), or a context that will merge this save's change set appeared.
        guard request.basedOn == generation, request.changeSet != nil || !others else { return .stale }
        // What this save changes on disk: the parts holding these objects (both ends of a link edit).
        // With other contexts live, merges and undo rebased over them can change objects
        // in ways tracking does not follow: every part is then compared with the disk.
        let changed = package == nil ? ChangedObjects() : others ? .unknown : request.changed
        // The history as it will be once this save is published: written by the same commit.
        var history = self.history
        history.appendPending(request.transaction)
        // Written now, or too many saves' snapshots held (in memory, nothing writes them): recorded now.
        if writing && disk != nil || history.pending.count > HistoryLog.pendingLimit {
            history.recordPending(in: package?.folder, limits: savedGraph.limits, schema: savedGraph.schema, cache: &headsCache)
        }
        if writing, disk != nil {
            // The request's graph holds every saved state merged, so this write catches the package up.
            var unwritten = disk?.unwritten ?? ChangedObjects()
            unwritten.formUnion(changed)
            do throws(PackageError) {
                try disk?.write(request.graph, generation: generation + 1, changed: unwritten, history: &history)
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
            disk?.addUnwritten(changed)
            scheduleBackgroundWrite(for: request.context)
        }
        return .committed(baseline: savedGraph, generation: generation)
    }

    /// Empties the shared document, writing the package empty unless in memory (after
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
        // The history goes too (its tombstones hold values); its numbering goes on, past the pending saves'.
        recordPendingHistory()
        var emptyHistory = history
        emptyHistory.removeAll()
        if disk != nil {
            do throws(PackageError) {
                try disk?.write(empty, generation: generation + 1, changed: .unknown, history: &emptyHistory)
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

    /// Publishes a saved state. Call with the lock held.
    func commit(_ changeSet: ChangeSet, graph: ObjectGraph) {
        generation = changeSet.generation
        changeSets.append(changeSet)
        savedGraph = graph
    }

    /// Drops the change sets every live context has merged. Call with the lock held.
    func pruneChangeSets() {
        guard let first = changeSets.first else { return }
        let oldest = contextGenerations.values.min() ?? generation
        guard first.generation <= oldest else { return }
        changeSets.removeAll { $0.generation <= oldest }
    }
}
