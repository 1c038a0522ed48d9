import Foundation

/// An editing scratchpad over a container's document: inserts, edits, deletes
/// with delete rules, undo and redo, save and rollback — SwiftData's
/// `ModelContext`, with a dynamic API (entities and values by name).
///
/// ```swift
/// let context = ModelContext(container)
/// context.undoManager = UndoManager()
/// let mammals = try context.insert("AnimalCategory", ["name": .string("Mammal")])
/// try context.delete(mammals)           // cascades to its animals
/// context.undoManager?.undo()           // everything back, same identifiers and order
/// try context.save()
/// ```
///
/// **Undo.** Every change registers its inverse with ``undoManager``, which is
/// `nil` — nothing recorded — until you set one, for the main context too, as
/// in SwiftData (`context.undoManager = UndoManager()`). One user
/// action is one undo step: each public method is one step unless an explicit
/// group or ``transaction(actionName:block:)`` is open; an automatically opened group is closed
/// by ``processPendingChanges()`` and ``save()``.
///
/// **Autosave.** As in SwiftData, ``autosaveEnabled`` is on for the
/// container's `mainContext` and off for a context made with
/// ``init(_:)``. The main context saves without being asked once the current
/// event is over: an edit schedules ``processPendingChanges()`` as a
/// main-actor task, which runs when the main actor is next free (after the
/// current job, at an `await`) — SwiftData's autosave after the event on the
/// main run loop, without its timer. A context the app made and set to
/// autosave does so on the main queue when edited on the main thread; Folio
/// differs from SwiftData on purpose elsewhere (no executor is known to run
/// later), and such a context, like a program that never lets the main actor
/// run, autosaves when it calls ``processPendingChanges()``. An autosave saves in memory at once and writes
/// the package in the background, so an edit never waits for the write; a failure goes to ``autosaveErrorHandler``
/// (logged through ``FolioLog`` when it is `nil`), never silently. ``save()`` (also made at the end of
/// ``transaction(actionName:block:)``) writes before it returns.
///
/// Not thread-safe: use a context from one actor, as SwiftData requires.
public final class ModelContext {
    /// The container this context edits.
    ///
    /// A context you create keeps its container alive. The main context does
    /// not (its container owns it); if the program has dropped the container
    /// and kept the main context, this is a new container on the same document
    /// whose ``ModelContainer/mainContext`` is this context.
    public var container: ModelContainer {
        if let ownedContainer { return ownedContainer }
        if let mainContainer { return mainContainer }
        let container = ModelContainer(core: core, mainContext: self)
        mainContainer = container
        return container
    }
    /// The container, for a context that is not a main context.
    private let ownedContainer: ModelContainer?
    /// The container whose main context this is: not owned, it owns this context.
    private weak var mainContainer: ModelContainer?
    /// The container's schema, configuration and shared document, shared with it.
    let core: ContainerCore
    var sharedDocument: SharedDocument { core.sharedDocument }
    /// Whether the context saves without being asked (see "Autosave" above):
    /// on for the container's `mainContext`, off for a context made with
    /// ``init(_:)``, as in SwiftData.
    public var autosaveEnabled: Bool
    /// Records every change for undo and redo; `nil` records nothing.
    public var undoManager: UndoManager?
    /// Receives autosave failures (and failed typed reads); `nil` logs them through ``FolioLog``.
    public var autosaveErrorHandler: ((ModelError) -> Void)?
    /// Who makes this context's changes, as its saves record it in the
    /// document's history (``DefaultHistoryTransaction/author``); `nil` by default.
    ///
    /// Name the writer — `"widget"`, `"importer"`, `"sync"` — so a reader of
    /// the history can tell whose changes it is looking at, for example to skip
    /// its own.
    public var author: String?
    /// Asked during calls whose work follows the size of the document; when it
    /// returns `true` the call stops and throws ``ModelError/cancelled``, having
    /// changed nothing. `nil` (the default) never stops anything.
    ///
    /// ```swift
    /// let stop = Atomic<Bool>(false)          // set from another thread, or a signal handler
    /// context.cancellationCheck = { stop.load(ordering: .relaxed) }
    /// do { _ = try context.fetchIdentifiers(DynamicFetchDescriptor(entity: "Animal")) }
    /// catch .cancelled { print("stopped") }
    /// ```
    ///
    /// The calls that ask it, about every 4,096 objects visited and between
    /// their phases: ``fetchIdentifiers(_:)-(DynamicFetchDescriptor)`` and
    /// ``fetchCount(_:)-(DynamicFetchDescriptor)`` (the scan, and before and
    /// after a sort), ``deletionPreview(for:)`` and
    /// ``deletionPreview(entity:where:)``, ``delete(_:)-(PersistentIdentifier)``,
    /// ``delete(_:)-([PersistentIdentifier])`` and
    /// ``delete(entity:where:)-(String,ObjectPredicate?)`` while they work out the cascade: a delete is asked only before it
    /// changes anything, never halfway, so a stopped delete deletes nothing
    /// and registers no undo step. ``deleteEverything()`` cannot throw and is
    /// never stopped.
    ///
    /// It is a check the context calls, not a flag it holds, so a front end
    /// decides what stops it (a Ctrl-C, a deadline, `Task.isCancelled`). It is
    /// called on the context's own thread, between steps; make it cheap (an
    /// atomic load), as it runs thousands of times in a long call.
    public var cancellationCheck: (() -> Bool)?

