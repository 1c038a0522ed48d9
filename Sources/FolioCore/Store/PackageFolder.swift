import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one way Folio reaches a file inside a package: every read, write,
/// rename and removal starts from a descriptor of the package folder and
/// opens each step below it with `openat(…, O_NOFOLLOW)`, so no symbolic link
/// is followed at any step (a `blobs/` or `history/` that is a link is refused,
/// never written through); only regular files are opened, and never in a way
/// that blocks (`O_NONBLOCK`, then `fstat`), so a FIFO cannot hang an open.
///
/// Only the package folder itself may be a link: it is the path the user named.
/// Paths here are for messages; the operations never walk them again.
struct PackageFolder: Hashable, Sendable {
    /// The package folder, as the user named it.
    let path: String

    init(path: String) { self.path = path }

    /// A file inside the package: `name` in the package folder, or in its
    /// subfolder `folder` (`blobs`, or two levels: `parts/Animal`).
    struct Item: Hashable, Sendable {
        let package: PackageFolder
        let folder: String?
        let name: String

        /// The file's path, for messages and for comparing with other paths.
        var path: String { package.path(of: folder.map { $0 + "/" + name } ?? name) }
    }

    func item(_ name: String, in folder: String? = nil) -> Item { Item(package: self, folder: folder, name: name) }

    /// An item of the file at `path`, reached from its parent folder (for a
    /// file the user named outside any package, such as a fingerprint's in tests).
    static func item(atPath path: String) -> Item {
        let parent = (path as NSString).deletingLastPathComponent
        return PackageFolder(path: parent.isEmpty ? "." : parent).item((path as NSString).lastPathComponent)
    }

    func path(of relative: String) -> String { path + "/" + relative }

    // MARK: Folders

