import Foundation

/// The accessors `@Model` calls for relationships: to-one, to-many and
/// optional to-many, with inverses kept by the context.
extension BackingData {
    /// The related objects' models, in order.
    func relatedModels<Destination: PersistentModel>(_ name: String, as type: Destination.Type) -> [Destination]? {
        guard let (context, ref) = location else { return snapshot == nil ? nil : [] }
        guard let slot = context.graph.layout.entities[Int(ref.entity)].linkIndex[name] else { return [] }
        return context.graph.targets(ref, slot).map { context.model(Destination.self, at: $0) }
    }

    /// Sets a relationship (`nil`: an optional to-many with no collection). On a
    /// model not yet inserted, relating it to models of a context inserts it
    /// there (with everything it reaches), as SwiftData does.
    func relate(_ models: [any PersistentModel]?, _ name: String, of owner: any PersistentModel, keep: () -> Void) {
        if let (context, ref) = editableLocation {
            context.setRelatedModels(models, for: name, of: ref)
        } else if snapshot == nil, !madeByContext {
            keep()
            for model in models ?? [] { _recordHolding(model, in: name, model: owner) }
            if let context = (models ?? []).lazy.compactMap(\.modelContext).first { context.insertModel(owner) }
        }
    }

    /// Sets a to-one relationship of a managed model to a model of the same
    /// context, without the array and the look-ups ``relate(_:_:of:keep:)``
    /// makes; `false` when the general path must do it.
    func relateOne(_ destination: (any PersistentModel)?, at ordinal: Int, of type: any PersistentModel.Type) -> Bool {
        guard let (context, ref, slot) = slot(type, ordinal), case .toOne(let link, let entity) = slot,
            context.graph.isLive(ref)
        else { return false }
        var row = -1
        if let destination {
            guard let (destinationContext, target) = destination.location, destinationContext === context,
                Int(target.entity) == entity, context.graph.isLive(target)
            else { return false }
            row = Int(target.row)
        }
        context.setToOne(
            ref, link, to: row < 0 ? nil : Int32(row),
            name: columns?.actionNames[ordinal] ?? "Set \(context.graph.layout.entities[Int(ref.entity)].name)")
        return true
    }

    /// Reads a to-one relationship.
    ///
    /// `keyPath` is called only when observation tracking may be active (it
    /// makes the key path Observation records the read under).
    ///
    /// - Complexity: O(1), no allocation once the destination's model exists:
    ///   a link column read and a registry look-up by object number.
    @inlinable
    public func value<Model: PersistentModel, Destination: PersistentModel>(
        of model: Model, _ keyPath: () -> KeyPath<Model, Destination?>, at ordinal: Int, named name: String
    ) -> Destination? {
        // As for an attribute: the getter calls this unretained, so `_access` comes last,
        // and the general path goes on with the model's own backing data, retained.
        switch _relatedModel(of: Swift.type(of: model), at: ordinal, row: model._$sharedRow.row, as: Destination.self) {
        case .none:
            let backing = model.persistentBackingData
            backing._access(model, keyPath)
            return backing._storedModel(of: model, at: ordinal, named: name, as: Destination.self)
        case .some(nil):
            _access(model, keyPath)
            return nil
        case .some(let related?):
            _access(model, keyPath)
            // An exact class match needs no dynamic cast.
            if ObjectIdentifier(type(of: related)) == ObjectIdentifier(Destination.self) {
                return unsafeDowncast(related as AnyObject, to: Destination.self)
            }
            return related as? Destination
        }
    }

