/// Primitives the editing context builds deletes, undo and redo from.
extension ObjectGraph {
    /// Removes a set of live objects at once and returns what it changed.
    ///
    /// Links among the removed objects are dropped with their lists; each
    /// survivor list that pointed into the set is filtered once. The cost is
    /// O(removed objects + their links + the survivor lists they touch), never
    /// O(document), and never quadratic in a large list.
    func removeObjects(_ refs: [ObjectRef]) -> DeletionRecord {
        var record = DeletionRecord()
        record.removed.reserveCapacity(refs.count)
        record.links.reserveCapacity(refs.count)
        let doomed = ObjectRefSet(refs)
        var survivorLists = Set<LinkListKey>()
        // Out of the unique indexes first, while their links still give their keys.
        for ref in refs where isLive(ref) {
            uniqueIndexRemove(ref)
            attributeIndexRemove(ref)
        }
        for ref in refs where isLive(ref) {
            record.removed.append(ref)
            let table = tables[Int(ref.entity)]
            for (slot, link) in layout.entities[Int(ref.entity)].links.enumerated() {
                let column = table.links[slot]
                let row = Int(ref.row)
                if link.hierarchy == nil {
                    column.forEachTarget(of: row) { target in
                        let targetRef = ObjectRef(entity: link.destination, row: Int(target))
                        if !doomed.contains(targetRef) {
                            survivorLists.insert(LinkListKey(ref: targetRef, slot: Int32(link.inverse)))
                        }
                    }
                } else {
                    // Into a hierarchy: each target names its entity, whose inverse slot is its own.
                    column.forEachTarget(of: row) { target in
                        let targetRef = link.ref(target)
                        if !doomed.contains(targetRef) {
                            survivorLists.insert(LinkListKey(ref: targetRef, slot: Int32(link.inverse(in: targetRef.entity))))
                        }
                    }
                }
                if column.isToMany {
                    if !column.many[row].isEmpty {
                        record.links.append(.init(ref: ref, slot: Int32(slot), one: -1, many: column.many[row]))
                        column.many[row] = []
                    }
                } else if column.one[row] >= 0 {
                    record.links.append(.init(ref: ref, slot: Int32(slot), one: column.one[row], many: []))
                    column.one[row] = -1
                }
            }
        }
        for survivor in survivorLists {
            let column = tables[Int(survivor.ref.entity)].links[Int(survivor.slot)]
            // The list holds objects of the slot's destination (or its hierarchy): the removed ones' entity.
            let survivorLink = layout.entities[Int(survivor.ref.entity)].links[Int(survivor.slot)]
            let removedEntity = survivorLink.destination
            let row = Int(survivor.ref.row)
            if column.isToMany {
                // What goes, recorded highest index first (so each index holds in the list as it
                // was), then filtered out in place: the record is as large as what was cut.
                let gone =
                    survivorLink.hierarchy == nil
                    ? { (target: Int32) in doomed.contains(ObjectRef(entity: removedEntity, row: Int(target))) }
                    : { (target: Int32) in doomed.contains(survivorLink.ref(target)) }
                // By index, holding no second reference to the list: the removal below edits it in place.
                for index in column.many[row].indices.reversed() where gone(column.many[row][index]) {
                    record.cuts.append(.removed(survivor.ref, slot: survivor.slot, target: column.many[row][index], at: index))
                }
                column.many[row].removeAll(where: gone)
            } else {
                record.cuts.append(.toOne(survivor.ref, slot: survivor.slot, old: column.one[row], new: -1))
                // A survivor's to-one in a unique group loses its key with its object.
                rekeying(survivor.ref, slot: Int(survivor.slot)) { column.one[row] = -1 }
            }
        }
        for ref in record.removed {
            tables[Int(ref.entity)].setLive(false, row: Int(ref.row))
        }
        return record
    }

