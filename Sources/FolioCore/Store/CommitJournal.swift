import Foundation

/// The commit journal of a format-3 save (docs/FORMAT.md, "Saving"): how a
/// save that replaces several files under stable names stays atomic.
///
/// A save writes each new file as a temporary beside it (`.NAME.tmp`, made
/// durable), then writes this journal — the list of files to put in place —
/// to `.folio-journal.tmp`, makes it durable and renames it to
/// `.folio-journal` (the **commit point**: the rename and the package folder
/// made durable), then renames each temporary over its file, makes their
/// folders durable, and removes the journal. A crash before the commit point
/// leaves the old files untouched (the temporaries are garbage, removed by
/// the next save); after it, the journal names everything needed to finish,
/// and whoever may write the package next rolls it forward
/// (``rollForward(in:)``); a reader that may not write reads through it
/// (``readItem(for:in:)``: each named file's temporary while it is there).
///
/// ```
/// folio commit journal 1
/// parts/Animal/1a2b3c4d-0000.xml
/// history/1a2b3c4d-00000001.xml
/// end
/// ```
///
/// The journal names the renames and nothing else, and only names the
/// layout produces (``isAllowedTarget(_:)``): a damaged or hostile journal
/// cannot make Folio rename anything else, inside the package or out of it.
struct CommitJournal: Equatable, Sendable {
    static let fileName = ".folio-journal"
    private static let header = "folio commit journal 1"
    private static let footer = "end"

    /// The package-relative paths of the files the commit puts in place, each
    /// renamed from its temporary in the same folder.
    var targets: [String]

    init(targets: [String]) { self.targets = targets }

    /// The journal's bytes.
    var bytes: [UInt8] { Array(([Self.header] + targets + [Self.footer]).map { $0 + "\n" }.joined().utf8) }

    /// Reads a journal's bytes; `nil` for anything but a whole journal of allowed targets.
    init?(bytes: [UInt8]) {
        guard let text = String(validating: bytes, as: UTF8.self), text.hasSuffix("\n") else { return nil }
        let lines = text.dropLast().split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard lines.count >= 2, lines.first == Self.header, lines.last == Self.footer else { return nil }
        let targets = Array(lines.dropFirst().dropLast())
        guard targets.allSatisfy(Self.isAllowedTarget), Set(targets).count == targets.count else { return nil }
        self.targets = targets
    }

    /// Whether a journal may name `path`: `manifest.xml`, a part file of an
    /// entity's folder, or a history file — exactly the names the layout produces.
    static func isAllowedTarget(_ path: String) -> Bool {
        if path == PackageManifest.fileName { return true }
        let steps = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        switch steps.count {
        case 3:
            return steps[0] == PackageLayout.partsFolderName && FileIO.isSafeBlobName(steps[1])
                && PackageLayout.part(ofFileName: steps[2]) != nil
        case 2:
            return steps[0] == PackageLayout.historyFolderName && PackageLayout.history(ofFileName: steps[1]) != nil
        default:
            return false
        }
    }

    /// The package's item at a package-relative path.
    static func item(_ path: String, in folder: PackageFolder) -> PackageFolder.Item {
        guard let slash = path.lastIndex(of: "/") else { return folder.item(path) }
        return folder.item(String(path[path.index(after: slash)...]), in: String(path[..<slash]))
    }

    /// The temporary a save writes the new version of `item` to.
    static func temporary(of item: PackageFolder.Item) -> PackageFolder.Item {
        item.package.item(FileIO.temporaryName(for: item.name), in: item.folder)
    }

    /// Where a commit may be interrupted (tests stop a save there, as a crash would).
    enum Stage: Equatable, Sendable {
        /// Every temporary is written and durable; no journal yet.
        case temporariesDurable
        /// The journal is durable: the commit point has passed.
        case journalDurable
        /// `count` of the files are renamed into place.
        case renamed(Int)
    }

    /// Writes each file as a durable temporary beside its name (made durable
    /// together, after all are written), creating folders as needed.
    static func writeTemporaries(_ files: [(path: String, bytes: [UInt8])], in folder: PackageFolder) throws(PackageError) {
        var written: [PackageFolder.Item] = []
        do throws(PackageError) {
            for file in files {
                let item = Self.item(file.path, in: folder)
                if let subfolder = item.folder { close(try folder.openFolder(subfolder, create: true)) }
                let temporary = temporary(of: item)
                written.append(temporary)
                try folder.writeTemporary(temporary, file.bytes)
            }
            for temporary in written { try folder.syncFile(temporary) }
        } catch {
            for temporary in written { folder.remove(temporary) }
            throw error
        }
    }

