/// Bringing in what other contexts saved, and describing what this one saves.
extension ModelContext {
    /// Merges change sets the container published since this context last looked.
    /// Cheap when there are none.
    ///
    /// - Returns: how many object states the merge built from the three
    ///   versions (``merge(_:baseline:)``): what its cost follows.
    @discardableResult
    func mergeSavedChanges() -> Int {
        let pending = sharedDocument.changes(after: baseGeneration, for: ObjectIdentifier(self))
        guard !pending.changes.isEmpty else { return 0 }
        let statesBuilt = merge(pending.changes, baseline: pending.baseline)
        baseline = pending.baseline
        baseGeneration = pending.generation
        // The saved state moved: edits may now equal it, and a delete another
        // context saved too is no longer this context's to save.
        tracking.unsettled.formUnion(tracking.updated.keys)
        for ref in tracking.deleted where !existedAtSave(ref) { tracking.deleted.remove(ref); tracking.denials[ref] = nil }
        graph._checkInvariants()
        publishObservedChanges()
        return statesBuilt
    }

    /// Applies other contexts' saved changes to this scratchpad: a three-way
    /// merge, through the document merge's engine (``MergeScope``), of this
    /// context's graph (ours) and `newBaseline`, the state now saved (theirs),
    /// against ``baseline``, the saved state this context last saw (base).
    ///
    /// The rules are the document merge's (<doc:Merging>), with this
    /// context's unsaved edits winning where the two disagree, as SwiftData's
    /// in-memory changes do, and nothing recorded
    /// (``MergeReconcile/Rules/context(edited:)``): an attribute or to-one
    /// both changed keeps this context's value, from either end of the link;
    /// to-many lists merge element by element; an object this context
    /// deleted stays deleted; an object the other context deleted goes, with
    /// its delete rules applied to this context's links to it (`deny` brings
    /// it back). Unique keys and counts are left to this context's save, as
    /// for its own edits. `deleteAllData()` saved elsewhere is an action of
    /// its own here, undoable.
    ///
    /// Only the objects the change sets name and those this context's
    /// tracking names are merged, and what the merge's reconcile reaches from
    /// them: the cost follows the changes, not the document. The tracking of
    /// those objects is then taken again against the new saved state.
    ///
    /// - Returns: how many object states were built from the three versions.
    @discardableResult
    func merge(_ changes: [ChangeSet], baseline newBaseline: ObjectGraph) -> Int {
        settleTracking()
        let fresh = changes.filter { $0.generation > baseGeneration }
        // A save with nothing to merge (the shared document asks every time) leaves undo exact.
        guard !fresh.isEmpty else { return 0 }
        // Undo actions registered before this merge restore link lists rebased on it.
        mergeEpoch += 1
        // Conflict records: the last saved list, less what this context resolved since it
        // last saw one, plus what it put back (undo), record by record, as its edits win.
        if let saved = fresh.last(where: { $0.conflicts != nil })?.conflicts {
            mergeConflictRecords(saved)
        }
        let base = baseline
        var named = Set<UInt64>()
        for changeSet in fresh {
            named.formUnion(changeSet.deletions)
            named.formUnion(changeSet.upserts)
            guard changeSet.isDeleteAll else { continue }
            // deleteAllData() is an action of its own: undoable here, restoring unsaved inserts.
            let doomed = changeSet.deletions.compactMap { id -> ObjectRef? in
                guard let ref = graph.index[id], graph.isLive(ref) else { return nil }
                return ref
            }
            guard !doomed.isEmpty else { continue }
            baseline = newBaseline
            undoManager?.closeAutomaticGroup()
            _ = performRemoval(doomed, name: "Delete All Data")
            undoManager?.closeAutomaticGroup()
            // Already gone from the shared document: nothing left to save.
            for ref in doomed { tracking.deleted.remove(ref); tracking.denials[ref] = nil }
        }
        tracking.mergedIdentifiers.formUnion(named)
        let edited = tracking.trackedObjectNumbers(in: graph)
        var scope = MergeScope(
            base: base, ours: graph, theirs: newBaseline, schema: MergeSchema(graph.schema),
            changed: named.union(edited), rules: .context(edited: edited))
        let states: [UInt64: ObjectState]
        do {
            states = try scope.merge().states
        } catch {
            // Only a blob both sides replaced, which had to be read and could not be:
            // this context's objects stay as they are, the others take the saved state.
            FolioLog.report("merging another context's save: \(error.description); the saved state is taken where this context made no edit")
            states = scope.oursStates.filter { edited.contains($0.key) }.merging(
                newBaseline.objectStates(of: scope.ids.subtracting(edited))
            ) { ours, _ in ours }
        }
        let before = scope.oursStates
        undoManager?.disableUndoRegistration()
        // Removed first, so the record keeps what a required to-one held.
        var removed: [ObjectRef] = []
        for id in scope.ids.sorted() where states[id] == nil {
            if let ref = graph.index[id] {
                if graph.isLive(ref) { removed.append(ref) }
            } else if let saved = newBaseline.index[id], newBaseline.isLive(saved) {
                // Saved elsewhere and removed by this merge (a cascade from an object deleted
                // here): held as a deleted row, so this context's save publishes the delete.
                let attributes = graph.layout.entities[Int(saved.entity)].attributes
                let cells = attributes.indices.map { index in
                    attributes[index].isTransient ? .value(attributes[index].initialValue) : newBaseline.stored(saved, index)
                }
                removed.append(graph.insertObject(entity: Int(saved.entity), stored: cells, id: id))
            }
        }
        if !removed.isEmpty {
            let record = graph.removeObjects(removed)
            noteObservedChanges(record.removed)
            noteRequiredCuts(record.cuts)
        }
        graph.apply(states, scope: scope.ids, theirs: nil)
        undoManager?.enableUndoRegistration()
        baseline = newBaseline
        var changed: [ObjectRef] = removed
        for id in scope.ids {
            guard let ref = graph.index[id] else { continue }
            retrack(ref)
            if let state = states[id], before[id] != state { changed.append(ref) }
        }
        if let modelHooks { for ref in changed { modelHooks.objectChanged(self, ref, nil) } }
        noteObservedChanges(changed)
        _checkTrackingInvariants()
        return scope.statesBuilt
    }

