/// The objects a whole-document merge builds ``ObjectState``s for: those
/// either side changed, and those the reconcile pass must see beside them.
/// Every other object is *outside*: both sides left it as the base had it,
/// so the per-object merge would give it unchanged, and no rule of
/// ``MergeReconcile`` reaches it — the merged document holds it as ours does.
///
/// The scope starts as:
/// - the objects either side changed (``ObjectGraph/changedIdentifiers(since:)``);
/// - objects whose relationship counts break a minimum or maximum (the
///   reconcile records every such object, changed or not);
/// - objects holding one unique key in ours (the reconcile removes all but one).
///
/// It then grows until the reconcile of the scope reaches nothing outside:
/// - an object outside that a scope object holds through a fact link in
///   ours but not in the result, or the other way round: its derived list
///   (or to-one) changes;
/// - every object outside linked in ours to a scope object the result
///   removes: its link would dangle;
/// - an object outside holding, in ours, a unique key a scope object holds
///   in the result.
///
/// Each round merges the scope anew (states already built are kept), so the
/// states and conflicts are those the merge of every object gives.
///
/// - Complexity: O(rows × (stored attributes + links)) to compare the columns
///   (no allocation per object; plus a key per object of an entity with
///   unique groups), then O(scope × properties + their links) per round.
struct MergeScope {
    let base: ObjectGraph
    let ours: ObjectGraph
    let theirs: ObjectGraph
    let schema: MergeSchema
    /// The objects given states: every identifier the merge sees.
    private(set) var ids: Set<UInt64>
    /// How many ``ObjectState``s were built from the three graphs: what the
    /// merge's cost follows (``MergeResult/statesBuilt``).
    private(set) var statesBuilt = 0
    private var baseStates: [UInt64: ObjectState] = [:]
    private(set) var oursStates: [UInt64: ObjectState] = [:]
    private var theirsStates: [UInt64: ObjectState] = [:]
    /// Per entity with unique groups, per group: ours' live objects by key.
    private var keyHolders: [String: [[[Value]: [UInt64]]]] = [:]
    /// The reconcile's rules: a document's, or a context's.
    private let rules: MergeReconcile.Rules

    /// The scope of a merge of three versions under one schema, or `nil`
    /// when they cannot be compared column by column (then every object is merged).
    init?(base: ObjectGraph, ours: ObjectGraph, theirs: ObjectGraph, schema: MergeSchema) {
        guard let oursChanged = ours.changedIdentifiers(since: base),
            let theirsChanged = theirs.changedIdentifiers(since: base)
        else { return nil }
        (self.base, self.ours, self.theirs, self.schema, rules) = (base, ours, theirs, schema, .document)
        ids = oursChanged.union(theirsChanged)
        // One identifier given objects of two entities (impossible with lanes) is left to the merge of every object.
        for id in ids {
            let entities = [base, ours, theirs].compactMap { graph in
                graph.index[id].map { graph.layout.entities[Int($0.entity)].name }
            }
            if entities.contains(where: { $0 != entities.first }) { return nil }
        }
        ids.formUnion(countViolations())
        ids.formUnion(sharedKeys())
    }

    /// The scope of a context taking in other contexts' saves: `changed` are
    /// the objects either side is known to have changed — the change sets'
    /// objects and the context's own tracked edits — so no column is
    /// compared, and the cost follows the changes, not the document. The
    /// per-object merge compares values, so an object left out that only
    /// ours changed keeps ours' state, as it would in the scope. The rules
    /// are a context's (``MergeReconcile/Rules/context(edited:)``): no
    /// conflicts kept, unique keys left to the save, counts left to the save's
    /// validation.
    ///
    /// - Complexity: O(changed).
    init(
        base: ObjectGraph, ours: ObjectGraph, theirs: ObjectGraph, schema: MergeSchema, changed: Set<UInt64>,
        rules: MergeReconcile.Rules
    ) {
        (self.base, self.ours, self.theirs, self.schema, self.rules) = (base, ours, theirs, schema, rules)
        ids = changed
    }

    /// The entity of a live object of ours, if any.
    static func liveEntity(_ id: UInt64, in graph: ObjectGraph) -> String? {
        guard let ref = graph.index[id], graph.isLive(ref) else { return nil }
        return graph.layout.entities[Int(ref.entity)].name
    }

    /// The entity of an object outside the scope, `nil` for an identifier in it or no live object.
    func outsideEntity(_ id: UInt64) -> String? {
        ids.contains(id) ? nil : Self.liveEntity(id, in: ours)
    }

    /// Merges and reconciles the scope, growing it until nothing outside is
    /// reached: the merged states of the scope (the objects outside are
    /// ours') and every conflict, in report order.
    mutating func merge() throws(MergeError) -> (states: [UInt64: ObjectState], conflicts: [MergeConflict]) {
        var pending = ids
        while true {
            buildStates(of: pending)
            let merged = try ObjectStateMerge.merge(
                base: baseStates, ours: oursStates, theirs: theirsStates, schema: schema,
                recordsConflicts: rules.recordsConflicts)
            var states = merged.states
            let (scope, graph) = (ids, ours)
            let conflicts = try MergeReconcile.reconcile(
                &states, schema: schema, revivable: merged.deleted,
                conflicts: merged.conflicts,
                outside: { scope.contains($0) ? nil : Self.liveEntity($0, in: graph) },
                rules: rules)
            pending = reached(by: states)
            if pending.isEmpty { return (states, conflicts) }
            ids.formUnion(pending)
        }
    }

