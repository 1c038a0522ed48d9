import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Wakes a handler when a document package's commit file changes: when a
/// save — by another process, or another container of this one — commits.
///
/// ```swift
/// let watcher = try PackageWatcher(folder: package.url) { store.outsideChange() }
/// // … later, before the store goes:
/// watcher.cancel()
/// ```
///
/// A save commits by renaming its new `manifest.xml` over the old one (a
/// format-1 package's `document.xml` is its commit file until its first save:
/// see ``DocumentPackage/commitItem``), so the watcher wakes for a rename to
/// or from, a write closed on, the creation or the removal of either name in
/// the package folder, and for nothing else there (a save's temporaries, part
/// and history files, its journal). It also wakes once when events were lost
/// (the kernel's queue overflowed) or the watch ended (the folder was removed
/// or moved: nothing more is seen of the path after that, and ``isReplaced``
/// says when another folder is there, for the owner to watch it instead).
///
/// **How it waits.** On Linux, an inotify descriptor watches the package
/// folder (`inotify_add_watch` with `IN_ONLYDIR`: the folder itself may be a
/// link, as the path the user named, like ``PackageFolder``'s every other
/// access; nothing inside is followed or opened); on other systems, a
/// `DispatchSource` file-system object source on a descriptor of the folder
/// (which wakes for any entry of the folder that changes: the handler then runs
/// a little more often). Either way a `DispatchSource` read by the kernel's
/// readiness (epoll, kqueue) waits with no thread blocked and no timer: an idle
/// watcher costs no CPU.
///
/// **Coalescing.** Each wake-up reads every event queued so far and calls the
/// handler once if any of them concerns the commit file; events that arrive
/// while the handler runs are read after it returns, together. So a burst of
/// saves wakes the handler at most a few times, and the handler must ask what
/// changed rather than count its calls.
///
/// **Threading.** The handler runs on the watcher's own serial queue, never
/// twice at once. ``cancel()`` may be called from any thread, the handler's
/// included; once it returns from another thread, the handler is not running
/// and will not run again; the descriptors are closed by the source's cancel
/// handler. A watcher that goes away without ``cancel()`` cancels itself.
final class PackageWatcher: @unchecked Sendable {
    /// The folder watched, for messages.
    let folder: URL
    /// The identity of the folder watched, when the watch began.
    private let watched: FileIdentity?
    private let queue: DispatchQueue
    private let source: any DispatchSourceProtocol
    /// What the source's handlers share with the watcher (never the watcher itself,
    /// so a watcher released with its handler under way goes at once).
    private let state = State()
    /// Marks the watcher's queue, so ``cancel()`` knows when it runs on it.
    private let queueKey = DispatchSpecificKey<ObjectIdentifier>()

    /// The file names whose change commits a save.
    static let commitFileNames: Set<String> = [DocumentPackage.manifestFileName, DocumentPackage.documentFileName]

