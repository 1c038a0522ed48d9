/// The per-object three-way merge: object states in, merged states and
/// conflicts out, with no ``ObjectGraph`` involved — so a Git merge driver
/// can merge the objects of one part file with it, and the whole-document
/// merge (``ObjectGraph/merge(base:ours:theirs:)``) is this over every object
/// followed by ``MergeReconcile``.
///
/// Per object (by identifier):
/// - unchanged on both sides: the base;
/// - only on one side and not in the base: inserted there, kept;
/// - deleted on one side, unchanged on the other: deleted;
/// - deleted on one side, edited on the other: deleted, and a
///   ``MergeConflict/Kind/deletedAndEdited`` conflict holds the edited side's
///   whole object. An edit is a change of an attribute or of a fact
///   relationship (``MergeSchema/LinkRole``); a derived list changing because
///   other objects joined or left it is no edit of this object;
/// - on both sides: cell by cell (``CellMerge``); a fact to-one is a cell
///   (ours kept, with a conflict, when both sides set different objects);
///   to-many lists merge by ``ListMerge``; derived cells never conflict,
///   since ``MergeReconcile`` derives them again from the facts.
///
/// Identical inputs give identical outputs, and swapping ours and theirs
/// changes only the values conflicting cells keep and the conflicts' sides.
enum ObjectStateMerge {
    /// What the per-object merge gives.
    struct Outcome {
        /// The merged objects, by identifier.
        var states: [UInt64: ObjectState]
        /// The conflicts, in ``MergeConflict/reportOrder(_:_:)``.
        var conflicts: [MergeConflict]
        /// The objects the merge deleted, as the side that last had them
        /// (the edited side's version for a deleted-and-edited one): what a
        /// `deny` rule may bring back (see ``MergeReconcile``).
        var deleted: [UInt64: ObjectState]
    }

    /// Merges every object the three versions hold.
    ///
    /// - Throws: ``MergeError/unreadableValue(entity:attribute:id:reason:)``
    ///   when a blob that must be read (two different files in one cell, or a
    ///   conflict's record) cannot be.
    /// - Complexity: O(objects × properties + list lengths × log).
    static func merge(
        base: [UInt64: ObjectState], ours: [UInt64: ObjectState], theirs: [UInt64: ObjectState],
        schema: Schema
    ) throws(MergeError) -> Outcome {
        try merge(base: base, ours: ours, theirs: theirs, schema: MergeSchema(schema))
    }

    /// Merges every object the three versions hold — or, given states of
    /// some objects only, those objects: a context merging another's save
    /// passes the objects the save named and what their links reach
    /// (``ObjectGraph/reachedIdentifiers(from:)``), so the cost follows the
    /// change, not the document.
    ///
    /// - Parameter recordsConflicts: `false` for a merge whose conflicts no
    ///   one keeps (a context's, where its own edits win): the merged states
    ///   are the same, ``Outcome/conflicts`` is empty, and no blob is read
    ///   only to record a conflict.
    static func merge(
        base: [UInt64: ObjectState], ours: [UInt64: ObjectState], theirs: [UInt64: ObjectState],
        schema: MergeSchema, recordsConflicts: Bool = true
    ) throws(MergeError) -> Outcome {
        var outcome = Outcome(states: [:], conflicts: [], deleted: [:])
        var ids = Set(base.keys)
        ids.formUnion(ours.keys)
        ids.formUnion(theirs.keys)
        for id in ids.sorted() {
            let (b, o, t) = (base[id], ours[id], theirs[id])
            switch (o, t) {
            case (nil, nil):
                if let b { outcome.deleted[id] = b }
            case (let o?, nil), (nil, let o?):
                let fromOurs = ours[id] != nil
                guard let b else {
                    outcome.states[id] = o
                    continue
                }
                outcome.deleted[id] = o
                if recordsConflicts, try isEdited(o, from: b, schema: schema, id: id) {
                    let edited = try content(of: o, schema: schema, id: id)
                    outcome.conflicts.append(
                        MergeConflict(
                            kind: .deletedAndEdited, id: PersistentIdentifier(entityName: o.entity, id: id),
                            base: try content(of: b, schema: schema, id: id),
                            ours: fromOurs ? edited : nil, theirs: fromOurs ? nil : edited))
                }
            case (let o?, let t?):
                let (state, conflicts) = try mergeObject(id: id, base: b, ours: o, theirs: t, schema: schema)
                outcome.states[id] = state
                if recordsConflicts { outcome.conflicts += conflicts }
            }
        }
        outcome.conflicts.sort(by: MergeConflict.reportOrder)
        return outcome
    }

