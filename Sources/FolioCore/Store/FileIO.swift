import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The few POSIX file operations reading and saving need, with errors as
/// ``PackageError``: on open descriptors, or on a path the user named. A file
/// inside a package is reached through ``PackageFolder`` only.
///
/// Foundation's `Data.write(options: .atomic)` neither fsyncs the file nor the
/// folder on Linux, so the durable steps are done by hand.
enum FileIO {
    #if DEBUG
    // The fault seam exists in debug builds only (tests build debug and reach it with
    // `@testable import`): a release build has no test hook on the save path.

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

    /// Arms `fault` for the duration of `body` (not thread-safe
    /// against other saves running at the same time).
    static func withFault<T>(_ fault: Fault, _ body: () throws -> T) rethrows -> T {
        self.fault = fault
        written = 0
        defer { self.fault = nil }
        return try body()
    }
    #endif

    static func error(path: String, operation: String, code: Int32 = errno) -> PackageError {
        .io(path: path, operation: operation, code: code, message: String(cString: strerror(code)))
    }

    /// `read(2)` retried while a signal interrupts it: the bytes read, 0 at the
    /// end, or -1 with `errno` set.
    static func readRetrying(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
        while true {
            let result = read(descriptor, buffer, count)
            if result >= 0 || errno != EINTR { return result }
        }
    }

    /// Writes all bytes to a descriptor, retrying short writes and EINTR.
    static func writeAll(_ descriptor: Int32, _ bytes: [UInt8], path: String) throws(PackageError) {
        var offset = 0
        while offset < bytes.count {
            #if DEBUG
            if let fault, path.hasPrefix(fault.under) {
                if written + (bytes.count - offset) > fault.afterBytes { throw error(path: path, operation: "write", code: fault.code) }
                written += bytes.count - offset
            }
            #endif
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

    static func createDirectory(_ path: String) throws(PackageError) {
        if mkdir(path, 0o755) != 0 && errno != EEXIST { throw error(path: path, operation: "mkdir") }
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
            throw error(path: path, operation: "mkdir", code: ENOTDIR)
        }
    }

    /// The largest externally stored value Folio reads into memory:
    /// ``DocumentLimits/maximumBlobBytes`` of the standard table (1 GiB).
    ///
    /// A blob is read whole into a `Data` when its attribute is first read, so
    /// without a bound a sparse file (`truncate -s 8G`) would take all memory.
    /// A larger blob is refused at open (its size is taken from `lstat`) and
    /// again at the read (from `fstat`, with ``PackageError/blobTooLarge(path:size:limit:)``).
    static let maximumBlobSize = DocumentLimits.standard.maximumBlobBytes

    /// Opens a file for reading only if it is a regular file, without ever blocking:
    /// `O_NONBLOCK | O_NOFOLLOW` so a FIFO or device cannot hang the open and a
    /// symbolic link is refused, then `fstat` (`S_ISREG`) on the descriptor itself,
    /// then `O_NONBLOCK` is cleared for the reads.
    ///
    /// - Returns: the descriptor (the caller closes it) and the file's size.
    /// - Throws: ``PackageError/notARegularFile(path:kind:)``, or `.io` (`ENOENT`…).
    /// `followingLinks` lets a path the user named (a schema file) be a link to a regular file.
    static func openRegularFile(_ path: String, followingLinks: Bool = false) throws(PackageError) -> (descriptor: Int32, size: Int) {
        try openRegularFile(at: AT_FDCWD, path, path: path, followingLinks: followingLinks)
    }

    /// ``openRegularFile(_:followingLinks:)`` of `name` in the folder `folder`
    /// (a descriptor, or `AT_FDCWD`); `path` names it in errors.
    static func openRegularFile(
        at folder: Int32, _ name: String, path: String,
        followingLinks: Bool = false
    ) throws(PackageError) -> (descriptor: Int32, size: Int) {
        let descriptor = openat(folder, name, O_RDONLY | O_CLOEXEC | O_NONBLOCK | (followingLinks ? 0 : O_NOFOLLOW))
        guard descriptor >= 0 else {
            if errno == ELOOP { throw .notARegularFile(path: path, kind: "a symbolic link") }
            throw error(path: path, operation: "open")
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            let failure = error(path: path, operation: "fstat")
            close(descriptor)
            throw failure
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            close(descriptor)
            throw .notARegularFile(path: path, kind: kind(of: info.st_mode))
        }
        let flags = fcntl(descriptor, F_GETFL)
        if flags >= 0 { _ = fcntl(descriptor, F_SETFL, flags & ~O_NONBLOCK) }
        return (descriptor, Int(info.st_size))
    }

    /// What kind of file a mode describes, for messages.
    static func kind(of mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFREG: return "a file"
        case S_IFDIR: return "a folder"
        case S_IFIFO: return "a FIFO (named pipe)"
        case S_IFSOCK: return "a socket"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFLNK: return "a symbolic link"
        default: return "not a regular file"
        }
    }

