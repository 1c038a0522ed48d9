/// Inserting, editing and linking through the dynamic API, each undoable.
extension ModelContext {
    /// Inserts an object, or — when the values given for a unique attribute,
    /// or for every attribute of a uniqueness constraint, match a live
    /// object's — updates that object instead (SwiftData's upsert), here and
    /// not at the next save, where SwiftData's store makes it.
    /// Uniqueness is checked against unsaved inserts too; a unique attribute
    /// left to its default is checked by ``save()``. A constraint with a
    /// relationship among its members needs ``insert(_:_:related:)``.
    ///
    /// - Returns: the new object's identifier, or the updated object's.
    /// - Throws: ``ModelError/graph(_:)`` for unknown names or wrong types.
    /// - Undo: one step, "Insert ENTITY" (or "Update ENTITY" for an upsert).
    @discardableResult
    public func insert(_ entity: String, _ values: [String: Value] = [:]) throws(ModelError) -> PersistentIdentifier {
        try insert(entity, values, related: [:])
    }

    /// Inserts an object with relationships, or — when the values given for a
    /// unique attribute, or for every member of a uniqueness constraint,
    /// match a live object's — updates that object instead (SwiftData's
    /// upsert).
    ///
    /// `related` sets relationships as ``setRelated(_:for:of:)`` would, as
    /// part of the insert: a constraint with a to-one relationship among its
    /// members matches on the object given for it (an empty list is `nil`,
    /// which matches nothing). On an upsert, the given values and
    /// relationships replace the matched object's.
    ///
    /// ```swift
    /// let flow = try context.insert("Flow", ["label": .string("Login")], related: ["snapshot": [snapshot]])
    /// ```
    ///
    /// An attribute not given starts at its default, `nil` when optional, or
    /// its type's zero (``Schema/Attribute/initialValue``); a front end that
    /// wants every ``Schema/Attribute/isRequired`` one given checks first.
    /// ``upsertMatch(_:_:related:)`` tells beforehand whether this inserts or updates.
    ///
    /// - Returns: the new object's identifier, or the updated object's.
    /// - Throws: ``ModelError/graph(_:)`` for unknown names, wrong types, or a
    ///   related object that is not live or not of the relationship's
    ///   destination; nothing changes then.
    /// - Undo: one step, "Insert ENTITY" (or "Update ENTITY" for an upsert).
    @discardableResult
    public func insert(
        _ entity: String, _ values: [String: Value],
        related: [String: [PersistentIdentifier]]
    ) throws(ModelError) -> PersistentIdentifier {
        let plan = try insertPlan(entity, values, related: related)
        let layout = graph.layout.entities[plan.entity]
        if let existing = plan.existing {
            for (name, value) in values.sorted(by: { $0.key < $1.key }) {
                guard let index = layout.attributeIndex[name], graph.value(existing, index) != value else { continue }
                performSetValue(value, existing, index, name: "Update \(entity)")
            }
            for link in plan.links where graph.tables[plan.entity].links[link.slot].targets(of: Int(existing.row)) != link.rows {
                replaceLinks(existing, link.slot, with: link.rows, name: "Update \(entity)")
            }
            return graph.identifier(for: existing)
        }
        let ref = try insertRow(entity: plan.entity, values: plan.initial)
        for link in plan.links where !link.rows.isEmpty {
            replaceLinks(ref, link.slot, with: link.rows, name: "Insert \(entity)")
        }
        return graph.identifier(for: ref)
    }

