import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The few POSIX file operations saving needs, with errors as ``PackageError``.
///
/// Foundation's `Data.write(options: .atomic)` neither fsyncs the file nor the
/// folder on Linux, so the durable steps are done here by hand.
enum FileIO {
    /// A failure to inject into the write path, for tests of what a failed save
    /// leaves behind: once `afterBytes` bytes have been written to files under
    /// the folder `under` (counting every file of a save), writes there fail with
    /// `code` (e.g. `ENOSPC`, a full disk). Other paths are never affected, so
    /// tests running in parallel elsewhere are safe.
    struct Fault: Sendable {
        var under: String
        var afterBytes: Int
        var code: Int32
    }

    /// The injected fault, if any. Set only by tests; process-wide.
    nonisolated(unsafe) static var fault: Fault?
    nonisolated(unsafe) private static var written = 0

    /// Arms `fault` for the duration of `body` (tests only; not thread-safe
    /// against other saves running at the same time).
    static func withFault<T>(_ fault: Fault, _ body: () throws -> T) rethrows -> T {
        self.fault = fault
        written = 0
        defer { self.fault = nil }
        return try body()
    }

    static func error(path: String, operation: String, code: Int32 = errno) -> PackageError {
        .io(path: path, operation: operation, code: code, message: String(cString: strerror(code)))
    }

    /// Writes all bytes to a descriptor, retrying short writes and EINTR.
    static func writeAll(_ descriptor: Int32, _ bytes: [UInt8], path: String) throws(PackageError) {
        var offset = 0
        while offset < bytes.count {
            if let fault, path.hasPrefix(fault.under) {
                if written + (bytes.count - offset) > fault.afterBytes { throw error(path: path, operation: "write", code: fault.code) }
                written += bytes.count - offset
            }
            let written = bytes.withUnsafeBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                return write(descriptor, base + offset, raw.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                throw error(path: path, operation: "write")
            }
            offset += written
        }
    }

    static func fsync(_ descriptor: Int32, path: String) throws(PackageError) {
        #if canImport(Darwin)
        let result = fcntl(descriptor, F_FULLFSYNC)
        #else
        let result = Glibc.fsync(descriptor)
        #endif
        if result != 0 { throw error(path: path, operation: "fsync") }
    }

    /// Flushes a folder's entries (new names, renames) to disk.
    static func fsyncDirectory(_ path: String) throws(PackageError) {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw error(path: path, operation: "open folder") }
        defer { close(descriptor) }
        try fsync(descriptor, path: path)
    }

    static func createDirectory(_ path: String) throws(PackageError) {
        if mkdir(path, 0o755) != 0 && errno != EEXIST { throw error(path: path, operation: "mkdir") }
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
            throw error(path: path, operation: "mkdir", code: ENOTDIR)
        }
    }

    /// Writes a file durably under a temporary name in the same folder, then renames it into place.
    static func writeAtomically(_ path: String, produce: (Int32) throws(PackageError) -> Void) throws(PackageError) {
        let directory = (path as NSString).deletingLastPathComponent
        let temporary = directory + "/." + (path as NSString).lastPathComponent + ".tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard descriptor >= 0 else { throw error(path: temporary, operation: "create") }
        do throws(PackageError) {
            try produce(descriptor)
            try fsync(descriptor, path: temporary)
        } catch {
            close(descriptor)
            unlink(temporary)
            throw error
        }
        close(descriptor)
        if rename(temporary, path) != 0 {
            let failure = error(path: path, operation: "rename")
            unlink(temporary)
            throw failure
        }
    }

    static func readFile(_ path: String) throws(PackageError) -> Data {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { throw error(path: path, operation: "open") }
        defer { close(descriptor) }
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw error(path: path, operation: "read")
            }
            if count == 0 { return data }
            data.append(contentsOf: chunk[0..<count])
        }
    }

    static func fileExists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// Names of the entries in a folder (empty if it does not exist).
    static func entries(of directory: String) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    }

    /// A blob name is a plain file name of letters, digits, `-`, `_` and `.`, never
    /// starting with `.`: nothing in a package can make Folio read or write outside it.
    static func isSafeBlobName(_ name: String) -> Bool {
        guard let first = name.utf8.first, first != UInt8(ascii: "."), name.utf8.count <= 255 else { return false }
        return name.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
        }
    }
}
