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
    /// each step checks each link it made or took back (both ends agree,
    /// neither is deleted, no list holds an object twice), every link of each
    /// object it removed or put back, and the unique values of the objects it
    /// changed. `graph` itself is not changed.
    ///
    /// The steps that follow from these (an undo's redo, a redo's undo) are
    /// made by the primitives themselves, so they are sound when these are.
    ///
    /// - Complexity: O(the links and objects the steps change), plus one read
    ///   of each long list a step changes and a copy of each column the
    ///   steps edit: a step of one link into a list of 100,000 reads the
    ///   list once, and a step of 100,000 links into it reads it twice.
    /// - Returns: how many links and objects were checked, for tests that
    ///   count the work.
    /// - Throws: ``UndoJournalError/inconsistent(_:)`` naming the first step
    ///   that would break the graph, and how.
    @discardableResult
    static func validate(
        undo: [UndoManager.RecordedStep], redo: [UndoManager.RecordedStep], on graph: ObjectGraph, mergeEpoch: Int
    ) throws(UndoJournalError) -> Int {
        var undoing = StackTrial(graph: graph.copy(), epoch: mergeEpoch)
        try undoing.run(undo, stack: "undo")
        var redoing = StackTrial(graph: graph.copy(), epoch: mergeEpoch)
        try redoing.run(redo, stack: "redo")
        return undoing.checked + redoing.checked
    }
}

/// One stack's steps run on a scratch copy of the graph (see
/// ``UndoJournal/validate(undo:redo:on:mergeEpoch:)``).
private struct StackTrial {
    let graph: ObjectGraph
    /// The merge epoch as the context would have it: a rebased step moves it,
    /// and the steps recorded before then rebase too.
    var epoch: Int
    /// Links and objects checked so far.
    var checked = 0

