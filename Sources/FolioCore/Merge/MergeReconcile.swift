/// The pass that makes merged object states a document the loader opens:
/// deterministic, over the whole result, and independent of how the
/// per-object merge was split (whole document, or one part file at a time
/// by a Git merge driver). A loader can run it on a package merged outside
/// Folio.
///
/// Repeated until nothing changes, in identifier order:
/// 1. **Dangling links.** A fact link to an object that is gone (or of
///    another entity) gets the delete rule of the destination's inverse, as
///    if the merge had deleted that object: `cascade` removes the linking
///    object (``MergeConflict/Kind/cascade``, holding its values); `deny`
///    brings the deleted object back from its last version when the merge
///    has one (``MergeConflict/Kind/deny``), else removes the link;
///    `nullify`, `noAction` and a relationship with no inverse remove the
///    link (``MergeConflict/Kind/danglingLink``).
/// 2. **Taken to-ones.** Between two to-ones, two objects whose facts hold
///    one object: the larger identifier loses the link
///    (``MergeConflict/Kind/linkTaken``).
/// 3. **Uniqueness.** Two objects holding the same values in a unique group
///    the loader checks: the larger identifier is removed
///    (``MergeConflict/Kind/uniqueness``, holding its values). An object
///    removed by a rule is never brought back by `deny`.
///
/// Then every derived relationship is derived from the facts: a derived
/// to-many holds exactly the objects whose facts hold its object, in its
/// merged order, members it did not list appended by ascending identifier;
/// a derived to-one holds the object whose fact holds it. Last, minimum and
/// maximum counts: a violation is recorded (``MergeConflict/Kind/count``) and
/// the state kept. A deleted-and-edited conflict of an object `deny` brought
/// back is dropped: the deny conflict records it.
///
/// - Complexity: O(passes × (objects × properties + links)); a pass after
///   the first runs only when a rule removed or revived an object, and each
///   object is removed or revived at most once.
enum MergeReconcile {
    /// Reconciles `states` in place and returns the conflicts it records,
    /// `conflicts` (the per-object merge's) included, in report order.
    ///
    /// - Parameters:
    ///   - revivable: objects the merge deleted, as last seen: what `deny` may bring back.
    /// - Throws: ``MergeError/unreadableValue(entity:attribute:id:reason:)`` when a
    ///   removed object's externally stored value cannot be read for its record.
    static func reconcile(
        _ states: inout [UInt64: ObjectState], schema: Schema,
        revivable: [UInt64: ObjectState] = [:], conflicts: [MergeConflict] = []
    ) throws(MergeError)
        -> [MergeConflict]
    {
        try reconcile(&states, schema: MergeSchema(schema), revivable: revivable, conflicts: conflicts)
    }

    /// Reconciles `states` in place; with `outside`, `states` are some
    /// objects of the result only, and `outside` gives the entity of each
    /// other live object (`nil` for none, and for every identifier `states`,
    /// `revivable` or the per-object merge named): objects both sides left as
    /// the base had them, which the caller makes sure no rule reaches
    /// (``MergeScope``). They count as live targets, and as members of the
    /// derived lists that hold them.
    static func reconcile(
        _ states: inout [UInt64: ObjectState], schema: MergeSchema,
        revivable: [UInt64: ObjectState], conflicts: [MergeConflict],
        outside: ((UInt64) -> String?)? = nil, rules: Rules = .document
    ) throws(MergeError)
        -> [MergeConflict]
    {
        var pass = Pass(schema: schema, states: states, revivable: revivable, outside: outside, rules: rules)
        while true {
            var changed = try pass.cutDanglingLinks()
            changed = pass.releaseTakenToOnes() || changed
            if rules.removesDuplicates { changed = try pass.removeDuplicates() || changed }
            if !changed { break }
        }
        pass.derive()
        if rules.recordsConflicts { pass.checkCounts() }
        states = pass.states
        let live = pass.states
        var all = conflicts.filter { !($0.kind == .deletedAndEdited && live[$0.id.id] != nil) } + pass.conflicts
        all.sort(by: MergeConflict.reportOrder)
        return all
    }

