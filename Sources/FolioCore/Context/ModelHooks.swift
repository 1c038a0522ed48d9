/// What the typed layer does when the context changes objects under the models
/// it handed out: tell their observers, and detach the models whose objects a
/// rollback takes away.
///
/// The context layer cannot name model classes, so the layer above installs
/// this table in a context when it first registers a model there
/// (``ModelContext/modelHooks``), as it hands the store a
/// ``StoredGraphMigration`` for a migration plan. A context that never handed
/// out a model has none, and its edits call nothing.
struct ModelHooks: Sendable {
    /// The object at `ref` changed under its model: the property named, or
    /// any of them when `nil` (a merge of another context's save). Undo, redo
    /// and the dynamic API's edits; typed setters notify for themselves.
    let objectChanged: @Sendable (ModelContext, ObjectRef, String?) -> Void
    /// The context replaces its graph with this one (a rollback) by calling the
    /// closure given: a model whose object the new graph lacks keeps its values,
    /// detached, and the observers of the others are told once the new graph is
    /// in place (any object may differ: this context edited it, or another
    /// context saved it since).
    let replacingGraph: @Sendable (ModelContext, ObjectGraph, () -> Void) -> Void
}

extension ModelContext {
    /// Tells the models registered for `ref` that a property changed (see
    /// ``ModelHooks/objectChanged``); nothing when no model was ever registered.
    @inline(__always)
    func modelsChanged(_ ref: ObjectRef, _ property: @autoclosure () -> String?) {
        if let modelHooks { modelHooks.objectChanged(self, ref, property()) }
    }
}