    /// The model a to-one relationship of a managed model holds (`.some(nil)`:
    /// none); `.none` when the read must take the general path.
    ///
    /// `row` is the model's row while it shares this backing data (see
    /// ``_SharedBackingRow``); otherwise the backing data knows it.
    @usableFromInline
    func _relatedModel(
        of type: any PersistentModel.Type, at ordinal: Int, row: Int32,
        as destinationType: any PersistentModel.Type
    ) -> (any PersistentModel)?? {
        guard let epoch = context?.graphEpoch, let generation = context?.keptGenerationIfMade else { return .none }
        if fastEpoch == epoch, let fastColumns,
            let slot = Unmanaged<ModelColumns>.fromOpaque(fastColumns)._withUnsafeGuaranteedRef({ columns -> ModelColumns.FastSlot? in
                guard columns.modelType == ObjectIdentifier(type), ordinal >= 0, ordinal < columns.fast.count else { return nil }
                return columns.fast[ordinal]
            })
        {
            guard slot.kind == .toOne, let links = slot.object, let destinationTable = slot.destinationTable else { return .none }
            let source = isShared ? row : cachedRef.row
            let target = Unmanaged<LinkColumn>.fromOpaque(links)._withUnsafeGuaranteedRef { $0.one[Int(source)] }
            guard target >= 0 else { return .some(nil) }
            if isShared {
                // A model detached since may be kept: it is no longer its object's model.
                if keptEpoch != generation {
                    keptByRow = []
                    keptEpoch = generation
                }
                // A model of that row kept alive for the models sharing this backing data.
                if let kept = kept(at: ordinal, row: target) { return .some(kept) }
            } else if keptRow == target, keptOrdinal == ordinal, keptEpoch == generation, let keptDestination {
                // The model read last, alive (kept) and still the model of that row.
                return .some(keptDestination)
            }
            guard let context else { return .none }
            let id = Unmanaged<EntityTable>.fromOpaque(destinationTable)._withUnsafeGuaranteedRef { $0.ids[Int(target)] }
            let model = context.typed.registry[id] ?? context.anyModel(destinationType, at: ObjectRef(entity: Int(slot.destination), row: Int(target)))
            if slot.keepsDestination {
                if isShared {
                    keep(model, at: ordinal, row: target)
                } else {
                    keptDestination = model
                    keptOrdinal = ordinal
                    keptRow = target
                    keptEpoch = generation
                }
            }
            return .some(model)
        }
        guard !isShared, let (context, ref, slot) = slot(type, ordinal), case .toOne(let link, let destination) = slot else { return .none }
        var target: Int32 = -1
        context.graph.tables[Int(ref.entity)].links[link].forEachTarget(of: Int(ref.row)) { target = $0 }
        guard target >= 0 else { return .some(nil) }
        let targetRef =
            destination >= 0
            ? ObjectRef(entity: destination, row: Int(target))
            : context.graph.layout.entities[Int(ref.entity)].links[link].ref(target)
        return .some(context.anyModel(destinationType, at: targetRef))
    }

    /// A to-one relationship read by name: the document, or the instance's values.
    @usableFromInline
    func _storedModel<Destination: PersistentModel>(
        of model: any PersistentModel, at ordinal: Int, named name: String,
        as type: Destination.Type
    ) -> Destination? {
        if let related = relatedModels(name, as: Destination.self) { return related.first }
        return unmanagedValue(at: ordinal, named: name, as: Destination?.self) ?? nil
    }

    /// Sets a to-one relationship; the inverse follows, and an uninserted
    /// destination is inserted into the model's context.
    ///
    /// - Complexity: O(1) amortized for a destination already in the model's
    ///   context, however many models its inverse to-many holds.
    public func setValue<Model: PersistentModel, Destination: PersistentModel>(
        _ newValue: Destination?, of model: Model, _ keyPath: KeyPath<Model, Destination?>, at ordinal: Int, named name: String
    ) {
        if isShared { return model.persistentBackingData.setValue(newValue, of: model, keyPath, at: ordinal, named: name) }
        mutation(of: model, keyPath) {
            if relateOne(newValue, at: ordinal, of: Swift.type(of: model)) { return }
            relate(newValue.map { [$0] } ?? [], name, of: model) { keepUnmanaged(.other(newValue as Any), at: ordinal, named: name) }
        }
    }

