extension UndoJournal {
    /// What ``capture(_:in:mergeEpoch:owner:limits:)`` kept, and how many steps it could not.
    struct Capture {
        var journal: UndoJournal
        /// Steps left out: older than one with an app's closure or a value the
        /// journal cannot hold (a blob still on disk), or beyond the limits.
        var dropped: Int
        /// Steps left out because an app registered a closure among their actions.
        var droppedForClosures: Int
        /// The journal's ``UndoJournal/header()``, made once.
        var header: [UInt8] = []
        /// Each kept group's bytes (``UndoJournal/bytes(of:layout:)``), in
        /// the order of `journal.undo` and `journal.redo`.
        var groupBytes: (undo: [[UInt8]], redo: [[UInt8]]) = ([], [])
        /// How many groups this capture turned into journal form and bytes;
        /// the others came from the ``GroupCache``.
        var made = 0

        /// The journal's bytes, each group's taken as made.
        var bytes: [UInt8] { UndoJournal.encode(header: header, groups: groupBytes) }
    }

    /// Groups already in journal form, with their bytes, by their undo
    /// manager group's serial (``UndoManager/RecordedStep/serial``): a save
    /// turns into bytes only the steps added since the last journal, not every
    /// step kept (a cascade of 100,000 objects is encoded once, not at every
    /// save after it). An entry holds while the group keeps its name and
    /// actions and the context has merged nothing since (a merge rebases
    /// steps, `mergeEpoch`). Kept by the shared document's journal writer.
    struct GroupCache {
        struct Entry {
            var name: String
            var actionCount: Int
            var mergeEpoch: Int
            var group: Group
            var bytes: [UInt8]
            /// The objects the group names, in identifier order (``UndoJournal/isOrdered(_:_:)``).
            var named: [Object]
        }
        var entries: [UInt64: Entry] = [:]
    }
}

#if !canImport(Darwin)
/// Making a journal of a context's undo manager: its steps by identifier,
/// within the limits, newest kept first.
extension UndoJournal {
    /// The journal of `steps` (an undo manager's ``UndoManager/recordedSteps``)
    /// for `graph`, as it is after a save.
    ///
    /// Undo runs newest first, so a step that cannot be kept ends what is kept:
    /// the steps older than it are left out too (they could only be undone after
    /// it). Likewise on the redo stack. The limits drop the oldest undo steps
    /// first, then the farthest redo steps.
    static func capture(
        _ steps: (undo: [UndoManager.RecordedStep], redo: [UndoManager.RecordedStep]),
        in graph: ObjectGraph, mergeEpoch: Int, owner: String, limits: UndoJournalLimits
    ) -> Capture {
        var cache = GroupCache()
        return capture(steps, in: graph, mergeEpoch: mergeEpoch, owner: owner, limits: limits, cache: &cache)
    }