    // Unchecked exclusivity on the state every edit touches (the graph, change
    // tracking, the registry): a context is used from one actor, so no access
    // overlaps another, and every typed edit would pay the dynamic checks.
    @exclusivity(unchecked) var graph: ObjectGraph {
        // Models cache their object's row and their class's columns for the graph
        // they were resolved in; a new graph (rollback) invalidates both.
        didSet { graphEpoch &+= 1; modelHooks?.graphReplaced() }
    }
    /// Counts the graphs this context has had; see ``BackingData``'s cached row.
    var graphEpoch = 0
    /// The saved state this context last merged or saved; decides what existed "at save".
    var baseline: ObjectGraph
    var baseGeneration: Int
    /// Counts the merges of other contexts' saves into this one. An undo
    /// action that puts link lists back compares it with the count when it
    /// was registered: if a merge came in between, the lists are rebased.
    var mergeEpoch = 0
    /// What this context changed since ``baseline``: the objects inserted,
    /// edited and deleted, and what a save of them needs besides.
    @exclusivity(unchecked) var tracking = ChangeTracking()
    /// Counts undo registrations (``registerUndo(_:_:)``), for an operation to
    /// tell whether it changed anything before it failed.
    var undoRegistrationCount = 0
    /// Inserts refused where the API cannot throw (SwiftData's `insert(_:)`, or
    /// a model inserted because a model set it in a relationship), in order,
    /// for the next ``save()`` to throw: each was reported when it happened,
    /// but a save must never succeed as if a model it dropped had been stored.
    /// (A refused property edit keeps the model, with its old value: reported
    /// only.) At most ``refusedInsertLimit`` are kept; ``rollback()`` forgets them.
    var refusedInserts: [ModelError] = []
    static let refusedInsertLimit = 100
    private var transactionDepth = 0
    /// Whether an autosave is scheduled (see ``scheduleAutosaveAfterEdit()``).
    fileprivate var autosaveScheduled = false
    /// Whether this is a container's `mainContext`, used on the main actor.
    private let isMainContext: Bool
    /// The typed layer's state in this context (its models, its classes'
    /// columns), which the context only tells when it changes objects under
    /// those models or replaces its graph (``ModelHooks``); made by the typed
    /// layer when it first needs it, `nil` in a context that never handed out a model.
    @exclusivity(unchecked) var modelHooks: (any ModelHooks)?
    /// An emptied link journal whose storage the next link edit reuses (``editLinks(name:_:)``).
    var spareLinkJournal: [LinkChange]?
    /// The ``ResultsObserver``s following this context, and what changed since
    /// they were last told; `nil` until the first observer.
    var resultsObservation: ResultsObservation?

    /// Creates a context on a container: autosave off, no undo manager.
    ///
    /// The context keeps `container` alive while the program holds the context.
    public convenience init(_ container: ModelContainer) {
        self.init(container, isMain: false)
    }

    /// The main context of `container`, which owns it.
    convenience init(mainOf container: ModelContainer) {
        self.init(container, isMain: true)
    }