    /// What differs between reconciling a document (every rule, every
    /// conflict recorded) and a context taking in another context's save.
    struct Rules {
        /// Whether conflicts are recorded. A context keeps none: its own
        /// edits win, as SwiftData's in-memory changes do, and no blob is read
        /// only to describe a removed object.
        var recordsConflicts = true
        /// Whether two objects holding one unique key leave one. A context
        /// leaves them both: its save resolves the key as SwiftData does (the
        /// later insert updates the object saved, see <doc:Uniqueness>).
        var removesDuplicates = true
        /// Objects whose to-one claim wins when two claim one object through a
        /// one-to-one (rule 2): a context's own edits. Others go by identifier.
        var preferred: Set<UInt64> = []

        /// The rules of a document merge (``ObjectGraph/merge(base:ours:theirs:)``, Git's driver).
        static let document = Rules()

        /// The rules of a context taking in another context's save, whose own
        /// unsaved edits touched `edited`.
        static func context(edited: Set<UInt64>) -> Rules {
            Rules(recordsConflicts: false, removesDuplicates: false, preferred: edited)
        }
    }

    /// One reconciliation's working state.
    struct Pass {
        let schema: MergeSchema
        var states: [UInt64: ObjectState]
        var revivable: [UInt64: ObjectState]
        /// The live objects `states` does not hold, by entity (see ``reconcile(_:schema:revivable:conflicts:outside:)``).
        let outside: ((UInt64) -> String?)?
        let rules: Rules
        var conflicts: [MergeConflict] = []

        init(
            schema: MergeSchema, states: [UInt64: ObjectState], revivable: [UInt64: ObjectState],
            outside: ((UInt64) -> String?)? = nil, rules: Rules = .document
        ) {
            self.schema = schema
            self.states = states
            self.revivable = revivable
            self.outside = outside
            self.rules = rules
        }

        /// Whether `id` is a live object `link` may hold: of its destination or,
        /// into a hierarchy, of an entity inheriting from it.
        func isLive(_ id: UInt64, _ link: MergeSchema.Link) -> Bool {
            if let state = states[id] { return link.destinations.contains(state.entity) }
            return outside?(id).map(link.destinations.contains) ?? false
        }

        func identifier(_ id: UInt64) -> PersistentIdentifier {
            PersistentIdentifier(entityName: states[id]?.entity ?? revivable[id]?.entity ?? "", id: id)
        }

        func related(_ ids: [UInt64], _ link: MergeSchema.Link) -> MergeConflict.Content {
            // Named by the relationship's destination, as a record read back from a package
            // names them (it stores identifiers only), whatever subentity an object is of.
            .related(ids.map { PersistentIdentifier(entityName: link.destination, id: $0) })
        }

        /// Removes an object for a rule, recording its values; it is never revived.
        mutating func remove(_ id: UInt64, kind: MergeConflict.Kind, property: String? = nil) throws(MergeError) {
            guard let state = states.removeValue(forKey: id) else { return }
            revivable[id] = nil
            guard rules.recordsConflicts else { return }
            let values = try ObjectStateMerge.content(of: state, schema: schema, id: id)
            conflicts.append(
                MergeConflict(
                    kind: kind, id: PersistentIdentifier(entityName: state.entity, id: id),
                    property: property, ours: values, theirs: values))
        }

        /// Step 1: every fact link to an object that is gone. Returns whether anything changed.
        mutating func cutDanglingLinks() throws(MergeError) -> Bool {
            var changed = false
            for id in states.keys.sorted() {
                guard let state = states[id], let entity = schema.entities[state.entity] else { continue }
                linkLoop: for link in entity.links where link.role == .fact {
                    guard let cell = states[id]?.links[link.name] else { continue }
                    let dangling = cell.ids.filter { !isLive($0, link) }
                    guard !dangling.isEmpty else { continue }
                    changed = true
                    var cut: [UInt64] = []
                    for target in dangling {
                        switch link.ruleOnDestinationDelete {
                        case .cascade:
                            try remove(id, kind: .cascade, property: link.name)
                            break linkLoop
                        case .deny:
                            if let record = revivable.removeValue(forKey: target), link.destinations.contains(record.entity),
                                states[target] == nil
                            {
                                states[target] = record
                                guard rules.recordsConflicts else { continue }
                                let values = try ObjectStateMerge.content(of: record, schema: schema, id: target)
                                conflicts.append(
                                    MergeConflict(
                                        kind: .deny, id: PersistentIdentifier(entityName: record.entity, id: target),
                                        property: link.inverse, ours: values, theirs: values))
                            } else {
                                cut.append(target)
                            }
                        case .nullify, .noAction:
                            cut.append(target)
                        }
                    }
                    guard !cut.isEmpty, var current = states[id]?.links[link.name] else { continue }
                    conflicts.append(
                        MergeConflict(
                            kind: .danglingLink, id: PersistentIdentifier(entityName: state.entity, id: id),
                            property: link.name, ours: related(current.ids, link),
                            theirs: related(current.ids, link)))
                    let gone = Set(cut)
                    current.ids.removeAll { gone.contains($0) }
                    states[id]?.links[link.name] = current
                }
            }
            return changed
        }

