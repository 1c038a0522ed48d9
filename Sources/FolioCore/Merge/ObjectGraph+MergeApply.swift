/// Builds a merged document from a copy of ours: only the objects of a
/// ``MergeScope`` are written, every other object is ours' row as it is.
extension ObjectGraph {
    /// Makes this graph — a copy of ours — hold the merge's result: each
    /// object of `scope` as `states` has it (removed when it has no state),
    /// every other object unchanged.
    ///
    /// The result equals what ``build(from:transientFrom:)`` makes of every
    /// object's state, rows aside: ours' rows keep their places (a removed
    /// object's row stays, deleted), new objects are appended by ascending
    /// identifier — ``compactInIdentifierOrder()`` then gives the rows
    /// `build` gives. Relationship lists are those of the states, in their
    /// order. Transient attributes of an object ours did not hold take
    /// `theirs`' value, else their initial value (a context passes `nil`:
    /// transient values are each context's own).
    ///
    /// - Complexity: O(scope × properties + the lists they hold), plus one
    ///   copy of each column it writes to (copy-on-write).
    func apply(_ states: [UInt64: ObjectState], scope: Set<UInt64>, theirs: ObjectGraph?) {
        let ids = scope.sorted()
        let merge = MergeSchema(schema)
        // Removed first, cutting their links, so no list below meets them.
        let removed = ids.compactMap { id -> ObjectRef? in
            guard states[id] == nil, let ref = index[id], isLive(ref) else { return nil }
            return ref
        }
        _ = removeObjects(removed)
        var refs: [(ObjectRef, ObjectState, MergeSchema.Entity)] = []
        refs.reserveCapacity(ids.count)
        for id in ids {
            guard let state = states[id], let entity = layout.entityIndex[state.entity],
                let mergeEntity = merge.entities[state.entity]
            else { continue }
            refs.append((place(state, id: id, entity: entity, theirs: theirs), state, mergeEntity))
        }
        // Facts next (each link's inverse follows), then the derived lists' order.
        for (ref, state, entity) in refs {
            for link in entity.links where link.role == .fact {
                guard let slot = layout.entities[Int(ref.entity)].linkIndex[link.name] else { continue }
                let rows = liveRows(state.links[link.name]?.ids ?? [], slot: slot, of: ref)
                if tables[Int(ref.entity)].links[slot].targets(of: Int(ref.row)) != rows { replaceLinks(ref, slot, with: rows) }
            }
        }
        for (ref, state, entity) in refs {
            for link in entity.links where link.isToMany {
                guard let slot = layout.entities[Int(ref.entity)].linkIndex[link.name], let cell = state.links[link.name]
                else { continue }
                if link.role != .fact {
                    let rows = liveRows(cell.ids, slot: slot, of: ref)
                    if rows != tables[Int(ref.entity)].links[slot].many[Int(ref.row)] { assignList(rows, to: ref, slot) }
                }
                setAbsent(cell.absent && cell.ids.isEmpty, ref, slot)
            }
        }
    }

    /// Puts one merged object's attribute values in place: in its row if
    /// ours holds it (a deleted row is revived), else in a new row.
    private func place(_ state: ObjectState, id: UInt64, entity: Int, theirs: ObjectGraph?) -> ObjectRef {
        let entityLayout = layout.entities[entity]
        if let ref = index[id], Int(ref.entity) == entity, isLive(ref) {
            for (index, attribute) in entityLayout.attributes.enumerated() where !attribute.isTransient {
                if let cell = state.attributes[attribute.name], stored(ref, index) != cell { setStored(cell, ref, index) }
            }
            return ref
        }
        let cells = entityLayout.attributes.enumerated().map { index, attribute -> StoredValue in
            if !attribute.isTransient, let cell = state.attributes[attribute.name] { return cell }
            if let theirs, let ref = theirs.index[id], theirs.isLive(ref), Int(ref.entity) == theirs.layout.entityIndex[state.entity],
                let theirsIndex = theirs.layout.entities[Int(ref.entity)].attributeIndex[attribute.name]
            {
                return .value(theirs.value(ref, theirsIndex))
            }
            return .value(attribute.initialValue)
        }
        guard let ref = index[id], Int(ref.entity) == entity else { return insertObject(entity: entity, stored: cells, id: id) }
        revive(ref)
        for (index, cell) in cells.enumerated() { setStored(cell, ref, index) }
        return ref
    }

    /// The stored targets of the live objects among `ids` of a relationship's
    /// destination (or, into a hierarchy, of its subentities), in order.
    private func liveRows(_ ids: [UInt64], slot: Int, of ref: ObjectRef) -> [Int32] {
        let link = layout.entities[Int(ref.entity)].links[slot]
        return ids.compactMap { id in
            guard let target = index[id], link.accepts(entity: Int(target.entity)), isLive(target) else { return nil }
            return link.target(target)
        }
    }
}
