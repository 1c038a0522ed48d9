import Foundation

/// The backing data of the subclass models being initialized on one thread,
/// innermost last, each waiting for its superclasses' storage to start with
/// it (see ``BackingData/_initialOfSubclass(_:)``). Per thread: models are
/// made on many threads at once.
final class PendingSubclassBackings {
    var entries: [(type: AnyObject.Type, backing: BackingData)] = []

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { pointer in
            guard let pointer else { return }
            Unmanaged<PendingSubclassBackings>.fromOpaque(pointer).release()
        }
        return key
    }()

    /// This thread's list, if it has one.
    static var existing: PendingSubclassBackings? {
        pthread_getspecific(key).map { Unmanaged<PendingSubclassBackings>.fromOpaque($0).takeUnretainedValue() }
    }

    /// This thread's list, made on first use.
    static var current: PendingSubclassBackings {
        if let existing { return existing }
        let made = PendingSubclassBackings()
        pthread_setspecific(key, Unmanaged.passRetained(made).toOpaque())
        return made
    }
}