    /// ``capture(_:in:mergeEpoch:owner:limits:)``, taking the groups `cache`
    /// holds from it and leaving in it the groups kept, and only those.
    static func capture(
        _ steps: (undo: [UndoManager.RecordedStep], redo: [UndoManager.RecordedStep]),
        in graph: ObjectGraph, mergeEpoch: Int, owner: String, limits: UndoJournalLimits, cache: inout GroupCache
    ) -> Capture {
        var dropped = 0
        var droppedForClosures = 0
        var made = 0
        var kept = GroupCache()
        func keep(_ recorded: [UndoManager.RecordedStep], nearestFirst: [Int]) -> [GroupCache.Entry] {
            var result: [GroupCache.Entry] = []
            for (position, index) in nearestFirst.enumerated() {
                let step = recorded[index]
                guard let actions = step.steps else {
                    droppedForClosures += 1
                    dropped += nearestFirst.count - position
                    break
                }
                if step.serial != 0, let entry = cache.entries[step.serial], entry.name == step.name,
                    entry.actionCount == actions.count, entry.mergeEpoch == mergeEpoch
                {
                    kept.entries[step.serial] = entry
                    result.append(entry)
                    continue
                }
                var converted: [Step] = []
                for action in actions {
                    guard let step = Step(action, in: graph, mergeEpoch: mergeEpoch) else { break }
                    converted.append(step)
                }
                guard converted.count == actions.count else {
                    dropped += nearestFirst.count - position
                    break
                }
                let group = Group(name: step.name, time: step.time, steps: converted)
                let entry = GroupCache.Entry(
                    name: step.name, actionCount: actions.count, mergeEpoch: mergeEpoch, group: group,
                    bytes: bytes(of: group, layout: graph.layout),
                    named: namedObjects(of: [group], graph.layout).sorted(by: isOrdered))
                made += 1
                if step.serial != 0 { kept.entries[step.serial] = entry }
                result.append(entry)
            }
            return result
        }
        // Nearest first (the next undo, the next redo), then put back in stack order.
        var undo = keep(steps.undo, nearestFirst: Array(steps.undo.indices.reversed()))
        var redo = keep(steps.redo, nearestFirst: Array(steps.redo.indices.reversed()))
        cache = kept
        // The step limit: the oldest undo steps go first, then the farthest redo steps.
        while undo.count + redo.count > limits.maximumSteps {
            if undo.isEmpty { redo.removeLast() } else { undo.removeLast() }
            dropped += 1
        }
        // The byte limit, first on the groups' bytes alone, which every journal
        // holds whatever its header: a step over the limit by itself (a
        // cascade of 100,000 objects against 8 MiB) goes before the states
        // of the objects it names are taken.
        var groupsSize = (undo + redo).reduce(0) { $0 + $1.bytes.count }
        while groupsSize > limits.maximumBytes, let last = undo.popLast() ?? redo.popLast() {
            groupsSize -= last.bytes.count
            dropped += 1
        }
        undo.reverse()
        redo.reverse()
        var journal = UndoJournal(owner: owner, schemaHash: schemaHash(graph.layout), states: [], undo: [], redo: [])
        var header: [UInt8] = []
        func take() {
            journal.undo = undo.map(\.group)
            journal.redo = redo.map(\.group)
            journal.states = states(of: undo + redo, in: graph)
            header = journal.header()
        }
        take()
        // The byte limit: drop the oldest undo steps (then the farthest redo steps) until it fits,
        // several at a time when far over, so a large journal is not measured once per step.
        while !(undo.isEmpty && redo.isEmpty) {
            let size = encodedSize(header: header, groups: (undo.map(\.bytes), redo.map(\.bytes)))
            guard size > limits.maximumBytes else { break }
            let total = undo.count + redo.count
            let count = max(1, min(total, total * (size - limits.maximumBytes) / max(1, size)))
            let fromUndo = min(count, undo.count)
            undo.removeFirst(fromUndo)
            redo.removeFirst(count - fromUndo)
            dropped += count
            take()
        }
        return Capture(
            journal: journal, dropped: dropped, droppedForClosures: droppedForClosures, header: header,
            groupBytes: (undo.map(\.bytes), redo.map(\.bytes)), made: made)
    }

    /// Every object `groups` name (each group's ``GroupCache/Entry/named``),
    /// with its properties' hashes in `graph`, in identifier order: one
    /// merge of the groups' lists, already in order, rather than a set of
    /// them all made again at every save.
    static func states(of groups: [GroupCache.Entry], in graph: ObjectGraph) -> [SavedObject] {
        // Swift's sort finds the runs a concatenation of ordered lists holds.
        var objects = groups.flatMap(\.named)
        if groups.count > 1 { objects.sort(by: isOrdered) }
        var states: [SavedObject] = []
        states.reserveCapacity(objects.count)
        for object in objects where states.last?.object != object { states.append(state(of: object, in: graph)) }
        return states
    }

    /// The order of ``states``: by identifier, then entity.
    static func isOrdered(_ a: Object, _ b: Object) -> Bool {
        a.id != b.id ? a.id < b.id : a.entity < b.entity
    }

    private static func state(of object: Object, in graph: ObjectGraph) -> SavedObject {
        SavedObject(object: object, properties: graph.index[object.id].flatMap { propertyHashes(of: $0, in: graph) })
    }

    /// A hash of each of an object's properties: its attributes' text, then
    /// each relationship slot's targets by identifier, in schema order (the
    /// numbering ``Footprint`` uses); `nil` when it is not live. Cheap enough
    /// to take for every object a journal names at every save.
    static func propertyHashes(of ref: ObjectRef, in graph: ObjectGraph) -> [UInt64]? {
        guard graph.isLive(ref) else { return nil }
        let layout = graph.layout.entities[Int(ref.entity)]
        var hashes: [UInt64] = []
        hashes.reserveCapacity(layout.attributes.count + layout.links.count)
        var out = JournalBytesWriter()
        func take() {
            var hasher = ContentHasher()
            hasher.update(out.bytes)
            hashes.append(hasher.finalize())
            out.removeAll()
        }
        for (index, attribute) in layout.attributes.enumerated() {
            switch graph.stored(ref, index) {
            case .value(let value):
                if case .null = value { out.append(false) } else { out.append(ValueText.encode(value, as: attribute.type)) }
            case .blob(let blob): out.append(blob.path)
            }
            take()
        }
        for slot in layout.links.indices {
            let targets = graph.targets(ref, slot)
            out.append(targets.count)
            for target in targets { out.append(graph.tables[Int(target.entity)].ids[Int(target.row)]) }
            take()
        }
        return hashes
    }
}