    /// The live object that ``insert(_:_:related:)`` with these arguments
    /// would update instead of inserting a new one (its upsert match), or
    /// `nil` when it would insert. Lets a caller say which it will be, or
    /// check what a new object needs, before anything changes.
    ///
    /// ```swift
    /// if let existing = try context.upsertMatch("AnimalCategory", ["name": .string("Bird")]) {
    ///     print("updates \(existing)")
    /// }
    /// ```
    ///
    /// - Throws: what the insert would throw for these arguments
    ///   (``ModelError/graph(_:)``: unknown names, wrong types, related
    ///   objects not live or of the wrong entity).
    /// - Complexity: O(unique groups) once their indexes exist.
    /// - Undo: none; nothing changes.
    public func upsertMatch(
        _ entity: String, _ values: [String: Value],
        related: [String: [PersistentIdentifier]] = [:]
    ) throws(ModelError) -> PersistentIdentifier? {
        try insertPlan(entity, values, related: related).existing.map(graph.identifier(for:))
    }

    /// What an insert will do, checked before anything changes: the entity,
    /// every attribute's value (given, or its initial value), the
    /// relationships' rows by slot, and the object an upsert updates.
    private func insertPlan(_ entity: String, _ values: [String: Value], related: [String: [PersistentIdentifier]])
        throws(ModelError) -> (entity: Int, initial: [Value], links: [(slot: Int, rows: [Int32])], existing: ObjectRef?)
    {
        let entityIndex: Int
        do { entityIndex = try graph.entityIndex(entity) } catch { throw .graph(error) }
        let layout = graph.layout.entities[entityIndex]
        var initial = layout.attributes.map(\.initialValue)
        for (name, value) in values {
            guard let attribute = layout.attributeIndex[name] else {
                throw .graph(.unknownAttribute(entity: entity, attribute: name))
            }
            do {
                initial[attribute] = try graph.checked(value, entity: entityIndex, attribute: attribute)
                try core.checkModelValue(value, entity: entity, attribute: name)
            } catch { throw .graph(error) }
        }
        // By slot, in declaration order, so edits (and their undo) run in one order.
        var links: [(slot: Int, rows: [Int32])] = []
        for (name, targets) in related {
            do { links.append(try graph.resolveTargets(targets, for: name, entity: entityIndex)) } catch { throw .graph(error) }
        }
        links.sort { $0.slot < $1.slot }
        // Only a value the caller gave selects an object to update: a default
        // shared by every insert (a `UUID()` evaluated once) must not turn each
        // insert into an update of the first object.
        func given(_ member: Int) -> Value? {
            guard let slot = layout.linkSlot(ofMember: member) else {
                return values[layout.attributes[member].name] == nil ? nil : initial[member]
            }
            guard let link = links.first(where: { $0.slot == slot }) else { return nil }
            return link.rows.first.map { graph.uniqueKey(ofLinkTo: layout.links[slot].ref($0)) }
                ?? .null
        }
        for group in layout.uniqueGroups {
            let key = group.compactMap(given)
            guard key.count == group.count,
                let existing = graph.firstObject(of: entityIndex, inUniqueGroup: group, holding: key)
            else { continue }
            return (entityIndex, initial, links, existing)
        }
        return (entityIndex, initial, links, nil)
    }