        /// Step 2: between two to-ones, one holder per object; the larger identifiers let go.
        mutating func releaseTakenToOnes() -> Bool {
            var changed = false
            for entityName in schema.entityOrder {
                guard let entity = schema.entities[entityName] else { continue }
                for link in entity.links where link.role == .fact && !link.isToMany {
                    guard let inverse = link.inverse, let destination = schema.entities[link.destination],
                        let inverseLink = destination.link(named: inverse), !inverseLink.isToMany
                    else { continue }
                    var holder: [UInt64: UInt64] = [:]
                    // Preferred claims first (a context's own edits), then by identifier.
                    let claimants = states.keys.filter { states[$0]?.entity == entityName }
                        .sorted { (rules.preferred.contains($0) ? 0 : 1, $0) < (rules.preferred.contains($1) ? 0 : 1, $1) }
                    for id in claimants {
                        guard let target = states[id]?.links[link.name]?.ids.first else { continue }
                        if holder[target] == nil {
                            holder[target] = id
                        } else {
                            changed = true
                            let ids = [target]
                            conflicts.append(
                                MergeConflict(
                                    kind: .linkTaken, id: PersistentIdentifier(entityName: entityName, id: id),
                                    property: link.name, ours: related(ids, link), theirs: related(ids, link)))
                            states[id]?.links[link.name]?.ids = []
                        }
                    }
                }
            }
            return changed
        }

        /// Step 3: the unique groups; the larger identifier of two holders goes.
        mutating func removeDuplicates() throws(MergeError) -> Bool {
            derive()
            var changed = false
            for entityName in schema.entityOrder {
                guard let entity = schema.entities[entityName], !entity.uniqueGroups.isEmpty else { continue }
                let ids = states.keys.filter { states[$0]?.entity == entityName }.sorted()
                for group in entity.uniqueGroups {
                    var seen = Set<[Value]>()
                    for id in ids {
                        guard let state = states[id], let key = try uniqueKey(state, group, id: id) else { continue }
                        if !seen.insert(key).inserted {
                            try remove(id, kind: .uniqueness, property: group.joined(separator: ", "))
                            changed = true
                        }
                    }
                }
            }
            return changed
        }

        /// A group's values for one object, or `nil` when a member is nil (which clashes with nothing).
        func uniqueKey(_ state: ObjectState, _ group: [String], id: UInt64) throws(MergeError) -> [Value]? {
            try MergeReconcile.uniqueKey(state, group, id: id)
        }

        /// Every derived relationship from the facts.
        mutating func derive() {
            // (holder id, derived relationship) → the objects whose facts hold it.
            var members: [UInt64: [String: [UInt64]]] = [:]
            for id in states.keys.sorted() {
                guard let state = states[id], let entity = schema.entities[state.entity] else { continue }
                for link in entity.links where link.role == .fact {
                    guard let inverse = link.inverse else { continue }
                    for target in state.links[link.name]?.ids ?? [] where isLive(target, link) {
                        members[target, default: [:]][inverse, default: []].append(id)
                    }
                }
            }
            for id in states.keys {
                guard let state = states[id], let entity = schema.entities[state.entity] else { continue }
                for link in entity.links where link.role != .fact {
                    var confirmed = members[id]?[link.name] ?? []
                    let old = state.links[link.name] ?? .init([])
                    if let outside {
                        // An object left out listed here holds this one: it is unchanged on every side.
                        confirmed += old.ids.filter { id in states[id] == nil && outside(id).map(link.destinations.contains) == true }
                    }
                    var new = old
                    if link.role == .derivedToOne {
                        new.ids = confirmed.isEmpty ? [] : [confirmed.min()!]
                    } else {
                        let set = Set(confirmed)
                        new.ids = old.ids.filter { set.contains($0) }
                        let listed = Set(new.ids)
                        new.ids += confirmed.filter { !listed.contains($0) }.sorted()
                        new.absent = old.absent && new.ids.isEmpty
                    }
                    if new != old { states[id]?.links[link.name] = new }
                }
            }
        }

