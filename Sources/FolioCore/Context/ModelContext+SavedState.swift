/// The last saved state beside the edited one: what an object held before
/// this context's unsaved changes, so a front end can show them value by
/// value (the REPL's `diff`) or a program can compare before it saves.
///
/// "Saved" is the state this context last saved, rolled back to, or merged
/// from another context's save: the document as a save from here would find
/// it. Reading it changes nothing and records no undo.
extension ModelContext {
    /// An attribute's value as last saved, or `nil` when the object did not
    /// exist then (an unsaved insert).
    ///
    /// ```swift
    /// try context.setValue(.string("Great Crested Newt"), for: "name", of: newt)
    /// try context.savedValue("name", of: newt)   // .string("Newt")
    /// try context.value("name", of: newt)        // .string("Great Crested Newt")
    /// ```
    ///
    /// A deleted object's saved values stay readable until the save. An
    /// externally stored value is read from the package's blob file.
    ///
    /// - Throws: ``ModelError/graph(_:)`` for an unknown attribute, or an
    ///   identifier no object has, saved or not; ``ModelError/package(_:)``
    ///   when a saved externally stored value cannot be read.
    /// - Complexity: O(1), plus reading a blob.
    public func savedValue(_ attribute: String, of id: PersistentIdentifier) throws(ModelError) -> Value? {
        let entity = try entityIndex(of: id)
        let index: Int
        do { index = try graph.attributeIndex(attribute, entity: entity) } catch { throw .graph(error) }
        guard let saved = savedRef(id) else { return nil }
        do { return try baseline.loadValue(saved, index) } catch { throw unreadableSaved(error, id, attribute) }
    }

    /// What a relationship held as last saved, in order (an optional to-many
    /// that held no collection reads `[]`), or `nil` when the object did not
    /// exist then.
    ///
    /// - Throws: ``ModelError/graph(_:)`` for an unknown relationship, or an
    ///   identifier no object has, saved or not.
    /// - Complexity: O(objects held).
    public func savedRelated(_ relationship: String, of id: PersistentIdentifier) throws(ModelError) -> [PersistentIdentifier]? {
        let entity = try entityIndex(of: id)
        let slot: Int
        do { slot = try graph.linkSlot(relationship, entity: entity) } catch { throw .graph(error) }
        guard let saved = savedRef(id) else { return nil }
        return baseline.targets(saved, slot).map(baseline.identifier(for:))
    }

    /// The attributes and relationships of an object that differ from the
    /// last save, in the schema's order (attributes first): empty for an
    /// object unchanged, inserted since the save, or deleted. An edit that
    /// undo, or a later edit, took back is not a difference; transient
    /// attributes never are (a save does not write them).
    ///
    /// ```swift
    /// for name in context.changedPropertyNames(of: newt) {
    ///     print(name, try context.savedValue(name, of: newt) ?? .null, "→", try context.value(name, of: newt))
    /// }
    /// ```
    ///
    /// - Complexity: O(properties edited since the last call of any change-tracking property).
    public func changedPropertyNames(of id: PersistentIdentifier) -> [String] {
        settleTracking()
        guard let ref = graph.index[id.id], graph.layout.entities[Int(ref.entity)].name == id.entityName,
            let properties = tracking.updated[ref]
        else { return [] }
        let layout = graph.layout.entities[Int(ref.entity)]
        return properties.sorted().compactMap { property in
            property < layout.attributes.count
                ? layout.attributes[property].name
                : layout.links[property - layout.attributes.count].name  // nil: a hidden inverse, not the user's
        }
    }

    /// The entity of an object this context knows, live, deleted or saved.
    private func entityIndex(of id: PersistentIdentifier) throws(ModelError) -> Int {
        if let ref = graph.index[id.id], graph.layout.entities[Int(ref.entity)].name == id.entityName { return Int(ref.entity) }
        if savedRef(id) != nil, let entity = graph.layout.entities.firstIndex(where: { $0.name == id.entityName }) { return entity }
        throw .graph(.objectNotFound(id))
    }

    /// The object's row in the saved state, when it was live there.
    private func savedRef(_ id: PersistentIdentifier) -> ObjectRef? {
        guard let saved = baseline.index[id.id], baseline.isLive(saved),
            baseline.layout.entities[Int(saved.entity)].name == id.entityName
        else { return nil }
        return saved
    }

    /// Why a saved externally stored value could not be read.
    private func unreadableSaved(_ error: any Error, _ id: PersistentIdentifier, _ attribute: String) -> ModelError {
        if let error = error as? PackageError { return .package(error) }
        return .graph(.unreadableValue(entity: id.entityName, attribute: attribute, id: id.id, reason: "\(error)"))
    }
}
