import Foundation

extension ObjectGraph {
    /// Rows of an entity matching a descriptor, sorted and windowed: with
    /// ``DynamicFetchDescriptor/includesSubentities``, the rows of the
    /// entities that inherit from it too, after its own (sorted together).
    ///
    /// A predicate whose top-level conjunction tests an attribute that a
    /// declared index orders by, for equality or a range against a constant,
    /// is checked only on the rows the index yields (in row order, as a scan
    /// finds them); otherwise on every row. O(rows of the entity) to filter
    /// by a scan, O(log n + candidates) by an index; O(m log m) to sort m matches.
    ///
    /// - Parameters:
    ///   - shared: whether the graph is a saved state other threads
    ///     read (a context's baseline): it builds no index and counts nothing.
    ///   - isCancelled: asked every ``CancellationPoll/interval`` rows of the
    ///     scan and before the sort; `true` stops the fetch with
    ///     ``FetchError/cancelled``.
    /// - Throws: ``FetchError`` (the context reports it as ``ModelError``).
    func fetchRows(
        _ descriptor: DynamicFetchDescriptor, shared: Bool = false,
        isCancelled: (() -> Bool)? = nil
    ) throws(FetchError) -> [ObjectRef] {
        var poll = CancellationPoll(isCancelled)
        let entity: Int
        do { entity = try entityIndex(descriptor.entity) } catch { throw .unknownEntity(error) }
        // The entity's own rows, then each subentity's (see `Schema.hierarchy(of:)`).
        let entities = descriptor.includesSubentities ? layout.hierarchies[entity] : [entity]
        var rows: [ObjectRef] = []
        for member in entities {
            rows += try matchingRows(descriptor.predicate, entity: member, shared: shared, poll: &poll)
        }
        if !descriptor.sortBy.isEmpty {
            // The sort itself runs whole (O(m log m) with no step to poll at): asked before it, and after.
            if poll.shouldStopNow() { throw .cancelled }
            var keys: [(column: SortKeyColumn, ascending: Bool)] = []
            let failure = ReadFailure()
            for key in descriptor.sortBy {
                let reader: (read: (ObjectRef) -> Value, attribute: Int?, unsortable: (entity: String, attribute: String)?)
                do {
                    reader = try CompiledPredicate.reader(forSortKey: key.keyPath, entity: entity, graph: self, failure: failure)
                } catch {
                    throw .predicate(ObjectPredicateError("cannot sort by '\(key.keyPath)': \(error.message)", column: 0))
                }
                // A collection has no order: sorting by it would only keep the rows' order, silently.
                if let unsortable = reader.unsortable { throw .unsortable(entity: unsortable.entity, attribute: unsortable.attribute) }
                // A direct attribute in a typed column is read straight from its array;
                // anything else (paths, optionals, other types, several tables) through Values.
                let column: SortKeyColumn
                if entities.count == 1 {
                    column =
                        reader.attribute.flatMap { attribute in
                            SortKeyColumn(
                                tables[entity].columns[attribute], type: layout.entities[entity].attributes[attribute].type,
                                rows: rows)
                        } ?? SortKeyColumn(rows.map(reader.read))
                } else {
                    // A subentity's inherited attributes and links have the superentity's positions: the
                    // reader compiled for the entity reads each subentity's rows by the same names.
                    var readers: [Int: (ObjectRef) -> Value] = [entity: reader.read]
                    for member in entities.dropFirst() {
                        do {
                            readers[member] = try CompiledPredicate.reader(
                                forSortKey: key.keyPath, entity: member, graph: self,
                                failure: failure
                            ).read
                        } catch {
                            throw .predicate(ObjectPredicateError("cannot sort by '\(key.keyPath)': \(error.message)", column: 0))
                        }
                    }
                    column = SortKeyColumn(rows.map { ref in readers[Int(ref.entity)]?(ref) ?? .null })
                }
                keys.append((column, key.ascending))
                if let error = failure.error { throw .unreadable(error) }
            }
            rows = SortKeyColumn.sort(rows, by: keys)
            if poll.shouldStopNow() { throw .cancelled }
        }
        let window = ResultWindow.range(offset: descriptor.fetchOffset, limit: descriptor.fetchLimit, count: rows.count)
        return window == rows.indices ? rows : Array(rows[window])
    }

    /// The live rows of one entity's table that `predicate` matches (all of them without one).
    private func matchingRows(
        _ predicate: ObjectPredicate?, entity: Int, shared: Bool,
        poll: inout CancellationPoll
    ) throws(FetchError) -> [ObjectRef] {
        let table = tables[entity]
        var rows: [ObjectRef] = []
        if let predicate {
            let compiled: CompiledPredicate
            do { compiled = try CompiledPredicate(predicate, entity: entity, graph: self) } catch { throw .predicate(error) }
            if let candidates = indexedRows(
                entity: entity, terms: predicate.indexTerms(entity: entity, graph: self),
                building: !shared)
            {
                if !shared { rowsVisited += candidates.count }
                rows = candidates.filter(compiled.matches)
            } else {
                if !shared { rowsVisited += table.liveCount }
                for row in 0..<table.rowCount where table.isLive[row] {
                    if poll.shouldStop() { throw .cancelled }
                    let ref = ObjectRef(entity: entity, row: row)
                    if compiled.matches(ref) { rows.append(ref) }
                }
            }
            if let error = compiled.failure.error { throw .unreadable(error) }
        } else {
            rows.reserveCapacity(table.liveCount)
            for row in 0..<table.rowCount where table.isLive[row] {
                if poll.shouldStop() { throw .cancelled }
                rows.append(ObjectRef(entity: entity, row: row))
            }
        }
        return rows
    }
}