    /// Puts back exactly what ``removeObjects(_:)`` changed. The graph must be as
    /// the removal left it (the undo stack guarantees this).
    func restore(_ record: DeletionRecord) {
        // Links first, then liveness: a revived object enters the unique indexes
        // with its links back, and survivors are rekeyed as their lists return.
        for saved in record.links { putLinks(saved) }
        revert(record.cuts)
        for ref in record.removed {
            tables[Int(ref.entity)].setLive(true, row: Int(ref.row))
            uniqueIndexAdd(ref)
            attributeIndexAdd(ref)
        }
    }

    /// Puts back what ``removeObjects(_:)`` took when the graph may have
    /// changed since (other contexts' saves merged in between): the objects
    /// come back, and each list it changed gets back what the removal took
    /// from it, keeping what the merges did (see ``rebase(_:after:)``).
    ///
    /// - Returns: the lists the reconciliation changed beyond those restored.
    func restoreRebased(_ record: DeletionRecord) -> [(ObjectRef, Int)] {
        let doomed = ObjectRefSet(record.removed)
        // (The unique indexes are rebuilt after the reconciliation; the declared ones take the rows back now.)
        for ref in record.removed where !isLive(ref) {
            tables[Int(ref.entity)].setLive(true, row: Int(ref.row))
            attributeIndexAdd(ref)
        }
        // What the removal left a removed object's lists holding: nothing.
        let after = record.links.map { saved -> LinkListSnapshot in
            var left = saved
            if doomed.contains(saved.ref) {
                left.one = -1
                left.many = []
            }
            return left
        }
        // The survivors' cuts rebase as a link edit's changes do; one reconciliation for both.
        return reconcileLinks(rebaseLists(record.links, after: after) + rebaseChanges(record.cuts))
    }

    /// Undoes what an action did to some lists over a graph that may have
    /// changed since: `saved` holds each list as it was before the action,
    /// `after` as the action left it. What the action added goes, what it
    /// removed comes back (in `saved`'s order), and whatever else the list
    /// holds now — what merges did — stays; a to-one the graph changed since
    /// keeps its new target. Then ``reconcileLinks(_:)`` makes both sides agree.
    /// O(the lists involved).
    ///
    /// - Returns: the lists the reconciliation changed beyond those in `saved`.
    func rebase(_ saved: [LinkListSnapshot], after: [LinkListSnapshot]) -> [(ObjectRef, Int)] {
        reconcileLinks(rebaseLists(saved, after: after))
    }

    /// ``rebase(_:after:)`` without the reconciliation: returns the lists as
    /// they were just before, for ``reconcileLinks(_:)``.
    func rebaseLists(_ saved: [LinkListSnapshot], after: [LinkListSnapshot]) -> [LinkListSnapshot] {
        let before = saved.map { capture($0.ref, Int($0.slot)) }
        for (index, list) in saved.enumerated() {
            let (now, left) = (before[index], after[index])
            let column = tables[Int(list.ref.entity)].links[Int(list.slot)]
            if column.isToMany {
                let added = Set(left.many).subtracting(list.many)
                let taken = Set(list.many).subtracting(left.many)
                let present = Set(now.many)
                var result = list.many.filter { taken.contains($0) || (present.contains($0) && !added.contains($0)) }
                let kept = Set(result)
                result += now.many.filter { !kept.contains($0) && !added.contains($0) }
                if result != now.many { assignList(result, to: list.ref, Int(list.slot)) }
                setAbsent(
                    now.absent == left.absent ? list.absent && result.isEmpty : now.absent && result.isEmpty,
                    list.ref, Int(list.slot))
            } else if now.one == left.one {
                setOne(list.one, list.ref, Int(list.slot))
            }
        }
        return before
    }