    /// Opens the package folder, or its subfolder `folder` without following a
    /// link (a link or a file there is refused with
    /// ``PackageError/notARegularFile(path:kind:)``); with `create`, makes the
    /// folder first if it is missing. The caller closes the descriptor.
    func openFolder(_ folder: String?, create: Bool = false) throws(PackageError) -> Int32 {
        let root = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard root >= 0 else { throw FileIO.error(path: path, operation: "open folder") }
        guard let folder else { return root }
        // Each step opened below the last without following a link (`parts/Animal`:
        // O_NOFOLLOW alone would follow a `parts` that is a link).
        var current = root
        var reached = ""
        for step in folder.split(separator: "/", omittingEmptySubsequences: false).map(String.init) {
            reached = reached.isEmpty ? step : reached + "/" + step
            let folderPath = self.path(of: reached)
            guard !step.isEmpty, step != ".", step != ".." else {
                close(current)
                throw FileIO.error(path: folderPath, operation: "open folder", code: EINVAL)
            }
            if create, mkdirat(current, step, 0o755) != 0, errno != EEXIST {
                let failure = FileIO.error(path: folderPath, operation: "mkdir")
                close(current)
                throw failure
            }
            let descriptor = openat(current, step, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard descriptor >= 0 else {
                let code = errno
                let status = Self.status(current, step)
                close(current)
                if code == ELOOP || code == ENOTDIR, let status {
                    throw .notARegularFile(path: folderPath, kind: status.kind)
                }
                throw FileIO.error(path: folderPath, operation: "open folder", code: code)
            }
            close(current)
            current = descriptor
        }
        return current
    }

    /// Runs `body` with a descriptor of the folder holding `item`.
    func withFolder<T>(
        of item: Item, create: Bool = false,
        _ body: (Int32) throws(PackageError) -> T
    ) throws(PackageError) -> T {
        let descriptor = try openFolder(item.folder, create: create)
        defer { close(descriptor) }
        return try body(descriptor)
    }

    /// Whether the package's subfolder `folder` is a folder (not a link to one).
    func isFolder(_ folder: String) -> Bool {
        guard let descriptor = try? openFolder(nil) else { return false }
        defer { close(descriptor) }
        return Self.status(descriptor, folder)?.isFolder == true
    }

    /// Names in the package folder or its subfolder (empty when it is missing,
    /// or a link: a link's target is never listed).
    func entries(of folder: String?) -> [String] {
        guard let descriptor = try? openFolder(folder) else { return [] }
        // fdopendir takes the descriptor over; closedir closes it.
        guard let directory = fdopendir(descriptor) else { close(descriptor); return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != ".", name != ".." { names.append(name) }
        }
        return names
    }

    /// Flushes a folder's entries (new names, renames, removals) to disk.
    func sync(_ folder: String?) throws(PackageError) {
        let descriptor = try openFolder(folder)
        defer { close(descriptor) }
        try FileIO.fsync(descriptor, path: folder.map(path(of:)) ?? path)
    }

    /// Removes the subfolder `folder` if it is empty (a link is removed as a
    /// name, never followed); false when it is not there or not empty.
    @discardableResult
    func removeFolderIfEmpty(_ folder: String) -> Bool {
        guard let root = try? openFolder(nil) else { return false }
        defer { close(root) }
        guard Self.status(root, folder)?.isFolder == true else { return false }
        return unlinkat(root, folder, AT_REMOVEDIR) == 0
    }

    // MARK: Files

    /// `lstat` of a file in the package: kind, size and identity, `nil` if it
    /// does not exist (or its folder cannot be reached without a link).
    func status(_ item: Item) -> FileIO.Status? {
        guard let descriptor = try? openFolder(item.folder) else { return nil }
        defer { close(descriptor) }
        return Self.status(descriptor, item.name)
    }

    static func status(_ folder: Int32, _ name: String) -> FileIO.Status? {
        var info = stat()
        guard fstatat(folder, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { return nil }
        return FileIO.Status(info)
    }

    /// Opens a regular file for reading, never blocking (see ``FileIO/openRegularFile(_:followingLinks:)``).
    ///
    /// - Returns: the descriptor (the caller closes it) and the file's size.
    func openRegularFile(_ item: Item) throws(PackageError) -> (descriptor: Int32, size: Int) {
        try withFolder(of: item) { (folder: Int32) throws(PackageError) in
            try FileIO.openRegularFile(at: folder, item.name, path: item.path)
        }
    }

    /// Reads a regular file whole, within `limit` bytes (``FileIO/readContents(of:size:limit:path:)``).
    func readFile(_ item: Item, limit: Int = FileIO.maximumBlobSize) throws(PackageError) -> Data {
        let (descriptor, size) = try openRegularFile(item)
        defer { close(descriptor) }
        return try FileIO.readContents(of: descriptor, size: size, limit: limit, path: item.path)
    }

    /// Maps a regular file read-only, within `limit` bytes (``FileIO/mapContents(of:size:limit:path:)``): the
    /// mapping keeps the bytes reachable after the name is removed.
    func mapFile(_ item: Item, limit: Int = FileIO.maximumBlobSize) throws(PackageError) -> Data {
        let (descriptor, size) = try openRegularFile(item)
        defer { close(descriptor) }
        return try FileIO.mapContents(of: descriptor, size: size, limit: limit, path: item.path)
    }

    /// Creates a temporary file for writing. Whatever has the name (a file a
    /// crash left, or a link or FIFO put there) is removed first, as a name:
    /// a link is never followed, a FIFO never opened. Then the file is created
    /// new (`O_EXCL`), so nothing put there meanwhile is written through.
    private static func createTemporary(at folder: Int32, _ name: String, path: String) throws(PackageError) -> Int32 {
        // A folder there is not removed: the create below then fails, naming it.
        _ = unlinkat(folder, name, 0)
        let descriptor = openat(folder, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard descriptor >= 0 else { throw FileIO.error(path: path, operation: "create") }
        return descriptor
    }

    /// Writes a temporary file (replacing whatever had the name) without
    /// syncing it: the caller syncs it with ``syncFile(_:)`` and renames it
    /// into place before anything refers to it.
    func writeTemporary(_ item: Item, _ bytes: [UInt8]) throws(PackageError) {
        try withFolder(of: item) { (folder: Int32) throws(PackageError) in
            let descriptor = try Self.createTemporary(at: folder, item.name, path: item.path)
            defer { close(descriptor) }
            try FileIO.writeAll(descriptor, bytes, path: item.path)
        }
    }

    /// Flushes a file written earlier to disk.
    func syncFile(_ item: Item) throws(PackageError) {
        let (descriptor, _) = try openRegularFile(item)
        defer { close(descriptor) }
        try FileIO.fsync(descriptor, path: item.path)
    }

    /// Writes a file durably under a temporary name in its folder, then renames
    /// it into place: readers see the old file or the new one, whole.
    func writeAtomically(
        _ item: Item, create: Bool = false,
        produce: (Int32) throws(PackageError) -> Void
    ) throws(PackageError) {
        try withFolder(of: item, create: create) { (folder: Int32) throws(PackageError) in
            let temporary = FileIO.temporaryName(for: item.name)
            let temporaryPath = self.item(temporary, in: item.folder).path
            let descriptor = try Self.createTemporary(at: folder, temporary, path: temporaryPath)
            do throws(PackageError) {
                try produce(descriptor)
                try FileIO.fsync(descriptor, path: temporaryPath)
            } catch {
                close(descriptor)
                unlinkat(folder, temporary, 0)
                throw error
            }
            close(descriptor)
            if renameat(folder, temporary, folder, item.name) != 0 {
                let failure = FileIO.error(path: item.path, operation: "rename")
                unlinkat(folder, temporary, 0)
                throw failure
            }
        }
    }

    /// Renames a file within its folder, replacing `destination` atomically.
    func move(_ source: Item, to destination: String) throws(PackageError) {
        try withFolder(of: source) { (folder: Int32) throws(PackageError) in
            if renameat(folder, source.name, folder, destination) != 0 {
                throw FileIO.error(path: item(destination, in: source.folder).path, operation: "rename")
            }
        }
    }

    /// Removes a file's name (a link is removed itself, never its target);
    /// false when it could not be removed.
    @discardableResult
    func remove(_ item: Item) -> Bool {
        guard let folder = try? openFolder(item.folder) else { return false }
        defer { close(folder) }
        return unlinkat(folder, item.name, 0) == 0
    }
}