    /// Takes `saved`, another context's saved list of conflict records, keeping
    /// this context's unsaved resolutions (and records it put back) on top.
    /// O(records).
    private func mergeConflictRecords(_ saved: [MergeConflict]) {
        guard !tracking.conflictRecordsEdited.isEmpty else {
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

    /// Hands this context's save to the shared document (``SaveRequest``), merged and
    /// validated; when the shared document answers that another context saved
    /// meanwhile, merges that, validates again (two contexts inserting one
    /// unique value at once must not write a document the loader refuses)
    /// and asks again.
    ///
    /// - Returns: the identifiers the save's history transaction records, for
    ///   ``didSave``, made from the tracking: the transaction itself is built
    ///   when the history needs it (``PendingTransaction``).
    /// - Throws: ``ModelError/saveNotAllowed`` for a read-only configuration,
    ///   ``ModelError/validation(_:)`` when what was merged makes the save
    ///   invalid, and the shared document's write failure (nothing published then).
    func handOffSave(inBackground: Bool) throws(ModelError) -> SavedIdentifiers {
        // A read-only configuration refuses saves, in memory too (SwiftData's `allowsSave`).
        guard core.configuration.allowsSave else { throw .saveNotAllowed }
        while true {
            switch try sharedDocument.save(makeSaveRequest(), inBackground: inBackground) {
            case .committed(let baseline, let generation):
                // Before the tracking is cleared, from what the request was made of.
                let saved = tracking.savedIdentifiers(graph: graph, baseline: self.baseline)
                #if DEBUG
                assert(
                    saved == SavedIdentifiers(tracking.storedTransaction(graph: graph, baseline: self.baseline, author: author, at: Date())),
                    "didSave reports what the history transaction records")
                #endif
                didSave(baseline: baseline, generation: generation)
                return saved
            case .stale:
                mergeSavedChanges()
                let issues = validationIssues()
                if !issues.isEmpty { throw .validation(issues) }
            }
        }
    }

    /// What the shared document needs to save this context, merged and settled.
    private func makeSaveRequest() -> SaveRequest {
        let me = ObjectIdentifier(self)
        let others = sharedDocument.hasOtherContexts(than: me)
        let snapshot = graph.copy()
        let transaction = makePendingTransaction(snapshot: snapshot)  // settles every edit first
        return SaveRequest(
            context: me, basedOn: baseGeneration, graph: snapshot,
            changed: others ? .unknown : tracking.changedObjects(in: snapshot),
            transaction: transaction, changeSet: others ? tracking.changeSet(in: graph) : nil)
    }
}