    /// Makes both sides of every link agree again after lists were put back
    /// as captured over a graph that changed since; `before` holds each of
    /// those lists as it was just before (when both sides agreed).
    ///
    /// A list put back keeps its live targets (links to objects a merge
    /// deleted go) and each of them holds the list's object back, taking it
    /// from any other holder of a to-one; a link the restore dropped goes from
    /// the other side too, unless that side's own restored list keeps it, in
    /// which case it stays on both. A dead object keeps no links. The unique
    /// indexes are rebuilt on next use. O(the lists involved), a set built once
    /// per to-many checked, so a large list is never scanned per link.
    ///
    /// - Returns: the other lists it changed, for change tracking.
    func reconcileLinks(_ before: [LinkListSnapshot]) -> [(ObjectRef, Int)] {
        func key(_ ref: ObjectRef, _ slot: Int) -> LinkListKey { LinkListKey(ref: ref, slot: Int32(slot)) }
        let restored = Set(before.map { key($0.ref, Int($0.slot)) })
        var members: [LinkListKey: Set<Int32>] = [:]
        var changed: [(ObjectRef, Int)] = []
        func holds(_ ref: ObjectRef, _ slot: Int, _ row: Int32) -> Bool {
            let column = tables[Int(ref.entity)].links[slot]
            guard column.isToMany else { return column.one[Int(ref.row)] == row }
            if let set = members[key(ref, slot)] { return set.contains(row) }
            let set = Set(column.many[Int(ref.row)])
            members[key(ref, slot)] = set
            return set.contains(row)
        }
        func add(_ row: Int32, to ref: ObjectRef, _ slot: Int) {
            insertTarget(row, into: ref, slot)
            members[key(ref, slot)]?.insert(row)
            if !restored.contains(key(ref, slot)) { changed.append((ref, slot)) }
        }
        func remove(_ row: Int32, from ref: ObjectRef, _ slot: Int) {
            removeTarget(row, from: ref, slot)
            members[key(ref, slot)]?.remove(row)
            if !restored.contains(key(ref, slot)) { changed.append((ref, slot)) }
        }
        for saved in before {
            let (ref, slot, row) = (saved.ref, Int(saved.slot), Int(saved.ref.row))
            let link = layout.entities[Int(ref.entity)].links[slot]
            let column = tables[Int(ref.entity)].links[slot]
            func target(_ targetRow: Int32) -> ObjectRef { link.ref(targetRow) }
            // The inverse's slot, and what it stores for `ref`, in the entity of a target.
            func inverse(_ other: Int32) -> Int { link.inverse(in: target(other).entity) }
            func back(_ other: Int32) -> Int32 { layout.entities[Int(target(other).entity)].links[inverse(other)].target(ref) }
            members[key(ref, slot)] = nil
            guard isLive(ref) else {
                for other in column.targets(of: row) where isLive(target(other)) && holds(target(other), inverse(other), back(other)) {
                    remove(back(other), from: target(other), inverse(other))
                }
                if column.isToMany { if !column.many[row].isEmpty { assignList([], to: ref, slot) } } else { setOne(-1, ref, slot) }
                continue
            }
            let now = column.targets(of: row)
            let live = now.filter { isLive(target($0)) }
            if live.count != now.count {
                if column.isToMany { assignList(live, to: ref, slot) } else { setOne(-1, ref, slot) }
            }
            for other in live where !holds(target(other), inverse(other), back(other)) {
                let otherRef = target(other)
                let inverseLink = layout.entities[Int(otherRef.entity)].links[inverse(other)]
                let inverseColumn = tables[Int(otherRef.entity)].links[inverse(other)]
                if !inverseColumn.isToMany, inverseColumn.one[Int(otherRef.row)] >= 0 {
                    // The object that held `other` through the to-one inverse lets it go.
                    let holder = inverseLink.ref(inverseColumn.one[Int(otherRef.row)])
                    remove(other, from: holder, inverseLink.inverse(in: holder.entity))
                }
                add(back(other), to: otherRef, inverse(other))
            }
            let kept = Set(column.targets(of: row))
            let previous = column.isToMany ? saved.many : (saved.one >= 0 ? [saved.one] : [])
            for other in previous where !kept.contains(other) && isLive(target(other)) && holds(target(other), inverse(other), back(other)) {
                if restored.contains(key(target(other), inverse(other))), column.isToMany || column.one[row] < 0 {
                    add(other, to: ref, slot)
                } else {
                    remove(back(other), from: target(other), inverse(other))
                }
            }
        }
        uniqueIndexes.removeAll()
        return changed
    }

