#if !canImport(Darwin)
extension UndoJournal {
    /// What a step needs to find as the journal left it to be undone or
    /// redone exactly: per object it names, its presence (live or not, of its
    /// entity) and the properties the step reads or writes, numbered as
    /// ``propertyHashes(of:in:)`` numbers them (attributes, then relationship
    /// slots).
    ///
    /// This is the merge engine's rule for two edits of one object: they
    /// conflict only where they meet. A step and a change made elsewhere meet
    /// when the change added or removed an object the step names, or changed
    /// a property the step touches. A relationship counts on both of its
    /// ends, and a list counts whole: undo puts a list back as it was, so
    /// it cannot be folded into a list changed since. Taking back an insert
    /// (``Step/removal(_:name:)``) deletes the object, so it meets any change
    /// of it, as a delete meets an edit in a merge.
    struct Footprint {
        /// What a step touches of one object.
        struct Reach: Equatable {
            /// Every property.
            var all = false
            /// Property numbers; none with `all` false: its presence only.
            var properties: Set<Int> = []
        }

        private(set) var objects: [Object: Reach] = [:]

        mutating func presence(_ object: Object) {
            if objects[object] == nil { objects[object] = Reach() }
        }

        mutating func whole(_ object: Object) {
            objects[object, default: Reach()].all = true
        }

        mutating func property(_ number: Int, of object: Object) {
            objects[object, default: Reach()].properties.insert(number)
        }

        /// A relationship slot of `object`, and the inverse slot of each target.
        mutating func link(_ object: Object, slot: Int, targets: [UInt64?], _ layout: SchemaLayout) {
            let entity = layout.entities[object.entity]
            property(entity.attributes.count + slot, of: object)
            let link = entity.links[slot]
            let destination = layout.entities[link.destination]
            for case let id? in targets where id != 0 {
                property(destination.attributes.count + link.inverse, of: Object(entity: link.destination, id: id))
            }
        }

        /// Whether a change elsewhere (``UndoJournal/changes(in:)``) meets it.
        func meets(_ changes: [Object: Change]) -> Bool {
            objects.contains { object, reach in
                switch changes[object] {
                case nil: false
                case .presence: true
                case .properties(let changed): reach.all || !reach.properties.isDisjoint(with: changed)
                }
            }
        }
    }

    /// How an object a journal names differs now from what the journal was written for.
    enum Change: Equatable {
        /// Added or removed since (or now of another entity).
        case presence
        /// Live then and now, with these properties changed.
        case properties(Set<Int>)
    }

    /// The objects a journal names whose content differs in `graph` from
    /// what the journal was written for, with how: the work of the steps
    /// that are kept is only what they touch, so a change elsewhere to other
    /// properties of the same objects leaves them undoable.
    func changes(in graph: ObjectGraph) -> [Object: Change] {
        var changes: [Object: Change] = [:]
        for state in states {
            let ref = graph.index[state.object.id]
            let now = ref.flatMap { Int($0.entity) == state.object.entity ? UndoJournal.propertyHashes(of: $0, in: graph) : nil }
            switch (state.properties, now) {
            case (nil, nil): continue
            case (let then?, let now?):
                let changed = Set(then.indices.filter { then[$0] != now[$0] })
                if !changed.isEmpty { changes[state.object] = .properties(changed) }
            case (nil, _?), (_?, nil):
                // Added or removed since, or now of another entity.
                changes[state.object] = .presence
            }
        }
        return changes
    }
}

extension UndoJournal.Group {
    /// What the group's steps touch (``UndoJournal/Footprint``).
    func footprint(_ layout: SchemaLayout) -> UndoJournal.Footprint {
        var footprint = UndoJournal.Footprint()
        func note(_ link: UndoJournal.Link) {
            switch link {
            case .inserted(let object, let slot, let target, _), .removed(let object, let slot, let target, _):
                footprint.link(object, slot: slot, targets: [target], layout)
            case .toOne(let object, let slot, let old, let new):
                footprint.link(object, slot: slot, targets: [old, new], layout)
            case .absent(let object, let slot, _):
                footprint.link(object, slot: slot, targets: [], layout)
            case .replaced(let object, let slot, let old, let new):
                footprint.link(object, slot: slot, targets: old + new, layout)
            }
        }
        for step in steps {
            switch step {
            case .removal(let objects, _):
                objects.forEach { footprint.whole($0) }
            case .setValue(let object, let attribute, _, _):
                footprint.property(attribute, of: object)
            case .revertLinks(let links, _, _):
                links.forEach(note)
            case .restore(let restore, _, _):
                restore.removed.forEach { footprint.whole($0.object) }
                for list in restore.lists {
                    footprint.link(list.object, slot: list.slot, targets: list.many + [list.one], layout)
                }
                restore.cuts.forEach(note)
                for edits in restore.edits {
                    edits.attributes.forEach { footprint.property($0, of: edits.object) }
                }
            }
        }
        return footprint
    }
}
#endif
