/// A to-one relationship of a non-optional type, as SwiftData accepts it:
/// `var payer: Person`, `@Relationship(inverse: \Person.expenses) var payee: Person`.
///
/// Its schema has a minimum count of one, so a save that would leave it empty is
/// refused with a ``ValidationIssue`` of kind `.minimumCount`, and so is a
/// package holding an empty one, at open. A delete of the destination clears it
/// in the context (the inverse's delete rule, as for an optional one): SwiftData
/// asks the app to reassign it or delete the object holding it before saving.
/// Until then the property reads the deleted model, with its values as they were
/// (``ModelContext/requiredCut(of:named:)``); where no such model is known (a
/// detached model, or an object another process left without one), it reads a
/// detached model of the destination's class holding no values. It never traps.
extension BackingData {
    /// ``_initialize(_:_:at:named:)`` for a required to-one relationship.
    @inlinable
    public static func _initialize<Destination: PersistentModel>(
        _ backing: inout BackingData, _ value: Destination,
        at ordinal: Int, named name: String
    ) {
        if backing === _unset { backing = BackingData() }
        guard !backing.madeByContext else { return }
        backing.keepUnmanaged(.other(value), at: ordinal, named: name)
        backing._recordHolding(value, in: name)
    }

    /// Reads a required to-one relationship.
    ///
    /// - Complexity: O(1) for a managed model, as an optional to-one's read.
    public func value<Model: PersistentModel, Destination: PersistentModel>(
        of model: Model, _ keyPath: () -> KeyPath<Model, Destination>, at ordinal: Int, named name: String
    ) -> Destination {
        // The getter calls this unretained (`_reading`): go on with the model's own backing data, retained.
        model.persistentBackingData.requiredModel(of: model, keyPath, at: ordinal, named: name)
    }

    private func requiredModel<Model: PersistentModel, Destination: PersistentModel>(
        of model: Model, _ keyPath: () -> KeyPath<Model, Destination>, at ordinal: Int, named name: String
    ) -> Destination {
        _access(model, keyPath)
        if let related = relatedModels(name, as: Destination.self) {
            if let first = related.first { return first }
        } else if let held = unmanagedValue(at: ordinal, named: name, as: Destination.self) {
            // Not inserted yet: the model the initializer or a setter gave.
            return held
        }
        if let (context, ref) = location, let cut = context.requiredCut(of: ref, named: name) {
            return context.model(Destination.self, at: cut)
        }
        return Self.modelWithoutValues(Destination.self)
    }

    /// A detached model of `type` holding no values: what a required to-one
    /// reads when its object holds none and no deleted model stands for it.
    /// Its attributes read as their defaults or zero values, its relationships empty.
    private static func modelWithoutValues<Destination: PersistentModel>(_ type: Destination.Type) -> Destination {
        let backing = BackingData()
        backing.snapshot = [:]
        backing.isStandIn = true
        return backing.makeModel(Destination.self)
    }

    /// Sets a required to-one relationship; the inverse follows, and an
    /// uninserted destination is inserted into the model's context. Undoable
    /// once the model is inserted.
    ///
    /// - Complexity: O(1) amortized for a destination already in the model's context.
    public func setValue<Model: PersistentModel, Destination: PersistentModel>(
        _ newValue: Destination, of model: Model, _ keyPath: KeyPath<Model, Destination>, at ordinal: Int, named name: String
    ) {
        if isShared { return model.persistentBackingData.setValue(newValue, of: model, keyPath, at: ordinal, named: name) }
        mutation(of: model, keyPath) {
            if relateOne(newValue, at: ordinal, of: Swift.type(of: model)) { return }
            relate([newValue], name, of: model) { keepUnmanaged(.other(newValue), at: ordinal, named: name) }
        }
    }
}