    // MARK: Link changes: the journal, undo and the rebase after merges

    /// Undoes recorded link changes exactly, latest first; the graph must be
    /// as they left it (no merge since). What it does is journaled in turn,
    /// which is the redo. O(the changes), each O(1) but the re-insertion of
    /// a removed member (O(the list's tail)) and a whole-list assignment.
    func revert(_ changes: [LinkChange]) {
        for change in changes.reversed() {
            switch change {
            case .inserted(let ref, let slot, let target, let index):
                rekeying(ref, slot: Int(slot)) { removeTarget(target, from: ref, Int(slot), near: index) }
            case .removed(let ref, let slot, let target, let index):
                rekeying(ref, slot: Int(slot)) { insertTarget(target, into: ref, Int(slot), at: index) }
            case .toOne(let ref, let slot, let old, _):
                rekeying(ref, slot: Int(slot)) { setOne(old, ref, Int(slot)) }
            case .absent(let ref, let slot, let wasAbsent):
                setAbsent(wasAbsent, ref, Int(slot))
            case .replaced(let ref, let slot, let old, _):
                assignList(old, to: ref, Int(slot))
            }
        }
    }

    /// Undoes recorded link changes over a graph that may have changed since
    /// (other contexts' saves merged in between), as ``rebase(_:after:)``
    /// does for captured lists: from each list changed, what the changes
    /// added goes and what they removed comes back (where it stood, or the
    /// list's end), keeping whatever else it holds now; a to-one the graph
    /// changed since keeps its new target. Then ``reconcileLinks(_:)`` makes
    /// both sides agree. What it does is journaled, for the redo. O(the
    /// changes + the lists they touched).
    ///
    /// - Returns: the lists the reconciliation changed beyond those in `changes`.
    func rebase(_ changes: [LinkChange]) -> [(ObjectRef, Int)] {
        reconcileLinks(rebaseChanges(changes))
    }

    /// ``rebase(_:)`` without the reconciliation: returns the lists as they
    /// were just before, for ``reconcileLinks(_:)``.
    func rebaseChanges(_ changes: [LinkChange]) -> [LinkListSnapshot] {
        var order: [LinkListKey] = []
        var perList: [LinkListKey: [LinkChange]] = [:]
        for change in changes {
            let (ref, slot) = change.list
            let key = LinkListKey(ref: ref, slot: Int32(slot))
            if perList[key] == nil { order.append(key) }
            perList[key, default: []].append(change)
        }
        let before = order.map { capture($0.ref, Int($0.slot)) }
        for (index, key) in order.enumerated() {
            let (ref, slot, now) = (key.ref, Int(key.slot), before[index])
            let listChanges = perList[key] ?? []
            var absence: (was: Bool, left: Bool)?
            var one: (was: Int32, left: Int32)?
            for change in listChanges {
                if case .absent(_, _, let wasAbsent) = change { absence = (absence?.was ?? wasAbsent, !wasAbsent) }
                if case .toOne(_, _, let old, let new) = change { one = (one?.was ?? old, new) }
            }
            let column = tables[Int(ref.entity)].links[slot]
            if column.isToMany {
                let result = Self.rebasedList(now.many, listChanges)
                if result != now.many { assignList(result, to: ref, slot) }
                let (wasAbsent, leftAbsent) = (absence?.was ?? now.absent, absence?.left ?? now.absent)
                setAbsent(now.absent == leftAbsent ? wasAbsent && result.isEmpty : now.absent && result.isEmpty, ref, slot)
            } else if let one, now.one == one.left {
                setOne(one.was, ref, slot)
            }
        }
        return before
    }