    /// Starts watching the package folder `folder`.
    ///
    /// - Parameters:
    ///   - folder: the package folder; it must exist (a package not saved yet has nothing to watch).
    ///   - onChange: called on the watcher's queue after the commit file changed, once per burst.
    /// - Throws: ``PackageError/io(path:operation:code:message:)`` when the folder
    ///   cannot be opened or watched (missing, not a folder, no inotify watch left).
    init(folder: URL, onChange: @escaping @Sendable () -> Void) throws(PackageError) {
        self.folder = folder
        let path = folder.path
        watched = Self.identity(path)
        let queue = DispatchQueue(label: "Folio.PackageWatcher", qos: .utility)
        self.queue = queue
        let state = self.state
        // Reached as every package access is: an error names the folder as the user named it.
        let probe = try PackageFolder(path: path).openFolder(nil)
        #if os(Linux)
        close(probe)
        let descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else { throw FileIO.error(path: path, operation: "inotify_init1") }
        // The folder's own move and removal too: a merge written over ours replaces the folder.
        let mask = UInt32(
            IN_MOVED_TO | IN_MOVED_FROM | IN_CLOSE_WRITE | IN_CREATE | IN_DELETE | IN_MOVE_SELF
                | IN_DELETE_SELF | IN_ONLYDIR)
        guard inotify_add_watch(descriptor, path, mask) >= 0 else {
            let failure = FileIO.error(path: path, operation: "inotify_add_watch")
            close(descriptor)
            throw failure
        }
        let source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: queue)
        let relevant = PackageWatcher.commitFileNames
        source.setEventHandler {
            if PackageWatcher.drainEvents(descriptor, relevant: relevant) { state.wake(onChange) }
        }
        #else
        let descriptor = probe
        let source = DispatchSource.makeFileSystemObjectSource(
            fileDescriptor: descriptor,
            eventMask: [.write, .link, .rename, .delete], queue: queue)
        source.setEventHandler { state.wake(onChange) }
        #endif
        source.setCancelHandler { state.didClose(close(descriptor) == 0) }
        self.source = source
        queue.setSpecific(key: queueKey, value: ObjectIdentifier(self))
        source.resume()
    }

    deinit {
        cancel()
    }

    /// Stops watching. Idempotent. From another thread than the handler's, it
    /// returns once a handler under way has returned and the descriptors are
    /// closed; from the handler itself, at once (the handler is then not called
    /// again, and the descriptors close when it returns).
    func cancel() {
        guard state.cancel() else { return }
        source.cancel()
        // Wait for a handler under way to return and the descriptors to close, unless this is that handler.
        if DispatchQueue.getSpecific(key: queueKey) != ObjectIdentifier(self) { state.waitUntilClosed() }
    }

    /// How many times the handler has been called so far.
    var wakeUps: Int { state.wakeUps }

    /// Whether the watcher's descriptors are closed (each closed once, successfully).
    var isClosed: Bool { state.isClosed }

    /// Whether another folder is now at the watched folder's path: the folder
    /// watched was replaced (a merge written over ours renames ours aside, a
    /// new folder into its place, and removes ours), so nothing saved into
    /// the package from now on is seen here; the owner watches the new one.
    /// `false` while nothing is at the path (a replacement under way wakes
    /// the handler again when it removes the old folder's files).
    var isReplaced: Bool {
        guard let watched, let now = Self.identity(folder.path) else { return false }
        return now != watched
    }

    /// The identity of the folder at `path`, a link followed (as the watch follows it).
    private static func identity(_ path: String) -> FileIdentity? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    /// The watcher's flags, behind a lock, shared with the source's handlers.
    private final class State: @unchecked Sendable {
        private let condition = NSCondition()
        private var isCancelled = false
        /// Whether the cancel handler ran, and whether its close succeeded.
        private var finished = false
        private var closed = false
        private var wakeCount = 0

        /// Marks the watcher cancelled; false when it already was.
        func cancel() -> Bool {
            condition.withLock {
                defer { isCancelled = true }
                return !isCancelled
            }
        }

        /// Calls the handler, unless cancelled meanwhile. On the watcher's queue.
        func wake(_ onChange: @Sendable () -> Void) {
            let live = condition.withLock {
                if !isCancelled { wakeCount += 1 }
                return !isCancelled
            }
            if live { onChange() }
        }

        var wakeUps: Int { condition.withLock { wakeCount } }
        var isClosed: Bool { condition.withLock { closed } }

        /// The source's cancel handler ran: no event handler is under way, and the descriptor was closed.
        func didClose(_ succeeded: Bool) {
            condition.withLock {
                finished = true
                closed = succeeded
                condition.broadcast()
            }
        }

        func waitUntilClosed() {
            condition.withLock {
                while !finished { condition.wait() }
            }
        }
    }

    #if os(Linux)
    /// Reads every inotify event queued on `descriptor` (non-blocking) and says
    /// whether one of them concerns a name in `relevant`, or whether events were
    /// lost (a queue overflow: the commit file may have changed) or the folder
    /// itself was moved, removed, or went away.
    private static func drainEvents(_ descriptor: Int32, relevant: Set<String>) -> Bool {
        // Room for many events with names (each is a header and up to NAME_MAX + 1 bytes).
        let capacity = 64 * (MemoryLayout<inotify_event>.size + Int(NAME_MAX) + 1)
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: MemoryLayout<inotify_event>.alignment)
        defer { buffer.deallocate() }
        var matched = false
        while true {
            let count = FileIO.readRetrying(descriptor, buffer, capacity)
            // EAGAIN: nothing more queued; any other failure: nothing more to read either.
            guard count > 0 else { break }
            var offset = 0
            let header = MemoryLayout<inotify_event>.size
            while offset + header <= count {
                let event = buffer.load(fromByteOffset: offset, as: inotify_event.self)
                let nameLength = Int(event.len)
                if event.mask & UInt32(IN_Q_OVERFLOW | IN_IGNORED | IN_MOVE_SELF | IN_DELETE_SELF) != 0 {
                    matched = true
                } else if nameLength > 0, offset + header + nameLength <= count {
                    let bytes = UnsafeRawBufferPointer(start: buffer + offset + header, count: nameLength)
                    let name = String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
                    if relevant.contains(name) { matched = true }
                }
                offset += header + nameLength
            }
        }
        return matched
    }
    #endif
}
