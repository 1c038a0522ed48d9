import Foundation

/// What ``DocumentPackage/merge(base:ours:theirs:into:)`` did.
public struct PackageMergeResult: Sendable, Equatable {
    /// How the three packages were merged.
    public enum Method: Sendable, Equatable {
        /// File by file (packages of format 3, whose part paths are a pure function
        /// of the objects' identifiers): only files both sides changed were parsed.
        case fileByFile
        /// Whole documents: the three graphs read, merged by
        /// ``ObjectGraph/merge(base:ours:theirs:)`` and written (packages of
        /// formats 1 and 2, or a mix of formats).
        case wholeGraph
    }

    /// How the packages were merged.
    public var method: Method
    /// The conflicts this merge recorded in the destination (those the versions
    /// already recorded are kept there, and not listed); empty for a clean merge.
    public var conflicts: [MergeConflict]
    /// Files both sides changed, merged object by object (``Method/fileByFile`` only).
    public var mergedFiles: Int
    /// Files only theirs added or changed, taken as they are (``Method/fileByFile`` only).
    public var takenFiles: Int
    /// Files only theirs removed, removed (``Method/fileByFile`` only).
    public var removedFiles: Int
    /// Objects in the merged document (``Method/wholeGraph`` only: the file-by-file
    /// merge reads only the files both sides changed, and does not count them).
    public var objectCount: Int?
    /// How many ``ObjectState``s the merge built from the three versions: the
    /// measure of its work (file by file, tests check it follows the objects
    /// both sides changed, not the document).
    var statesBuilt = 0

    /// Whether the merge recorded conflicts.
    public var hasConflicts: Bool { !conflicts.isEmpty }
}

/// Why ``DocumentPackage/merge(base:ours:theirs:into:)`` refused or failed;
/// the destination was left as it was.
public enum PackageMergeError: Error, Sendable, CustomStringConvertible {
    /// A path given is not a package folder (a folder holding `manifest.xml`, or a format-1 `document.xml`).
    case notAPackage(path: String, role: String)
    /// The destination exists and is not OURS.
    case destinationExists(path: String)
    /// A version could not be read.
    case package(PackageError)
    /// The merge itself refused (schemas that differ, a value it could not read, too many objects).
    case merge(MergeError)
    /// One file both sides changed could not be merged (file-by-file merge).
    case file(path: String, reason: String)
    /// The destination could not be written.
    case write(path: String, reason: String)

    public var description: String {
        switch self {
        case .notAPackage(let path, let role):
            return "\(role) \(path) is not a Folio package (a folder holding manifest.xml)"
        case .destinationExists(let path):
            return "\(path) already exists; the merge writes a new package, or replaces OURS"
        case .package(let error): return error.description
        case .merge(let error): return error.description
        case .file(let path, let reason): return "\(path): \(reason)"
        case .write(let path, let reason): return "cannot write \(path): \(reason)"
        }
    }
}