    /// The uniqueness rules that setting these values and relationships on
    /// an object would break, asked before anything changes: for each unique
    /// attribute or uniqueness constraint with a member among them, the other
    /// live objects that already hold what the object would then hold. The
    /// rule is the one ``save()`` applies, so a front end can refuse an edit
    /// when it is made rather than at save. Constraints the edit does not
    /// touch are not asked (a clash already there is the save's to report).
    ///
    /// ```swift
    /// let conflicts = try context.uniquenessConflicts(setting: ["name": .string("Bird")], of: mammals)
    /// if conflicts.isEmpty { try context.setValue(.string("Bird"), for: "name", of: mammals) }
    /// ```
    ///
    /// - Parameters:
    ///   - values: new attribute values, as ``setValue(_:for:of:)`` takes them.
    ///   - related: new contents of relationships, as ``setRelated(_:for:of:)``
    ///     takes them; only a to-one can be a constraint's member.
    ///   - id: the object to be edited.
    /// - Returns: one ``ValidationIssue`` of kind ``ValidationIssue/Kind/unique``
    ///   per rule broken — the object, the rule's members (comma-separated) and
    ///   the other holders — as a save would report it after the edit; empty
    ///   when the edit breaks none.
    /// - Throws: ``ModelError/graph(_:)`` for what the setters would refuse:
    ///   an unknown or deleted object, an unknown name, a value of the wrong
    ///   type, a related object that is not live or of the wrong entity.
    /// - Complexity: O(constraints × members) once their indexes exist (the
    ///   first question about a constraint builds its index, O(objects of the entity)).
    /// - Undo: none; nothing changes.
    public func uniquenessConflicts(
        setting values: [String: Value], related: [String: [PersistentIdentifier]?] = [:],
        of id: PersistentIdentifier
    ) throws(ModelError) -> [ValidationIssue] {
        let ref: ObjectRef
        var proposed: [Int: Value] = [:]
        do {
            ref = try graph.ref(for: id)
            let entity = Int(ref.entity)
            let layout = graph.layout.entities[entity]
            for (name, value) in values {
                let index = try graph.attributeIndex(name, entity: entity)
                proposed[index] = try graph.checked(value, entity: entity, attribute: index)
                try core.checkModelValue(value, entity: id.entityName, attribute: name)
            }
            for (name, targets) in related {
                let (_, slot, rows) = try graph.resolveTargets(targets ?? [], for: name, of: id)
                let link = layout.links[slot]
                guard !link.isToMany else { continue }
                proposed[layout.attributes.count + slot] =
                    rows.first.map {
                        graph.uniqueKey(ofLinkTo: link.ref($0))
                    } ?? .null
            }
        } catch {
            throw .graph(error)
        }
        let layout = graph.layout.entities[Int(ref.entity)]
        return graph.uniquenessClashes(of: ref, proposing: proposed).map { clash in
            ValidationIssue(
                kind: .unique, object: id, relationship: layout.names(ofGroup: clash.group),
                related: clash.others.map(graph.identifier(for:)))
        }
    }

    /// Appends a new object with checked values (one per attribute), undoably:
    /// what every insert that is not an upsert ends with.
    ///
    /// - Throws: ``ModelError/graph(_:)`` when the document is full.
    func insertRow(entity: Int, values: [Value]) throws(ModelError) -> ObjectRef {
        do { try graph.checkRoomForObject(entity: entity) } catch { throw .graph(error) }
        guard let id = sharedDocument.allocateID() else { throw .graph(ObjectGraph.identifiersExhausted(entity: graph.layout.entities[entity].name)) }
        let ref = graph.insertObject(entity: entity, values: values, id: id)
        tracking.inserted.insert(ref)
        noteObservedChange(ref)
        // Checked first: forming the undo step costs an allocation per insert.
        if undoManager?.isUndoRegistrationEnabled == true {
            let name = graph.layout.entities[entity].name
            registerUndo("Insert \(name)", .removal([ref], name: "Insert \(name)"))
        } else {
            scheduleAutosaveAfterEdit()
            graph._checkInvariants()
            publishObservedChanges()
        }
        return ref
    }

    /// Sets an attribute.
    ///
    /// - Throws: ``ModelError/graph(_:)`` for an unknown or deleted object, an
    ///   unknown attribute or a value of the wrong type.
    /// - Undo: one step, "Set ENTITY.ATTRIBUTE". Setting an any-value to `.null`
    ///   (none) or removing collection elements is a set like any other.
    public func setValue(_ value: Value, for attribute: String, of id: PersistentIdentifier) throws(ModelError) {
        let ref: ObjectRef
        let index: Int
        let checked: Value
        do {
            ref = try graph.ref(for: id)
            index = try graph.attributeIndex(attribute, entity: Int(ref.entity))
            checked = try graph.checked(value, entity: Int(ref.entity), attribute: index)
            try core.checkModelValue(value, entity: id.entityName, attribute: attribute)
        } catch {
            throw .graph(error)
        }
        performSetValue(checked, ref, index, name: "Set \(id.entityName).\(attribute)")
    }

