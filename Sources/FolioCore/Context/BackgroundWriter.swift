import Foundation

/// Where a document store's package writes happen one at a time: autosaves'
/// writes on a serial queue of their own, off the editing thread, and an
/// explicit save's write on its caller's thread, after the write under way.
///
/// The writer knows nothing of graphs or packages: the store gives it the
/// job, which writes the store's *latest* saved state. Scheduling while a job
/// is queued and not started does nothing, so the autosaves made while a
/// write runs become one write (they are coalesced).
///
/// Every write of the package, in the background or not, runs inside
/// ``exclusively(_:)``: two writes never overlap, and waiting for the lock
/// waits for the write under way. Lock order: this lock, then the store's.
final class BackgroundWriter: @unchecked Sendable {
    private let queue = DispatchQueue(label: "Folio.BackgroundWriter", qos: .utility)
    /// Held for the whole of every package write. Recursive: a store released
    /// inside a write (its last reference was the job's) flushes on the same thread.
    private let writeLock = NSRecursiveLock()
    private let stateLock = NSLock()
    /// Whether a job is queued and has not started: a new one would find nothing more to write.
    private var isQueued = false
    #if DEBUG
    private var hookStorage: (@Sendable () -> PackageError?)?

    /// A test seam, compiled into debug builds only: runs at the start of every
    /// background write, with the write lock held and before the state to write
    /// is taken. It may block, to hold the writer while a test looks at the
    /// state in between, and may return an error for the write to fail with
    /// instead of writing.
    var beforeBackgroundWrite: (@Sendable () -> PackageError?)? {
        get { stateLock.withLock { hookStorage } }
        set { stateLock.withLock { hookStorage = newValue } }
    }
    #endif

    /// Queues `job` unless a job is already queued and not yet started.
    func schedule(_ job: @escaping @Sendable () -> Void) {
        let alreadyQueued = stateLock.withLock {
            defer { isQueued = true }
            return isQueued
        }
        guard !alreadyQueued else { return }
        queue.async { [self] in
            // From now on a new saved state needs a new job: this one may already have taken its snapshot.
            stateLock.withLock { isQueued = false }
            job()
        }
    }

    /// Runs `body` with no other write of the package under way.
    func exclusively<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        writeLock.lock()
        defer { writeLock.unlock() }
        return try body()
    }

    /// Waits until the jobs queued so far have run (tests only: a job that
    /// found nothing to write leaves no other trace).
    func drain() {
        queue.sync {}
    }
}
