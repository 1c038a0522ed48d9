/// Conflicts a merge recorded in the document, and resolving them one by one.
extension MergeConflict {
    /// What to keep when resolving a conflict with ``ModelContext/resolve(_:keeping:)``.
    public enum Resolution: Sendable, Hashable {
        /// The document as the merge left it (for a cell both sides changed: ours).
        case merged
        /// The version of our side.
        case ours
        /// The version of their side.
        case theirs
        /// The version both sides started from.
        case base
        /// A version of your own: ``MergeConflict/Content/value(_:)`` for an
        /// attribute or a dictionary key, ``MergeConflict/Content/related(_:)`` for a
        /// relationship, ``MergeConflict/Content/object(_:)`` for a whole object.
        case content(Content)
    }
}

extension MergeConflict {
    /// Whether this conflict concerns a whole object (one a merge removed,
    /// or, for `deny`, brought back) rather than one property's value:
    /// ``Kind/deletedAndEdited``, ``Kind/cascade``, ``Kind/uniqueness`` and
    /// ``Kind/deny``, whose versions are ``Content/object(_:)``, though the
    /// last three name the property whose rule made them.
    public var concernsWholeObject: Bool {
        switch kind {
        case .deletedAndEdited, .cascade, .uniqueness, .deny: return true
        case .value, .danglingLink, .linkTaken, .count: return property == nil
        }
    }
}

extension ModelContext {
    /// The conflicts merges recorded in this document that are not resolved
    /// yet, by object identifier, then property.
    ///
    /// A merge of two versions of a document (``ObjectGraph/merge(base:ours:theirs:)``,
    /// `folio merge`, or Git through `folio git setup`) keeps one choice in
    /// the document and records what it did not keep here, so nothing either
    /// side did is lost. Conflicts are saved with the document until resolved
    /// (``resolve(_:keeping:)``); a document with conflicts left opens, edits
    /// and saves like any other. O(conflicts).
    public var conflicts: [MergeConflict] {
        mergeSavedChanges()
        return graph.conflicts
    }

    /// Resolves one recorded conflict: the document takes the version
    /// `resolution` names, and the record goes.
    ///
    /// - For a cell (an attribute, one key of a dictionary, a relationship):
    ///   the cell is set to the chosen version; a version that is `nil` (their
    ///   side removed the key) removes the key.
    /// - For a whole object a merge removed (`deletedAndEdited`, `cascade`,
    ///   `uniqueness`): choosing a side that holds the object brings it back
    ///   with that side's values and its identifier, linked to the objects of
    ///   those links that still exist; ``MergeConflict/Resolution/merged``
    ///   leaves it deleted.
    /// - For a whole object a merge kept (`deny`): choosing a side that holds
    ///   no object deletes it (its delete rules apply).
    /// - `danglingLink`, `linkTaken` and `count` record the merged document's
    ///   state: ``MergeConflict/Resolution/merged`` accepts it; a side or a
    ///   content sets the relationship to it.
    ///
    /// - Throws: ``ModelError/conflictNotRecorded(_:)`` when the document
    ///   records no such conflict; the edit's own errors (an unknown object,
    ///   a value of the wrong type), with nothing changed.
    /// - Undo: one step, "Resolve Conflict": undo restores the edit and the record.
    public func resolve(_ conflict: MergeConflict, keeping resolution: MergeConflict.Resolution) throws(ModelError) {
        mergeSavedChanges()
        guard let index = graph.conflicts.firstIndex(of: conflict) else { throw .conflictNotRecorded(conflict) }
        let chosen: MergeConflict.Content?
        switch resolution {
        case .merged: chosen = nil
        case .ours: chosen = conflict.ours
        case .theirs: chosen = conflict.theirs
        case .base: chosen = conflict.base
        case .content(let content): chosen = content
        }
        // Everything that can fail is checked before anything changes, so a
        // failing resolution leaves the document, the records and the undo stacks as they were.
        if resolution != .merged { try check(chosen, for: conflict) }
        let registered = undoRegistrationCount
        undoManager?.closeAutomaticGroup()
        undoManager?.beginUndoGrouping()
        do {
            if resolution != .merged { try apply(chosen, to: conflict) }
        } catch {
            undoManager?.endUndoGrouping()
            // Not reached after the checks; should an edit still fail halfway, what it
            // changed is taken back when this is the outermost group (else by its owner).
            if registered != undoRegistrationCount, let undoManager, undoManager.groupingLevel == 0 { undoManager.undo() }
            throw error
        }
        removeConflictRecord(at: index)
        undoManager?.setActionName("Resolve Conflict")
        undoManager?.endUndoGrouping()
    }