    /// Whether `state` differs from `base` in an attribute or a fact relationship.
    static func isEdited(_ state: ObjectState, from base: ObjectState, schema: MergeSchema, id: UInt64) throws(MergeError)
        -> Bool
    {
        guard state.entity == base.entity, let entity = schema.entities[state.entity] else { return true }
        for attribute in entity.attributes where !attribute.isTransient {
            guard let a = state.attributes[attribute.name], let b = base.attributes[attribute.name] else { continue }
            let same: Bool
            do { same = try CellMerge.same(a, b) } catch { throw unreadable(state.entity, attribute.name, id, error) }
            if !same { return true }
        }
        for link in entity.links where link.role == .fact && state.links[link.name] != base.links[link.name] {
            return true
        }
        return false
    }

    /// One object present on both sides, cell by cell.
    static func mergeObject(id: UInt64, base: ObjectState?, ours: ObjectState, theirs: ObjectState, schema: MergeSchema)
        throws(MergeError) -> (ObjectState, [MergeConflict])
    {
        let identifier = PersistentIdentifier(entityName: ours.entity, id: id)
        guard ours.entity == theirs.entity, let entity = schema.entities[ours.entity] else {
            // Two objects given one identifier (impossible with lanes): ours stays, theirs is recorded.
            return (
                ours,
                [
                    MergeConflict(
                        kind: .value, id: identifier,
                        base: try base.map { s throws(MergeError) in
                            try content(of: s, schema: schema, id: id)
                        },
                        ours: try content(of: ours, schema: schema, id: id), theirs: try content(of: theirs, schema: schema, id: id))
                ]
            )
        }
        let base = base?.entity == ours.entity ? base : nil
        var merged = ours
        var conflicts: [MergeConflict] = []
        for attribute in entity.attributes where !attribute.isTransient {
            guard let o = ours.attributes[attribute.name], let t = theirs.attributes[attribute.name] else { continue }
            let outcome: CellMerge.Outcome
            do {
                outcome = try CellMerge.merge(attribute.rule, base: base?.attributes[attribute.name], ours: o, theirs: t)
            } catch {
                throw unreadable(ours.entity, attribute.name, id, error)
            }
            merged.attributes[attribute.name] = outcome.cell
            for conflict in outcome.conflicts {
                conflicts.append(
                    MergeConflict(
                        kind: .value, id: identifier, property: attribute.name, key: conflict.key,
                        base: conflict.base.map { .value($0) }, ours: conflict.ours.map { .value($0) },
                        theirs: conflict.theirs.map { .value($0) }))
            }
        }
        for link in entity.links {
            let o = ours.links[link.name] ?? .init([])
            let t = theirs.links[link.name] ?? .init([])
            let b = base?.links[link.name]
            if link.isToMany {
                let baseList = b ?? .init([])
                let ids = ListMerge.merge(base: baseList.ids, ours: o.ids, theirs: t.ids)
                let absent = (o.absent == t.absent || baseList.absent == t.absent) ? o.absent : t.absent
                merged.links[link.name] = .init(ids, absent: absent && ids.isEmpty)
            } else if o.ids == t.ids || b?.ids == t.ids {
                merged.links[link.name] = o
            } else if b?.ids == o.ids {
                merged.links[link.name] = t
            } else {
                merged.links[link.name] = o
                if link.role == .fact {
                    func related(_ ids: [UInt64]) -> MergeConflict.Content {
                        .related(ids.map { PersistentIdentifier(entityName: link.destination, id: $0) })
                    }
                    conflicts.append(
                        MergeConflict(
                            kind: .value, id: identifier, property: link.name,
                            base: b.map { related($0.ids) }, ours: related(o.ids), theirs: related(t.ids)))
                }
            }
        }
        return (merged, conflicts)
    }

    /// An object as a conflict records it: every stored attribute's value and
    /// every relationship's objects, by name.
    static func content(of state: ObjectState, schema: MergeSchema, id: UInt64) throws(MergeError) -> MergeConflict.Content {
        var properties: [String: MergeConflict.Content] = [:]
        for (name, cell) in state.attributes {
            do { properties[name] = .value(try CellMerge.value(cell)) } catch { throw unreadable(state.entity, name, id, error) }
        }
        let entity = schema.entities[state.entity]
        for (name, link) in state.links {
            let destination = entity?.link(named: name)?.destination ?? ""
            properties[name] = .related(link.ids.map { PersistentIdentifier(entityName: destination, id: $0) })
        }
        return .object(properties)
    }

    static func unreadable(_ entity: String, _ attribute: String, _ id: UInt64, _ error: any Error) -> MergeError {
        .unreadableValue(entity: entity, attribute: attribute, id: id, reason: "\(error)")
    }
}