    private init(_ container: ModelContainer, isMain: Bool) {
        core = container.core
        ownedContainer = isMain ? nil : container
        isMainContext = isMain
        autosaveEnabled = isMain
        // None by default, as SwiftData's: a program that never undoes pays nothing for undo.
        undoManager = nil
        // Placeholders until the checkout below, which needs `self` to register it.
        let empty = ObjectGraph(schema: container.core.schema)
        graph = empty
        baseline = empty
        baseGeneration = 0
        if isMain { mainContainer = container }
        let checkout = core.sharedDocument.checkout(for: ObjectIdentifier(self))
        graph = checkout.graph
        baseline = checkout.baseline
        baseGeneration = checkout.generation
    }

    deinit {
        core.sharedDocument.unregister(ObjectIdentifier(self))
    }

    /// The document's schema.
    public var schema: Schema { graph.schema }

    // MARK: Change tracking

    /// Whether there are unsaved inserts, edits or deletes: `false` exactly when
    /// the document equals what was last saved — also after edits that undo
    /// and redo (or a later edit) took back.
    public var hasChanges: Bool {
        settleTracking()
        return !tracking.namesNoObject || conflictRecordsDiffer
    }

    /// Whether the conflict records differ from the saved ones (a resolution
    /// that undo took back does not count). O(records) after a resolution, else O(1).
    var conflictRecordsDiffer: Bool {
        guard !tracking.conflictRecordsEdited.isEmpty else { return false }
        return graph.conflicts.count != baseline.conflicts.count || Set(graph.conflicts) != Set(baseline.conflicts)
    }

    /// Objects inserted since the last save, by identifier.
    public var insertedIdentifiers: [PersistentIdentifier] { identifiers(tracking.inserted) }
    /// Objects that existed at the last save and differ from it now.
    public var changedIdentifiers: [PersistentIdentifier] {
        settleTracking()
        return identifiers(tracking.updated.keys)
    }
    /// Objects deleted since the last save (and not yet saved as deleted).
    public var deletedIdentifiers: [PersistentIdentifier] { identifiers(tracking.deleted) }

    private func identifiers(_ refs: some Sequence<ObjectRef>) -> [PersistentIdentifier] {
        refs.map(graph.identifier(for:)).sorted()
    }

    /// Whether the object has been deleted and the delete not yet saved — SwiftData's `isDeleted`.
    /// After the save it is `false` again, and the object no longer exists.
    public func isDeleted(_ id: PersistentIdentifier) -> Bool {
        guard let ref = graph.index[id.id] else { return false }
        return tracking.deleted.contains(ref)
    }

    /// Whether a live object (saved or not) has this identifier.
    public func contains(_ id: PersistentIdentifier) -> Bool { graph.contains(id) }

    func existedAtSave(_ ref: ObjectRef) -> Bool {
        guard let saved = baseline.index[graph.tables[Int(ref.entity)].ids[Int(ref.row)]] else { return false }
        return baseline.isLive(saved)
    }

    /// Records an edit of an attribute (its index in the entity) for change tracking.
    func touch(_ ref: ObjectRef, attribute: Int) {
        touch(ref, propertyNumber: attribute)
    }

    /// Records an edit of a property by the number ``updated`` keeps: an
    /// attribute's index, or the attribute count plus a relationship's slot
    /// (``touchLink(_:_:)``).
    func touch(_ ref: ObjectRef, propertyNumber: Int) {
        noteObservedChange(ref, property: propertyNumber)
        tracking.touch(ref, propertyNumber: propertyNumber, in: graph)
    }

    /// Makes the tracking's ``ChangeTracking/updated`` exact against ``baseline``
    /// (``ChangeTracking/settle(graph:baseline:)``). Costs what was edited since the last call.
    func settleTracking() {
        tracking.settle(graph: graph, baseline: baseline)
    }

    /// Takes one object's tracking again against ``baseline`` after a merge
    /// or a rebase changed it (``ChangeTracking/retrack(_:graph:baseline:)``). O(1).
    func retrack(_ ref: ObjectRef) {
        tracking.retrack(ref, graph: graph, baseline: baseline)
    }

    // MARK: Reading