    func performSetValue(_ value: Value, _ ref: ObjectRef, _ attribute: Int, name: String) {
        performSetStored(.value(value), ref, attribute, name: name)
    }

    /// Sets a cell; undo puts the old cell back — a blob still on disk stays unread.
    func performSetStored(_ stored: StoredValue, _ ref: ObjectRef, _ attribute: Int, name: String) {
        let old = graph.stored(ref, attribute)
        graph.setStored(stored, ref, attribute)
        touch(ref, attribute: attribute)
        modelsChanged(ref, graph.layout.entities[Int(ref.entity)].attributes[attribute].name)
        registerUndo(name, .setStored(old, ref, attribute: attribute, name: name))
    }

    /// Adds an object to a relationship (sets it, for to-one); the inverse follows.
    ///
    /// - Complexity: O(1) amortized when either side is a to-one, whatever the
    ///   size of the to-many linked into; between two to-manys, O(the shorter list).
    /// - Undo: one step, "Link ENTITY.RELATIONSHIP"; undo takes back exactly
    ///   what it changed, order included. What undo keeps is O(1): the changes
    ///   themselves (`LinkChange` records), never the lists.
    public func link(_ id: PersistentIdentifier, _ relationship: String, to target: PersistentIdentifier) throws(ModelError) {
        let (source, slot, destination) = try resolveLink(id, relationship, target)
        editLinks(name: "Link \(id.entityName).\(relationship)") { $0.addLink(source, slot, destination) }
    }

    /// Removes an object from a relationship; the inverse follows.
    ///
    /// - Complexity: O(1) for a to-one; O(the list) to find the member in a to-many.
    /// - Undo: one step, "Unlink ENTITY.RELATIONSHIP".
    public func unlink(_ id: PersistentIdentifier, _ relationship: String, from target: PersistentIdentifier) throws(ModelError) {
        let (source, slot, destination) = try resolveLink(id, relationship, target)
        editLinks(name: "Unlink \(id.entityName).\(relationship)") { $0.removeLink(source, slot, destination) }
    }

    /// Replaces what a relationship holds, in the given order.
    ///
    /// `nil` leaves an optional to-many (`[Tag]?`) holding no collection, as
    /// SwiftData's `tags = nil` does, and empties any other relationship; `[]`
    /// gives an optional to-many an empty collection.
    /// - Complexity: O(the old and new lists); setting a to-one is O(1)
    ///   amortized however large the inverse to-many it joins.
    /// - Undo: one step, "Set ENTITY.RELATIONSHIP"; undo restores `nil` and `[]` as they were.
    public func setRelated(_ targets: [PersistentIdentifier]?, for relationship: String, of id: PersistentIdentifier)
        throws(ModelError)
    {
        let (source, slot, rows): (ObjectRef, Int, [Int32])
        do { (source, slot, rows) = try graph.resolveTargets(targets ?? [], for: relationship, of: id) } catch { throw .graph(error) }
        replaceLinks(source, slot, with: rows, absent: targets == nil, name: "Set \(id.entityName).\(relationship)")
    }

    /// Makes a relationship hold exactly `rows` (or, with `absent`, an optional
    /// to-many no collection), undoably.
    func replaceLinks(_ source: ObjectRef, _ slot: Int, with rows: [Int32], absent: Bool = false, name: @autoclosure () -> String) {
        editLinks(name: name()) { $0.replaceLinks(source, slot, with: rows, absent: absent) }
    }

    /// Sets or clears a to-one, as ``replaceLinks(_:_:with:absent:name:)``
    /// does, without an array of rows.
    func setToOne(_ source: ObjectRef, _ slot: Int, to row: Int32?, name: @autoclosure () -> String) {
        editLinks(name: name()) { $0.setToOne(source, slot, to: row) }
    }