        /// Minimum and maximum counts: recorded, the state kept.
        mutating func checkCounts() {
            for id in states.keys.sorted() {
                guard let state = states[id], let entity = schema.entities[state.entity] else { continue }
                for link in entity.links where link.minimumCount > 0 || link.maximumCount > 0 {
                    let ids = state.links[link.name]?.ids ?? []
                    guard ids.count < link.minimumCount || (link.maximumCount > 0 && ids.count > link.maximumCount) else { continue }
                    conflicts.append(
                        MergeConflict(
                            kind: .count, id: PersistentIdentifier(entityName: state.entity, id: id),
                            property: link.name, ours: related(ids, link), theirs: related(ids, link)))
                }
            }
        }
    }
}

extension MergeReconcile {
    /// A unique group's values for one object, or `nil` when a member is nil
    /// (which clashes with nothing): the key the reconcile, and the merge's
    /// scope, compare objects by.
    ///
    /// - Throws: ``MergeError/unreadableValue(entity:attribute:id:reason:)`` for
    ///   a member whose externally stored value cannot be read.
    static func uniqueKey(_ state: ObjectState, _ group: [String], id: UInt64) throws(MergeError) -> [Value]? {
        var key: [Value] = []
        for member in group {
            if let cell = state.attributes[member] {
                let value: Value
                do { value = try CellMerge.value(cell) } catch {
                    throw ObjectStateMerge.unreadable(state.entity, member, id, error)
                }
                if value == .null { return nil }
                key.append(value)
            } else if let link = state.links[member] {
                guard let target = link.ids.first else { return nil }
                key.append(.uint(target))
            } else {
                return nil
            }
        }
        return key
    }

    /// The objects recorded ``MergeConflict/Kind/deletedAndEdited`` conflicts
    /// hold, as states `deny` may bring back: what a loader reconciling a
    /// package merged outside Folio passes as `revivable` (it has no deleted
    /// versions, only the conflicts recorded beside the objects).
    ///
    /// Each conflict's edited side (the one that is not `nil`) gives the
    /// object: every attribute the schema stores (not transient) that the
    /// record holds, and every relationship's identifiers in order. A
    /// property the record holds but the schema does not declare is ignored
    /// (the document's schema changed since); an attribute the record lacks
    /// is left out, so it takes its initial value when built. An empty
    /// optional to-many comes back as an empty collection (a record does not
    /// tell it from none). Conflicts of other kinds give nothing: an object
    /// a rule removed is never revived. A record whose entity the schema does
    /// not declare gives nothing; the first record of an identifier wins.
    ///
    /// ```swift
    /// let revivable = MergeReconcile.revivableStates(from: recorded, schema: schema)
    /// let conflicts = try MergeReconcile.reconcile(&states, schema: schema, revivable: revivable)
    /// ```
    ///
    /// - Complexity: O(conflicts × properties).
    static func revivableStates(from conflicts: [MergeConflict], schema: Schema) -> [UInt64: ObjectState] {
        revivableStates(from: conflicts, schema: MergeSchema(schema))
    }

    static func revivableStates(from conflicts: [MergeConflict], schema: MergeSchema) -> [UInt64: ObjectState] {
        var states: [UInt64: ObjectState] = [:]
        for conflict in conflicts where conflict.kind == .deletedAndEdited && states[conflict.id.id] == nil {
            guard let entity = schema.entities[conflict.id.entityName],
                case .object(let properties)? = conflict.ours ?? conflict.theirs
            else { continue }
            var state = ObjectState(entity: entity.name, attributes: [:], links: [:])
            for attribute in entity.attributes where !attribute.isTransient {
                if case .value(let value)? = properties[attribute.name] { state.attributes[attribute.name] = .value(value) }
            }
            for link in entity.links {
                if case .related(let ids)? = properties[link.name] { state.links[link.name] = .init(ids.map(\.id)) } else { state.links[link.name] = .init([]) }
            }
            states[conflict.id.id] = state
        }
        return states
    }
}
