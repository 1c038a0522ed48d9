import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An advisory lock on a package, held by the process's store of it while a
/// container that may write it is open (see `DocumentStore`).
///
/// It is a `flock` on the package folder itself: no lock file to leave behind,
/// and the kernel releases it when the holder closes it or dies, so a crash
/// never leaves a package locked. `flock` locks belong to an open file
/// description, so two holders in one process exclude each other too: that is
/// why containers in one process share one store, and one lock.
final class PackageLock {
    private let descriptor: Int32

    /// Takes the lock on the folder at `path`, without waiting.
    ///
    /// - Throws: ``PackageError/locked(path:)`` when another holder has it;
    ///   ``PackageError/io(path:operation:code:message:)`` when the folder cannot be opened.
    init(path: String) throws(PackageError) {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw FileIO.error(path: path, operation: "open folder") }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            close(descriptor)
            if code == EWOULDBLOCK { throw .locked(path: path) }
            throw FileIO.error(path: path, operation: "lock", code: code)
        }
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }
}