extension UndoJournal.Step {
    /// The step by identifier, or `nil` when it cannot be kept: a conflict
    /// record's (kept in memory only), a value still on disk (a blob), or a
    /// link into entities with subentities (whose targets the journal, which
    /// names a link's targets by identifier alone, cannot tell apart).
    init?(_ step: UndoStep, in graph: ObjectGraph, mergeEpoch: Int) {
        func isPlain(_ ref: ObjectRef, _ slot: Int) -> Bool {
            graph.layout.entities[Int(ref.entity)].links[slot].hierarchy == nil
        }
        switch step {
        case .revertLinks(let changes, _, _, _):
            guard changes.allSatisfy({ isPlain($0.list.ref, $0.list.slot) }) else { return nil }
        case .restore(let record, _, _, _):
            guard record.links.allSatisfy({ isPlain($0.ref, Int($0.slot)) }), record.cuts.allSatisfy({ isPlain($0.list.ref, $0.list.slot) })
            else { return nil }
        default: break
        }
        func object(_ ref: ObjectRef) -> UndoJournal.Object {
            UndoJournal.Object(entity: Int(ref.entity), id: graph.tables[Int(ref.entity)].ids[Int(ref.row)])
        }
        func id(_ ref: ObjectRef, _ slot: Int32, _ row: Int32) -> UInt64? {
            guard row >= 0 else { return nil }
            let destination = graph.layout.entities[Int(ref.entity)].links[Int(slot)].destination
            return graph.tables[destination].ids[Int(row)]
        }
        func link(_ change: LinkChange) -> UndoJournal.Link {
            switch change {
            case .inserted(let ref, let slot, let target, let index):
                return .inserted(object(ref), slot: Int(slot), target: id(ref, slot, target) ?? 0, at: index)
            case .removed(let ref, let slot, let target, let index):
                return .removed(object(ref), slot: Int(slot), target: id(ref, slot, target) ?? 0, at: index)
            case .toOne(let ref, let slot, let old, let new):
                return .toOne(object(ref), slot: Int(slot), old: id(ref, slot, old), new: id(ref, slot, new))
            case .absent(let ref, let slot, let wasAbsent):
                return .absent(object(ref), slot: Int(slot), wasAbsent: wasAbsent)
            case .replaced(let ref, let slot, let old, let new):
                return .replaced(
                    object(ref), slot: Int(slot), old: old.compactMap { id(ref, slot, $0) }, new: new.compactMap { id(ref, slot, $0) })
            }
        }
        switch step {
        case .removal(let refs, let name):
            self = .removal(refs.map(object), name: name)
        case .setStored(let stored, let ref, let attribute, let name):
            guard case .value(let value) = stored else { return nil }
            self = .setValue(object(ref), attribute: attribute, value: value, name: name)
        case .revertLinks(let changes, let name, let epoch, let exact):
            self = .revertLinks(changes.map(link), name: name, exact: exact && epoch == mergeEpoch)
        case .restore(let record, let edits, let name, let epoch):
            var restore = UndoJournal.Restore(removed: [], lists: [], cuts: record.cuts.map(link), edits: [])
            for ref in record.removed {
                var values: [Value] = []
                for attribute in graph.layout.entities[Int(ref.entity)].attributes.indices {
                    guard case .value(let value) = graph.stored(ref, attribute) else { return nil }
                    values.append(value)
                }
                restore.removed.append(.init(object: object(ref), values: values))
            }
            for list in record.links {
                let isToMany = graph.layout.entities[Int(list.ref.entity)].links[Int(list.slot)].isToMany
                restore.lists.append(
                    .init(
                        object: object(list.ref), slot: Int(list.slot),
                        one: isToMany ? nil : id(list.ref, list.slot, list.one),
                        many: list.many.compactMap { id(list.ref, list.slot, $0) }, absent: list.absent))
            }
            restore.edits = edits.map { .init(object: object($0.key), attributes: $0.value.sorted()) }
                .sorted { $0.object.id < $1.object.id }
            self = .restore(restore, name: name, exact: epoch == mergeEpoch)
        case .insertConflictRecord, .removeConflictRecord:
            return nil
        }
    }
}
#endif