    /// An attribute's value; a deleted object's last values stay readable.
    ///
    /// An externally stored value is read from its file when first read, not at
    /// open, and checked against the hash in its file name.
    ///
    /// - Throws: ``ModelError/graph(_:)`` for an unknown object or attribute;
    ///   ``ModelError/package(_:)`` when an externally stored value's file is
    ///   missing, not a regular file, too large or damaged
    ///   (``PackageError/missingBlob(_:entity:attribute:file:)``,
    ///   ``PackageError/notARegularFile(path:kind:)``,
    ///   ``PackageError/blobTooLarge(path:size:limit:)``,
    ///   ``PackageError/blobHashMismatch(path:)``).
    public func value(_ attribute: String, of id: PersistentIdentifier) throws(ModelError) -> Value {
        let ref: ObjectRef
        let index: Int
        do {
            ref = try graph.ref(for: id, allowDeleted: true)
            index = try graph.attributeIndex(attribute, entity: Int(ref.entity))
        } catch {
            throw .graph(error)
        }
        do { return try graph.loadValue(ref, index) } catch { throw unreadable(error, ref, index) }
    }

    /// Why an externally stored value could not be read: the store's error as
    /// ``ModelError/package(_:)``, anything else as a graph error.
    func unreadable(_ error: any Error, _ ref: ObjectRef, _ attribute: Int) -> ModelError {
        if let error = error as? PackageError { return .package(error) }
        let entity = graph.layout.entities[Int(ref.entity)]
        return .graph(
            .unreadableValue(
                entity: entity.name, attribute: entity.attributes[attribute].name,
                id: graph.tables[Int(ref.entity)].ids[Int(ref.row)], reason: "\(error)"))
    }

    /// What a relationship holds, in order; empty when an optional to-many holds no collection.
    public func related(_ relationship: String, of id: PersistentIdentifier) throws(ModelError) -> [PersistentIdentifier] {
        do { return try graph.related(relationship, of: id) } catch { throw .graph(error) }
    }

    /// What a to-many relationship holds, in order, or `nil` when an optional
    /// one (`[Tag]?`) holds no collection: never assigned, or set to `nil`.
    /// Any other relationship reads as ``related(_:of:)``.
    public func relatedCollection(_ relationship: String, of id: PersistentIdentifier) throws(ModelError) -> [PersistentIdentifier]? {
        do { return try graph.relatedCollection(relationship, of: id) } catch { throw .graph(error) }
    }

    /// The identifiers of the objects a descriptor selects. Merges what other
    /// contexts saved first.
    ///
    /// - Throws: ``ModelError/graph(_:)`` for an unknown entity,
    ///   ``ModelError/predicate(_:)`` for a predicate or sort key that does not
    ///   apply to it, ``ModelError/unsortable(entity:attribute:)`` for a sort by
    ///   a collection or composite attribute.
    public func fetchIdentifiers(_ descriptor: DynamicFetchDescriptor) throws(ModelError) -> [PersistentIdentifier] {
        mergeSavedChanges()
        let source = descriptor.includePendingChanges ? graph : baseline
        do {
            return try source.fetchRows(descriptor, shared: source !== graph, isCancelled: cancellationCheck)
                .map(source.identifier(for:))
        } catch { throw ModelError(error) }
    }

    /// How many objects a descriptor selects (ignoring its limit and offset).
    public func fetchCount(_ descriptor: DynamicFetchDescriptor) throws(ModelError) -> Int {
        var unwindowed = descriptor
        unwindowed.fetchLimit = nil
        unwindowed.fetchOffset = nil
        unwindowed.sortBy = []
        mergeSavedChanges()
        let source = descriptor.includePendingChanges ? graph : baseline
        if descriptor.predicate == nil {
            do {
                guard descriptor.includesSubentities, let entity = source.layout.entityIndex[descriptor.entity] else {
                    return try source.count(of: descriptor.entity)
                }
                // The entity's objects and its subentities'.
                var total = 0
                for member in source.layout.hierarchies[entity] { total += try source.count(of: source.layout.entities[member].name) }
                return total
            } catch { throw .graph(error) }
        }
        do { return try source.fetchRows(unwindowed, shared: source !== graph, isCancelled: cancellationCheck).count } catch { throw ModelError(error) }
    }

    // MARK: Grouping, autosave, transactions

