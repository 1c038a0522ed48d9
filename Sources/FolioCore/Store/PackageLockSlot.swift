import Foundation

/// Where a package's holder in this process shows the process's registry its
/// write lock (``PackageLock``), weakly, and when its teardown has written the
/// package.
///
/// A holder's weak references read `nil` as soon as its `deinit` starts, but
/// its lock closes only after; an open on another thread in between takes
/// the lock over from here (the same open file description, so still held),
/// rather than being refused by the lock of a holder that is going away. The
/// slot keeps showing a lock its holder let go for as long as another holder
/// keeps it open (one that carried it over and went away first leaves its
/// registry entry, with this slot, until then), and a read-only holder shows
/// the lock it found, for a later container that may save.
final class PackageLockSlot: @unchecked Sendable {
    /// Guards the lock shown and whether the holder's teardown has written; signalled when it has.
    private let condition = NSCondition()
    private weak var lockStorage: PackageLock?
    private var isFlushed = false

    /// The lock shown, while someone keeps it open.
    var held: PackageLock? {
        get { condition.lock(); defer { condition.unlock() }; return lockStorage }
        set { condition.lock(); defer { condition.unlock() }; lockStorage = newValue }
    }

    /// Called by the holder's `deinit` once it has written what it had saved.
    func holderDidFlush() {
        condition.lock()
        defer { condition.unlock() }
        isFlushed = true
        condition.broadcast()
    }

    /// Waits until the holder of this slot, going away, has written what it had saved.
    /// Its flush takes no registry lock, so an open may wait with the registry locked.
    func waitForLastWrite() {
        condition.lock()
        defer { condition.unlock() }
        while !isFlushed { condition.wait() }
    }
}
