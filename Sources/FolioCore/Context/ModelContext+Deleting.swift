/// Deleting with delete rules, the preview of a delete, and the removal and
/// restore steps that undo and redo alternate between.
extension ModelContext {
    /// Deletes an object and everything its cascade rules reach.
    ///
    /// Until the save, ``isDeleted(_:)`` is `true` and the object is in
    /// ``deletedIdentifiers``; links from survivors are cut at once (nullify).
    /// A `deny` rule that still holds at save makes `save()` throw.
    ///
    /// - Undo: one step, "Delete ENTITY" (or "Delete N objects"), restoring every
    ///   object the cascade removed, with the same identifiers, values and
    ///   relationship memberships in the same order, and the links cut on survivors.
    public func delete(_ id: PersistentIdentifier) throws(ModelError) {
        try delete([id])
    }

    /// Deletes several objects as one undoable step.
    ///
    /// - Throws: ``ModelError/graph(_:)`` for an unknown object;
    ///   ``ModelError/cancelled`` when ``cancellationCheck`` stopped it while it
    ///   worked out the cascade, before anything changed.
    public func delete(_ ids: [PersistentIdentifier]) throws(ModelError) {
        var refs: [ObjectRef] = []
        for id in ids {
            do { refs.append(try graph.ref(for: id)) } catch { throw .graph(error) }
        }
        try deleteRefs(refs, poll: CancellationPoll(cancellationCheck))
    }

    /// Deletes every object of an entity matching a predicate (all when `nil`) —
    /// SwiftData's `delete(model:where:)`. Merges what other contexts saved first.
    ///
    /// - Returns: how many objects matched (cascades not counted).
    /// - Throws: ``ModelError/cancelled`` when ``cancellationCheck`` stopped it
    ///   while it selected the objects or worked out the cascade, before
    ///   anything changed; a fetch's errors otherwise.
    /// - Undo: one step.
    @discardableResult
    public func delete(entity: String, where predicate: ObjectPredicate? = nil) throws(ModelError) -> Int {
        mergeSavedChanges()
        let rows: [ObjectRef]
        do { rows = try graph.fetchRows(DynamicFetchDescriptor(entity: entity, predicate: predicate), isCancelled: cancellationCheck) } catch {
            throw ModelError(error)
        }
        try deleteRefs(rows, poll: CancellationPoll(cancellationCheck))
        return rows.count
    }

    /// Deletes every object of every entity as one undoable step ("Delete Everything").
    /// Unlike `container.deleteAllData()`, nothing is written until `save()`.
    public func deleteEverything() {
        mergeSavedChanges()
        var refs: [ObjectRef] = []
        for (entity, table) in graph.tables.enumerated() {
            for row in 0..<table.rowCount where table.isLive[row] { refs.append(ObjectRef(entity: entity, row: row)) }
        }
        // Cannot throw: never cancelled (a front end previews first, which can be).
        try? deleteRefs(refs, name: "Delete Everything", poll: CancellationPoll(nil))
    }

    /// What deleting these objects would do, without doing it.
    ///
    /// - Throws: ``ModelError/graph(_:)`` for an unknown object;
    ///   ``ModelError/cancelled`` when ``cancellationCheck`` stopped it.
    /// - Complexity: O(objects reached by cascade + their links).
    public func deletionPreview(for ids: [PersistentIdentifier]) throws(ModelError) -> DeletionPreview {
        var refs: [ObjectRef] = []
        for id in ids {
            do { refs.append(try graph.ref(for: id)) } catch { throw .graph(error) }
        }
        var poll = CancellationPoll(cancellationCheck)
        return try preview(refs, poll: &poll)
    }

    /// The preview of deleting every object of an entity matching a predicate.
    ///
    /// - Throws: a fetch's errors; ``ModelError/cancelled`` when
    ///   ``cancellationCheck`` stopped it.
    public func deletionPreview(entity: String, where predicate: ObjectPredicate? = nil) throws(ModelError) -> DeletionPreview {
        mergeSavedChanges()
        let rows: [ObjectRef]
        do { rows = try graph.fetchRows(DynamicFetchDescriptor(entity: entity, predicate: predicate), isCancelled: cancellationCheck) } catch {
            throw ModelError(error)
        }
        var poll = CancellationPoll(cancellationCheck)
        return try preview(rows, poll: &poll)
    }