    /// Ends the current user action: closes the undo manager's automatic group
    /// and, if ``autosaveEnabled``, autosaves.
    ///
    /// An autosave does the in-memory part of a save here — merge what other
    /// contexts saved, validate, publish the change — at a cost that follows
    /// what changed, and leaves the package's write to a background writer,
    /// which writes the latest saved state off this thread (autosaves made
    /// while a write runs become one write). So an edit never waits for the
    /// document to be written.
    ///
    /// A failure is reported to ``autosaveErrorHandler`` (logged through ``FolioLog`` by default),
    /// never silently: a validation failure or a read-only configuration here
    /// and now; a failed background write at the next call (or thrown by the
    /// next ``save()``), and the state it carried is written again by the next
    /// save. ``save()`` waits for the write; the container's teardown and the
    /// process's exit do too, so nothing saved is lost.
    public func processPendingChanges() {
        if transactionDepth == 0 { undoManager?.closeAutomaticGroup() }
        guard autosaveEnabled, transactionDepth == 0 else { return }
        // An earlier autosave's write that failed, told on this context's side.
        if let failure = sharedDocument.takeWriteFailure(for: ObjectIdentifier(self)) {
            ModelContainer.report(failure, to: autosaveErrorHandler)
        }
        do { try autosave() } catch { ModelContainer.report(error, to: autosaveErrorHandler) }
    }

    /// After an edit by a context that autosaves, runs
    /// ``processPendingChanges()`` once the current event is over, as
    /// SwiftData's autosave on the main run loop: for the container's
    /// `mainContext` (a main-actor context) as a main-actor task, which runs
    /// when the main actor is next free (after the current job, at an `await`);
    /// for a context the app made, only when the edit is made on the main
    /// thread, on the main queue (`dispatchMain()`, `RunLoop.main.run()`).
    /// Elsewhere no executor is known to run later, so nothing is scheduled:
    /// call ``processPendingChanges()`` or ``save()``. Edits made before it runs
    /// are one autosave.
    func scheduleAutosaveAfterEdit() {
        guard autosaveEnabled, !autosaveScheduled else { return }
        let scheduled = ScheduledAutosave(context: self)
        if isMainContext {
            autosaveScheduled = true
            Task { @MainActor in scheduled.run() }
        } else if Thread.isMainThread {
            autosaveScheduled = true
            DispatchQueue.main.async { scheduled.run() }
        }
    }

    /// Saves in memory now and writes the package in the background (see
    /// ``processPendingChanges()``); with nothing new, writes again what a failed
    /// background write left unwritten.
    func autosave() throws(ModelError) {
        mergeSavedChanges()
        guard hasChanges else {
            if core.configuration.allowsSave { sharedDocument.retryFailedWrite(for: ObjectIdentifier(self)) }
            scheduleUndoJournalWrite(ifMoved: true)
            return
        }
        _checkTrackingInvariants()
        let issues = validationIssues()
        if !issues.isEmpty { throw .validation(issues) }
        postWillSave()
        postDidSave(try handOffSave(inBackground: true))
        scheduleUndoJournalWrite()
    }

    /// Runs `block` as one user action — one undo step, named `actionName` if
    /// given — and then saves, as SwiftData's `transaction(block:)` does.
    ///
    /// ```swift
    /// try context.transaction {
    ///     context.insert(trip)
    ///     trip.accommodations.append(hotel)
    /// }
    /// ```
    ///
    /// If `block` throws, what it changed is undone (when there is an undo
    /// manager) and the error rethrown; nothing is saved.
    public func transaction(actionName: String? = nil, block: () throws -> Void) throws {
        undoManager?.closeAutomaticGroup()
        undoManager?.beginUndoGrouping()
        transactionDepth += 1
        let outermost = transactionDepth == 1
        do {
            try block()
        } catch {
            transactionDepth -= 1
            undoManager?.endUndoGrouping()
            if outermost { undoManager?.undo() }
            throw error
        }
        transactionDepth -= 1
        if let actionName { undoManager?.setActionName(actionName) }
        undoManager?.endUndoGrouping()
        if outermost { try save() }
    }

    // MARK: Saving

