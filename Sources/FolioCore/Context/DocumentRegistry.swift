import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's one ``SharedDocument`` per package, by the package's
/// canonical path, held weakly: every container open on a package shares it
/// (``SharedDocument/open(url:allowsSave:schema:migration:)`` looks it up here).
final class DocumentRegistry: @unchecked Sendable {
    /// The process's registry.
    static let shared = DocumentRegistry()

    /// A registry entry: the shared document, weakly, and its lock's slot.
    struct Entry {
        weak var sharedDocument: SharedDocument?
        let slot: PackageLockSlot
    }

    /// Guards ``documents`` and makes each open one step (see ``withLock(_:)``). Recursive:
    /// a shared document released while the registry is locked removes its own entry.
    private let lock = NSRecursiveLock()
    private var documents: [String: Entry] = [:]

    /// Runs `body` with the registry locked. No access to the table spans
    /// the call, so `body` may open other packages on this thread.
    func withLock<Result>(_ body: () throws(ModelError) -> Result) throws(ModelError) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    /// The entry for a package, if any.
    func entry(_ key: String) -> Entry? {
        lock.lock()
        defer { lock.unlock() }
        return documents[key]
    }

    /// Registers a shared document under its package's key, replacing any entry there.
    func register(_ entry: Entry, for key: String) {
        lock.lock()
        defer { lock.unlock() }
        documents[key] = entry
    }

    /// Runs `release` (the going shared document closing its lock) and removes the
    /// shared document's entry, as one step for an open on another thread: it either
    /// takes the lock over or finds it closed.
    func remove(_ key: String, ifDocument identity: ObjectIdentifier, releasing release: () -> Void) {
        lock.lock()
        defer { lock.unlock() }
        release()
        // The entry is this shared document's (now nil, as it is going) unless a newer shared document replaced it.
        // It stays while its lock is still open (a shared document that lent it is still going away):
        // an open meanwhile must find that lock to carry over, since a new one would be refused.
        if let entry = documents[key], entry.sharedDocument.map(ObjectIdentifier.init) ?? identity == identity,
            entry.slot.held == nil
        {
            documents[key] = nil
        }
    }

    /// The live shared documents, held strongly until the caller is done with them.
    func liveDocuments() -> [SharedDocument] {
        lock.lock()
        defer { lock.unlock() }
        return documents.values.compactMap(\.sharedDocument)
    }

    /// Whether a live shared document is registered under `key` (for tests).
    func contains(_ key: String) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return documents[key]?.sharedDocument != nil
    }

    /// The package's path as the kernel resolves it, so two spellings of one
    /// package share one shared document; for a package not created yet, its parent's.
    static func canonicalPath(_ url: URL) -> String {
        let path = url.standardizedFileURL.path
        if let resolved = realpath(path, nil) {
            defer { free(resolved) }
            return String(cString: resolved)
        }
        let parent = (path as NSString).deletingLastPathComponent
        if let resolved = realpath(parent, nil) {
            defer { free(resolved) }
            return String(cString: resolved) + "/" + (path as NSString).lastPathComponent
        }
        return path
    }

    #if DEBUG
    // A test seam, compiled into debug builds only: a release teardown takes no lock for it.

    /// Where a shared document's teardown can be held by a test.
    enum TeardownStage: Sendable {
        /// The `deinit` has started: the registry's weak reference reads `nil`, nothing is written yet.
        case started
        /// The package is written; the shared document has not yet closed its lock or left the registry.
        case flushed
    }

    /// Runs `hook` at each stage of the teardown of the shared document of the package
    /// with registry key `key` (until called with `nil`): it may block, to hold
    /// the teardown while a test opens the package on another thread.
    static func onTeardown(of key: String, _ hook: (@Sendable (TeardownStage) -> Void)?) {
        teardownHookLock.withLock { teardownHooks[key] = hook }
    }

    static func teardownHook(for key: String) -> (@Sendable (TeardownStage) -> Void)? {
        teardownHookLock.withLock { teardownHooks[key] }
    }

    /// Guards ``teardownHooks``; not the registry's lock, which an open holds while it waits for a teardown.
    private static let teardownHookLock = NSLock()
    nonisolated(unsafe) private static var teardownHooks: [String: @Sendable (TeardownStage) -> Void] = [:]
    #endif
}
