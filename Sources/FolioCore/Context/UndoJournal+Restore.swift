#if !canImport(Darwin)
/// Turning a journal read from disk back into undo steps on a context's graph.
extension UndoJournal {
    /// Every object the steps name, link targets included: the journal
    /// records each as it was saved (``states``), a superset of every
    /// step's ``Footprint``.
    func namedObjects(_ layout: SchemaLayout) -> Set<Object> {
        Self.namedObjects(of: undo + redo, layout)
    }

    /// Every object `groups` name, link targets included.
    static func namedObjects(of groups: [Group], _ layout: SchemaLayout) -> Set<Object> {
        var objects = Set<Object>()
        func note(_ object: Object, _ slot: Int, _ ids: [UInt64?]) {
            objects.insert(object)
            let destination = layout.entities[object.entity].links[slot].destination
            for id in ids { if let id { objects.insert(Object(entity: destination, id: id)) } }
        }
        func note(_ link: Link) {
            switch link {
            case .inserted(let object, let slot, let target, _), .removed(let object, let slot, let target, _):
                note(object, slot, [target])
            case .toOne(let object, let slot, let old, let new): note(object, slot, [old, new])
            case .absent(let object, _, _): objects.insert(object)
            case .replaced(let object, let slot, let old, let new): note(object, slot, old + new)
            }
        }
        for group in groups {
            for step in group.steps {
                switch step {
                case .removal(let list, _): objects.formUnion(list)
                case .setValue(let object, _, _, _): objects.insert(object)
                case .revertLinks(let links, _, _): links.forEach(note)
                case .restore(let restore, _, _):
                    objects.formUnion(restore.removed.map(\.object))
                    for list in restore.lists { note(list.object, list.slot, list.many + [list.one]) }
                    restore.cuts.forEach(note)
                    objects.formUnion(restore.edits.map(\.object))
                }
            }
        }
        return objects
    }

