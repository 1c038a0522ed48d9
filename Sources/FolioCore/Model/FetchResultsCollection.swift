/// The result of a batched fetch: a random-access collection that holds the
/// fetched objects' identifiers and makes its elements a batch at a time, as
/// they are accessed — SwiftData's `FetchResultsCollection`.
///
/// ``ModelContext/fetch(_:batchSize:)`` returns one of models and
/// ``ModelContext/fetchIdentifiers(_:batchSize:)`` one of identifiers:
///
/// ```swift
/// let animals = try context.fetch(FetchDescriptor<Animal>(sortBy: [SortDescriptor(\.name)]), batchSize: 5000)
/// for animal in animals { total += animal.weight }   // 5,000 models alive at a time, not all of them
/// let last = animals[animals.count - 1]              // only the last batch is made
/// ```
///
/// The collection keeps the elements of the two batches it handed out last
/// and lets the others go; a model the program keeps stays valid, and the
/// collection hands out that same instance again while the program holds it.
/// Memory is therefore the result's identifiers — a few bytes in all when
/// their numbers run consecutively, as an unsorted fetch's usually do, else 8
/// bytes per result — and two batches' models, not a model per result (see
/// docs/PERFORMANCE.md, "Batched fetch").
///
/// The collection is a snapshot of the result: its count, order and members
/// are fixed when it is fetched. Later changes to the context show through the
/// models (they are views of the document), not through membership:
/// - an object inserted later, or edited so that it now matches the predicate
///   or sorts elsewhere, is not added or moved;
/// - an object deleted since is still handed out, as a deleted model:
///   ``PersistentModel/isDeleted`` is `true` until the delete is saved, and
///   after the save it is detached (`modelContext` is `nil`) with its last
///   values readable, as any model of a deleted object is;
/// - an object the context no longer has at all — an insert that
///   ``ModelContext/rollback()`` took away — is handed out detached
///   (`modelContext` is `nil`), with the fetched identifier. A model made
///   for it before the rollback keeps its values (rollback detaches it with
///   them), and is handed out again while its batch is kept; a model made
///   after has no values to keep, so its attributes read as a new model's
///   would (declared default, `nil` or zero) and its relationships read empty.
///
/// Like the context that made it, the collection is used from one actor (the
/// context's); it holds the context strongly.
public struct FetchResultsCollection<Element>: RandomAccessCollection {
    /// Positions are offsets from the first result, as in an array.
    public typealias Index = Int

    let batches: ResultBatches<Element>

    init(_ batches: ResultBatches<Element>) {
        self.batches = batches
    }

    /// The position of the first result: always 0.
    public var startIndex: Int { 0 }

    /// One past the last result: the number of results.
    public var endIndex: Int { batches.count }

    /// The result at a position, making its batch if it is not one of the two kept.
    ///
    /// - Complexity: O(1) when the batch is kept; otherwise O(batch size), to
    ///   make the batch. `position` must be in `indices`, as for an array.
    public subscript(position: Int) -> Element {
        batches.element(at: position)
    }
}

/// The state behind a ``FetchResultsCollection``, shared by its copies: the
/// result's identifiers and the one or two batches of elements made last.
final class ResultBatches<Element> {
    /// Makes the elements for a range of result positions.
    typealias Maker = (Range<Int>) -> [Element]
    /// Called with a batch's positions once the collection has let go of its elements.
    typealias Releaser = (Range<Int>) -> Void

    let count: Int
    /// Elements per batch; the whole result when the caller asked for none.
    let batchSize: Int
    private let make: Maker
    private let release: Releaser?
    /// The batch used last and the one before it: iterating keeps one alive,
    /// going back and forth across a batch boundary does not remake either.
    private var recent: (batch: Int, elements: [Element])?
    private var previous: (batch: Int, elements: [Element])?
    /// How many elements have been made, counting remade batches: what tests
    /// check to see that elements are made lazily, batch by batch.
    private(set) var madeCount = 0

    /// - Parameter batchSize: elements per batch; 0 or less makes the whole
    ///   result one batch (Core Data's `fetchBatchSize` of 0: no batching).
    init(count: Int, batchSize: Int, make: @escaping Maker, release: Releaser? = nil) {
        self.count = count
        self.batchSize = batchSize > 0 ? batchSize : max(count, 1)
        self.make = make
        self.release = release
    }

    /// The positions batch `batch` covers.
    private func range(of batch: Int) -> Range<Int> {
        // `batchSize` is the caller's, up to `Int.max`: the end is the start plus
        // what is left, never the start plus a whole batch.
        let start = batch * batchSize
        return start..<start + min(batchSize, count - start)
    }

    /// The batches whose elements are alive in this collection, most recent first.
    var keptBatches: [Int] { [recent?.batch, previous?.batch].compactMap { $0 } }

    func element(at position: Int) -> Element {
        precondition(position >= 0 && position < count, "FetchResultsCollection index \(position) out of range 0..<\(count)")
        let batch = position / batchSize
        let offset = position - batch * batchSize
        if let recent, recent.batch == batch { return recent.elements[offset] }
        if let kept = previous, kept.batch == batch {
            previous = recent
            recent = kept
            return kept.elements[offset]
        }
        let elements = make(range(of: batch))
        madeCount += elements.count
        // The oldest batch goes; its elements are released here, before the hook.
        let dropped = previous?.batch
        previous = recent
        recent = (batch, elements)
        if let dropped, let release { release(range(of: dropped)) }
        return elements[offset]
    }
}

extension FetchResultsCollection where Element: PersistentModel {
    /// A collection of models of the objects numbered `ids`, in this order,
    /// made through the context's registry (the instance it already has, if any).
    init(models ids: ResultIdentifiers, batchSize: Int, context: ModelContext) {
        self.init(
            ResultBatches(count: ids.count, batchSize: batchSize) { range in
                var models: [Element] = []
                models.reserveCapacity(range.count)
                let columns = context.columns(for: Element.self)
                ids.forEach(in: range) { _, id in models.append(context.resultModel(Element.self, id: id, columns: columns)) }
                return models
            } release: { range in
                // The registry's entries for the models just released, at once rather
                // than at its next sweep: a weak reference keeps its dead model's side
                // table (~32 B) until cleared. (An unretained entry is gone already:
                // its model's deinit removed it.)
                ids.forEach(in: range) { _, id in
                    if context.typed.registry[id] == nil { context.typed.registry.remove(id) }
                }
            })
    }
}

extension FetchResultsCollection {
    /// A collection of identifiers of the objects numbered `ids`, of one entity, in this order.
    init(identifiers ids: ResultIdentifiers, entityName: String, batchSize: Int) where Element == PersistentIdentifier {
        self.init(
            ResultBatches(count: ids.count, batchSize: batchSize) { range in
                ids.numbers(in: range).map { PersistentIdentifier(entityName: entityName, id: $0) }
            })
    }
}

extension ModelContext {
    /// The model a batched fetch hands out for an object number: the context's
    /// model for the object while the context has its row (live or deleted),
    /// else a detached model with the identifier (see ``FetchResultsCollection``).
    func resultModel<T: PersistentModel>(_ type: T.Type, id: UInt64, columns: ModelColumns?) -> T {
        if let ref = graph.index[id] { return model(T.self, at: ref, columns: columns) }
        let backing = BackingData()
        backing.identifier = PersistentIdentifier(entityName: T.entityName, id: id)
        // An empty snapshot: detached, reading as a model with no values does.
        backing.snapshot = [:]
        return T(backingData: backing)
    }
}