    /// Commits files written by ``writeTemporaries(_:in:)``: the journal made
    /// durable (the commit point), the renames, their folders made durable, the
    /// journal removed.
    ///
    /// - Parameter interrupt: tests only: called at each ``Stage``; what it
    ///   throws stops the commit there, leaving the files as a crash would.
    /// - Throws: ``PackageError``; before the commit point nothing is changed
    ///   (the caller removes its temporaries), after it the journal stays for
    ///   the next writer to roll forward.
    static func commit(
        _ targets: [String], in folder: PackageFolder,
        interrupt: ((Stage) throws(PackageError) -> Void)? = nil
    ) throws(PackageError) {
        try interrupt?(.temporariesDurable)
        let journal = folder.item(fileName)
        let bytes = CommitJournal(targets: targets).bytes
        try folder.writeAtomically(journal) { (descriptor: Int32) throws(PackageError) in
            try FileIO.writeAll(descriptor, bytes, path: journal.path)
        }
        try folder.sync(nil)
        try interrupt?(.journalDurable)
        try finish(CommitJournal(targets: targets), in: folder, interrupt: interrupt)
    }

    /// Renames what is still a temporary into place, makes the folders durable, removes the journal.
    private static func finish(
        _ journal: CommitJournal, in folder: PackageFolder,
        interrupt: ((Stage) throws(PackageError) -> Void)?
    ) throws(PackageError) {
        var folders = Set<String?>()
        for (index, path) in journal.targets.enumerated() {
            let item = Self.item(path, in: folder)
            let temporary = temporary(of: item)
            // Already renamed (a commit rolled forward twice): nothing left to do for it.
            if folder.status(temporary)?.isRegular == true { try folder.move(temporary, to: item.name) }
            folders.insert(item.folder)
            try interrupt?(.renamed(index + 1))
        }
        for subfolder in folders { try folder.sync(subfolder) }
        folder.remove(folder.item(fileName))
        try folder.sync(nil)
    }

    /// The journal a package holds, if any: a commit not finished yet.
    ///
    /// - Throws: ``PackageError/unexpectedContent(_:found:expected:)`` for a
    ///   journal that is not one (damaged, or naming what a journal may not);
    ///   nothing is renamed then.
    static func pending(in folder: PackageFolder) throws(PackageError) -> CommitJournal? {
        let item = folder.item(fileName)
        guard let status = folder.status(item) else { return nil }
        guard status.isRegular else { throw .notARegularFile(path: item.path, kind: status.kind) }
        let data = try folder.readFile(item, limit: 1 << 24)
        guard let journal = CommitJournal(bytes: [UInt8](data)) else {
            throw .unexpectedContent(
                PackageError.Location(file: item.path, line: 0, column: 0), found: "a damaged commit journal",
                expected: "'\(header)', the package-relative paths of part, history and manifest files, 'end'")
        }
        return journal
    }

    /// Finishes a commit a crash interrupted, if the package holds its journal.
    /// Only a writer holding the package's lock calls this (a reader reads through).
    ///
    /// - Returns: whether there was one to finish.
    @discardableResult
    static func rollForward(in folder: PackageFolder) throws(PackageError) -> Bool {
        guard let journal = try pending(in: folder) else { return false }
        try finish(journal, in: folder, interrupt: nil)
        return true
    }

    /// The item a reader reads for the file at `path`: while this journal is
    /// pending, a named file's temporary when it is still there (the commit's
    /// new version), else the file itself.
    func readItem(for path: String, in folder: PackageFolder) -> PackageFolder.Item {
        let item = Self.item(path, in: folder)
        guard targets.contains(path) else { return item }
        let temporary = Self.temporary(of: item)
        guard folder.status(temporary)?.isRegular == true else { return item }
        #if DEBUG
        Self.readingTemporaryHook(for: folder)?(temporary)
        #endif
        // The commit may rename it into place before the reader opens it: the open then
        // fails, and the read is made again (``DocumentPackage/readDocument(limits:)``).
        return temporary
    }

    #if DEBUG
    /// Runs `hook` when a reader of the package at `folder` chooses a commit's
    /// temporary to read, before it opens it (until called with `nil`): a test
    /// renames it there, as a commit on another thread may (tests only).
    static func onReadingTemporary(in folder: String, _ hook: (@Sendable (PackageFolder.Item) -> Void)?) {
        hookLock.withLock { readingTemporaryHooks[folder] = hook }
    }

    private static func readingTemporaryHook(for folder: PackageFolder) -> (@Sendable (PackageFolder.Item) -> Void)? {
        hookLock.withLock { readingTemporaryHooks[folder.path] }
    }

    private static let hookLock = NSLock()
    nonisolated(unsafe) private static var readingTemporaryHooks: [String: @Sendable (PackageFolder.Item) -> Void] = [:]
    #endif
}
