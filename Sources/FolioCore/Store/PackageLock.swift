import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An advisory lock on a package, held by the process's store of it while a
/// container that may write it is open (see `SharedDocument`).
///
/// It is a `flock` on the package folder itself: no lock file to leave behind,
/// and the kernel releases it when the holder closes it or dies, so a crash
/// never leaves a package locked. `flock` locks belong to an open file
/// description, so two holders in one process exclude each other too: that is
/// why containers in one process share one store, and one lock.
final class PackageLock {
    private let descriptor: Int32

    /// How long a refused lock is tried again before ``PackageError/locked(path:)``.
    ///
    /// A lock this process just closed can still be held for a moment: a child
    /// process that another thread is starting (`fork` then `exec`) holds a copy
    /// of every descriptor until its `exec` closes the `O_CLOEXEC` ones, and a
    /// `flock` lives as long as any copy of its open file description. Another
    /// program that really holds the package keeps it past this wait.
    static let contentionWait: Duration = .milliseconds(250)

    /// Takes the lock on the folder at `path`, waiting at most ``contentionWait``.
    ///
    /// - Throws: ``PackageError/locked(path:)`` when another holder has it;
    ///   ``PackageError/io(path:operation:code:message:)`` when the folder cannot be opened.
    init(path: String) throws(PackageError) {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw FileIO.error(path: path, operation: "open folder") }
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: Self.contentionWait)
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            if code == EINTR { continue }
            if code == EWOULDBLOCK, clock.now < deadline {
                usleep(5_000)
                continue
            }
            close(descriptor)
            if code == EWOULDBLOCK { throw .locked(path: path) }
            throw FileIO.error(path: path, operation: "lock", code: code)
        }
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }
}
