import Foundation

/// A shared document's observers, held weakly, and the package watcher that lets them
/// hear of other processes' saves while any is registered.
///
/// Lock order: the shared document's writer lock and its lock are never held while this
/// list's lock is taken by a publish (observers are called with no lock held);
/// the watcher is cancelled outside this lock, since its handler takes it.
final class DocumentObservers: @unchecked Sendable {
    private struct Entry {
        weak var observer: (any DocumentObserver)?
        let id: ObjectIdentifier
    }

    /// Guards the entries and the watcher.
    private let lock = NSLock()
    private var entries: [Entry] = []
    private var watcher: PackageWatcher?

    /// Registers `observer` (weakly).
    func add(_ observer: any DocumentObserver) {
        lock.withLock {
            entries.removeAll { $0.observer == nil }
            entries.append(Entry(observer: observer, id: ObjectIdentifier(observer)))
        }
    }

    /// Unregisters the observer with identity `id`; when none is left, stops
    /// the watcher (after the lock is let go: its handler may be taking it).
    func remove(_ id: ObjectIdentifier) {
        let stopped: PackageWatcher? = lock.withLock {
            entries.removeAll { $0.id == id || $0.observer == nil }
            guard entries.isEmpty else { return nil }
            defer { watcher = nil }
            return watcher
        }
        stopped?.cancel()
    }

    /// The observers still alive, held strongly until the caller is done.
    var live: [any DocumentObserver] {
        lock.withLock { entries.compactMap(\.observer) }
    }

    /// Starts a watcher with `make` if observers are registered and none runs yet.
    /// `make` returns `nil` when there is nothing to watch yet (no package folder).
    func watchIfObserved(_ make: () -> PackageWatcher?) {
        lock.withLock {
            guard watcher == nil, entries.contains(where: { $0.observer != nil }) else { return }
            watcher = make()
        }
    }

    /// Drops the watcher if the folder it watches was replaced
    /// (``PackageWatcher/isReplaced``), so the next ``watchIfObserved(_:)`` starts one on
    /// the folder now at the path; whether it did. Called from that watcher's
    /// handler, whose own cancel returns at once.
    func dropReplacedWatcher() -> Bool {
        let ended: PackageWatcher? = lock.withLock {
            guard let watcher, watcher.isReplaced else { return nil }
            self.watcher = nil
            return watcher
        }
        ended?.cancel()
        return ended != nil
    }

    /// Whether a watcher runs (tests).
    var isWatching: Bool { lock.withLock { watcher != nil } }

    /// How many times the running watcher woke (tests); 0 when none runs.
    var watcherWakeUps: Int { lock.withLock { watcher }?.wakeUps ?? 0 }

    deinit {
        watcher?.cancel()
    }
}
