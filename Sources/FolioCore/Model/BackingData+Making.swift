import Foundation

/// The per-thread slot through which a context hands the models it makes
/// their backing data (and a subclass's model its superclasses' storage), so
/// a model's initial values make no backing data of their own.
extension BackingData {
    /// Where a context leaves the backing data of the models it is making, and
    /// their class, for each such model's `_$backingData` to start with
    /// (``_initial(for:)``): then the initial values the class declares, which
    /// Swift assigns in every initializer, `init(backingData:)` included, are
    /// dropped at once instead of making backing data of their own. Per
    /// thread: contexts on different actors make models at the same time.
    private static let makingKey: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// What ``makingKey`` points at while a context makes models.
    private struct Making {
        let backing: Unmanaged<BackingData>
        /// The class being made: a model of another class made meanwhile (by
        /// an initial value of the first) starts with the placeholder.
        let type: ObjectIdentifier
    }

    /// What a `@Model` instance's `_$backingData` starts with: the backing
    /// data its context is making models of `type` with, else the placeholder.
    public static func _initial(for type: AnyObject.Type) -> BackingData {
        guard let pending = pthread_getspecific(makingKey) else { return adoptedBacking(for: type) }
        let making = pending.assumingMemoryBound(to: Making.self).pointee
        // The superclasses' storage of a subclass's model the context makes starts
        // with the placeholder too: `init(backingData:)` sets it. (Taking the
        // context's would give it to a model of a superclass made meanwhile.)
        guard making.type == ObjectIdentifier(type) else { return adoptedBacking(for: type) }
        return making.backing.takeUnretainedValue()
    }

    /// What a `@Model` subclass's own `_$backingData` starts with: as for
    /// ``_initial(for:)``; else, for a model a program makes, its own backing
    /// data at once, left for its superclasses' storage to start with too
    /// (their stored properties are initialized after the subclass's own,
    /// when its initializer calls `super.init`). So a model of a subclass has
    /// one backing data, whichever class declares the property it sets.
    public static func _initialOfSubclass(_ type: AnyObject.Type) -> BackingData {
        let initial = _initial(for: type)
        guard initial === _unset else { return initial }
        let own = BackingData()
        PendingSubclassBackings.current.entries.append((type, own))
        return own
    }

    /// The backing data a subclass's model being initialized on this thread
    /// left for `type`, one of its superclasses (see ``_initialOfSubclass(_:)``);
    /// the root class takes it off the list. `_unset` when there is none.
    ///
    /// A model of the superclass made while the subclass's initializer runs,
    /// before it calls `super.init` (an unusual thing to do there), would take
    /// it instead; the DocC article "Model inheritance" says so.
    private static func adoptedBacking(for type: AnyObject.Type) -> BackingData {
        guard let pending = PendingSubclassBackings.existing, let last = pending.entries.last,
            inherits(last.type, from: type)
        else { return _unset }
        if _getSuperclass(type) == nil { pending.entries.removeLast() }
        return last.backing
    }

    /// Whether `type` is a strict subclass of `ancestor`.
    static func inherits(_ type: AnyObject.Type, from ancestor: AnyObject.Type) -> Bool {
        var current: AnyClass? = _getSuperclass(type)
        while let here = current {
            if here == ancestor { return true }
            current = _getSuperclass(here)
        }
        return false
    }

    /// Runs `body`, in which models of `type` made with `init(backingData:)`
    /// and this backing data start with it (one hand-over for a whole fetch,
    /// not one per model).
    func makingModels<T: AnyObject, R>(of type: T.Type, _ body: () -> R) -> R {
        var making = Making(backing: .passUnretained(self), type: ObjectIdentifier(type))
        let previous = pthread_getspecific(Self.makingKey)
        return withUnsafeMutablePointer(to: &making) { pointer in
            pthread_setspecific(Self.makingKey, pointer)
            defer { pthread_setspecific(Self.makingKey, previous) }
            return body()
        }
    }

    /// Whether `make` (a model class's `init(backingData:)`) is nonisolated:
    /// called by the `_$makesModelsAnywhere` and `_$unregistersOnDeinit`
    /// `@Model` writes, where the initializer's isolation, written or
    /// inferred, is the compiler's to know. Non-escaping, so a release build
    /// folds the answer to a constant: a closure that escaped would be
    /// allocated each time, in every model's `deinit`.
    public static func _isNonisolated<T>(_ make: @isolated(any) (BackingData) -> T) -> Bool {
        make.isolation == nil
    }

    /// Makes a model for this backing data.
    func makeModel<T: PersistentModel>(_ type: T.Type) -> T {
        makingModels(of: T.self) { T(backingData: self) }
    }
}