    /// The undo and redo stacks as ``UndoStep``s on `graph`, where what each
    /// step touches must be as the journal was written for: no step's
    /// ``Footprint`` meets ``changes(in:)``.
    ///
    /// Objects the steps name that the graph no longer holds (deleted in the
    /// journal's session, to be put back by an undo or a redo) are added as
    /// deleted rows first, with the values the journal kept for them: undo
    /// revives rows, as it does within a session.
    ///
    /// - Throws: ``UndoJournalError/damaged(_:)`` when the steps do not fit
    ///   the graph (an object of another entity, a link to an object of the
    ///   wrong entity); `graph` may then hold added deleted rows, which no
    ///   save writes.
    func undoSteps(in graph: ObjectGraph, mergeEpoch: Int) throws(UndoJournalError)
        -> (undo: [UndoManager.RecordedStep], redo: [UndoManager.RecordedStep])
    {
        // Values kept for objects the document no longer holds, from the restore steps.
        var keptValues: [Object: [Value]] = [:]
        for group in undo + redo {
            for step in group.steps {
                guard case .restore(let restore, _, _) = step else { continue }
                for removed in restore.removed where keptValues[removed.object] == nil {
                    keptValues[removed.object] = removed.values
                }
            }
        }
        // In identifier order, so the rows added are in a stable order.
        let named = namedObjects(graph.layout).sorted(by: Self.isOrdered)
        var missing: [Object] = []
        for object in named {
            if let ref = graph.index[object.id] {
                guard Int(ref.entity) == object.entity else { throw .damaged("object \(object.id) is of another entity") }
            } else {
                missing.append(object)
            }
        }
        if !missing.isEmpty {
            var added: [ObjectRef] = []
            // The largest identifier leaves none for new objects: Folio never hands it out (the loader refuses it too).
            if let stranger = missing.first(where: { $0.id == .max }) {
                throw .inconsistent("object \(stranger.id) is not an identifier Folio hands out")
            }
            for object in missing {
                var values = keptValues[object] ?? graph.layout.entities[object.entity].attributes.map(\.initialValue)
                for index in values.indices {
                    do { values[index] = try graph.checked(values[index], entity: object.entity, attribute: index) } catch {
                        throw .damaged("a value the schema refuses for object \(object.id)")
                    }
                }
                added.append(graph.insertObject(entity: object.entity, values: values, id: object.id))
            }
            // Deleted rows, as a delete in the journal's session left them: no
            // links yet (the steps put them back), out of every index but the identifiers'.
            _ = graph.removeObjects(added)
        }
        func ref(_ object: Object) throws(UndoJournalError) -> ObjectRef {
            guard let ref = graph.index[object.id], Int(ref.entity) == object.entity else {
                throw .damaged("object \(object.id) is missing")
            }
            return ref
        }
        func row(_ id: UInt64?, of object: Object, slot: Int) throws(UndoJournalError) -> Int32 {
            guard let id else { return -1 }
            // A link into entities with subentities stores more than a row: never kept (see `capture`).
            guard graph.layout.entities[object.entity].links[slot].hierarchy == nil else {
                throw .inconsistent("a link into entities with subentities, which a journal never holds")
            }
            let destination = graph.layout.entities[object.entity].links[slot].destination
            return Int32(try ref(Object(entity: destination, id: id)).row)
        }
        /// A change of a to-one on a to-many slot (or the reverse) would break
        /// the columns' shapes: refused here, since the graph's primitives trust them.
        func checkKind(_ object: Object, _ slot: Int, toMany: Bool) throws(UndoJournalError) {
            guard graph.layout.entities[object.entity].links[slot].isToMany == toMany else {
                throw .damaged("a \(toMany ? "list" : "to-one") change on a relationship that is not one")
            }
        }
        func change(_ link: Link) throws(UndoJournalError) -> LinkChange {
            switch link {
            case .inserted(let object, let slot, _, _), .removed(let object, let slot, _, _), .absent(let object, let slot, _),
                .replaced(let object, let slot, _, _):
                try checkKind(object, slot, toMany: true)
            case .toOne(let object, let slot, _, _):
                try checkKind(object, slot, toMany: false)
            }
            switch link {
            case .inserted(let object, let slot, let target, let index):
                return .inserted(try ref(object), slot: Int32(slot), target: try row(target, of: object, slot: slot), at: index)
            case .removed(let object, let slot, let target, let index):
                return .removed(try ref(object), slot: Int32(slot), target: try row(target, of: object, slot: slot), at: index)
            case .toOne(let object, let slot, let old, let new):
                return .toOne(
                    try ref(object), slot: Int32(slot), old: try row(old, of: object, slot: slot), new: try row(new, of: object, slot: slot))
            case .absent(let object, let slot, let wasAbsent):
                return .absent(try ref(object), slot: Int32(slot), wasAbsent: wasAbsent)
            case .replaced(let object, let slot, let old, let new):
                var oldRows: [Int32] = []
                for id in old { oldRows.append(try row(id, of: object, slot: slot)) }
                var newRows: [Int32] = []
                for id in new { newRows.append(try row(id, of: object, slot: slot)) }
                return .replaced(try ref(object), slot: Int32(slot), old: oldRows, new: newRows)
            }
        }
        func step(_ step: Step) throws(UndoJournalError) -> UndoStep {
            switch step {
            case .removal(let objects, let name):
                var refs: [ObjectRef] = []
                for object in objects { refs.append(try ref(object)) }
                return .removal(refs, name: name)
            case .setValue(let object, let attribute, let value, let name):
                let checked: Value
                do { checked = try graph.checked(value, entity: object.entity, attribute: attribute) } catch {
                    throw .damaged("a value the schema refuses for object \(object.id)")
                }
                return .setStored(.value(checked), try ref(object), attribute: attribute, name: name)
            case .revertLinks(let links, let name, let exact):
                var changes: [LinkChange] = []
                for link in links { changes.append(try change(link)) }
                // A step recorded before a merge keeps rebasing: an epoch no context is at.
                return .revertLinks(changes, name: name, epoch: mergeEpoch, exact: exact)
            case .restore(let restore, let name, let exact):
                var record = DeletionRecord()
                for removed in restore.removed { record.removed.append(try ref(removed.object)) }
                for list in restore.lists {
                    let isToMany = graph.layout.entities[list.object.entity].links[list.slot].isToMany
                    guard isToMany ? list.one == nil : list.many.isEmpty && !list.absent else {
                        throw .damaged("a list that does not fit its relationship")
                    }
                    var many: [Int32] = []
                    for id in list.many { many.append(try row(id, of: list.object, slot: list.slot)) }
                    record.links.append(
                        LinkListSnapshot(
                            ref: try ref(list.object), slot: Int32(list.slot),
                            one: try row(list.one, of: list.object, slot: list.slot), many: many, absent: list.absent))
                }
                for cut in restore.cuts { record.cuts.append(try change(cut)) }
                var edits: [ObjectRef: Set<Int>] = [:]
                for edit in restore.edits { edits[try ref(edit.object)] = Set(edit.attributes) }
                return .restore(record, edits: edits, name: name, epoch: exact ? mergeEpoch : mergeEpoch &- 1)
            }
        }
        func recorded(_ groups: [Group]) throws(UndoJournalError) -> [UndoManager.RecordedStep] {
            var result: [UndoManager.RecordedStep] = []
            for group in groups {
                var steps: [UndoStep] = []
                for journaled in group.steps { steps.append(try step(journaled)) }
                result.append(UndoManager.RecordedStep(name: group.name, time: group.time, steps: steps))
            }
            return result
        }
        return (try recorded(undo), try recorded(redo))
    }
}
#endif
