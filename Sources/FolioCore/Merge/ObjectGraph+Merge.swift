/// The whole-document three-way merge on graphs: the per-object merge
/// (``ObjectStateMerge``) of the objects either side changed and those the
/// reconcile pass (``MergeReconcile``) must see beside them (``MergeScope``),
/// written into a copy of ours; the same result as merging every object.
extension ObjectGraph {
    /// Merges two edited versions of a document with the version they both
    /// started from, by object identity.
    ///
    /// Every edit of either side is kept; where the two disagree the result
    /// keeps ours and ``MergeResult/conflicts`` records base, ours and theirs,
    /// so nothing is lost. The rules are in <doc:Merging>. The result passes
    /// every check a package's loader makes — inverse links, delete rules,
    /// uniqueness, `deny`, limits — except minimum and maximum counts, which
    /// a ``MergeConflict/Kind/count`` conflict reports instead (a context's
    /// save refuses them until resolved, as for any edit).
    ///
    /// ```swift
    /// let result = try ObjectGraph.merge(base: base, ours: mine, theirs: yours)
    /// for conflict in result.conflicts { print(conflict) }
    /// try DocumentPackage(url: url).write(result.graph)
    /// ```
    ///
    /// The three graphs are only read. Externally stored values are carried
    /// unread unless two sides hold different files in one cell.
    ///
    /// When one side changed the schema (or both changed it alike) by a
    /// lightweight migration, the other versions are migrated to that schema
    /// first, and the merged graph has it: ours added an attribute, so base
    /// and theirs are migrated to ours' schema, and the merge keeps ours'
    /// values for it. Both sides changing it differently is refused.
    ///
    /// - Throws: ``MergeError/schemaMismatch(side:difference:)`` when the
    ///   versions cannot be brought to one schema: both sides changed it
    ///   differently, or a version cannot be migrated to the side's that
    ///   changed it; ``MergeError/unreadableValue(entity:attribute:id:reason:)``
    ///   for a blob that had to be read and could not be;
    ///   ``MergeError/tooManyObjects(count:maximum:)`` when the result would
    ///   exceed the document's object limit.
    /// - Complexity: O(objects × properties + links) of the three versions
    ///   for comparing their columns, with no allocation per object, and a
    ///   copy of ours (copy-on-write: each column written to is copied once)
    ///   whose rows are put back in identifier order when objects came or
    ///   went (O(rows + links) of the entities concerned); then O(changed
    ///   objects × properties + their links), plus O(list length × log) for
    ///   each to-many list both sides changed (and a copy of each version a
    ///   schema change migrates). An entity with unique groups adds a key
    ///   per object of ours.
    public static func merge(base: ObjectGraph, ours: ObjectGraph, theirs: ObjectGraph) throws(MergeError) -> MergeResult {
        let versions = try MergeSchemaAlignment(base: base, ours: ours, theirs: theirs)
        let schema = MergeSchema(versions.ours.schema)
        guard var scope = MergeScope(base: versions.base, ours: versions.ours, theirs: versions.theirs, schema: schema) else {
            return try mergeEveryObject(versions, schema: schema, base: base, ours: ours, theirs: theirs)
        }
        let (states, conflicts) = try scope.merge()
        let limits = ours.limits
        let kept = scope.ids.reduce(versions.ours.count) { count, id in
            MergeScope.liveEntity(id, in: versions.ours) == nil ? count : count - 1
        }
        guard kept + states.count <= limits.maximumObjects else {
            throw .tooManyObjects(count: kept + states.count, maximum: limits.maximumObjects)
        }
        let graph = versions.ours.copy()
        // A new document, as the merge of every object builds it: a writer of its own.
        graph.allocator = IdentifierAllocator()
        graph.limits = limits
        graph.apply(states, scope: scope.ids, theirs: versions.theirs)
        // The rows the merge of every object gives: live objects only, by identifier.
        graph.compactInIdentifierOrder()
        return finish(graph, conflicts: conflicts, statesBuilt: scope.statesBuilt, base: base, ours: ours, theirs: theirs)
    }

