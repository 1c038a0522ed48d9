import Foundation
import Observation
import Synchronization

/// Fetched models kept up to date as the document changes — SwiftData's
/// `ResultsObserver` (iOS 27), unsectioned or sectioned.
///
/// ```swift
/// let observer = try ResultsObserver<Book, Never>(
///     filterBy: #Predicate { $0.isPublished }, sortBy: [SortDescriptor(\.title)],
///     modelContext: container.mainContext)
/// observer.results.map(\.title)             // the published books, by title
/// context.insert(Book(title: "Emma", isPublished: true))
/// observer.results.map(\.title)             // … "Emma" among them
///
/// let shelves = try ResultsObserver<Book, String>(sectionBy: \.genre, modelContext: context)
/// if let sections = shelves.sections {
///     for section in sections { print(section.title, section.count) }   // "Fiction" 12, …
/// }
/// ```
///
/// ``results`` (and ``sections``) follow:
/// - the observed context's own changes — inserts, edits, deletes, undo and
///   redo, a rollback — when each operation completes;
/// - other contexts' saves on the same container, which the context merges;
/// - other processes' saves of the package: an observer over a package
///   watches it (inotify on Linux, no polling; one watch per open document,
///   shared by its observers) and takes each save in as the shared document's, which
///   every context then merges.
///
/// The observer is `Observable`: reading ``results`` or ``sections`` inside
/// `withObservationTracking` (or a SwiftUI view's body) registers the read,
/// and the `onChange` fires when an object enters or leaves the results, or a
/// member's sort or section key changes — not when a member's other
/// properties change (the model itself tells its observers of that).
///
/// **Cost.** An operation that changes k objects re-evaluates those k objects
/// only (the predicate against their stored values), and the next read moves
/// each into place by binary search: O(k log n) comparisons plus one move of
/// the result's identifiers per object, whatever the size n of the result —
/// not a refetch. A refetch is made instead when the predicate or the sort
/// needs the models (a relationship path, a computed property; see
/// ``ModelContext/fetch(_:)``), when the descriptor has a limit or offset or
/// excludes pending changes, after a rollback, and when k is a large part of
/// n. ``results`` makes its models a batch at a time, as it is read (see
/// ``FetchResultsCollection``). See docs/PERFORMANCE.md, "ResultsObserver".
///
/// **Threading.** Like its context, an observer is used from one actor: the
/// context's. A change the context makes itself is applied on the thread
/// that makes it, synchronously, before the edit returns. Another context's
/// save, or another process's, is taken in on the actor the observer was
/// created on (its `isolation`, the caller's actor by default) as a task, soon
/// after the save; an observer made outside any actor takes it in when
/// ``results`` or ``sections`` is next read. Either way a read always
/// returns the document as the context has it once it has merged every save
/// published so far.
public final class ResultsObserver<Element: PersistentModel, SectionTitle: Hashable> {
    /// The context fetched from and observed.
    public let modelContext: ModelContext

    /// The fetch criteria: the predicate, the sort descriptors (the section key
    /// first, when sectioned) and the other fetch options.
    ///
    /// Set at initialization; ``filterBy`` and ``sortBy`` change it.
    public private(set) var fetchDescriptor: FetchDescriptor<Element>

    /// The predicate models must match; `nil` selects every model of the type.
    ///
    /// Setting it fetches again, telling observers of ``results``. A predicate
    /// that fails to evaluate leaves the results empty and is reported to the
    /// context's ``ModelContext/autosaveErrorHandler`` (logged when it is `nil`).
    public var filterBy: Predicate<Element>? {
        get { fetchDescriptor.predicate }
        set {
            fetchDescriptor.predicate = newValue
            refetchNow()
        }
    }

    /// The sort descriptors, as given (without the section key, which is
    /// always prepended to ``fetchDescriptor``'s when sectioned).
    ///
    /// Setting it fetches again, telling observers of ``results``.
    public var sortBy: [SortDescriptor<Element>] {
        get { givenSortBy }
        set {
            givenSortBy = newValue
            fetchDescriptor.sortBy = Self.sorting(newValue, sectionedBy: section)
            refetchNow()
        }
    }

    /// The key path naming each model's section, or `nil` when unsectioned.
    public var sectionBy: PartialKeyPath<Element>? { section?.keyPath }

    /// The models matching the fetch criteria, in order.
    ///
    /// - Complexity: O(1) when nothing changed since the last read; otherwise
    ///   the cost of the changes (see "Cost" above). Its models are made as
    ///   they are read, a batch at a time.
    public var results: FetchResultsCollection<Element> {
        catchUp()
        registrar.access(self, keyPath: \.results)
        return currentResults
    }

