/// Runs a model context's work: what a ``ModelActor`` does its editing with.
public protocol ModelExecutor: AnyObject, Sendable {
    /// The context the actor edits.
    var modelContext: ModelContext { get }
}

/// The executor `@ModelActor` gives an actor: a context of its own on the container.
///
/// The context is used only from the actor that owns the executor, which is
/// what makes sharing the executor across isolation domains safe.
public final class DefaultSerialModelExecutor: ModelExecutor, @unchecked Sendable {
    /// The actor's context.
    public let modelContext: ModelContext

    /// Creates an executor for a context.
    public init(modelContext: ModelContext) {
        self.modelContext = modelContext
    }
}

/// An actor with its own model context, for work off the main actor; `@ModelActor` conforms one.
///
/// Its saves reach the container's other contexts, which merge them on their
/// next fetch or save: a delete saved here is gone from the main context's
/// fetches, and the main context's models of the deleted objects are detached.
public protocol ModelActor: Actor {
    /// The container the actor's context works on.
    nonisolated var modelContainer: ModelContainer { get }
    /// The executor holding the actor's context.
    nonisolated var modelExecutor: any ModelExecutor { get }
}

extension ModelActor {
    /// The actor's own context (no autosave, no undo manager, as for any context you create).
    public var modelContext: ModelContext { modelExecutor.modelContext }
}

extension ModelActor {
    /// The actor context's model for an identifier, SwiftData's `self[id, as: Trip.self]`;
    /// `nil` when the context has no such object or it is of another class.
    ///
    /// Use it to hand work across actors: pass `persistentModelID`s (which are
    /// `Sendable`), never models, and look them up here.
    public subscript<T: PersistentModel>(id: PersistentIdentifier, as type: T.Type) -> T? {
        modelContext.registeredModel(for: id) ?? (modelContext.model(for: id) as? T)
    }
}