    /// The merge of every object's state, into a new graph: what
    /// ``merge(base:ours:theirs:)`` does when the versions cannot be compared
    /// column by column (``MergeScope``), and what tests compare it with.
    static func mergeEveryObject(
        _ versions: MergeSchemaAlignment, schema: MergeSchema, base: ObjectGraph,
        ours: ObjectGraph, theirs: ObjectGraph
    ) throws(MergeError) -> MergeResult {
        let (b, o, t) = (versions.base.objectStates(), versions.ours.objectStates(), versions.theirs.objectStates())
        let merged = try ObjectStateMerge.merge(base: b, ours: o, theirs: t, schema: schema)
        var states = merged.states
        let conflicts = try MergeReconcile.reconcile(
            &states, schema: schema, revivable: merged.deleted,
            conflicts: merged.conflicts)
        let limits = ours.limits
        guard states.count <= limits.maximumObjects else {
            throw .tooManyObjects(count: states.count, maximum: limits.maximumObjects)
        }
        let graph = ObjectGraph(schema: versions.ours.schema)
        graph.limits = limits
        graph.build(from: states, transientFrom: [versions.ours, versions.theirs])
        return finish(
            graph, conflicts: conflicts, statesBuilt: b.count + o.count + t.count, base: base, ours: ours,
            theirs: theirs)
    }

    /// The merge of every object's state (``mergeEveryObject(_:schema:base:ours:theirs:)``) of three versions.
    static func mergeEveryObject(base: ObjectGraph, ours: ObjectGraph, theirs: ObjectGraph) throws(MergeError) -> MergeResult {
        let versions = try MergeSchemaAlignment(base: base, ours: ours, theirs: theirs)
        return try mergeEveryObject(versions, schema: MergeSchema(versions.ours.schema), base: base, ours: ours, theirs: theirs)
    }

    /// The merged graph's identifier counter and recorded conflicts.
    private static func finish(
        _ graph: ObjectGraph, conflicts: [MergeConflict], statesBuilt: Int, base: ObjectGraph,
        ours: ObjectGraph, theirs: ObjectGraph
    ) -> MergeResult {
        graph.nextID = max(graph.nextID, base.nextID, ours.nextID, theirs.nextID)
        // The merged document keeps what it must still resolve: the records the
        // versions held (less those either side resolved), then this merge's.
        graph.conflicts =
            MergeConflict.mergeRecords(base: base.conflicts, ours: ours.conflicts, theirs: theirs.conflicts)
            + conflicts
        graph._checkInvariants()
        return MergeResult(graph: graph, conflicts: conflicts, statesBuilt: statesBuilt)
    }

    /// Fills an empty graph with reconciled states: objects by ascending
    /// identifier, then every fact link (the inverses follow), then each
    /// derived list's order and each empty optional to-many's absence.
    /// Transient attributes take the first value `transientFrom` holds for
    /// the object, else their initial value.
    func build(from states: [UInt64: ObjectState], transientFrom sources: [ObjectGraph] = []) {
        let ids = states.keys.sorted()
        var refs: [UInt64: ObjectRef] = [:]
        refs.reserveCapacity(ids.count)
        for id in ids {
            let state = states[id]!
            guard let entity = layout.entityIndex[state.entity] else { continue }
            let entityLayout = layout.entities[entity]
            let cells = entityLayout.attributes.enumerated().map { index, attribute -> StoredValue in
                if !attribute.isTransient, let cell = state.attributes[attribute.name] { return cell }
                for source in sources {
                    if let ref = source.index[id], source.isLive(ref), Int(ref.entity) == source.layout.entityIndex[state.entity],
                        let sourceIndex = source.layout.entities[Int(ref.entity)].attributeIndex[attribute.name]
                    {
                        return .value(source.value(ref, sourceIndex))
                    }
                }
                return .value(attribute.initialValue)
            }
            refs[id] = insertObject(entity: entity, stored: cells, id: id)
        }
        let merge = MergeSchema(schema)
        for id in ids {
            guard let source = refs[id], let state = states[id], let entity = merge.entities[state.entity] else { continue }
            for link in entity.links where link.role == .fact {
                guard let slot = layout.entities[Int(source.entity)].linkIndex[link.name] else { continue }
                for target in state.links[link.name]?.ids ?? [] {
                    if let destination = refs[target] { addLink(source, slot, destination) }
                }
            }
        }
        for id in ids {
            guard let source = refs[id], let state = states[id], let entity = merge.entities[state.entity] else { continue }
            for link in entity.links {
                guard let slot = layout.entities[Int(source.entity)].linkIndex[link.name], let cell = state.links[link.name]
                else { continue }
                if link.isToMany, link.role != .fact {
                    let stored = layout.entities[Int(source.entity)].links[slot]
                    let rows = cell.ids.compactMap { refs[$0].map(stored.target) }
                    if rows != tables[Int(source.entity)].links[slot].many[Int(source.row)] { assignList(rows, to: source, slot) }
                }
                if link.isToMany { setAbsent(cell.absent && cell.ids.isEmpty, source, slot) }
            }
        }
    }
}