    /// A to-many list `now` with `changes` (those of one action, to this list)
    /// taken back: what they added goes, what they removed comes back, what
    /// else `now` holds stays.
    ///
    /// When the action assigned the list whole (a reordering), the list as it
    /// was before the action is known exactly — the assignment's old list with
    /// the earlier changes undone — and the result follows its order, as
    /// ``rebase(_:after:)`` does; otherwise each removed member goes back where
    /// it stood when removed (latest first), or at the end.
    static func rebasedList(_ now: [Int32], _ changes: [LinkChange]) -> [Int32] {
        if let first = changes.firstIndex(where: { if case .replaced = $0 { true } else { false } }),
            case .replaced(_, _, let old, let new) = changes[first]
        {
            var saved = old
            for change in changes[..<first].reversed() { undo(change, in: &saved) }
            var left = new
            for change in changes[(first + 1)...] { redo(change, in: &left) }
            let added = Set(left).subtracting(saved)
            let taken = Set(saved).subtracting(left)
            let present = Set(now)
            var result = saved.filter { taken.contains($0) || (present.contains($0) && !added.contains($0)) }
            let kept = Set(result)
            result += now.filter { !kept.contains($0) && !added.contains($0) }
            return result
        }
        var added = Set<Int32>()
        var taken: [Int32: (index: Int, order: Int)] = [:]
        for (order, change) in changes.enumerated() {
            switch change {
            case .inserted(_, _, let target, _):
                if taken.removeValue(forKey: target) == nil { added.insert(target) }
            case .removed(_, _, let target, let index):
                if added.remove(target) == nil, taken[target] == nil { taken[target] = (index, order) }
            default: break
            }
        }
        var result = added.isEmpty ? now : now.filter { !added.contains($0) }
        guard !taken.isEmpty else { return result }
        var present = Set(result)
        for (target, place) in taken.sorted(by: { $0.value.order > $1.value.order }) where present.insert(target).inserted {
            result.insert(target, at: min(place.index, result.count))
        }
        return result
    }

    /// Undoes one change on a copy of its list.
    private static func undo(_ change: LinkChange, in list: inout [Int32]) {
        switch change {
        case .inserted(_, _, let target, let index):
            if index < list.count, list[index] == target { list.remove(at: index) } else if let found = list.lastIndex(of: target) { list.remove(at: found) }
        case .removed(_, _, let target, let index): list.insert(target, at: min(index, list.count))
        case .replaced(_, _, let old, _): list = old
        case .toOne, .absent: break
        }
    }

    /// Does one change again on a copy of its list.
    private static func redo(_ change: LinkChange, in list: inout [Int32]) {
        switch change {
        case .inserted(_, _, let target, let index): list.insert(target, at: min(index, list.count))
        case .removed(_, _, let target, let index):
            if index < list.count, list[index] == target { list.remove(at: index) } else if let found = list.lastIndex(of: target) { list.remove(at: found) }
        case .replaced(_, _, _, let new): list = new
        case .toOne, .absent: break
        }
    }

    /// Inserts `target` into a to-many list at `index` (its end by default) or
    /// sets a to-one to it, giving an optional to-many a collection; journaled.
    /// O(1) amortized at the end: the list is edited in place.
    func insertTarget(_ target: Int32, into ref: ObjectRef, _ slot: Int, at index: Int? = nil) {
        let column = tables[Int(ref.entity)].links[slot]
        let row = Int(ref.row)
        if column.isToMany {
            let count = column.many[row].count
            let position = min(index ?? count, count)
            linkJournal?.append(.inserted(ref, slot: Int32(slot), target: target, at: position))
            if position == count { column.many[row].append(target) } else { column.many[row].insert(target, at: position) }
        } else {
            setOne(target, ref, slot)
        }
        setAbsent(false, ref, slot)
    }

