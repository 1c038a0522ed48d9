#if !canImport(Darwin)
/// Checking a journal's steps against the graph before they are installed:
/// a journal that passes the format's checks (its checksum, its numbers in
/// range) may still describe edits that would break the graph — a link kept
/// on one side only, a link to a deleted object, an object revived twice, a
/// unique value taken twice. Such a journal is refused whole; the document
/// opens without it.
extension UndoJournal {
    /// Undoes every step of `undo` (the next undo first) on a copy of
    /// `graph`, and, on another copy, redoes every step of `redo` (the next
    /// redo first), with the graph's own primitives, as the undo manager
    /// would; before each action checks what the primitive trusts, and after
    /// each step checks the links of every object it touched (both sides
    /// agree, none reaches a deleted object or a row that does not exist, no
    /// list holds an object twice) and the uniqueness of their values.
    /// `graph` itself is not changed.
    ///
    /// The steps that follow from these (an undo's redo, a redo's undo) are
    /// made by the primitives themselves, so they are sound when these are.
    ///
    /// - Complexity: O(the steps' objects and the lists they touch), plus a
    ///   copy of each column the steps edit.
    /// - Throws: ``UndoJournalError/inconsistent(_:)`` naming the first step
    ///   that would break the graph, and how.
    static func validate(
        undo: [UndoManager.RecordedStep], redo: [UndoManager.RecordedStep], on graph: ObjectGraph, mergeEpoch: Int
    ) throws(UndoJournalError) {
        var undoing = StackTrial(graph: graph.copy(), epoch: mergeEpoch)
        try undoing.run(undo, stack: "undo")
        var redoing = StackTrial(graph: graph.copy(), epoch: mergeEpoch)
        try redoing.run(redo, stack: "redo")
    }
}

/// One stack's steps run on a scratch copy of the graph (see
/// ``UndoJournal/validate(undo:redo:on:mergeEpoch:)``).
private struct StackTrial {
    let graph: ObjectGraph
    /// The merge epoch as the context would have it: a rebased step moves it,
    /// and the steps recorded before then rebase too.
    var epoch: Int

    mutating func run(_ groups: [UndoManager.RecordedStep], stack: String) throws(UndoJournalError) {
        graph.linkJournal = nil
        for group in groups.reversed() {
            func refuse(_ reason: String) -> UndoJournalError {
                .inconsistent("the \(stack) step \"\(group.name)\" \(reason)")
            }
            var touched = Set<ObjectRef>()
            for step in (group.steps ?? []).reversed() {
                switch step {
                case .removal(let refs, _):
                    guard Set(refs).count == refs.count else { throw refuse("removes an object twice") }
                    for ref in refs {
                        touched.insert(ref)
                        touched.formUnion(linked(ref))
                    }
                    _ = graph.removeObjects(refs)
                case .setStored(let stored, let ref, let attribute, _):
                    // The value was checked against the schema when the step was read.
                    touched.insert(ref)
                    graph.setStored(stored, ref, attribute)
                case .revertLinks(let changes, _, let stepEpoch, let exact):
                    for change in changes {
                        let (ref, slot) = change.list
                        touched.insert(ref)
                        touched.formUnion(linked(ref, slot))
                        touched.formUnion(try targets(of: change).map { $0 })
                    }
                    if exact && epoch == stepEpoch {
                        if let problem = mismatch(changes) { throw refuse(problem) }
                        graph.revert(changes)
                    } else {
                        _ = graph.rebase(changes)
                        epoch += 1
                    }
                case .restore(let record, _, _, let stepEpoch):
                    guard Set(record.removed).count == record.removed.count else { throw refuse("puts an object back twice") }
                    touched.formUnion(record.removed)
                    for list in record.links {
                        touched.insert(list.ref)
                        touched.formUnion(linked(list.ref, Int(list.slot)))
                        for target in list.one >= 0 ? [list.one] : list.many {
                            guard let ref = validRef(target, list.ref, Int(list.slot)) else { throw refuse("names a row that does not exist") }
                            touched.insert(ref)
                        }
                    }
                    for cut in record.cuts {
                        touched.insert(cut.list.ref)
                        touched.formUnion(linked(cut.list.ref, cut.list.slot))
                        touched.formUnion(try targets(of: cut))
                    }
                    if epoch == stepEpoch {
                        if let revived = record.removed.first(where: graph.isLive) {
                            throw refuse("puts back \(graph.identifier(for: revived)), which is not deleted")
                        }
                        if let list = record.links.first(where: { !graph.capture($0.ref, Int($0.slot)).isEmpty }) {
                            throw refuse("puts back a list of \(graph.identifier(for: list.ref)) that is not empty")
                        }
                        if let problem = mismatch(record.cuts) { throw refuse(problem) }
                        graph.restore(record)
                    } else {
                        _ = graph.restoreRebased(record)
                        epoch += 1
                    }
                case .insertConflictRecord, .removeConflictRecord:
                    // Never read from a journal (conflict records are kept in memory only).
                    throw refuse("holds a conflict record")
                }
            }
            if let problem = linkProblem(touched) { throw refuse("would leave \(problem)") }
            let live = touched.filter(graph.isLive).sorted { ($0.entity, $0.row) < ($1.entity, $1.row) }
            if let clash = graph.uniquenessClashes(of: live).first {
                let names = graph.layout.entities[Int(clash.ref.entity)].names(ofGroup: clash.group)
                throw refuse("would give \(graph.identifier(for: clash.ref)) a value of \(names) another object has")
            }
        }
    }

