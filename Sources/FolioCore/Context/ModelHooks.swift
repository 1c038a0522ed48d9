/// The typed layer's state in a context, as the context sees it: what to do
/// when the context changes objects under the models it handed out (tell
/// their observers, detach the models whose objects a rollback takes away)
/// and when it replaces its graph (forget what was resolved against the old one).
///
/// The context layer cannot name model classes, so the layer above declares
/// the one conforming class and installs it in a context when it first needs
/// it there (``ModelContext/modelHooks``), as it hands the store a
/// ``StoredGraphMigration`` for a migration plan. A context that never handed
/// out a model has none, and its edits call nothing. A class: the typed layer
/// edits its registry and caches in place, through the one reference the
/// context holds.
protocol ModelHooks: AnyObject {
    /// The object at `ref` changed under its model: the property named, or
    /// any of them when `nil` (a merge of another context's save). Undo, redo
    /// and the dynamic API's edits; typed setters notify for themselves.
    func objectChanged(_ context: ModelContext, _ ref: ObjectRef, _ property: String?)
    /// The context replaces its graph with this one (a rollback) by calling
    /// `replace`: a model whose object the new graph lacks keeps its values,
    /// detached, and the observers of the others are told once the new graph
    /// is in place (any object may differ: this context edited it, or another
    /// context saved it since).
    func replacingGraph(_ context: ModelContext, _ graph: ObjectGraph, _ replace: () -> Void)
    /// The context has a new graph (its `graph` was set): what the typed
    /// layer resolved against the old one (rows, columns, kept models) is stale.
    func graphReplaced()
}

extension ModelContext {
    /// Tells the models registered for `ref` that a property changed (see
    /// ``ModelHooks/objectChanged(_:_:_:)``); nothing when no model was ever registered.
    @inline(__always)
    func modelsChanged(_ ref: ObjectRef, _ property: @autoclosure () -> String?) {
        if let modelHooks { modelHooks.objectChanged(self, ref, property()) }
    }
}
