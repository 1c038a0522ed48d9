/// Bringing in what other contexts saved, and describing what this one saves.
extension ModelContext {
    /// Merges change sets the container published since this context last looked.
    /// Cheap when there are none.
    func mergeSavedChanges() {
        let pending = store.changes(after: baseGeneration, for: ObjectIdentifier(self))
        guard !pending.changes.isEmpty else { return }
        merge(pending.changes, baseline: pending.baseline)
        baseline = pending.baseline
        baseGeneration = pending.generation
        // The saved state moved: edits may now equal it, and a delete another
        // context saved too is no longer this context's to save.
        unsettled.formUnion(updated.keys)
        for ref in deleted where !existedAtSave(ref) { deleted.remove(ref); denials[ref] = nil }
        graph._checkInvariants()
        publishObservedChanges()
    }

    /// Applies other contexts' saved changes to this scratchpad. This context's
    /// own unsaved edits win: an attribute or relationship it has edited keeps
    /// its value, and a link it edited is not changed from its other end
    /// either (``rowsKeepingEditsAtTheOtherEnd(_:old:of:slot:)``); objects it
    /// deleted stay deleted.
    func merge(_ changes: [ChangeSet], baseline newBaseline: ObjectGraph) {
        settleTracking()
        // A save with nothing to merge (the store asks every time) leaves undo exact.
        guard changes.contains(where: { $0.generation > baseGeneration }) else { return }
        // Undo actions registered before this merge restore link lists rebased on it.
        mergeEpoch += 1
        // Conflict records: the last saved list, less what this context resolved since it
        // last saw one, plus what it put back (undo), record by record, as its edits win.
        if let saved = changes.last(where: { $0.generation > baseGeneration && $0.conflicts != nil })?.conflicts {
            mergeConflictRecords(saved)
        }
        for changeSet in changes where changeSet.generation > baseGeneration {
            mergedIdentifiers.formUnion(changeSet.deletions)
            for state in changeSet.upserts { mergedIdentifiers.insert(state.id) }
            let doomed = changeSet.deletions.compactMap { id -> ObjectRef? in
                guard let ref = graph.index[id], graph.isLive(ref) else { return nil }
                return ref
            }
            if !doomed.isEmpty {
                if changeSet.isDeleteAll {
                    // deleteAllData() is an action of its own: undoable here, restoring unsaved inserts.
                    baseline = newBaseline
                    undoManager?.closeAutomaticGroup()
                    _ = performRemoval(doomed, name: "Delete All Data")
                    undoManager?.closeAutomaticGroup()
                    // Already gone from the store: nothing left to save.
                    for ref in doomed { deleted.remove(ref); denials[ref] = nil }
                } else {
                    undoManager?.disableUndoRegistration()
                    let record = graph.removeObjects(doomed)
                    noteObservedChanges(record.removed)
                    for ref in record.removed { inserted.remove(ref); updated[ref] = nil; deleted.remove(ref) }
                    noteRequiredCuts(record.cuts)
                    undoManager?.enableUndoRegistration()
                }
            }
            var refs: [(ObjectRef, ChangeSet.ObjectState)] = []
            // Registered models whose values the merge changed, to tell their observers.
            var changed: Set<ObjectRef> = []
            for state in changeSet.upserts {
                let attributes = graph.layout.entities[state.entity].attributes
                if let ref = graph.index[state.id] {
                    if !graph.isLive(ref) {
                        // Deleted by this context's own unsaved edit: that edit wins.
                        guard !deleted.contains(ref) else { continue }
                        // Gone here by an earlier merge (or a saved delete) and brought back by
                        // another context (its undo): it lives again, with the state saved.
                        graph.revive(ref)
                        changed.insert(ref)
                    }
                    let edited = updated[ref] ?? []
                    // Transient attributes are each context's own: never merged.
                    for (attribute, value) in state.values.enumerated()
                    where !edited.contains(attribute) && !attributes[attribute].isTransient && graph.stored(ref, attribute) != value {
                        graph.setStored(value, ref, attribute)
                        changed.insert(ref)
                    }
                    refs.append((ref, state))
                } else {
                    var values = state.values
                    for (index, attribute) in attributes.enumerated() where attribute.isTransient { values[index] = .value(attribute.initialValue) }
                    refs.append((graph.insertObject(entity: state.entity, stored: values, id: state.id), state))
                }
            }
            for (ref, state) in refs {
                let attributeCount = graph.layout.entities[state.entity].attributes.count
                let edited = updated[ref] ?? []
                for (slot, ids) in state.links.enumerated() where !edited.contains(attributeCount + slot) {
                    let old = graph.targets(ref, slot)
                    let rows = rowsKeepingEditsAtTheOtherEnd((ids ?? []).compactMap { id -> Int32? in
                        guard let target = graph.index[id], graph.isLive(target) else { return nil }
                        return target.row
                    }, old: old, of: ref, slot: slot)
                    let wasAbsent = graph.tables[state.entity].links[slot].isAbsent(Int(ref.row))
                    guard old.map(\.row) != rows || wasAbsent != (ids == nil) else { continue }
                    graph.replaceLinks(ref, slot, with: rows, absent: ids == nil)
                    // The inverse lists of the objects added or removed changed too.
                    changed.insert(ref)
                    changed.formUnion(old)
                    changed.formUnion(graph.targets(ref, slot))
                }
            }
            if let modelHooks { for ref in changed { modelHooks.objectChanged(self, ref, nil) } }
            noteObservedChanges(refs.lazy.map(\.0))
            noteObservedChanges(changed)
        }
    }

