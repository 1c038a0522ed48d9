import Foundation

/// Where a document's package writes happen one at a time: autosaves'
/// writes on a serial queue of their own, off the editing thread, and an
/// explicit save's write on its caller's thread, after the write under way.
///
/// The writer knows nothing of graphs or packages: its holder gives it the
/// job, which writes the holder's *latest* saved state. Its holder
/// coalesces: it schedules no job while one is queued and not started
/// (``PackageWriter/needsJob(for:)``), so the autosaves made while a write
/// runs become one write.
///
/// Every write of the package, in the background or not, runs inside
/// ``exclusively(_:)``: two writes never overlap, and waiting for the lock
/// waits for the write under way. Lock order: this lock, then the holder's.
final class BackgroundWriter: @unchecked Sendable {
    private let queue = DispatchQueue(label: "Folio.BackgroundWriter", qos: .utility)
    /// Guards the package: held for the whole of every write of it. Recursive: a holder
    /// released inside a write (its last reference was the job's) flushes on the same thread.
    private let writeLock = NSRecursiveLock()

    /// Queues `job`.
    func schedule(_ job: @escaping @Sendable () -> Void) {
        queue.async(execute: job)
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