    /// The results grouped by ``sectionBy``: sections ordered by their first
    /// appearance in the sorted results, each holding its models in result
    /// order; `nil` for an unsectioned observer (`SectionTitle == Never`).
    ///
    /// The section key is the first sort key, so each section's models are
    /// contiguous. A model whose optional key is `nil` is in the section
    /// titled `""`, with those whose key is empty (both sort first).
    ///
    /// - Complexity: O(n) the first read after a change (each result's key is
    ///   read from its stored value, a model made only for a computed key);
    ///   O(1) after.
    public var sections: SectionedResults<Element, SectionTitle>? {
        catchUp()
        registrar.access(self, keyPath: \.sections)
        guard let section else { return nil }
        if let currentSections { return currentSections }
        let made = makeSections(section)
        currentSections = made
        return made
    }

    // MARK: State

    /// The sort descriptors as the program gave them.
    private var givenSortBy: [SortDescriptor<Element>]
    /// How a model's section title is read; `nil` when unsectioned.
    let section: SectionKey<Element, SectionTitle>?
    /// The object numbers of the results, in result order.
    private var ids: [UInt64] = []
    /// The same numbers, as a set.
    private var members = Set<UInt64>()
    /// Objects changed since ``ids`` was last brought up to date, with whether
    /// each matched the predicate when its change was published.
    private var verdicts: [UInt64: Bool] = [:]
    /// Whether the results must be fetched again at the next read.
    private var stale = false
    private var currentResults: FetchResultsCollection<Element>
    private var currentSections: SectionedResults<Element, SectionTitle>?
    /// The actor the observer catches up with other contexts' saves on.
    private let isolation: (any Actor)?
    /// The observer's registration with the shared document (``DocumentObserver``): told of
    /// every saved state published, and keeping the package watched for other
    /// processes' saves while registered.
    private var documentLink: DocumentLink?
    /// Whether the shared document's package watch runs (a package not written yet has none until it is).
    private var watchesPackage = false
    private let registrar = ObservationRegistrar()

    /// How many objects have been re-evaluated against the predicate after a
    /// change, in all: what tests count to see that a change costs what it
    /// changed, not the size of the result.
    private(set) var reevaluatedCount = 0
    /// How many times the results have been fetched whole (the first fetch included).
    private(set) var refetchCount = 0

    /// The designated initializer: every public one ends here.
    init(
        descriptor: FetchDescriptor<Element>, section: SectionKey<Element, SectionTitle>?, context: ModelContext,
        isolation: (any Actor)?
    ) throws {
        modelContext = context
        givenSortBy = descriptor.sortBy
        self.section = section
        var sorted = descriptor
        sorted.sortBy = Self.sorting(descriptor.sortBy, sectionedBy: section)
        fetchDescriptor = sorted
        self.isolation = isolation
        currentResults = FetchResultsCollection(observed: [], context: context)
        // Registered first, which starts the package's watch: a save another process made
        // since the document was read is taken in before the first fetch.
        let link = DocumentLink(CatchUpHandle { [weak self] in self?.catchUpWithSaves() }, isolation: isolation)
        documentLink = link
        context.sharedDocument.addObserver(link)
        watchForOutsideSaves()
        try refetch()
        context.addResultsObserver(self)
    }

    deinit {
        if let documentLink { modelContext.sharedDocument.removeObserver(ObjectIdentifier(documentLink)) }
    }

    /// Makes sure the package is watched for other processes' saves once it
    /// exists (one watch per shared document, shared with every observer of it; a
    /// package not written yet is watched from a later read), and takes in a
    /// save made before the watch began.
    private func watchForOutsideSaves() {
        guard !watchesPackage, modelContext.sharedDocument.package != nil, modelContext.sharedDocument.watchPackageIfObserved() else { return }
        watchesPackage = true
        do throws(ModelError) { try modelContext.sharedDocument.takeInOutsideSave() } catch {
            ModelContainer.report(error, to: modelContext.autosaveErrorHandler)
        }
    }

    /// The descriptors with the section key first (unless already first).
    private static func sorting(
        _ descriptors: [SortDescriptor<Element>],
        sectionedBy section: SectionKey<Element, SectionTitle>?
    ) -> [SortDescriptor<Element>] {
        guard let section else { return descriptors }
        if let first = descriptors.first, first.keyPath == section.keyPath { return descriptors }
        return section.sortDescriptors + descriptors
    }

    // MARK: Keeping up

    /// Merges other contexts' saves (which publishes them here), then brings
    /// the results up to date with everything published.
    private func catchUp() {
        watchForOutsideSaves()
        modelContext.mergeSavedChanges()
        if stale {
            do { try refetch() } catch { reportRefetchFailure(error) }
        } else if !verdicts.isEmpty {
            apply()
        }
    }