    /// Writes the document: validates, merges what other contexts saved, writes
    /// the package atomically, clears the change tracking.
    ///
    /// When it returns, the package on disk holds the saved state: it first
    /// waits for an autosave's background write under way, and it writes what
    /// autosaves left unwritten (a queued write, or one that failed) even when
    /// this context has no changes of its own, and it records the identifier
    /// counter when inserts since the last save were rolled back or undone (so
    /// their identifiers are never handed out again, after a reopen either).
    ///
    /// Deleted objects are gone after it: ``isDeleted(_:)`` is `false` for them
    /// and they are no longer fetched. The undo stack is kept: undo after save
    /// works and makes the context dirty again.
    ///
    /// - Throws: ``ModelError/refusedInserts(_:)`` when a model given to a call
    ///   that cannot throw (`insert(_:)`) was refused since the last save,
    ///   writing nothing (told once: the next save writes the rest);
    ///   ``ModelError/validation(_:)`` (deny, minimum and maximum counts),
    ///   writing nothing; ``ModelError/package(_:)`` when writing fails, keeping
    ///   every edit in memory (and, for a state an autosave published, keeping it
    ///   unwritten for the next save); ``ModelError/saveNotAllowed``.
    public func save() throws(ModelError) {
        if transactionDepth == 0 { undoManager?.closeAutomaticGroup() }
        if !refusedInserts.isEmpty {
            defer { refusedInserts.removeAll() }
            throw .refusedInserts(refusedInserts)
        }
        mergeSavedChanges()
        guard hasChanges else {
            if core.configuration.allowsSave {
                // Thrown here if it fails again: not to be reported a second time.
                _ = sharedDocument.takeWriteFailure(for: ObjectIdentifier(self))
                try sharedDocument.flush()
                // Undo or redo may have moved without leaving changes: the journal follows.
                writeUndoJournal()
            }
            return
        }
        _checkTrackingInvariants()
        let issues = validationIssues()
        if !issues.isEmpty { throw .validation(issues) }
        _ = sharedDocument.takeWriteFailure(for: ObjectIdentifier(self))
        postWillSave()
        postDidSave(try handOffSave(inBackground: false))
        writeUndoJournal()
    }

    /// Discards unsaved changes and the undo stack, returning to the last saved
    /// state (including what other contexts saved since).
    ///
    /// A model whose object the saved state lacks (an unsaved insert) keeps its
    /// values, detached; every model read under observation tracking is told
    /// its properties may have changed.
    public func rollback() {
        let checkout = sharedDocument.checkout(for: ObjectIdentifier(self))
        let replace = {
            self.graph = checkout.graph
            self.baseline = checkout.baseline
            self.baseGeneration = checkout.generation
            self.clearTracking()
            self.refusedInserts.removeAll()
            self.undoManager?.removeAllActions()
            self.graph._checkInvariants()
        }
        if let modelHooks { modelHooks.replacingGraph(self, checkout.graph, replace) } else { replace() }
        resultsObservation?.noteGraphReplaced()
        publishObservedChanges()
    }

    /// Reports an insert refused where the API cannot throw, and keeps it for
    /// the next ``save()`` to throw (``refusedInserts``).
    func refuseInsert(_ error: ModelError) {
        if refusedInserts.count < Self.refusedInsertLimit { refusedInserts.append(error) }
        ModelContainer.report(error, to: autosaveErrorHandler)
    }

    func didSave(baseline: ObjectGraph, generation: Int) {
        self.baseline = baseline
        baseGeneration = generation
        clearTracking()
        resultsObservation?.noteSaved()
        publishObservedChanges()
    }

    private func clearTracking() {
        tracking.removeAll()
    }