extension DocumentPackage {
    /// Merges two edited copies of one document with the copy they both started
    /// from, and writes the result as a new package at `destination`.
    ///
    /// ```swift
    /// let result = try DocumentPackage.merge(base: baseURL, ours: mineURL, theirs: yoursURL, into: mineURL)
    /// if result.hasConflicts { print("open it and run 'conflicts'") }
    /// ```
    ///
    /// When all three are format-3 packages (stable part paths, `parts/ENTITY/LANE-BUCKET.xml`),
    /// they merge **file by file**: over the union of the files' relative paths, a
    /// file equal in ours and theirs, or unchanged on one side, is taken as it is
    /// without being parsed (sizes compared, then bytes); a file added on one
    /// side is taken, one removed on one side and unchanged on the other is
    /// removed; a file both sides changed goes through ``PackageFileMerge``
    /// (a part line by line: only the objects both sides changed are parsed
    /// and merged, their conflicts recorded in it; the schema read once). What needs
    /// the whole document (a link to an object the other side deleted, unique
    /// values two objects now share) is settled when the merged package is
    /// opened, as for a package Git merged with `folio merge-file`. A file one
    /// side removed and the other changed is kept as changed (a format-3
    /// package never removes a part or a history file).
    ///
    /// Otherwise (formats 1 and 2, or a mix) the three documents are read
    /// whole, merged by ``ObjectGraph/merge(base:ours:theirs:)`` and written
    /// with ``write(_:)``, with ours' history.
    ///
    /// Either way the merged package's history ends with one **merge
    /// transaction** by ``mergeAuthor``, numbered above every transaction of
    /// the three versions: what the result changes from ours (inserts, updates
    /// with the properties changed, deletes with their tombstones), so an app
    /// that syncs from ours' history sees what the merge brought in after its
    /// last token (none when the result equals ours; docs/FORMAT.md, "Merge
    /// transactions").
    ///
    /// Either way the merged package is written into a temporary folder beside
    /// `destination`, then renamed into place: `destination` is either absent
    /// or whole. When `destination` is `ours` (as `git merge-file` writes over
    /// ours), ours is renamed aside, the new package renamed into its place,
    /// and the old one removed. Nothing is written outside that temporary
    /// folder and `destination`; the three versions are only read.
    ///
    /// - Parameters:
    ///   - base: the common ancestor's package.
    ///   - ours: our edited package.
    ///   - theirs: their edited package.
    ///   - destination: where the merged package goes: a path that does not exist, or `ours`.
    /// - Returns: how the packages were merged, the conflicts recorded, and counts.
    /// - Throws: ``PackageMergeError``: a path that is not a package, a
    ///   destination that exists and is not `ours`, a version that does not
    ///   read, a merge the engine refuses (schemas changed differently on the
    ///   two sides), a file that cannot be written. Nothing is written then.
    /// - Complexity: file by file, O(total bytes compared) plus the per-object
    ///   merge of the objects both sides changed, and (for the merge
    ///   transaction) the part files the result changed from ours compared
    ///   line by line, the objects whose lines differ read: proportional to
    ///   the edits (and the bytes of the files they touched), not the
    ///   document. Whole documents: O(objects × properties + links) of the
    ///   three versions and the result, reading and writing them, and ours' history.
    public static func merge(base: URL, ours: URL, theirs: URL, into destination: URL) throws(PackageMergeError)
        -> PackageMergeResult
    {
        for (url, role) in [(base, "base"), (ours, "ours"), (theirs, "theirs")] where !isPackageFolder(url) {
            throw .notAPackage(path: url.path, role: role)
        }
        let destination = destination.standardizedFileURL
        let replacesOurs = destination.resolvingSymlinksInPath().path == ours.standardizedFileURL.resolvingSymlinksInPath().path
        if !replacesOurs, FileIO.status(destination.path) != nil {
            throw .destinationExists(path: destination.path)
        }
        let parent = destination.deletingLastPathComponent()
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: parent.path, isDirectory: &isFolder), isFolder.boolValue else {
            throw .write(path: destination.path, reason: "its folder \(parent.path) does not exist")
        }
        let temporary = parent.appendingPathComponent(".\(destination.lastPathComponent).merge-\(UUID().uuidString).tmp")
        defer { try? FileManager.default.removeItem(at: temporary) }