    /// The preview of deleting `refs`; reads only, so `poll` may stop it at any step.
    private func preview(_ refs: [ObjectRef], poll: inout CancellationPoll) throws(ModelError) -> DeletionPreview {
        let requested = Set(refs)
        let plan = try cascade(refs, poll: &poll)
        let doomed = ObjectRefSet(plan)
        var nullified: [DeletionPreview.Nullification] = []
        var cut: [LinkListKey: Int] = [:]
        for ref in plan {
            if poll.shouldStop() { throw .cancelled }
            for (slot, link) in graph.layout.entities[Int(ref.entity)].links.enumerated() {
                for target in graph.tables[Int(ref.entity)].links[slot].targets(of: Int(ref.row)) {
                    let survivor = link.ref(target)
                    if !doomed.contains(survivor) {
                        cut[LinkListKey(ref: survivor, slot: Int32(link.inverse(in: survivor.entity))), default: 0] += 1
                    }
                }
            }
        }
        for (key, count) in cut {
            let link = graph.layout.entities[Int(key.ref.entity)].links[Int(key.slot)]
            guard let name = link.name else { continue }  // a hidden inverse is not something a user sees
            nullified.append(.init(object: graph.identifier(for: key.ref), relationship: name, count: count))
        }
        nullified.sort { ($0.object, $0.relationship) < ($1.object, $1.relationship) }
        var denials: [ValidationIssue] = []
        for ref in plan {
            if poll.shouldStop() { throw .cancelled }
            for denial in denialsFor(ref, doomed: doomed, links: nil) {
                denials.append(
                    ValidationIssue(
                        kind: .deny, object: graph.identifier(for: ref),
                        relationship: graph.layout.entities[Int(ref.entity)].links[denial.slot].name ?? "",
                        related: denial.targets.map(graph.identifier(for:))))
            }
        }
        if poll.shouldStopNow() { throw .cancelled }
        let ids = plan.map(graph.identifier(for:))
        return DeletionPreview(
            requested: refs.map(graph.identifier(for:)).sorted(),
            deleted: ids.sorted(),
            cascaded: plan.filter { !requested.contains($0) }.map(graph.identifier(for:)).sorted(),
            nullified: nullified, denials: denials)
    }

    /// Deletes `refs` and their cascade as one undo step. `poll` may stop it
    /// while the cascade is worked out, and never after: the removal that
    /// follows runs whole, so a stop leaves nothing half deleted.
    func deleteRefs(_ refs: [ObjectRef], name: String? = nil, poll: CancellationPoll) throws(ModelError) {
        let live = refs.filter(graph.isLive)
        guard !live.isEmpty else { return }
        var poll = poll
        let plan = try cascade(live, poll: &poll)
        if poll.shouldStopNow() { throw .cancelled }
        let stepName =
            name
            ?? (plan.count == 1
                ? "Delete \(graph.layout.entities[Int(plan[0].entity)].name)"
                : "Delete \(plan.count) objects")
        _ = performRemoval(plan, name: stepName)
    }