    /// Reads a to-many relationship, in order.
    ///
    /// `keyPath` is called only when observation tracking may be active (it
    /// makes the key path Observation records the read under).
    public func value<Model: PersistentModel, Destination: PersistentModel>(
        of model: Model, _ keyPath: () -> KeyPath<Model, [Destination]>, at ordinal: Int, named name: String
    ) -> [Destination] {
        // The getter calls this unretained (`_reading`): go on with the model's own backing data, retained.
        model.persistentBackingData.toManyValue(of: model, keyPath, at: ordinal, named: name)
    }

    private func toManyValue<Model: PersistentModel, Destination: PersistentModel>(
        of model: Model, _ keyPath: () -> KeyPath<Model, [Destination]>, at ordinal: Int, named name: String
    ) -> [Destination] {
        _access(model, keyPath)
        if let (context, ref, slot) = slot(Swift.type(of: model), ordinal), case .toMany(let link) = slot {
            return context.graph.targets(ref, link).map { context.model(Destination.self, at: $0) }
        }
        return relatedModels(name, as: Destination.self) ?? unmanagedValue(at: ordinal, named: name, as: [Destination].self) ?? []
    }

    /// Replaces a to-many relationship's contents, in order; inverses follow.
    public func setValue<Model: PersistentModel, Destination: PersistentModel>(
        _ newValue: [Destination], of model: Model, _ keyPath: KeyPath<Model, [Destination]>, at ordinal: Int, named name: String
    ) {
        if isShared { return model.persistentBackingData.setValue(newValue, of: model, keyPath, at: ordinal, named: name) }
        mutation(of: model, keyPath) {
            relate(newValue, name, of: model) { keepUnmanaged(.other(newValue as Any), at: ordinal, named: name) }
        }
    }

    /// Reads an optional to-many relationship: `nil` until a collection is set
    /// or an object is linked to it (from either side), and after it is set to
    /// `nil`; an empty array once set to `[]` or emptied — saved and reopened alike.
    ///
    /// `keyPath` is called only when observation tracking may be active.
    public func value<Model: PersistentModel, Destination: PersistentModel>(
        of model: Model, _ keyPath: () -> KeyPath<Model, [Destination]?>, at ordinal: Int, named name: String
    ) -> [Destination]? {
        // The getter calls this unretained (`_reading`): go on with the model's own backing data, retained.
        model.persistentBackingData.optionalToManyValue(of: model, keyPath, at: ordinal, named: name)
    }

    private func optionalToManyValue<Model: PersistentModel, Destination: PersistentModel>(
        of model: Model, _ keyPath: () -> KeyPath<Model, [Destination]?>, at ordinal: Int, named name: String
    ) -> [Destination]? {
        _access(model, keyPath)
        if let (context, ref) = location {
            guard let slot = context.graph.layout.entities[Int(ref.entity)].linkIndex[name] else { return nil }
            return context.graph.collection(ref, slot)?.map { context.model(Destination.self, at: $0) }
        }
        // Detached (its object gone): relationships read empty, as for every other kind.
        if snapshot != nil { return [] }
        return unmanagedValue(at: ordinal, named: name, as: [Destination]?.self) ?? nil
    }

    /// Replaces an optional to-many relationship's contents; `nil` leaves it with
    /// no collection, `[]` with an empty one. Undoable once the model is inserted.
    public func setValue<Model: PersistentModel, Destination: PersistentModel>(
        _ newValue: [Destination]?, of model: Model, _ keyPath: KeyPath<Model, [Destination]?>, at ordinal: Int, named name: String
    ) {
        if isShared { return model.persistentBackingData.setValue(newValue, of: model, keyPath, at: ordinal, named: name) }
        mutation(of: model, keyPath) {
            relate(newValue, name, of: model) { keepUnmanaged(.other(newValue as Any), at: ordinal, named: name) }
        }
    }
}