    /// Fetches the results whole.
    private func refetch() throws {
        refetchCount += 1
        stale = false
        verdicts.removeAll()
        let fetched = try modelContext.fetchIdentifiers(fetchDescriptor)
        ids = fetched.map(\.id)
        members = Set(ids)
        resultsChanged()
    }

    /// Fetches again now (the criteria changed), telling observers.
    private func refetchNow() {
        willChange()
        do { try refetch() } catch { reportRefetchFailure(error) }
        didChange()
    }

    private func reportRefetchFailure(_ error: any Error) {
        ids = []
        members = []
        resultsChanged()
        let reported: ModelError = (error as? ModelError) ?? .predicate(ObjectPredicateError("the results could not be fetched: \(error)", column: 0))
        ModelContainer.report(reported, to: modelContext.autosaveErrorHandler)
    }

    /// The results' identifiers changed: the collections handed out next are new.
    private func resultsChanged() {
        currentResults = FetchResultsCollection(observed: ids, context: modelContext)
        currentSections = nil
    }

    /// Moves each changed object into or out of place. O(k log n) comparisons
    /// for k changed objects, plus a move of the identifiers per object; a
    /// refetch when k is a large part of n or a value needs a model to compare.
    private func apply() {
        let graph = modelContext.graph
        guard let entity = graph.layout.entityIndex[Element.entityName],
            verdicts.count <= max(64, ids.count / 8)
        else { return markedRefetch() }
        let sort: CompiledModelSort?
        if fetchDescriptor.sortBy.isEmpty {
            sort = nil
        } else {
            guard let compiled = CompiledModelSort(fetchDescriptor.sortBy, entity: entity, graph: graph) else { return markedRefetch() }
            sort = compiled
        }
        for (id, _) in verdicts where members.contains(id) {
            if let position = ids.firstIndex(of: id) { ids.remove(at: position) }
            members.remove(id)
        }
        for (id, matches) in verdicts where matches {
            guard let ref = graph.index[id], graph.isLive(ref) else { continue }
            guard let position = insertionPoint(of: ref, sort: sort, graph: graph) else { return markedRefetch() }
            ids.insert(id, at: position)
            members.insert(id)
        }
        verdicts.removeAll()
        resultsChanged()
    }

    private func markedRefetch() {
        do { try refetch() } catch { reportRefetchFailure(error) }
    }

    /// Where `ref` goes in ``ids``: after every result that sorts before it or
    /// ties with it and comes first in the document, as a fetch orders them.
    /// `nil` when a value cannot be compared without its model.
    private func insertionPoint(of ref: ObjectRef, sort: CompiledModelSort?, graph: ObjectGraph) -> Int? {
        var low = 0, high = ids.count
        while low < high {
            let middle = (low + high) / 2
            guard let other = graph.index[ids[middle]] else { return nil }
            var order = ComparisonResult.orderedSame
            if let sort {
                guard let result = sort.order(other, ref, graph: graph) else { return nil }
                order = result
            }
            if order == .orderedSame { order = other.row < ref.row ? .orderedAscending : .orderedDescending }
            if order == .orderedAscending { low = middle + 1 } else { high = middle }
        }
        return low
    }

    private func willChange() {
        registrar.willSet(self, keyPath: \.results)
        if section != nil { registrar.willSet(self, keyPath: \.sections) }
    }

    private func didChange() {
        registrar.didSet(self, keyPath: \.results)
        if section != nil { registrar.didSet(self, keyPath: \.sections) }
    }

    // MARK: Sections

    private func makeSections(_ section: SectionKey<Element, SectionTitle>) -> SectionedResults<Element, SectionTitle> {
        let graph = modelContext.graph
        var order: [SectionTitle] = []
        var positions: [SectionTitle: [Int]] = [:]
        let results = currentResults
        for (position, id) in ids.enumerated() {
            let title: SectionTitle
            if let ref = graph.index[id], let read = section.title(ref, graph) {
                title = read
            } else {
                title = section.titleOfModel(results[position])
            }
            if positions[title] == nil { order.append(title) }
            positions[title, default: []].append(position)
        }
        return SectionedResults(order.map { ResultsSection(title: $0, results: results, positions: positions[$0] ?? []) })
    }
}

extension ResultsObserver: Observable {}

