import Foundation

/// The accessors `@Model` calls for attributes: of types Folio stores
/// directly, and `Codable` values stored as composite values; and where an
/// edit goes (the document, the snapshot, the instance).
extension BackingData {
    /// The stored form of an attribute, or `nil` while the model is unmanaged.
    private func storedValue(_ name: String) -> Value? {
        if let (context, ref) = location {
            guard let index = context.graph.layout.entities[Int(ref.entity)].attributeIndex[name] else { return nil }
            if let blob = context.graph.blob(ref, index) {
                // An externally stored value is read on first use; a property read cannot
                // throw, so a file that cannot be read is reported and reads as the type's zero.
                do {
                    return try blob.load()
                } catch {
                    context.container.report(context.unreadable(error, ref, index), to: context.autosaveErrorHandler)
                    return .zero(of: context.graph.layout.entities[Int(ref.entity)].attributes[index].type)
                }
            }
            return context.graph.value(ref, index)
        }
        return snapshot?[name]
    }

    /// Where an edit goes: the context's document (undoably, after the same type
    /// checks the dynamic API makes), the snapshot, or the instance. A value the
    /// document cannot hold is reported to the context's `autosaveErrorHandler`
    /// and the property keeps its value.
    func store<Model: PersistentModel>(
        _ name: String, _ ordinal: Int, of type: Model.Type, _ value: () throws -> Value,
        keep: () -> Void
    ) {
        if let (context, ref) = editableLocation {
            let entity = context.graph.layout.entities[Int(ref.entity)]
            let index: Int
            let actionName: String
            if let (_, _, slot) = self.slot(type, ordinal), case .attribute(let column, _) = slot {
                index = column
                actionName = columns?.actionNames[ordinal] ?? "Set \(entity.name).\(name)"
            } else {
                guard let column = entity.attributeIndex[name] else { return }
                index = column
                actionName = "Set \(entity.name).\(name)"
            }
            do {
                let checked = try context.graph.checked(try value(), entity: Int(ref.entity), attribute: index)
                // The setter's `withMutation` tells this model's observers; the context
                // tells only other views of the object (an upsert's second model).
                let typed = context.typed
                typed.typedWriter = ObjectIdentifier(self)
                defer { typed.typedWriter = nil }
                context.performSetValue(checked, ref, index, name: actionName)
            } catch let error as GraphError {
                ModelContainer.report(.graph(error), to: context.autosaveErrorHandler)
            } catch {
                let mismatch = GraphError.typeMismatch(entity: entity.name, attribute: name, expected: "an encodable value", value: "\(error)")
                ModelContainer.report(.graph(mismatch), to: context.autosaveErrorHandler)
            }
        } else if snapshot != nil || madeByContext {
            // A model a context made has no values of its own: they go where a detached model's do.
            if let value = try? value() {
                if snapshot == nil { snapshot = [:] }
                snapshot?[name] = value
            }
        } else {
            keep()
        }
    }

    /// Reads an attribute of a type Folio stores directly.
    ///
    /// `keyPath` is called only when observation tracking may be active (it
    /// makes the key path Observation records the read under).
    ///
    /// - Complexity: O(1), no allocation, for a managed model of a scalar or
    ///   string type: `ordinal` (the property's position in `schemaMetadata`)
    ///   indexes the class's columns, resolved once per class and graph.
    @inlinable
    public func value<Model: PersistentModel, V: PersistableValue>(
        of model: Model, _ keyPath: () -> KeyPath<Model, V>, at ordinal: Int, named name: String
    ) -> V {
        // The getter calls this unretained (`_reading`): the cell is read first, and
        // `_access`, which may give a model sharing this backing data its own, last.
        // Inlined into the property's getter, where `V` is known: `_read` is a direct
        // call, and no generic metadata is looked up on the way.
        // The model's own class: a subclass's columns begin with its superclass's properties,
        // so an inherited property's ordinal indexes them too.
        if let cell = _cell(of: Swift.type(of: model), at: ordinal, row: model._$sharedRow.row), let value = V._read(cell) {
            _access(model, keyPath)
            return value
        }
        // The general path, which may call a handler, goes on with the model's own backing data, retained.
        let backing = model.persistentBackingData
        backing._access(model, keyPath)
        return backing._storedValue(of: model, keyPath(), at: ordinal, named: name)
    }

    /// The column cell of an attribute of a managed model; `nil` when the read
    /// must take the general path (unmanaged, detached, a blob still on disk).
    ///
    /// No reference is counted on the way: the context holds its graph, and
    /// the class's columns point at their storage unretained for that graph.
    ///
    /// `row` is the model's row while it shares this backing data (see
    /// ``_SharedBackingRow``); otherwise the backing data knows it.
    @usableFromInline
    func _cell(of type: any PersistentModel.Type, at ordinal: Int, row: Int32) -> _StoredCell? {
        guard let epoch = context?.graphEpoch else { return nil }
        if fastEpoch == epoch, let fastColumns {
            let ref = isShared ? ObjectRef(entity: cachedRef.entity, row: row) : cachedRef
            let found: _StoredCell?? = Unmanaged<ModelColumns>.fromOpaque(fastColumns)._withUnsafeGuaranteedRef { columns in
                guard columns.modelType == ObjectIdentifier(type), ordinal >= 0, ordinal < columns.fast.count else { return .none }
                let slot = columns.fast[ordinal]
                guard slot.kind == .cell, let storage = slot.object else { return .some(nil) }
                return .some(_StoredCell(graph: columns.graph, ref: ref, attribute: slot.index, kind: slot.cellKind, storage: storage))
            }
            if case .some(let cell) = found { return cell }
        }
        // A model sharing this backing data takes the general path, with its own.
        guard !isShared, self.slot(type, ordinal) != nil, fastEpoch == epoch else { return nil }
        return _cell(of: type, at: ordinal, row: row)
    }