    /// The requested objects and everything cascade rules reach from them,
    /// breadth first; safe on cycles. Reads only: `poll` may stop it at any object.
    func cascade(_ refs: [ObjectRef], poll: inout CancellationPoll) throws(ModelError) -> [ObjectRef] {
        var seen = ObjectRefSet()
        var plan: [ObjectRef] = []
        for ref in refs where seen.insert(ref) { plan.append(ref) }
        var next = 0
        while next < plan.count {
            if poll.shouldStop() { throw .cancelled }
            let ref = plan[next]
            next += 1
            for (slot, link) in graph.layout.entities[Int(ref.entity)].links.enumerated() where link.deleteRule == .cascade {
                let column = graph.tables[Int(ref.entity)].links[slot]
                if link.hierarchy == nil {
                    column.forEachTarget(of: Int(ref.row)) { target in
                        let targetRef = ObjectRef(entity: link.destination, row: Int(target))
                        if graph.isLive(targetRef), seen.insert(targetRef) { plan.append(targetRef) }
                    }
                } else {
                    // Into a hierarchy: each target names its own entity.
                    column.forEachTarget(of: Int(ref.row)) { target in
                        let targetRef = link.ref(target)
                        if graph.isLive(targetRef), seen.insert(targetRef) { plan.append(targetRef) }
                    }
                }
            }
        }
        return plan
    }

    /// The live objects outside the delete that a `deny` relationship of `ref` holds.
    /// Reads the graph, or — once removed — the lists the removal captured.
    private func denialsFor(
        _ ref: ObjectRef, doomed: ObjectRefSet,
        links: [LinkListKey: [Int32]]?
    ) -> [(slot: Int, targets: [ObjectRef])] {
        var result: [(slot: Int, targets: [ObjectRef])] = []
        for (slot, link) in graph.layout.entities[Int(ref.entity)].links.enumerated() where link.deleteRule == .deny {
            let rows =
                links?[LinkListKey(ref: ref, slot: Int32(slot))]
                ?? graph.tables[Int(ref.entity)].links[slot].targets(of: Int(ref.row))
            let targets = rows.map(link.ref).filter { !doomed.contains($0) }
            if !targets.isEmpty { result.append((slot, targets)) }
        }
        return result
    }

    /// Removes objects (already cascaded), tracks it, and registers the restore.
    func performRemoval(_ plan: [ObjectRef], name: String) -> DeletionRecord {
        let record = graph.removeObjects(plan)
        noteObservedChanges(record.removed)
        // Edits made before the delete must be tracked again if the delete is undone,
        // or a later save would think there is nothing to write.
        let edits = tracking.noteRemoved(record.removed)
        // Deny bookkeeping only for entities that have a deny rule: a cascade of
        // 100,000 objects without one should not pay for it.
        let denying = Set(
            graph.layout.entities.indices.filter { entity in
                graph.layout.entities[entity].links.contains { $0.deleteRule == .deny }
            }.map(Int32.init))
        if !denying.isEmpty {
            let doomed = ObjectRefSet(record.removed)
            var captured: [LinkListKey: [Int32]] = [:]
            for saved in record.links where denying.contains(saved.ref.entity) && doomed.contains(saved.ref) {
                captured[LinkListKey(ref: saved.ref, slot: saved.slot)] = saved.one >= 0 ? [saved.one] : saved.many
            }
            for ref in record.removed where denying.contains(ref.entity) {
                let refused = denialsFor(ref, doomed: doomed, links: captured)
                if !refused.isEmpty { tracking.denials[ref] = refused }
            }
        }
        touchLinks(record.cuts)
        noteRequiredCuts(record.cuts)
        registerUndo(name, .restore(record, edits: edits, name: name, epoch: mergeEpoch))
        return record
    }

    /// Puts back what a removal took, tracks it, and registers the removal again (for redo).
    ///
    /// - Parameter exact: whether the graph is as the removal left it; when a
    ///   merge came in between, the lists are put back rebased on what it changed.
    func performRestore(_ record: DeletionRecord, edits: [ObjectRef: Set<Int>] = [:], name: String, exact: Bool = true) {
        if exact {
            graph.restore(record)
        } else {
            for (ref, slot) in graph.restoreRebased(record) { touchLink(ref, slot) }
            // Other undo actions captured lists this rebase may have changed: they rebase too.
            mergeEpoch += 1
            tracking.rebasedSinceSave = true
            tracking.needsRebuild = true
        }
        noteObservedChanges(record.removed)
        tracking.noteRestored(record.removed, edits: edits, existedAtSave: existedAtSave)
        touchLinks(record.cuts)
        registerUndo(name, .removal(record.removed, name: name))
    }
}
