import Observation

/// A model's `ObservationRegistrar`, made on its first read (see ``BackingData``).
@usableFromInline
final class _ObservationBox {
    @usableFromInline let registrar = ObservationRegistrar()

    @usableFromInline init() {}
}

/// What Observation needs from a model: its registrar, made on the first
/// read under tracking, the reads it records, and the mutations it tells.
extension BackingData {
    /// The registrar, if the model was ever read (an observer can only be
    /// watching a model whose property it read).
    var observationRegistrar: ObservationRegistrar? { observation?.registrar }

    /// Records a read for Observation: with the model's registrar, made now
    /// if the model has none and tracking may be active on this thread (see
    /// ``ObservationTrackingProbe``). Outside tracking a read records nothing,
    /// so a model read only there needs no registrar.
    ///
    /// `keyPath` makes the property's key path, only when it is needed: a key
    /// path literal costs a runtime call and a reference count on every
    /// evaluation, more than the rest of a read outside tracking.
    ///
    /// Inlined into every getter whole: the test is all a read outside
    /// tracking pays, and a call would cost as much again.
    @inlinable @inline(__always)
    func _access<Model: PersistentModel, V>(_ model: Model, _ keyPath: () -> KeyPath<Model, V>) {
        guard ObservationTrackingProbe.mayBeTracking else { return }
        _accessTracking(model, keyPath)
    }

    /// ``_access(_:_:)`` when tracking may be active.
    @inlinable @inline(never)
    func _accessTracking<Model: PersistentModel, V>(_ model: Model, _ keyPath: () -> KeyPath<Model, V>) {
        // A registrar is the model's own: a model sharing its context's backing data gets its own first.
        if isShared { return model.persistentBackingData._accessTracking(model, keyPath) }
        if let pointer = _observationPointer {
            Unmanaged<_ObservationBox>.fromOpaque(pointer)._withUnsafeGuaranteedRef { $0.registrar.access(model, keyPath: keyPath()) }
        } else {
            _makeObservation().registrar.access(model, keyPath: keyPath())
        }
    }

    /// Makes the model's registrar (its first read).
    @usableFromInline
    func _makeObservation() -> _ObservationBox {
        let made = _ObservationBox()
        observation = made
        return made
    }

    /// Runs a setter's edit, telling the model's observers when it has any: a
    /// model never read under observation tracking has no registrar, and
    /// making one for a write nobody watches would cost two allocations.
    @inline(__always)
    func mutation<Model: PersistentModel, V>(of model: Model, _ keyPath: KeyPath<Model, V>, _ edit: () -> Void) {
        if let observation {
            observation.registrar.withMutation(of: model, keyPath: keyPath, edit)
        } else {
            edit()
        }
    }
}