extension ResultsObserver: ContextChangeObserving {
    /// Re-evaluates the changed objects of this observer's type against the
    /// predicate and records which ones enter, leave or move; tells observers
    /// of ``results`` when any does. The move itself waits for the next read.
    func contextDidChange(_ changes: ResultsObservation.Changes) {
        guard !stale else { return }
        if changes.graphReplaced || (changes.saved && !fetchDescriptor.includePendingChanges) { return markStale() }
        let graph = modelContext.graph
        guard let entity = graph.layout.entityIndex[Element.entityName] else { return }
        let ours = changes.objects.contains { $0.value.entity == entity }
        // What the incremental path cannot decide: a windowed result, saved state only,
        // a predicate or sort that needs the models (which may read other entities).
        guard fetchDescriptor.fetchLimit == nil, fetchDescriptor.fetchOffset == nil, fetchDescriptor.includePendingChanges else {
            if ours { markStale() }
            return
        }
        let predicate: CompiledModelPredicate?
        if let filter = fetchDescriptor.predicate {
            guard let compiled = CompiledModelPredicate(filter, entity: entity, graph: graph) else {
                if !changes.objects.isEmpty { markStale() }
                return
            }
            predicate = compiled
        } else {
            predicate = nil
        }
        guard ours else { return }
        var sortAttributes: Set<Int> = []
        if !fetchDescriptor.sortBy.isEmpty {
            guard let sort = CompiledModelSort(fetchDescriptor.sortBy, entity: entity, graph: graph) else { return markStale() }
            sortAttributes = sort.attributes
        }
        var affected = false
        for (id, change) in changes.objects where change.entity == entity {
            var matches = false
            if let ref = graph.index[id], graph.isLive(ref) {
                reevaluatedCount += 1
                do { matches = try predicate?.matches(ref) ?? true } catch { return markStale() }
            }
            let wasMember = members.contains(id)
            let moves = matches && wasMember && (change.property.map(sortAttributes.contains) ?? true)
            if matches != wasMember || moves || verdicts[id] != nil {
                verdicts[id] = matches
                affected = true
            }
        }
        if affected {
            willChange()
            currentSections = nil
            didChange()
        }
    }

    /// The results must be fetched again; tells observers.
    private func markStale() {
        willChange()
        stale = true
        verdicts.removeAll()
        didChange()
    }

    /// Takes in what other contexts saved, on the observer's actor.
    fileprivate func catchUpWithSaves() {
        modelContext.mergeSavedChanges()
    }
}

/// A ``ResultsObserver``'s registration with its shared document: on every saved state
/// published, it schedules the observer's catch-up on the observer's actor
/// (an observer made outside any actor catches up when read).
private final class DocumentLink: DocumentObserver, @unchecked Sendable {
    private let handle: CatchUpHandle
    private let isolation: (any Actor)?

    init(_ handle: CatchUpHandle, isolation: (any Actor)?) {
        self.handle = handle
        self.isolation = isolation
    }

    func documentDidPublish(_ sharedDocument: SharedDocument, transactions: [StoredTransaction]) {
        if let isolation { handle.schedule(on: isolation) }
    }
}

/// The way from the shared document's notification (any thread) to the observer's
/// actor: one task at a time, whatever the number of saves meanwhile. Not
/// generic: a task capturing a generic type would capture its parameters'
/// metatypes, which are not `Sendable`.
private final class CatchUpHandle: @unchecked Sendable {
    /// Called only on the observer's actor.
    private let catchUp: () -> Void
    private let scheduled = Mutex(false)

    init(_ catchUp: @escaping () -> Void) {
        self.catchUp = catchUp
    }

    /// Called on the publishing thread: only schedules.
    func schedule(on actor: any Actor) {
        let first = scheduled.withLock { scheduled in
            defer { scheduled = true }
            return !scheduled
        }
        guard first else { return }
        Task { await Self.run(on: actor) { self.fire() } }
    }

    private func fire() {
        scheduled.withLock { $0 = false }
        catchUp()
    }

    private static func run(on actor: isolated any Actor, _ body: @Sendable () -> Void) {
        body()
    }
}

extension FetchResultsCollection where Element: PersistentModel {
    /// Models made a batch at a time by an observer's results.
    static var observedBatchSize: Int { 1024 }

    /// A collection of the models of objects numbered `ids`, in this order, made
    /// through the context's registry a batch at a time (``observedBatchSize``).
    init(observed ids: [UInt64], context: ModelContext) {
        self.init(
            ResultBatches(count: ids.count, batchSize: Self.observedBatchSize) { range in
                let columns = context.columns(for: Element.self)
                return ids[range].map { context.resultModel(Element.self, id: $0, columns: columns) }
            } release: { range in
                for id in ids[range] where context.typed.registry[id] == nil { context.typed.registry.remove(id) }
            })
    }
}