    private func resolveLink(_ id: PersistentIdentifier, _ relationship: String, _ target: PersistentIdentifier)
        throws(ModelError) -> (ObjectRef, Int, ObjectRef)
    {
        do { return try graph.resolveLink(id, relationship, target) } catch { throw .graph(error) }
    }

    /// The most link changes whose storage a context keeps for its next edit
    /// (``spareLinkJournal``); a to-one set records at most six.
    static let spareLinkJournalCapacity = 64

    /// Runs a link edit with the graph journaling what it changes, tracks the
    /// lists changed, and registers an undo that takes back exactly those
    /// changes. What undo keeps is the journal — O(1) per list changed by a
    /// link or an unlink — and never shares a live list's storage, so the next
    /// append to the list does not copy it.
    func editLinks(name: @autoclosure () -> String, _ edit: (ObjectGraph) -> Void) {
        let outer = graph.linkJournal
        // The journal's storage is reused from edit to edit while no undo keeps it:
        // a link edit then allocates nothing for it.
        graph.linkJournal = spareLinkJournal.take() ?? []
        edit(graph)
        var changes = graph.linkJournal ?? []
        graph.linkJournal = outer
        touchLinks(changes)
        // An edit that changed nothing is still a step, as every public edit is one.
        guard let undoManager, undoManager.isUndoRegistrationEnabled else {
            if !changes.isEmpty { editedUnrecorded() }
            // Only a typical edit's storage is kept: the journal of a large one (a to-many
            // set whole) would otherwise stay allocated for the context's life.
            if changes.capacity <= Self.spareLinkJournalCapacity {
                changes.removeAll(keepingCapacity: true)
                spareLinkJournal = changes
            }
            scheduleAutosaveAfterEdit()
            graph._checkInvariants()
            return publishObservedChanges()
        }
        let name = name()
        registerUndo(name, .revertLinks(changes, name: name, epoch: mergeEpoch, exact: true))
    }

    /// Takes back recorded link changes and registers taking back that in turn (redo).
    ///
    /// - Parameters:
    ///   - changes: what the action being undone (or redone) changed.
    ///   - exact: whether the graph is still as the action left it; after a
    ///     merge the changes are taken back rebased on what the merge did
    ///     (``ObjectGraph/rebase(_:)``).
    func revertLinks(_ changes: [LinkChange], name: String, exact: Bool = true) {
        let outer = graph.linkJournal
        graph.linkJournal = []
        if exact {
            graph.revert(changes)
        } else {
            _ = graph.rebase(changes)
            // Other undo actions recorded changes this rebase may have altered: they rebase too.
            mergeEpoch += 1
            tracking.rebasedSinceSave = true
            tracking.needsRebuild = true
        }
        let inverse = graph.linkJournal ?? []
        graph.linkJournal = outer
        touchLinks(changes)
        touchLinks(inverse)
        // A rebase's own changes are journaled whole, but its redo rebases too, as it did before.
        registerUndo(name, .revertLinks(inverse, name: name, epoch: mergeEpoch, exact: exact))
    }

    /// Tracks every list the changes touched (each once in a run of changes to it).
    func touchLinks(_ changes: [LinkChange]) {
        var last: (ref: ObjectRef, slot: Int)?
        for change in changes {
            let list = change.list
            if let last, last.ref == list.ref, last.slot == list.slot { continue }
            touchLink(list.ref, list.slot)
            last = list
        }
    }

    func touchLink(_ ref: ObjectRef, _ slot: Int) {
        let layout = graph.layout.entities[Int(ref.entity)]
        if slot < layout.declaredLinkCount {
            touch(ref, propertyNumber: layout.attributes.count + slot)
            if let name = layout.links[slot].name { modelsChanged(ref, name) }
        }
    }
}
