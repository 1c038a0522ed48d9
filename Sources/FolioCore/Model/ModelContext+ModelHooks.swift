extension ModelHooks {
    /// The typed layer's answers: observers told through the class's metadata,
    /// models detached through their backing data.
    static let typedLayer = ModelHooks(
        objectChanged: { context, ref, property in
            if let property { context.notifyModel(ref, property) } else { context.notifyModel(ref) }
        },
        replacingGraph: { context, graph, replace in
            let observed = context.detachModels(missingFrom: graph)
            replace()
            // After the new graph is in place, so an observer told reads the saved state.
            for model in observed { context.notifyEveryProperty(of: model) }
        }
    )
}

extension ModelContext {
    /// Registers the model handed out for object `id`, installing the typed
    /// layer's ``ModelHooks`` in this context first, so the context's own edits,
    /// undo and merges reach the model's observers.
    func register(_ model: any PersistentModel, id: UInt64) {
        if modelHooks == nil { modelHooks = .typedLayer }
        registry.register(model, id: id)
    }

    /// The same for a model whose class is known to unregister its instances
    /// on `deinit` (`unretained`) or not, as a caller registering many of one class knows.
    func register(_ model: any PersistentModel, id: UInt64, unretained: Bool) {
        if modelHooks == nil { modelHooks = .typedLayer }
        registry.register(model, id: id, unretained: unretained)
    }
}
