import Synchronization

/// Who a store tells when it publishes a saved state — another context's save,
/// an autosave, `deleteAllData()`, another process's save taken in — so that a
/// ``ResultsObserver`` on another context can catch up without being asked.
///
/// A listener is called on the publishing thread with the store's lock held:
/// it must only schedule work (the observer hops to its own actor), never
/// call back into a context. Listeners are held weakly through their tokens.
final class SavedChangeListeners: Sendable {
    /// A registered listener; it stays registered while its token is alive.
    final class Token: Sendable {
        let call: @Sendable () -> Void
        init(_ call: @escaping @Sendable () -> Void) { self.call = call }
    }

    private struct WeakToken: Sendable {
        weak var token: Token?
    }

    private let tokens = Mutex<[WeakToken]>([])

    /// Registers `call`; it is called after every publication while the token is kept.
    func add(_ call: @escaping @Sendable () -> Void) -> Token {
        let token = Token(call)
        tokens.withLock { tokens in
            tokens.removeAll { $0.token == nil }
            tokens.append(WeakToken(token: token))
        }
        return token
    }

    /// Calls every live listener. O(listeners).
    func notify() {
        let live = tokens.withLock { tokens in tokens.compactMap(\.token) }
        for token in live { token.call() }
    }
}
