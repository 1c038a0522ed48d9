/// The typed layer's state in one context: the models it handed out, its
/// classes' columns in the context's graph, the generation a kept destination
/// model must match, and the backing data whose setter is editing.
///
/// The context holds it as its ``ModelHooks`` (the context layer cannot name
/// this one) and tells it when it changes objects under the models or
/// replaces its graph; the typed layer reads it as ``ModelContext/typed``. A
/// class, so the registry and the caches are edited where they lie, never
/// copied out of the context; every typed read goes through them.
final class TypedContextState: ModelHooks {
    // Unchecked exclusivity on what every typed read or fetch touches: a
    // context is used from one actor, so no access overlaps another.

    /// The model instances handed out, by object number (weakly held).
    @exclusivity(unchecked) var registry = ModelRegistry()
    /// Model classes resolved against the context's graph's layout, by class.
    var modelColumns: [ObjectIdentifier: ModelColumns] = [:]
    /// Counts the graphs the context has had and the models detached from
    /// it: a to-one destination model a backing data keeps is returned only
    /// while this is the count it was kept at. A detached model is no longer
    /// its object's model, though the object's row may live again (redo).
    @exclusivity(unchecked) var keptGeneration = 0
    /// The backing data whose typed setter is editing, which tells its own
    /// observers: the context's notification skips it.
    var typedWriter: ObjectIdentifier?

    /// Observers told through the class's metadata.
    func objectChanged(_ context: ModelContext, _ ref: ObjectRef, _ property: String?) {
        if let property { context.notifyModel(ref, property, in: self) } else { context.notifyModel(ref, in: self) }
    }

    /// Models detached through their backing data.
    func replacingGraph(_ context: ModelContext, _ graph: ObjectGraph, _ replace: () -> Void) {
        let observed = context.detachModels(missingFrom: graph)
        replace()
        // After the new graph is in place, so an observer told reads the saved state.
        for model in observed { context.notifyEveryProperty(of: model) }
    }

    /// Models cache their object's row and their class's columns for the graph
    /// they were resolved in (checked against ``ModelContext/graphEpoch``);
    /// the columns here, and the destinations models keep, are dropped.
    func graphReplaced() {
        keptGeneration &+= 1
        modelColumns.removeAll()
    }
}

extension ModelContext {
    /// The typed layer's state in this context, made and installed as its
    /// ``ModelHooks`` on first use, so the context's own edits, undo and merges
    /// reach the models' observers from the first model on.
    var typed: TypedContextState {
        @inline(__always) get {
            // The only class the typed layer installs: no cast to check.
            if let modelHooks { return unsafeDowncast(modelHooks, to: TypedContextState.self) }
            return makeTyped()
        }
    }

    /// The typed layer's state if it was ever made here: for a read that must
    /// not make it (none made means no model of this context was handed out).
    var typedIfMade: TypedContextState? {
        @inline(__always) get { modelHooks.map { unsafeDowncast($0, to: TypedContextState.self) } }
    }

    /// Runs `body` with the typed layer's state (made first if need be),
    /// counting no reference: on the paths every insert, fetch and model's
    /// `deinit` takes, retaining the state read out of ``modelHooks`` and
    /// releasing it after were most of what this indirection cost.
    ///
    /// The context holds the state for its life, and only the typed layer
    /// sets ``modelHooks``, once: the reference is read as bits, from the
    /// property's address (its first word is the object; `nil` is zero).
    @inline(__always)
    func withTyped<R>(_ body: (TypedContextState) -> R) -> R {
        guard let bits = withUnsafeMutablePointer(to: &modelHooks, { UnsafeRawPointer($0).load(as: UnsafeRawPointer?.self) })
        else { return body(makeTyped()) }
        return Unmanaged<TypedContextState>.fromOpaque(bits)._withUnsafeGuaranteedRef(body)
    }

    /// ``keptGeneration``, counting no reference; `nil` when no state was made.
    var keptGenerationIfMade: Int? {
        @inline(__always) get {
            guard let bits = withUnsafeMutablePointer(to: &modelHooks, { UnsafeRawPointer($0).load(as: UnsafeRawPointer?.self) })
            else { return nil }
            return Unmanaged<TypedContextState>.fromOpaque(bits)._withUnsafeGuaranteedRef { $0.keptGeneration }
        }
    }

    @inline(never)
    private func makeTyped() -> TypedContextState {
        let made = TypedContextState()
        modelHooks = made
        return made
    }

    /// Registers the model handed out for object `id` (installing the typed
    /// layer's state first, see ``typed``).
    func register(_ model: any PersistentModel, id: UInt64) {
        withTyped { $0.registry.register(model, id: id) }
    }

    /// The same for a model whose class is known to unregister its instances
    /// on `deinit` (`unretained`) or not, as a caller registering many of one class knows.
    func register(_ model: any PersistentModel, id: UInt64, unretained: Bool) {
        withTyped { $0.registry.register(model, id: id, unretained: unretained) }
    }
}