        let formats = [base, ours, theirs].map(formatVersion(of:))
        let result: PackageMergeResult
        if formats.allSatisfy({ $0 == stablePathsFormat }) {
            result = try mergeFiles(base: base, ours: ours, theirs: theirs, into: temporary)
        } else {
            result = try mergeGraphs(base: base, ours: ours, theirs: theirs, into: temporary)
        }
        try recordMergeHistory(result.method, base: base, ours: ours, theirs: theirs, merged: temporary)
        if replacesOurs { keepUndoJournal(of: ours, in: temporary) }
        try moveIntoPlace(temporary, destination, replacing: replacesOurs)
        return result
    }

    /// Links ours' undo journal into the merged package that replaces ours.
    /// The journal is this machine's record of ours' editing, not part of the
    /// document (Git never shares it): it stays with ours, and reopening drops
    /// the steps whose objects the merge changed (``ModelContext/restoreUndoJournal()``).
    /// A journal that cannot be linked is left behind: undo is lost, never data.
    private static func keepUndoJournal(of ours: URL, in merged: URL) {
        let name = DocumentPackage.undoJournalFileName
        _ = link(ours.appendingPathComponent(name).path, merged.appendingPathComponent(name).path)
    }

    /// The first format whose part paths are a pure function of the identifiers (docs/FORMAT.md).
    static let stablePathsFormat = "3"

    /// Whether `url` is a folder holding a manifest (formats 2 and 3) or a format-1 `document.xml`.
    static func isPackageFolder(_ url: URL) -> Bool {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), isFolder.boolValue else { return false }
        return [manifestFileName, documentFileName].contains {
            isFile(url.appendingPathComponent($0))
        }
    }

    /// The `format` attribute of the package's manifest root, read from its
    /// first kilobytes (the root comes before the schema); `nil` without a manifest.
    static func formatVersion(of package: URL) -> String? {
        guard let handle = FileHandle(forReadingAtPath: package.appendingPathComponent(manifestFileName).path) else { return nil }
        defer { try? handle.close() }
        guard let head = try? handle.read(upToCount: 4096) else { return nil }
        let text = String(decoding: head, as: UTF8.self)
        guard let root = text.range(of: "<folio") else { return nil }
        let tag = text[root.upperBound...].prefix { $0 != ">" }
        guard let attribute = tag.range(of: " format=\"") else { return nil }
        return String(tag[attribute.upperBound...].prefix { $0 != "\"" })
    }

    // MARK: Whole documents

    /// Formats 1 and 2: the three graphs read, merged, written into `folder`.
    private static func mergeGraphs(base: URL, ours: URL, theirs: URL, into folder: URL) throws(PackageMergeError)
        -> PackageMergeResult
    {
        let graphs: [ObjectGraph]
        do { graphs = try [base, ours, theirs].map { (url) throws(PackageError) in try DocumentPackage(url: url).read() } } catch {
            throw .package(error)
        }
        let merged: MergeResult
        do { merged = try ObjectGraph.merge(base: graphs[0], ours: graphs[1], theirs: graphs[2]) } catch { throw .merge(error) }
        do { try DocumentPackage(url: folder).write(merged.graph) } catch { throw .package(error) }
        return PackageMergeResult(
            method: .wholeGraph, conflicts: merged.conflicts, mergedFiles: 0, takenFiles: 0,
            removedFiles: 0, objectCount: merged.graph.count, statesBuilt: merged.statesBuilt)
    }

    // MARK: File by file

    /// Format 3: the union of the three packages' files, each taken, removed or merged, written into `folder`.
    private static func mergeFiles(base: URL, ours: URL, theirs: URL, into folder: URL) throws(PackageMergeError)
        -> PackageMergeResult
    {
        let trees = [base, ours, theirs].map(packageFiles(in:))
        let paths = Set(trees[0]).union(trees[1]).union(trees[2]).sorted()
        var taken = 0, removed = 0
        var toMerge: [String] = []
        var copies: [(from: URL, path: String)] = []
        for path in paths {
            let (b, o, t) = (
                base.appendingPathComponent(path), ours.appendingPathComponent(path),
                theirs.appendingPathComponent(path)
            )
            let unchangedOnOneSide = try sameFile(o, t) ? true : try sameFile(t, b)
            if unchangedOnOneSide {
                if isFile(o) { copies.append((o, path)) }
            } else if try sameFile(o, b) {
                if isFile(t) { copies.append((t, path)); taken += 1 } else { removed += 1 }
            } else if !isFile(o) || !isFile(t) {
                // Removed on one side, changed on the other: the change is kept.
                copies.append((isFile(o) ? o : t, path))
                if !isFile(o) { taken += 1 }
            } else {
                toMerge.append(path)
            }
        }
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
            for (source, path) in copies {
                let target = folder.appendingPathComponent(path)
                try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
                try FileManager.default.copyItem(at: source, to: target)
            }
        } catch {
            throw .write(path: folder.path, reason: error.localizedDescription)
        }
        // The manifest first: the parts read their schema from the merged package,
        // which by now holds every blob either side has.
        var conflicts: [MergeConflict] = []
        var statesBuilt = 0
        // Read once, from the merged manifest, for every part (not once per part).
        var schema: Schema?
        for path in toMerge.sorted(by: { ($0 == manifestFileName ? 0 : 1, $0) < ($1 == manifestFileName ? 0 : 1, $1) }) {
            guard let kind = fileKind(path) else {
                throw .file(path: path, reason: "both sides changed a file Folio does not merge")
            }
            let baseFile = base.appendingPathComponent(path)
            let merged: PackageFileMerge.Merged
            do {
                if case .part = kind, schema == nil { schema = try PackageFileMerge.schema(of: folder) }
                merged = try PackageFileMerge.merge(
                    kind, base: isFile(baseFile) ? baseFile : nil,
                    ours: ours.appendingPathComponent(path),
                    theirs: theirs.appendingPathComponent(path), package: folder,
                    schema: schema)
            } catch {
                throw .file(path: path, reason: error.description)
            }
            let target = folder.appendingPathComponent(path)
            do {
                try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
                try merged.contents.write(to: target)
            } catch {
                throw .write(path: target.path, reason: error.localizedDescription)
            }
            conflicts += merged.conflicts
            statesBuilt += merged.statesBuilt
        }
        return PackageMergeResult(
            method: .fileByFile, conflicts: conflicts, mergedFiles: toMerge.count, takenFiles: taken,
            removedFiles: removed, objectCount: nil, statesBuilt: statesBuilt)
    }

    /// What a file is, by its path inside a format-3 package; `nil` for a file Folio does not merge.
    static func fileKind(_ path: String) -> PackageFileMerge.Kind? {
        let components = path.split(separator: "/").map(String.init)
        switch components.count {
        case 1 where components[0] == manifestFileName: return .manifest
        case 2 where components[0] == historyFolderName && components[1].hasSuffix(".xml"): return .history
        case 3 where components[0] == partsFolderName && components[2].hasSuffix(".xml"): return .part(entity: components[1])
        case 2... where components[0] == blobsFolderName: return .blob
        default: return nil
        }
    }

    /// The package's regular files, as paths relative to it; names starting
    /// with a dot (temporaries, a pending commit's journal) and anything not a
    /// regular file or a folder are left out.
    static func packageFiles(in package: URL) -> [String] {
        var files: [String] = []
        func walk(_ relative: String) {
            let folder = relative.isEmpty ? package.path : package.path + "/" + relative
            for name in FileIO.entries(of: folder).sorted() where !name.hasPrefix(".") {
                let path = relative.isEmpty ? name : relative + "/" + name
                guard let status = FileIO.status(package.path + "/" + path) else { continue }
                if status.isRegular { files.append(path) } else if status.isFolder { walk(path) }
            }
        }
        walk("")
        return files
    }

    /// Whether two files hold the same bytes (both absent counts as the same): sizes first, then contents.
    private static func sameFile(_ a: URL, _ b: URL) throws(PackageMergeError) -> Bool {
        let (first, second) = (regularStatus(a), regularStatus(b))
        guard let first, let second else { return first == nil && second == nil }
        guard first.size == second.size else { return false }
        do {
            return try Data(contentsOf: a, options: .alwaysMapped) == Data(contentsOf: b, options: .alwaysMapped)
        } catch {
            throw .file(path: a.path, reason: error.localizedDescription)
        }
    }

    /// `lstat` of a regular file; `nil` for anything else (absent, a folder, a symbolic link).
    private static func regularStatus(_ url: URL) -> FileIO.Status? {
        guard let status = FileIO.status(url.path), status.isRegular else { return nil }
        return status
    }

    /// Whether `url` is a regular file (a symbolic link is not).
    private static func isFile(_ url: URL) -> Bool { regularStatus(url) != nil }

    // MARK: Into place

    /// Renames the merged package at `temporary` to `destination`; when it replaces
    /// ours, ours is renamed aside first and removed after.
    private static func moveIntoPlace(_ temporary: URL, _ destination: URL, replacing: Bool) throws(PackageMergeError) {
        guard replacing else {
            guard rename(temporary.path, destination.path) == 0 else {
                throw .write(path: destination.path, reason: String(cString: strerror(errno)))
            }
            return
        }
        let aside = destination.deletingLastPathComponent()
            .appendingPathComponent(".\(destination.lastPathComponent).merge-old-\(UUID().uuidString).tmp")
        guard rename(destination.path, aside.path) == 0 else {
            throw .write(path: destination.path, reason: String(cString: strerror(errno)))
        }
        guard rename(temporary.path, destination.path) == 0 else {
            let reason = String(cString: strerror(errno))
            _ = rename(aside.path, destination.path)
            throw .write(path: destination.path, reason: reason)
        }
        try? FileManager.default.removeItem(at: aside)
    }
}