    /// An attribute read by name: the instance's values, the snapshot, a blob, a default.
    @usableFromInline
    func _storedValue<Model: PersistentModel, V: PersistableValue>(
        of model: Model, _ keyPath: KeyPath<Model, V>, at ordinal: Int, named name: String
    ) -> V {
        if context == nil, snapshot == nil {
            if let kept = unmanagedStoredValue(at: ordinal), let value = V(persistentValue: kept) { return value }
            if let value = unmanagedValue(at: ordinal, named: name) as? V { return value }
        }
        if let stored = storedValue(name), let value = V(persistentValue: stored) { return value }
        if let value = unmanagedValue(at: ordinal, named: name, as: V.self) { return value }
        return V(persistentValue: .null) ?? V(persistentValue: .zero(of: V.valueType))
            ?? Self.declaredDefault(model, keyPath) { V(persistentValue: $0) } ?? Self.missing(name)
    }

    /// Sets an attribute of a type Folio stores directly; undoable once the model is inserted.
    public func setValue<Model: PersistentModel, V: PersistableValue>(
        _ newValue: V, of model: Model, _ keyPath: KeyPath<Model, V>, at ordinal: Int, named name: String
    ) {
        if isShared { return model.persistentBackingData.setValue(newValue, of: model, keyPath, at: ordinal, named: name) }
        mutation(of: model, keyPath) {
            store(name, ordinal, of: Swift.type(of: model), { newValue.persistentValue }) {
                keepUnmanaged(ordinal >= 0 ? .stored(newValue.persistentValue) : .other(newValue), at: ordinal, named: name)
            }
        }
    }

    /// Reads a `Codable` attribute stored as a composite value.
    ///
    /// `keyPath` is called only when observation tracking may be active (it
    /// makes the key path Observation records the read under).
    ///
    /// A stored value that no longer decodes as the type (a field added to the
    /// struct since the document was written, say) is reported once to the
    /// context's `autosaveErrorHandler` and read leniently: what decodes is kept,
    /// missing fields read as zero. The document is not changed until the
    /// property is set.
    public func value<Model: PersistentModel, V: Codable>(
        of model: Model, _ keyPath: () -> KeyPath<Model, V>, at ordinal: Int, named name: String
    ) -> V {
        // The getter calls this unretained (`_reading`): the read, which may call a
        // handler, goes on with the model's own backing data, retained.
        model.persistentBackingData.readCodable(of: model, keyPath, at: ordinal, named: name)
    }

    func readCodable<Model: PersistentModel, V: Codable>(
        of model: Model, _ keyPath: () -> KeyPath<Model, V>, at ordinal: Int, named name: String
    ) -> V {
        _access(model, keyPath)
        if context == nil, snapshot == nil, let value = unmanagedValue(at: ordinal, named: name) as? V { return value }
        if let stored = storedValue(name) {
            do { return try CodableValue.decode(V.self, from: stored) } catch {
                reportUndecodable(name, as: V.self, error)
                if let value = CodableValue.decodeLeniently(V.self, from: stored) { return value }
            }
        }
        if let value = unmanagedValue(at: ordinal, named: name, as: V.self) { return value }
        return CodableValue.decodeLeniently(V.self, from: .null)
            ?? Self.declaredDefault(model, keyPath()) { CodableValue.decodeLeniently(V.self, from: $0) }
            ?? ((V.self as? any CaseIterable.Type)?.allCases.first as? V)
            ?? Self.missing(name)
    }

    /// Sets a `Codable` attribute; undoable once the model is inserted.
    public func setValue<Model: PersistentModel, V: Codable>(
        _ newValue: V, of model: Model, _ keyPath: KeyPath<Model, V>, at ordinal: Int, named name: String
    ) {
        if isShared { return model.persistentBackingData.setValue(newValue, of: model, keyPath, at: ordinal, named: name) }
        mutation(of: model, keyPath) {
            store(name, ordinal, of: Swift.type(of: model), { try CodableValue.encode(newValue) }) { keepUnmanaged(.other(newValue), at: ordinal, named: name) }
        }
    }

    private func reportUndecodable<V>(_ name: String, as type: V.Type, _ error: any Error) {
        guard let (context, ref) = location, reportedUndecodable.insert(name).inserted else { return }
        let entity = context.graph.layout.entities[Int(ref.entity)].name
        let mismatch = GraphError.typeMismatch(
            entity: entity, attribute: name, expected: "a value that decodes as \(V.self)",
            value: "\(error)")
        ModelContainer.report(.graph(mismatch), to: context.autosaveErrorHandler)
    }

    /// The default the class declares for a property (`var mood: Mood = .calm`), read as `V`.
    private static func declaredDefault<Model: PersistentModel, V>(
        _ model: Model, _ keyPath: KeyPath<Model, V>, _ read: (Value) -> V?
    ) -> V? {
        guard case .attribute(let declaration, _)? = ModelMetadata.of(Model.self).property(for: keyPath)?.kind,
            let stored = declaration.defaultStoredValue
        else { return nil }
        return read(stored)
    }

    /// A property with no value anywhere: no stored value it can read, no
    /// declared default, no zero value and no first case. Input cannot get
    /// here — a container made from model classes refuses, on open and on every
    /// dynamic edit, a value a property could not read back, and merges and
    /// undo only bring values that passed those checks — only a model built
    /// by hand from an empty `BackingData()` whose initializer never set the
    /// property can: a programming error, like reading an uninitialised value.
    private static func missing<V>(_ name: String) -> V {
        preconditionFailure("Folio: '\(name)' has no value: the model was created with empty backing data and never inserted")
    }
}
