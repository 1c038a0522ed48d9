/// What a context changed since the saved state it last saw (its baseline):
/// the objects it inserted, edited (which properties) and deleted, and what a
/// save of them needs besides. A value the context owns: it reads the
/// context's graph and baseline when asked, and never the context, so what a
/// save hands the store is made from it alone (``SaveRequest``).
///
/// Inserted and deleted objects are kept a bit per row (``ObjectRefSet``):
/// a cascade of a hundred thousand objects costs the same per object as a
/// small one, where hashed sets of that size outgrew the processor's cache.
struct ChangeTracking {
    /// Live objects absent from the baseline.
    var inserted = ObjectRefSet()
    /// Objects that existed at save and were edited, with the attributes and
    /// relationship slots edited (slots offset by the attribute count). Between
    /// ``settle(graph:baseline:)`` calls it may also hold properties an edit
    /// and its undo put back as saved; the objects in ``unsettled`` are the
    /// ones to check.
    var updated: [ObjectRef: Set<Int>] = [:]
    /// Objects dead here that are live in the baseline.
    var deleted = ObjectRefSet()
    /// Objects edited since the tracking was last settled: their entries in
    /// ``updated`` are compared with the baseline by ``settle(graph:baseline:)``.
    var unsettled = Set<ObjectRef>()
    /// For deleted objects with `deny` relationships: the objects that denied, at delete time.
    var denials: [ObjectRef: [(slot: Int, targets: [ObjectRef])]] = [:]
    /// For objects whose required to-one a delete cleared: the object it held,
    /// which the property reads until it is set again.
    var requiredCuts: [LinkListKey: ObjectRef] = [:]
    /// Identifiers of the objects other contexts' change sets named since this
    /// context last saved. A merge can leave such an object in a state no save
    /// published (a link to an object deleted here dropped, this context's edits
    /// kept), so this context's save rewrites the parts holding them too.
    var mergedIdentifiers = Set<UInt64>()
    /// Identifiers of the objects whose conflict records this context added or
    /// removed since it last saved (a resolution and its undo): their parts are
    /// rewritten, and this context's list of records wins a merge.
    var conflictRecordsEdited = Set<UInt64>()
    /// Whether an undo or redo was rebased over merges since the last save
    /// (see ``changedObjectNumbers(in:)``).
    var rebasedSinceSave = false
    /// Whether a rebase since the tracking was last rebuilt may have changed
    /// objects the tracking does not name (``rebuild(graph:baseline:)``).
    var needsRebuild = false