    private mutating func buildStates(of ids: Set<UInt64>) {
        for (graph, states) in [(base, \Self.baseStates), (ours, \Self.oursStates), (theirs, \Self.theirsStates)] {
            let built = graph.objectStates(of: ids)
            statesBuilt += built.count
            self[keyPath: states].merge(built) { old, _ in old }
        }
    }

    /// The objects outside the scope that the reconciled `states` reach (see the type's rules).
    private func reached(by states: [UInt64: ObjectState]) -> Set<UInt64> {
        var reached = Set<UInt64>()
        func reach(_ id: UInt64) { if outsideEntity(id) != nil { reached.insert(id) } }
        for id in ids {
            let (old, new) = (oursStates[id], states[id])
            for fact in facts(of: old).symmetricDifference(facts(of: new)) { reach(fact.target) }
            if new == nil, let ref = ours.index[id], ours.isLive(ref) {
                let entityLayout = ours.layout.entities[Int(ref.entity)]
                for slot in entityLayout.links.indices {
                    for target in ours.targets(ref, slot) { reach(ours.tables[Int(target.entity)].ids[Int(target.row)]) }
                }
            }
            if let new, let groups = schema.entities[new.entity]?.uniqueGroups, let holders = keyHolders[new.entity] {
                for (group, members) in groups.enumerated() {
                    // Unreadable, the reconcile reports it; here it keys nothing.
                    guard let key = (try? MergeReconcile.uniqueKey(new, members, id: 0)) ?? nil else { continue }
                    for holder in holders[group][key] ?? [] { reach(holder) }
                }
            }
        }
        return reached
    }

    /// A fact link of one object: what the derived side of its destination follows.
    private struct Fact: Hashable {
        var link: String
        var target: UInt64
    }

    /// A state's links that are facts with a declared inverse.
    private func facts(of state: ObjectState?) -> Set<Fact> {
        guard let state, let entity = schema.entities[state.entity] else { return [] }
        var facts = Set<Fact>()
        for link in entity.links where link.role == .fact && link.inverse != nil {
            for target in state.links[link.name]?.ids ?? [] { facts.insert(Fact(link: entity.name + "." + link.name, target: target)) }
        }
        return facts
    }

    /// Ours' live objects whose counts break a relationship's minimum or maximum.
    private func countViolations() -> Set<UInt64> {
        var found = Set<UInt64>()
        for entity in schema.entities.values {
            let limited = entity.links.filter { $0.minimumCount > 0 || $0.maximumCount > 0 }
            guard !limited.isEmpty, let entityIndex = ours.layout.entityIndex[entity.name] else { continue }
            let table = ours.tables[entityIndex]
            for link in limited {
                guard let slot = ours.layout.entities[entityIndex].linkIndex[link.name] else { continue }
                let column = table.links[slot]
                for row in 0..<table.rowCount where table.isLive[row] {
                    let count = column.isToMany ? column.many[row].count : (column.one[row] >= 0 ? 1 : 0)
                    if count < link.minimumCount || (link.maximumCount > 0 && count > link.maximumCount) {
                        found.insert(table.ids[row])
                    }
                }
            }
        }
        return found
    }

    /// Builds ``keyHolders`` from ours and returns the objects sharing a key there.
    private mutating func sharedKeys() -> Set<UInt64> {
        var shared = Set<UInt64>()
        for entity in schema.entities.values where !entity.uniqueGroups.isEmpty {
            guard let entityIndex = ours.layout.entityIndex[entity.name] else { continue }
            let (table, entityLayout) = (ours.tables[entityIndex], ours.layout.entities[entityIndex])
            var tables: [[[Value]: [UInt64]]] = []
            for members in entity.uniqueGroups {
                var holders: [[Value]: [UInt64]] = [:]
                rows: for row in 0..<table.rowCount where table.isLive[row] {
                    let ref = ObjectRef(entity: entityIndex, row: row)
                    var key: [Value] = []
                    for member in members {
                        if let attribute = entityLayout.attributeIndex[member] {
                            let value = ours.value(ref, attribute)
                            if value == .null { continue rows }
                            key.append(value)
                        } else if let slot = entityLayout.linkIndex[member] {
                            guard let target = ours.targets(ref, slot).first else { continue rows }
                            key.append(.uint(ours.tables[Int(target.entity)].ids[Int(target.row)]))
                        } else {
                            continue rows
                        }
                    }
                    holders[key, default: []].append(table.ids[row])
                }
                for group in holders.values where group.count > 1 { shared.formUnion(group) }
                tables.append(holders)
            }
            keyHolders[entity.name] = tables
        }
        return shared
    }
}