    /// Throws what applying `content` to `conflict` would throw, changing nothing.
    private func check(_ content: MergeConflict.Content?, for conflict: MergeConflict) throws(ModelError) {
        let id = conflict.id
        do throws(GraphError) {
            let entity = try graph.entityIndex(id.entityName)
            let layout = graph.layout.entities[entity]
            guard !conflict.concernsWholeObject, let property = conflict.property else {
                switch content {
                case nil: return
                case .object(let properties)?:
                    for (name, content) in properties {
                        switch content {
                        case .value(let value):
                            guard let attribute = layout.attributeIndex[name] else { continue }
                            _ = try graph.checked(value, entity: entity, attribute: attribute)
                        case .related(let targets):
                            guard layout.linkIndex[name] != nil else { continue }
                            _ = try graph.resolveTargets(targets.filter(graph.contains), for: name, entity: entity)
                        case .object: continue
                        }
                    }
                    return
                case .value?, .related?:
                    throw GraphError.typeMismatch(
                        entity: id.entityName, attribute: property(of: conflict),
                        expected: "an object's values", value: "a single value")
                }
            }
            _ = try graph.ref(for: id)
            switch content {
            case .value(let value)?:
                let attribute = try graph.attributeIndex(property, entity: entity)
                if let key = conflict.key {
                    _ = try graph.checked(.dictionary([key: value]), entity: entity, attribute: attribute)
                } else {
                    _ = try graph.checked(value, entity: entity, attribute: attribute)
                }
            case .related(let targets)?:
                _ = try graph.resolveTargets(targets.filter(graph.contains), for: property, entity: entity)
            case nil:
                if conflict.key == nil, layout.linkIndex[property] == nil {
                    let attribute = try graph.attributeIndex(property, entity: entity)
                    _ = try graph.checked(.null, entity: entity, attribute: attribute)
                }
            case .object?:
                throw GraphError.typeMismatch(
                    entity: id.entityName, attribute: property, expected: "one property's value",
                    value: "a whole object")
            }
        } catch {
            throw .graph(error)
        }
    }

    private func property(of conflict: MergeConflict) -> String { conflict.property ?? "(whole object)" }

    /// Sets what `conflict` concerns to `content` (`nil`: the side removed it).
    private func apply(_ content: MergeConflict.Content?, to conflict: MergeConflict) throws(ModelError) {
        let id = conflict.id
        guard !conflict.concernsWholeObject, let property = conflict.property else {
            switch content {
            case .object(let properties)?: try restoreObject(id, properties)
            case nil:
                if graph.contains(id) { try delete(id) }
            case .value?, .related?:
                throw .graph(
                    .typeMismatch(
                        entity: id.entityName, attribute: property(of: conflict),
                        expected: "an object's values", value: "a single value"))
            }
            return
        }
        guard graph.contains(id) else {
            throw .graph(.objectNotFound(id))
        }
        switch content {
        case .value(let value)?:
            if let key = conflict.key {
                var dictionary: [String: Value] = [:]
                if case .dictionary(let current) = try self.value(property, of: id) { dictionary = current }
                dictionary[key] = value
                try setValue(.dictionary(dictionary), for: property, of: id)
            } else {
                try setValue(value, for: property, of: id)
            }
        case .related(let targets)?:
            try setRelated(targets.filter(graph.contains), for: property, of: id)
        case nil:
            if let key = conflict.key {
                if case .dictionary(var dictionary) = try self.value(property, of: id) {
                    dictionary[key] = nil
                    try setValue(.dictionary(dictionary), for: property, of: id)
                }
            } else if isRelationship(property, of: id) {
                try setRelated(nil, for: property, of: id)
            } else {
                try setValue(.null, for: property, of: id)
            }
        case .object?:
            throw .graph(
                .typeMismatch(
                    entity: id.entityName, attribute: property, expected: "one property's value",
                    value: "a whole object"))
        }
    }