    /// Removes `target` from a to-many list (looked for at `hint` first, then
    /// from the end) or clears a to-one holding it; journaled.
    func removeTarget(_ target: Int32, from ref: ObjectRef, _ slot: Int, near hint: Int? = nil) {
        let column = tables[Int(ref.entity)].links[slot]
        let row = Int(ref.row)
        guard column.isToMany else {
            if column.one[row] == target { setOne(-1, ref, slot) }
            return
        }
        let index: Int
        if let hint, hint < column.many[row].count, column.many[row][hint] == target {
            index = hint
        } else if let found = column.many[row].lastIndex(of: target) {
            index = found
        } else {
            return
        }
        linkJournal?.append(.removed(ref, slot: Int32(slot), target: target, at: index))
        column.many[row].remove(at: index)
    }

    /// Sets a to-one's target (-1: none); journaled. The caller keeps the
    /// unique indexes right (``rekeying(_:slot:_:)``).
    func setOne(_ target: Int32, _ ref: ObjectRef, _ slot: Int) {
        let column = tables[Int(ref.entity)].links[slot]
        let old = column.one[Int(ref.row)]
        guard old != target else { return }
        linkJournal?.append(.toOne(ref, slot: Int32(slot), old: old, new: target))
        column.one[Int(ref.row)] = target
    }

    /// Assigns a to-many list whole; journaled (the journal then shares both lists).
    func assignList(_ rows: [Int32], to ref: ObjectRef, _ slot: Int) {
        let column = tables[Int(ref.entity)].links[slot]
        linkJournal?.append(.replaced(ref, slot: Int32(slot), old: column.many[Int(ref.row)], new: rows))
        column.many[Int(ref.row)] = rows
    }

    /// Gives an optional to-many no collection (`true`; its list must be
    /// empty) or one; journaled. Does nothing for other relationships.
    func setAbsent(_ flag: Bool, _ ref: ObjectRef, _ slot: Int) {
        let column = tables[Int(ref.entity)].links[slot]
        guard column.isAbsent(Int(ref.row)) != flag, column.isOptional else { return }
        linkJournal?.append(.absent(ref, slot: Int32(slot), wasAbsent: !flag))
        column.setAbsent(flag, row: Int(ref.row))
    }

    /// Puts one captured list back as it was (undo, redo), its collection or
    /// lack of one included, keeping the unique indexes right when it is a
    /// to-one in a unique group of a live object.
    func putLinks(_ saved: LinkListSnapshot) {
        let column = tables[Int(saved.ref.entity)].links[Int(saved.slot)]
        let row = Int(saved.ref.row)
        if column.isToMany {
            column.many[row] = saved.many
        } else {
            rekeying(saved.ref, slot: Int(saved.slot)) { column.one[row] = saved.one }
        }
        column.setAbsent(saved.absent, row: row)
    }

    /// Captures what one list holds, for ``putLinks(_:)``; costs no copy.
    func capture(_ ref: ObjectRef, _ slot: Int) -> LinkListSnapshot {
        let column = tables[Int(ref.entity)].links[slot]
        let row = Int(ref.row)
        return .init(
            ref: ref, slot: Int32(slot), one: column.isToMany ? -1 : column.one[row],
            many: column.isToMany ? column.many[row] : [], absent: column.isAbsent(row))
    }

    /// A deep copy: later edits to either graph do not show in the other.
    /// Arrays are copied lazily (copy-on-write), so this is cheap until edited.
    func copy() -> ObjectGraph {
        let graph = ObjectGraph(schema: schema, layout: layout)
        graph.tables = tables.map { $0.copy() }
        graph.index = index
        graph.nextID = nextID
        graph.allocator = allocator.forCopy()
        graph.limits = limits
        graph.conflicts = conflicts
        // Row numbers, ordered by values the copy holds too: shared until either side edits.
        graph.attributeIndexes = attributeIndexes
        return graph
    }
}
