import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What identifies one version of a file on disk, so a save can tell whether
/// someone else wrote the package since we last read or wrote it.
///
/// It holds the device, inode, size, modification time and **status-change
/// time** (`st_ctime`). An atomic save replaces the file (a new inode); a
/// write in place changes the size or the times. The modification time can
/// be set back (`touch -r`, `utimensat`), but the status-change time cannot:
/// the kernel sets it to "now" on every write and every metadata change,
/// setting the times included.
///
/// Timestamps have a granularity (a few milliseconds on Linux, up to seconds
/// on some file systems), so a write in place within the same tick as the
/// version recorded could leave every field equal. A fingerprint recorded less
/// than ``racyInterval`` after the file last changed therefore also keeps a
/// hash of the content (``contentHash``), and checking it hashes the file again
/// (the "racy clean" case Git handles the same way). Folio records the
/// fingerprint right after its own saves, so the check at the next save reads
/// the document once more; a fingerprint of an older file costs one `stat`.
struct FileFingerprint: Hashable, Sendable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var modified: Int64
    var modifiedNanoseconds: Int64
    var changed: Int64
    var changedNanoseconds: Int64
    /// A hash of the content, when the file had changed less than ``racyInterval``
    /// before the fingerprint was recorded; `nil` when its times vouch for it.
    var contentHash: UInt64?

    /// How recent a change must be for its times not to be trusted alone, in seconds.
    static let racyInterval: Int64 = 2

    /// The fingerprint of a package's file, or `nil` if it does not exist.
    ///
    /// - Parameter contentHash: the hash of what was just written there, if known;
    ///   otherwise the file is read to hash it when its times are too recent
    ///   (opened the package's guarded way: a FIFO there is never waited on).
    init?(_ item: PackageFolder.Item, contentHash knownHash: UInt64? = nil) {
        guard let status = Self.status(item) else { return nil }
        self = status
        if isRacy {
            contentHash = knownHash ?? Self.hash(item)
        }
    }

    /// The fingerprint of the file at `path` (``init(_:contentHash:)``).
    init?(path: String, contentHash knownHash: UInt64? = nil) {
        self.init(PackageFolder.item(atPath: path), contentHash: knownHash)
    }

    /// Whether a package's file (or its absence, for `nil`) is still the version
    /// `fingerprint` describes.
    static func matches(_ fingerprint: FileFingerprint?, _ item: PackageFolder.Item) -> Bool {
        let current = status(item)
        guard let fingerprint else { return current == nil }
        guard var current else { return false }
        current.contentHash = fingerprint.contentHash
        guard current == fingerprint else { return false }
        guard let expected = fingerprint.contentHash else { return true }
        return hash(item) == expected
    }

    /// ``matches(_:_:)`` of the file at `path`.
    static func matches(_ fingerprint: FileFingerprint?, path: String) -> Bool {
        matches(fingerprint, PackageFolder.item(atPath: path))
    }

    /// Whether the file changed so shortly before now that a change within the
    /// same timestamp tick could go unseen.
    private var isRacy: Bool {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let latest = max(modified, changed)
        return Int64(now.tv_sec) - latest < Self.racyInterval
    }

    private init(
        device: UInt64, inode: UInt64, size: Int64, modified: Int64, modifiedNanoseconds: Int64,
        changed: Int64, changedNanoseconds: Int64
    ) {
        self.device = device
        self.inode = inode
        self.size = size
        self.modified = modified
        self.modifiedNanoseconds = modifiedNanoseconds
        self.changed = changed
        self.changedNanoseconds = changedNanoseconds
    }

    /// The `lstat` fields alone, `nil` if there is no file (a link is not followed).
    private static func status(_ item: PackageFolder.Item) -> FileFingerprint? {
        guard let folder = try? item.package.openFolder(item.folder) else { return nil }
        defer { close(folder) }
        var info = stat()
        guard fstatat(folder, item.name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { return nil }
        #if canImport(Darwin)
        let modified = info.st_mtimespec, changed = info.st_ctimespec
        #else
        let modified = info.st_mtim, changed = info.st_ctim
        #endif
        return FileFingerprint(
            device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
            modified: Int64(modified.tv_sec), modifiedNanoseconds: Int64(modified.tv_nsec),
            changed: Int64(changed.tv_sec), changedNanoseconds: Int64(changed.tv_nsec))
    }

    /// The ``ContentHasher`` hash of a file's bytes; `nil` if it cannot be read
    /// or is not a regular file (a FIFO is refused, never waited on).
    static func hash(_ item: PackageFolder.Item) -> UInt64? {
        guard let (descriptor, _) = try? item.package.openRegularFile(item) else { return nil }
        defer { close(descriptor) }
        var hasher = ContentHasher()
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { FileIO.readRetrying(descriptor, $0.baseAddress, $0.count) }
            if count < 0 { return nil }
            if count == 0 { return hasher.finalize() }
            chunk.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
        }
    }
}