    mutating func run(_ groups: [UndoManager.RecordedStep], stack: String) throws(UndoJournalError) {
        graph.linkJournal = nil
        for group in groups.reversed() {
            func refuse(_ reason: String) -> UndoJournalError {
                .inconsistent("the \(stack) step \"\(group.name)\" \(reason)")
            }
            var touched = Touched()
            for step in (group.steps ?? []).reversed() {
                switch step {
                case .removal(let refs, _):
                    guard Set(refs).count == refs.count else { throw refuse("removes an object twice") }
                    for ref in refs {
                        touched.whole.insert(ref)
                        for (slot, target) in linked(ref) { touched.pairs.insert(LinkPair(ref: ref, slot: slot, target: target)) }
                    }
                    _ = graph.removeObjects(refs)
                case .setStored(let stored, let ref, let attribute, _):
                    // The value was checked against the schema when the step was read.
                    touched.valued.insert(ref)
                    graph.setStored(stored, ref, attribute)
                case .revertLinks(let changes, _, let stepEpoch, let exact):
                    for change in changes { try touched.note(change, targets(of: change)) }
                    if exact && epoch == stepEpoch {
                        if let problem = mismatch(changes) { throw refuse(problem) }
                        graph.revert(changes)
                    } else {
                        _ = graph.rebase(changes)
                        epoch += 1
                    }
                case .restore(let record, _, _, let stepEpoch):
                    guard Set(record.removed).count == record.removed.count else { throw refuse("puts an object back twice") }
                    touched.whole.formUnion(record.removed)
                    for list in record.links {
                        touched.lists.insert(LinkListKey(ref: list.ref, slot: list.slot))
                        for target in list.one >= 0 ? [list.one] : list.many {
                            guard let ref = validRef(target, list.ref, Int(list.slot)) else { throw refuse("names a row that does not exist") }
                            touched.pairs.insert(LinkPair(ref: list.ref, slot: Int(list.slot), target: ref))
                        }
                    }
                    for cut in record.cuts { try touched.note(cut, targets(of: cut)) }
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
            var valued = touched.valued.union(touched.whole)
            for pair in touched.pairs {
                valued.insert(pair.ref)
                valued.insert(pair.target)
            }
            let live = valued.filter(graph.isLive).sorted { $0.entity != $1.entity ? $0.entity < $1.entity : $0.row < $1.row }
            checked += live.count
            if let clash = graph.uniquenessClashes(of: live).first {
                let names = graph.layout.entities[Int(clash.ref.entity)].names(ofGroup: clash.group)
                throw refuse("would give \(graph.identifier(for: clash.ref)) a value of \(names) another object has")
            }
        }
    }

    /// What one step's actions touched, and so what is checked after it: in
    /// proportion to the links the step changed, not to the lists they sit in
    /// (an insert into a category of 100,000 animals checks the one link).
    private struct Touched {
        /// Objects removed or put back: every link of theirs is checked.
        var whole = Set<ObjectRef>()
        /// Links made or taken back: both ends must agree on each.
        var pairs = Set<LinkPair>()
        /// Lists whose collection flag a step set or put back.
        var lists = Set<LinkListKey>()
        /// Objects whose values changed: their unique values are checked.
        var valued = Set<ObjectRef>()

        mutating func note(_ change: LinkChange, _ targets: [ObjectRef]) {
            let (ref, slot) = change.list
            lists.insert(LinkListKey(ref: ref, slot: Int32(slot)))
            for target in targets { pairs.insert(LinkPair(ref: ref, slot: slot, target: target)) }
        }
    }

    /// One link, as one end names it: `ref`'s relationship `slot` and an object it may hold.
    private struct LinkPair: Hashable {
        var ref: ObjectRef
        var slot: Int
        var target: ObjectRef
    }

    /// The objects `ref` links to now, each with the slot that holds it.
    private func linked(_ ref: ObjectRef) -> [(slot: Int, target: ObjectRef)] {
        var result: [(slot: Int, target: ObjectRef)] = []
        for slot in graph.layout.entities[Int(ref.entity)].links.indices {
            graph.tables[Int(ref.entity)].links[slot].forEachTarget(of: Int(ref.row)) { target in
                if let target = validRef(target, ref, slot) { result.append((slot, target)) }
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

    /// The first broken link among what a step touched, described; `nil` when sound.
    private mutating func linkProblem(_ touched: Touched) -> String? {
        func name(_ ref: ObjectRef, _ slot: Int) -> String {
            "\(graph.identifier(for: ref)).\(graph.layout.entities[Int(ref.entity)].links[slot].name ?? "inverse")"
        }
        // How many times `ref`'s `slot` holds `target`: a scan of the list.
        // A long to-many list asked about a second time is counted into a
        // table, so a step of many links into one list (a cascade's thousands
        // of animals of one category) reads it twice, not once per link.
        var scanned = Set<LinkListKey>()
        var counted: [LinkListKey: [Int32: Int]] = [:]
        func count(_ ref: ObjectRef, _ slot: Int, _ target: ObjectRef) -> Int {
            let stored = graph.layout.entities[Int(ref.entity)].links[slot].target(target)
            let column = graph.tables[Int(ref.entity)].links[slot]
            let key = LinkListKey(ref: ref, slot: Int32(slot))
            guard column.isToMany else { return column.one[Int(ref.row)] == stored ? 1 : 0 }
            guard column.many[Int(ref.row)].count > 16, !scanned.insert(key).inserted else {
                var count = 0
                for held in column.many[Int(ref.row)] where held == stored { count += 1 }
                return count
            }
            if let counts = counted[key] { return counts[stored] ?? 0 }
            var counts: [Int32: Int] = [:]
            for held in column.many[Int(ref.row)] { counts[held, default: 0] += 1 }
            counted[key] = counts
            return counts[stored] ?? 0
        }
        // Both ends of one link agree, hold it once, and are live when they hold it.
        func pairProblem(_ ref: ObjectRef, _ slot: Int, _ target: ObjectRef) -> String? {
            let inverse = graph.layout.entities[Int(ref.entity)].links[slot].inverse(in: target.entity)
            let there = count(ref, slot, target), back = count(target, inverse, ref)
            if there > 1 { return "\(name(ref, slot)) holding an object twice" }
            if back > 1 { return "\(name(target, inverse)) holding an object twice" }
            if there != back {
                return there == 1
                    ? "\(name(ref, slot)) → \(graph.identifier(for: target)) without its inverse"
                    : "\(name(target, inverse)) → \(graph.identifier(for: ref)) without its inverse"
            }
            guard there == 1 else { return nil }
            if !graph.isLive(ref) { return "\(name(target, inverse)) reaching deleted \(graph.identifier(for: ref))" }
            if !graph.isLive(target) { return "\(name(ref, slot)) reaching deleted \(graph.identifier(for: target))" }
            if graph.tables[Int(ref.entity)].links[slot].isAbsent(Int(ref.row)) {
                return "\(name(ref, slot)) holding objects but no collection"
            }
            if graph.tables[Int(target.entity)].links[inverse].isAbsent(Int(target.row)) {
                return "\(name(target, inverse)) holding objects but no collection"
            }
            return nil
        }
        checked += touched.pairs.count + touched.lists.count + touched.whole.count
        for pair in touched.pairs {
            if let problem = pairProblem(pair.ref, pair.slot, pair.target) { return problem }
        }
        for list in touched.lists {
            let column = graph.tables[Int(list.ref.entity)].links[Int(list.slot)]
            var holds = false
            column.forEachTarget(of: Int(list.ref.row)) { _ in holds = true }
            if holds, column.isAbsent(Int(list.ref.row)) { return "\(name(list.ref, Int(list.slot))) holding objects but no collection" }
            if holds, !graph.isLive(list.ref) {
                let link = graph.layout.entities[Int(list.ref.entity)].links[Int(list.slot)]
                return "deleted \(graph.identifier(for: list.ref)) linked through \(link.name ?? "an inverse")"
            }
        }
        // An object removed or put back: each of its links, both ends.
        for ref in touched.whole {
            let live = graph.isLive(ref)
            for (slot, link) in graph.layout.entities[Int(ref.entity)].links.enumerated() {
                let column = graph.tables[Int(ref.entity)].links[slot]
                let targets = column.targets(of: Int(ref.row))
                guard !targets.isEmpty else { continue }
                if !live { return "deleted \(graph.identifier(for: ref)) linked through \(link.name ?? "an inverse")" }
                if column.isAbsent(Int(ref.row)) { return "\(name(ref, slot)) holding objects but no collection" }
                if targets.count > 1, Set(targets).count != targets.count { return "\(name(ref, slot)) holding an object twice" }
                checked += targets.count
                for target in targets {
                    guard let other = validRef(target, ref, slot) else { return "\(name(ref, slot)) holding a row that does not exist" }
                    guard graph.isLive(other) else { return "\(name(ref, slot)) reaching deleted \(graph.identifier(for: other))" }
                    let inverse = link.inverse(in: other.entity)
                    switch count(other, inverse, ref) {
                    case 0: return "\(name(ref, slot)) → \(graph.identifier(for: other)) without its inverse"
                    case 1: break
                    default: return "\(name(other, inverse)) holding an object twice"
                    }
                    if graph.tables[Int(other.entity)].links[inverse].isAbsent(Int(other.row)) {
                        return "\(name(other, inverse)) holding objects but no collection"
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