    /// Whether no object is inserted, edited or deleted. Exact once settled.
    var namesNoObject: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }

    /// Records an edit of a property (an attribute's index, or the attribute
    /// count plus a relationship's slot) of a live object the baseline has.
    mutating func touch(_ ref: ObjectRef, propertyNumber: Int, in graph: ObjectGraph) {
        guard graph.isLive(ref), !inserted.contains(ref) else { return }
        updated[ref, default: []].insert(propertyNumber)
        unsettled.insert(ref)
    }

    /// Tracks objects a removal took out of `graph`: an unsaved insert is no
    /// longer one, anything else is deleted.
    ///
    /// - Returns: the properties each removed object had edited, for an undo
    ///   of the removal to track again.
    mutating func noteRemoved(_ removed: [ObjectRef]) -> [ObjectRef: Set<Int>] {
        var edits: [ObjectRef: Set<Int>] = [:]
        for ref in removed {
            if !inserted.remove(ref) { deleted.insert(ref) }
        }
        // No lookups when nothing was edited: a large cascade usually follows no edit.
        if !updated.isEmpty {
            for ref in removed { if let properties = updated.removeValue(forKey: ref) { edits[ref] = properties } }
        }
        return edits
    }

    /// Tracks objects a restore put back: deleted ones the baseline has come
    /// back with the edits they had (`edits`), others as inserted again.
    mutating func noteRestored(_ restored: [ObjectRef], edits: [ObjectRef: Set<Int>], existedAtSave: (ObjectRef) -> Bool) {
        for ref in restored {
            if existedAtSave(ref) {
                deleted.remove(ref)
                if let edited = edits[ref] { updated[ref, default: []].formUnion(edited); unsettled.insert(ref) }
            } else {
                inserted.insert(ref)
            }
        }
        if !denials.isEmpty { for ref in restored { denials[ref] = nil } }
    }

    /// Makes ``updated`` exact: for each object edited since the last call,
    /// keeps only the properties that differ from `baseline`, as a document's
    /// change count follows undo and redo. Costs what was edited since the
    /// last call (a relationship is compared by its identifiers), or every
    /// object after a rebase (``needsRebuild``).
    mutating func settle(graph: ObjectGraph, baseline: ObjectGraph) {
        if needsRebuild { rebuild(graph: graph, baseline: baseline) }
        guard !unsettled.isEmpty else { return }
        for ref in unsettled {
            guard let properties = updated[ref] else { continue }
            guard graph.isLive(ref), !inserted.contains(ref) else { updated[ref] = nil; continue }
            let id = graph.tables[Int(ref.entity)].ids[Int(ref.row)]
            guard let saved = baseline.index[id], baseline.isLive(saved) else { continue }
            let attributes = graph.layout.entities[Int(ref.entity)].attributes
            let attributeCount = attributes.count
            // A transient attribute is never saved: editing it changes nothing a save would write.
            let differing = properties.filter { property in
                if property < attributeCount {
                    if attributes[property].isTransient { return false }
                    // Cells, not values, for blobs: comparing must never read one from disk (an
                    // unread blob is equal to itself; against bytes it counts as a change).
                    if attributes[property].isExternal { return graph.stored(ref, property) != baseline.stored(saved, property) }
                    return graph.value(ref, property) != baseline.value(saved, property)
                }
                return Self.linksDiffer(graph, ref, baseline, saved, slot: property - attributeCount)
            }
            updated[ref] = differing.isEmpty ? nil : differing
        }
        unsettled.removeAll()
    }

    /// Rebuilds the tracking from the graph itself, compared with the saved
    /// state: once an undo or redo was rebased over merges, it reconciles both
    /// sides of links in ways the tracking does not follow, and a change left
    /// out of it would be left out of the change set the next save publishes
    /// (other contexts would never merge it, and part of the graph would not
    /// be the saved state). Every object is taken again (``retrack(_:graph:baseline:)``).
    /// O(objects × properties); only after a rebase.
    private mutating func rebuild(graph: ObjectGraph, baseline: ObjectGraph) {
        needsRebuild = false
        for (entity, table) in graph.tables.enumerated() {
            for row in 0..<table.rowCount { retrack(ObjectRef(entity: entity, row: row), graph: graph, baseline: baseline) }
        }
    }

    /// Takes one object's tracking again against `baseline` after a merge or
    /// a rebase changed it: inserted when the saved state lacks it, deleted
    /// when only the saved state has it, else every property marked for
    /// ``settle(graph:baseline:)`` to keep those that differ. O(1).
    mutating func retrack(_ ref: ObjectRef, graph: ObjectGraph, baseline: ObjectGraph) {
        let id = graph.tables[Int(ref.entity)].ids[Int(ref.row)]
        let isSaved = baseline.index[id].map(baseline.isLive) ?? false
        if graph.isLive(ref) {
            deleted.remove(ref)
            if isSaved {
                inserted.remove(ref)
                let layout = graph.layout.entities[Int(ref.entity)]
                updated[ref, default: []].formUnion(0..<(layout.attributes.count + layout.declaredLinkCount))
                unsettled.insert(ref)
            } else {
                inserted.insert(ref)
                updated[ref] = nil
            }
        } else {
            inserted.remove(ref)
            updated[ref] = nil
            if isSaved { deleted.insert(ref) } else { deleted.remove(ref); denials[ref] = nil }
        }
    }

    /// Forgets everything: what a save or a rollback leaves.
    mutating func removeAll() {
        self = ChangeTracking()
    }

    /// The identifiers of every object a save of this tracking changes —
    /// inserted, updated (both ends of a link edit) or deleted, and those
    /// other contexts' change sets named, which a merge may have left in a
    /// state no save published — for the store to rewrite the parts of the
    /// package holding them. Call once settled. O(changed and merged
    /// objects). `nil` once an undo was rebased over merges since the last
    /// save: a rebase reconciles both sides of links in ways tracking does not
    /// always follow, so the save then compares every part with the disk
    /// rather than trust the list.
    func changedObjectNumbers(in graph: ObjectGraph) -> Set<UInt64>? {
        guard !rebasedSinceSave else { return nil }
        return trackedObjectNumbers(in: graph).union(mergedIdentifiers).union(conflictRecordsEdited)
    }

    /// ``changedObjectNumbers(in:)`` as a list the package's write works out
    /// (in the background for an autosave), over this tracking as it is now.
    ///
    /// - Parameter snapshot: the graph the save publishes, a copy no one edits.
    func changedObjects(in snapshot: ObjectGraph) -> ChangedObjects {
        guard !rebasedSinceSave else { return .unknown }
        let tracking = self
        // The saved state's copy: replaced by later saves, never edited, so another thread may read it.
        nonisolated(unsafe) let snapshot = snapshot
        return ChangedObjects(workingOut: { tracking.changedObjectNumbers(in: snapshot) })
    }

    /// The identifiers of the objects the tracking names (inserted, edited or
    /// deleted): what a merge treats as this context's own. O(those objects).
    func trackedObjectNumbers(in graph: ObjectGraph) -> Set<UInt64> {
        var ids = Set<UInt64>(minimumCapacity: inserted.count + updated.count + deleted.count)
        for ref in inserted { ids.insert(graph.tables[Int(ref.entity)].ids[Int(ref.row)]) }
        for ref in updated.keys { ids.insert(graph.tables[Int(ref.entity)].ids[Int(ref.row)]) }
        for ref in deleted { ids.insert(graph.tables[Int(ref.entity)].ids[Int(ref.row)]) }
        return ids
    }

    /// What a save of this tracking changes, for the other contexts; the
    /// store gives it its generation. Call once settled.
    func changeSet(in graph: ObjectGraph) -> ChangeSet {
        var changeSet = ChangeSet(generation: 0)
        changeSet.upserts.reserveCapacity(inserted.count + updated.count)
        for ref in inserted where graph.isLive(ref) { changeSet.upserts.append(graph.tables[Int(ref.entity)].ids[Int(ref.row)]) }
        for ref in updated.keys where graph.isLive(ref) && !inserted.contains(ref) {
            changeSet.upserts.append(graph.tables[Int(ref.entity)].ids[Int(ref.row)])
        }
        changeSet.deletions.reserveCapacity(deleted.count)
        for ref in deleted { changeSet.deletions.append(graph.tables[Int(ref.entity)].ids[Int(ref.row)]) }
        if !conflictRecordsEdited.isEmpty { changeSet.conflicts = graph.conflicts }
        return changeSet
    }

    /// Whether `ref`'s relationship `slot` holds other objects (by
    /// identifier, in order) than `saved`'s in `baseline`, or differs in
    /// having a collection. Lists of different lengths differ without being
    /// read: `hasChanges` after each of many inserts into one long list (a
    /// REPL's prompt asks after every command) costs nothing per member.
    private static func linksDiffer(_ graph: ObjectGraph, _ ref: ObjectRef, _ baseline: ObjectGraph, _ saved: ObjectRef, slot: Int) -> Bool {
        let here = graph.tables[Int(ref.entity)].links[slot], there = baseline.tables[Int(saved.entity)].links[slot]
        if here.isAbsent(Int(ref.row)) != there.isAbsent(Int(saved.row)) { return true }
        let targets = here.targets(of: Int(ref.row)), savedTargets = there.targets(of: Int(saved.row))
        guard targets.count == savedTargets.count else { return true }
        let link = graph.layout.entities[Int(ref.entity)].links[slot]
        let savedLink = baseline.layout.entities[Int(saved.entity)].links[slot]
        for (target, savedTarget) in zip(targets, savedTargets) {
            let object = link.ref(target), savedObject = savedLink.ref(savedTarget)
            if graph.tables[Int(object.entity)].ids[Int(object.row)] != baseline.tables[Int(savedObject.entity)].ids[Int(savedObject.row)] {
                return true
            }
        }
        return false
    }
}