    /// What a save would refuse.
    func validationIssues() -> [ValidationIssue] {
        settleTracking()
        var issues: [ValidationIssue] = []
        // Only deleted objects with a deny rule can fail, and few have one: only those are
        // sorted (for a stable order of issues), not every object of a large cascade.
        let denied = tracking.denials.isEmpty ? [] : tracking.deleted.filter { tracking.denials[$0] != nil }
        for ref in denied.sorted(by: { graph.tables[Int($0.entity)].ids[Int($0.row)] < graph.tables[Int($1.entity)].ids[Int($1.row)] }) {
            for denial in tracking.denials[ref] ?? [] {
                let live = denial.targets.filter(graph.isLive)
                if !live.isEmpty {
                    issues.append(
                        ValidationIssue(
                            kind: .deny, object: graph.identifier(for: ref),
                            relationship: graph.layout.entities[Int(ref.entity)].links[denial.slot].name ?? "",
                            related: live.map(graph.identifier(for:))))
                }
            }
        }
        // Only objects of entities with a count rule or a checked unique group can
        // fail the checks below: the others are not gathered or sorted, so a large
        // import of entities with neither pays nothing here.
        let counted = graph.schema.entities.map { entity in
            entity.relationships.contains { $0.minimumModelCount > 0 || $0.maximumModelCount > 0 }
        }
        let checkedUnique = graph.layout.entities.map { !$0.checkedUniqueGroups.isEmpty }
        let wanted = zip(counted, checkedUnique).map { $0 || $1 }
        var candidates: [ObjectRef] = []
        if wanted.contains(true) {
            for ref in tracking.inserted where wanted[Int(ref.entity)] { candidates.append(ref) }
            for ref in tracking.updated.keys where wanted[Int(ref.entity)] && !tracking.inserted.contains(ref) { candidates.append(ref) }
            // In (entity, row) order, for issues in a stable order.
            func key(_ ref: ObjectRef) -> UInt64 { UInt64(UInt32(bitPattern: ref.entity)) << 32 | UInt64(UInt32(bitPattern: ref.row)) }
            candidates.sort { key($0) < key($1) }
        }
        for ref in candidates where counted[Int(ref.entity)] && graph.isLive(ref) {
            let entity = graph.schema.entities[Int(ref.entity)]
            for (slot, relationship) in entity.relationships.enumerated()
            where relationship.minimumModelCount > 0 || relationship.maximumModelCount > 0 {
                let targets = graph.targets(ref, slot)
                let kind: ValidationIssue.Kind
                if targets.count < relationship.minimumModelCount {
                    kind = .minimumCount
                } else if relationship.maximumModelCount > 0, targets.count > relationship.maximumModelCount {
                    kind = .maximumCount
                } else {
                    continue
                }
                issues.append(
                    ValidationIssue(
                        kind: kind, object: graph.identifier(for: ref), relationship: relationship.name,
                        related: targets.map(graph.identifier(for:))))
            }
        }
        // The uniqueness rule the loader and migration apply, asked of the changed objects only:
        // a clash would make the saved document one that the next open refuses.
        for clash in graph.uniquenessClashes(of: candidates.filter { checkedUnique[Int($0.entity)] }) {
            let layout = graph.layout.entities[Int(clash.ref.entity)]
            issues.append(
                ValidationIssue(
                    kind: .unique, object: graph.identifier(for: clash.ref),
                    relationship: layout.names(ofGroup: clash.group),
                    related: clash.others.map(graph.identifier(for:))))
        }
        return issues
    }

    // MARK: Undo registration

    /// Notes an edit no undo records (registration off, or no undo manager
    /// for a while): the actions recorded before it no longer find the graph
    /// as they left it, so undoing them rebases instead of restoring exactly,
    /// as after a merge, and every link keeps its inverse.
    func editedUnrecorded() {
        mergeEpoch += 1
    }

    /// Registers `undo` as the inverse of what was just done, naming the step
    /// `name` unless it already has a name.
    /// Every edit ends here, so this is also where debug builds check the
    /// graph's invariants (``ObjectGraph/_checkInvariants()``).
    func registerUndo(_ name: @autoclosure () -> String, _ undo: @autoclosure () -> UndoStep) {
        undoRegistrationCount &+= 1
        graph._checkInvariants()
        publishObservedChanges()
        scheduleAutosaveAfterEdit()
        guard let undoManager, undoManager.isUndoRegistrationEnabled else { return editedUnrecorded() }
        #if canImport(Darwin)
        // Foundation's undo manager keeps closures only: no journal there.
        let step = undo()
        undoManager.registerUndo(withTarget: self) { step.apply(to: $0) }
        #else
        undoManager.registerUndo(withTarget: self, step: undo())
        #endif
        if !undoManager.isUndoing, !undoManager.isRedoing, undoManager.undoActionName.isEmpty {
            undoManager.setActionName(name())
        }
    }
}

/// The context a scheduled autosave saves, if it still exists. Made and run
/// on the context's own executor: the main actor for the main context, the
/// main thread for another (see ``ModelContext/scheduleAutosaveAfterEdit()``).
private struct ScheduledAutosave: @unchecked Sendable {
    weak var context: ModelContext?

    func run() {
        guard let context else { return }
        context.autosaveScheduled = false
        context.processPendingChanges()
    }
}