    /// Reads an open regular file of `size` bytes whole, refusing more than
    /// `limit` bytes; no more than `size` is ever read (a file that grows
    /// meanwhile is cut at that size).
    static func readContents(of descriptor: Int32, size: Int, limit: Int, path: String) throws(PackageError) -> Data {
        guard size <= limit else { throw .blobTooLarge(path: path, size: size, limit: limit) }
        var data = Data(count: size)
        var offset = 0
        while offset < size {
            let count = data.withUnsafeMutableBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                return readRetrying(descriptor, base + offset, size - offset)
            }
            if count < 0 { throw error(path: path, operation: "read") }
            if count == 0 { break }
            offset += count
        }
        if offset < size { data.removeSubrange(offset..<size) }
        return data
    }

    /// Maps an open regular file of `size` bytes (as ``PackageFolder/mapFile(_:limit:)`` does).
    static func mapContents(of descriptor: Int32, size: Int, limit: Int, path: String) throws(PackageError) -> Data {
        guard size <= limit else { throw .blobTooLarge(path: path, size: size, limit: limit) }
        guard size > 0 else { return Data() }
        guard let address = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0), address != MAP_FAILED else {
            throw error(path: path, operation: "mmap")
        }
        return Data(bytesNoCopy: address, count: size, deallocator: .custom { pointer, count in munmap(pointer, count) })
    }

    /// The identity of a file (device, inode) without following a link; `nil` if absent.
    static func identity(_ path: String) -> FileIdentity? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    /// A path's identity and the time its inode last changed, `nil` if it does
    /// not exist: tells two commits apart even when the second file got the
    /// inode number the first one freed.
    static func commitStamp(_ path: String) -> CommitStamp? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return CommitStamp(
            identity: FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino)),
            changedSeconds: Int64(info.st_ctim.tv_sec), changedNanoseconds: Int64(info.st_ctim.tv_nsec))
    }

    /// What `lstat` says of a path: its kind, size and identity.
    struct Status: Sendable {
        var isRegular: Bool
        var isFolder: Bool
        var kind: String
        var size: Int
        var identity: FileIdentity
        /// When the inode last changed (`st_ctime`), in nanoseconds since 1970:
        /// set by the kernel at every write, rename or `touch`, never set back.
        var changed: Int64

        init(_ info: stat) {
            isRegular = (info.st_mode & S_IFMT) == S_IFREG
            isFolder = (info.st_mode & S_IFMT) == S_IFDIR
            kind = FileIO.kind(of: info.st_mode)
            size = Int(info.st_size)
            identity = FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
            #if canImport(Darwin)
            let time = info.st_ctimespec
            #else
            let time = info.st_ctim
            #endif
            changed = Int64(time.tv_sec) &* 1_000_000_000 &+ Int64(time.tv_nsec)
        }
    }

    /// `lstat`'s kind and size of a path, `nil` if it does not exist.
    static func status(_ path: String) -> Status? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return Status(info)
    }

    static func fileExists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// The name ``PackageFolder/writeAtomically(_:create:produce:)`` gives the temporary file for `name`.
    static func temporaryName(for name: String) -> String { "." + name + ".tmp" }

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

    /// Whether a name is one ``DocumentWriter/blobName(id:attribute:data:)`` produces:
    /// `ID-ATTRIBUTE-HASH.bin`, ID decimal digits, HASH 16 lowercase hex digits.
    /// Only files so named are ever removed from `blobs/`.
    static func isBlobFileName(_ name: String) -> Bool {
        guard isSafeBlobName(name), name.hasSuffix(".bin") else { return false }
        let stem = Array(name.utf8.dropLast(4))
        guard let firstDash = stem.firstIndex(of: UInt8(ascii: "-")),
            let lastDash = stem.lastIndex(of: UInt8(ascii: "-")), lastDash > firstDash + 1, firstDash > 0
        else { return false }
        let hash = stem[(lastDash + 1)...]
        return stem[..<firstDash].allSatisfy { (0x30...0x39).contains($0) }
            && hash.count == 16 && hash.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// The identifier of the object a blob name (`ID-ATTRIBUTE-HASH.bin`) belongs to, if it is one.
    static func blobObjectID(in name: String) -> UInt64? {
        guard isBlobFileName(name), let dash = name.firstIndex(of: "-") else { return nil }
        return UInt64(name[..<dash])
    }

    /// The 16 hex digits of the content hash a blob name carries, if it is one.
    static func blobHash(in name: String) -> Substring? {
        guard isBlobFileName(name) else { return nil }
        return name.dropLast(4).suffix(16)
    }
}

/// A file's identity on disk (device and inode), which no spelling of its path changes.
struct FileIdentity: Hashable, Sendable {
    var device: UInt64
    var inode: UInt64
}

/// A file's identity and the time its inode last changed (``FileIO/commitStamp(_:)``).
struct CommitStamp: Equatable, Sendable {
    var identity: FileIdentity
    var changedSeconds: Int64
    var changedNanoseconds: Int64
}