    /// The objects `ref` links to now, in every slot or in `slot`.
    private func linked(_ ref: ObjectRef, _ slot: Int? = nil) -> [ObjectRef] {
        let links = graph.layout.entities[Int(ref.entity)].links
        var result: [ObjectRef] = []
        for index in slot.map({ [$0] }) ?? Array(links.indices) {
            for target in graph.tables[Int(ref.entity)].links[index].targets(of: Int(ref.row)) {
                if let target = validRef(target, ref, index) { result.append(target) }
            }
        }
        return result
    }

    /// The object a stored target of `ref`'s `slot` names, if it names a row that exists.
    private func validRef(_ target: Int32, _ ref: ObjectRef, _ slot: Int) -> ObjectRef? {
        let link = graph.layout.entities[Int(ref.entity)].links[slot]
        guard target >= 0 else { return nil }
        if let hierarchy = link.hierarchy, Int(target & hierarchy.mask) >= hierarchy.members.count { return nil }
        let object = link.ref(target)
        guard link.accepts(entity: Int(object.entity)), Int(object.row) < graph.tables[Int(object.entity)].rowCount else { return nil }
        return object
    }

    /// The objects a link change names as targets.
    private func targets(of change: LinkChange) throws(UndoJournalError) -> [ObjectRef] {
        let (ref, slot) = change.list
        var rows: [Int32] = []
        switch change {
        case .inserted(_, _, let target, _), .removed(_, _, let target, _): rows = [target]
        case .toOne(_, _, let old, let new): rows = [old, new].filter { $0 >= 0 }
        case .absent: rows = []
        case .replaced(_, _, let old, let new): rows = old + new
        }
        var result: [ObjectRef] = []
        for row in rows {
            guard let target = validRef(row, ref, slot) else { throw .inconsistent("a link to a row that does not exist") }
            result.append(target)
        }
        return result
    }

    /// What stops `changes` from being taken back exactly here (latest
    /// first, as ``ObjectGraph/revert(_:)`` does): each must find its list as
    /// it left it. `nil` when they all do.
    private func mismatch(_ changes: [LinkChange]) -> String? {
        // Simulated on the lists alone, so the check sees each list as the earlier reverts leave it.
        var lists: [LinkListKey: LinkListSnapshot] = [:]
        for change in changes.reversed() {
            let (ref, slot) = change.list
            let key = LinkListKey(ref: ref, slot: Int32(slot))
            var list = lists[key] ?? graph.capture(ref, slot)
            let name = "\(graph.identifier(for: ref)).\(graph.layout.entities[Int(ref.entity)].links[slot].name ?? "inverse")"
            switch change {
            case .inserted(_, _, let target, let index):
                guard index >= 0, index < list.many.count, list.many[index] == target else {
                    return "takes back a link of \(name) that is not where it was made"
                }
                list.many.remove(at: index)
            case .removed(_, _, let target, let index):
                guard index >= 0, index <= list.many.count else { return "puts a link of \(name) back where there is no place" }
                list.many.insert(target, at: index)
                list.absent = false
            case .toOne(_, _, let old, let new):
                guard list.one == new else { return "takes back a change of \(name) it does not hold" }
                list.one = old
            case .absent(_, _, let wasAbsent):
                list.absent = wasAbsent
            case .replaced(_, _, let old, let new):
                guard list.many == new else { return "takes back a list of \(name) it does not hold" }
                list.many = old
            }
            lists[key] = list
        }
        return nil
    }

    /// The first broken link among `refs`' lists, described; `nil` when sound.
    private func linkProblem(_ refs: Set<ObjectRef>) -> String? {
        // Long to-many lists are looked up in a set, built once per list.
        var members: [LinkListKey: Set<Int32>] = [:]
        func holds(_ ref: ObjectRef, _ slot: Int, _ target: Int32) -> Bool {
            let column = graph.tables[Int(ref.entity)].links[slot]
            guard column.isToMany, column.many[Int(ref.row)].count > 16 else { return column.contains(target, in: Int(ref.row)) }
            let key = LinkListKey(ref: ref, slot: Int32(slot))
            if let set = members[key] { return set.contains(target) }
            let set = Set(column.many[Int(ref.row)])
            members[key] = set
            return set.contains(target)
        }
        for ref in refs {
            let live = graph.isLive(ref)
            for (slot, link) in graph.layout.entities[Int(ref.entity)].links.enumerated() {
                let column = graph.tables[Int(ref.entity)].links[slot]
                let targets = column.targets(of: Int(ref.row))
                let name = "\(graph.identifier(for: ref)).\(link.name ?? "inverse")"
                if !live, !targets.isEmpty { return "deleted \(graph.identifier(for: ref)) linked through \(link.name ?? "an inverse")" }
                if column.isAbsent(Int(ref.row)), !targets.isEmpty { return "\(name) holding objects but no collection" }
                if targets.count > 1, Set(targets).count != targets.count { return "\(name) holding an object twice" }
                for target in targets {
                    guard let other = validRef(target, ref, slot) else { return "\(name) holding a row that does not exist" }
                    guard graph.isLive(other) else { return "\(name) reaching deleted \(graph.identifier(for: other))" }
                    let inverse = link.inverse(in: other.entity)
                    let back = graph.layout.entities[Int(other.entity)].links[inverse].target(ref)
                    guard holds(other, inverse, back) else {
                        return "\(name) → \(graph.identifier(for: other)) without its inverse"
                    }
                }
            }
        }
        return nil
    }
}

extension LinkListSnapshot {
    /// Whether the list holds nothing (no target, whatever its collection flag).
    fileprivate var isEmpty: Bool { one < 0 && many.isEmpty }
}
#endif