    /// Whether `name` is a relationship of `id`'s entity (else an attribute, or nothing).
    private func isRelationship(_ name: String, of id: PersistentIdentifier) -> Bool {
        guard let entity = try? graph.entityIndex(id.entityName) else { return false }
        return graph.layout.entities[entity].linkIndex[name] != nil
    }

    /// Brings back (or overwrites) object `id` with the recorded `properties`:
    /// attributes as recorded, relationships to the objects that still exist.
    private func restoreObject(_ id: PersistentIdentifier, _ properties: [String: MergeConflict.Content]) throws(ModelError) {
        var values: [String: Value] = [:]
        var links: [(String, [PersistentIdentifier])] = []
        // Properties the schema lacks (a record made under another version) are ignored.
        let layout: SchemaLayout.EntityLayout
        do { layout = graph.layout.entities[try graph.entityIndex(id.entityName)] } catch { throw .graph(error) }
        for (name, content) in properties.sorted(by: { $0.key < $1.key }) {
            switch content {
            case .value(let value) where layout.attributeIndex[name] != nil: values[name] = value
            case .related(let targets) where layout.linkIndex[name] != nil: links.append((name, targets.filter(graph.contains)))
            default: continue
            }
        }
        if !graph.contains(id) {
            try reviveObject(id, values: values)
        } else {
            for (name, value) in values.sorted(by: { $0.key < $1.key }) { try setValue(value, for: name, of: id) }
        }
        for (name, targets) in links { try setRelated(targets, for: name, of: id) }
    }

    /// Puts back an object with identifier `id` that is not live here, with
    /// `values` (the rest at their defaults), undoably.
    private func reviveObject(_ id: PersistentIdentifier, values: [String: Value]) throws(ModelError) {
        let entity: Int
        do { entity = try graph.entityIndex(id.entityName) } catch { throw .graph(error) }
        let layout = graph.layout.entities[entity]
        var row = layout.attributes.map(\.initialValue)
        for (name, value) in values {
            guard let attribute = layout.attributeIndex[name] else { continue }
            do { row[attribute] = try graph.checked(value, entity: entity, attribute: attribute) } catch { throw .graph(error) }
        }
        do { try graph.checkRoomForObject(entity: entity) } catch { throw .graph(error) }
        let ref: ObjectRef
        if let existing = graph.index[id.id] {
            // Deleted in this session: the same row lives again, with the recorded values.
            guard Int(existing.entity) == entity else { throw .graph(.objectNotFound(id)) }
            graph.revive(existing)
            for (attribute, value) in row.enumerated() { graph.setStored(.value(value), existing, attribute) }
            ref = existing
        } else {
            ref = graph.insertObject(entity: entity, values: row, id: id.id)
        }
        if tracking.deleted.contains(ref) {
            tracking.deleted.remove(ref); tracking.updated[ref, default: []].formUnion(0..<layout.attributes.count)
        } else if baseline.contains(id) {
            tracking.updated[ref, default: []].formUnion(0..<layout.attributes.count)
        } else {
            tracking.inserted.insert(ref)
        }
        tracking.unsettled.insert(ref)
        noteObservedChange(ref)
        registerUndo("Resolve Conflict", .removal([ref], name: "Resolve Conflict"))
    }

    /// Removes the record at `index`, undoably (undo puts it back where it was).
    func removeConflictRecord(at index: Int) {
        let record = graph.conflicts.remove(at: index)
        tracking.conflictRecordsEdited.insert(record.id.id)
        registerUndo("Resolve Conflict", .insertConflictRecord(record, at: index))
    }

    /// Puts a record back, undoably (redo removes it again).
    func insertConflictRecord(_ record: MergeConflict, at index: Int) {
        graph.conflicts.insert(record, at: min(index, graph.conflicts.count))
        tracking.conflictRecordsEdited.insert(record.id.id)
        registerUndo("Resolve Conflict", .removeConflictRecord(record))
    }
}