    /// Takes `saved`, another context's saved list of conflict records, keeping
    /// this context's unsaved resolutions (and records it put back) on top.
    /// O(records).
    private func mergeConflictRecords(_ saved: [MergeConflict]) {
        guard !conflictRecordsEdited.isEmpty else {
            graph.conflicts = saved
            return
        }
        let seen = Set(baseline.conflicts), here = Set(graph.conflicts)
        let resolvedHere = seen.subtracting(here)
        var merged = saved.filter { !resolvedHere.contains($0) }
        let present = Set(merged)
        merged += graph.conflicts.filter { !seen.contains($0) && !present.contains($0) }
        graph.conflicts = merged.sorted(by: MergeConflict.reportOrder)
    }

    /// The rows a merged relationship of `ref` may hold without overwriting an
    /// unsaved edit of this context at the other end of a link: a target whose
    /// inverse to-one this context set keeps its link as this context has it.
    /// Another context's save names both ends of each link it changed; a to-one
    /// is one cell, and this context's edit of it wins from either end (an
    /// object it moved is not moved back through the list of the object it
    /// moved to, or from). Lists this context edited still take the other
    /// context's elements (they merge element by element, as before).
    /// O(the old and new lists).
    private func rowsKeepingEditsAtTheOtherEnd(_ rows: [Int32], old: [ObjectRef], of ref: ObjectRef, slot: Int) -> [Int32] {
        guard !updated.isEmpty else { return rows }
        let link = graph.layout.entities[Int(ref.entity)].links[slot]
        let destination = graph.layout.entities[link.destination]
        guard !destination.links[link.inverse].isToMany else { return rows }
        let inverseIndex = destination.attributes.count + link.inverse
        func editedHere(_ row: Int32) -> Bool {
            updated[ObjectRef(entity: link.destination, row: Int(row))]?.contains(inverseIndex) == true
        }
        let oldRows = old.map(\.row)
        guard link.isToMany else {
            // One to one: if either the old or the new target's side was set here, the link stays.
            return oldRows.contains(where: editedHere) || rows.contains(where: editedHere) ? oldRows : rows
        }
        let oldSet = Set(oldRows)
        var merged = rows.filter { !editedHere($0) || oldSet.contains($0) }
        let mergedSet = Set(merged)
        for (index, row) in oldRows.enumerated() where editedHere(row) && !mergedSet.contains(row) {
            merged.insert(row, at: min(index, merged.count))
        }
        return merged
    }

    /// The identifiers of every object this context's save changes — inserted,
    /// updated (both ends of a link edit) or deleted, and those other contexts'
    /// change sets named, which a merge may have left in a state no save
    /// published — for the store to rewrite the parts of the package holding
    /// them. O(changed and merged objects). `nil` once an undo was rebased over
    /// merges since the last save: a rebase reconciles both sides of links in
    /// ways tracking does not always follow, so the save then compares every
    /// part with the disk rather than trust the list.
    func savedObjectNumbers() -> Set<UInt64>? {
        guard !rebasedSinceSave else { return nil }
        settleTracking()
        var ids = Set<UInt64>(minimumCapacity: inserted.count + updated.count + deleted.count)
        for ref in inserted { ids.insert(graph.tables[Int(ref.entity)].ids[Int(ref.row)]) }
        for ref in updated.keys { ids.insert(graph.tables[Int(ref.entity)].ids[Int(ref.row)]) }
        for ref in deleted { ids.insert(graph.tables[Int(ref.entity)].ids[Int(ref.row)]) }
        return ids.union(mergedIdentifiers).union(conflictRecordsEdited)
    }

    /// What this context's save changes, for the others.
    func makeChangeSet(generation: Int) -> ChangeSet {
        settleTracking()
        var changeSet = ChangeSet(generation: generation)
        for ref in inserted.union(updated.keys) where graph.isLive(ref) {
            let entity = Int(ref.entity)
            let layout = graph.layout.entities[entity]
            changeSet.upserts.append(ChangeSet.ObjectState(
                id: graph.tables[entity].ids[Int(ref.row)], entity: entity,
                values: layout.attributes.indices.map { graph.stored(ref, $0) },
                links: (0..<layout.declaredLinkCount).map { slot in
                    graph.collection(ref, slot)?.map { graph.tables[Int($0.entity)].ids[Int($0.row)] }
                }))
        }
        changeSet.deletions = deleted.map { graph.tables[Int($0.entity)].ids[Int($0.row)] }
        if !conflictRecordsEdited.isEmpty { changeSet.conflicts = graph.conflicts }
        return changeSet
    }
}
