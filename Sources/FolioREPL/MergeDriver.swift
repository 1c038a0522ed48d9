import Foundation
import FolioCore

/// `folio merge-file BASE OURS THEIRS PATH`: the merge driver Git runs (set up
/// by ``GitSetup``) for each file inside a Folio package that both sides changed.
///
/// Git passes three temporary files — the common ancestor (`%O`), ours (`%A`)
/// and theirs (`%B`) — and the file's path in the repository (`%P`). The driver
/// merges them, writes the result over OURS, and exits with ``Status``: 0 when
/// the merge is clean, 1 when conflicts remain (recorded in the merged file:
/// Git then marks the file conflicted and the user resolves it in `folio`),
/// 2 on errors, with a message on stderr and OURS left as it was.
///
/// What the file is decides how it merges (``FileKind``, from the path inside
/// its package): the manifest, a part (`parts/ENTITY/….xml`), a history file
/// (`history/….xml`) or a blob (`blobs/…`) go to the library's merge of a
/// package file; any other file (a format 1 or 2 package's files, a file Folio
/// does not know) merges line by line, as Git would without the driver
/// (`git merge-file`, conflict markers and all).
public enum MergeDriver {
    /// A package file Folio merges, by its path inside the package.
    public enum FileKind: Equatable, Sendable {
        /// `manifest.xml`.
        case manifest
        /// `parts/ENTITY/NAME.xml`: one entity's objects.
        case part(entity: String)
        /// `history/NAME.xml`: one writer's transactions.
        case history
        /// `blobs/…`: an externally stored value.
        case blob
    }

    /// How `folio merge-file` ends.
    public enum Status: Int32, Sendable {
        /// Merged cleanly: OURS holds the result.
        case clean = 0
        /// Merged with conflicts: OURS holds the result, the conflicts recorded in it.
        case conflicts = 1
        /// Not merged (unreadable input, a failed merge, bad arguments): OURS is as it was.
        case failed = 2
    }

    /// What a run did: its exit status and what it says on stderr (nothing when clean).
    public struct Outcome: Equatable, Sendable {
        /// The exit status.
        public var status: Status
        /// A message for stderr, or nil.
        public var message: String?
    }

    /// Where a repository path lies in a package: the package's path in the
    /// repository, and what kind of file it is there (nil for a file the
    /// library does not merge). Nil when the path is in no `*.folio` folder.
    ///
    /// ```swift
    /// MergeDriver.locate("docs/Zoo.folio/parts/Animal/1a2b3c4d-0000.xml")
    /// // (package: "docs/Zoo.folio", kind: .part(entity: "Animal"))
    /// ```
    public static func locate(_ path: String) -> (package: String, kind: FileKind?)? {
        let components = path.split(separator: "/").map(String.init)
        var found: (package: String, kind: FileKind?)?
        // The innermost package whose layout the rest of the path matches; else the innermost package.
        for index in components.indices.dropLast().reversed() where components[index].hasSuffix(".folio") {
            let package = components[...index].joined(separator: "/")
            let kind = Self.kind(Array(components[(index + 1)...]))
            if kind != nil { return (package, kind) }
            if found == nil { found = (package, nil) }
        }
        return found
    }

    /// The kind of a file by its path components inside a package.
    static func kind(_ inside: [String]) -> FileKind? {
        switch inside.count {
        case 1 where inside[0] == "manifest.xml":
            return .manifest
        case 2 where inside[0] == "history" && inside[1].hasSuffix(".xml"):
            return .history
        case 3 where inside[0] == "parts" && inside[2].hasSuffix(".xml"):
            return .part(entity: inside[1])
        case 2... where inside[0] == "blobs":
            return .blob
        default:
            return nil
        }
    }

    /// Runs the driver on `arguments` (BASE OURS THEIRS PATH), relative paths
    /// taken from `directory` (Git runs drivers at the work tree's top).
    public static func run(_ arguments: [String], in directory: URL) -> Outcome {
        run(arguments, in: directory, merging: engine)
    }

    /// ``run(_:in:)`` with the package-file merge `engine` (tests pass a fake).
    static func run(_ arguments: [String], in directory: URL, merging engine: any PackageFileMerging) -> Outcome {
        guard arguments.count == 4 else {
            return Outcome(
                status: .failed,
                message: "folio merge-file needs 4 arguments, BASE OURS THEIRS PATH "
                    + "(Git passes %O %A %B %P), not \(arguments.count)")
        }
        let folder = URL(fileURLWithPath: directory.path, isDirectory: true)
        let files = arguments[0..<3].map { URL(fileURLWithPath: $0, relativeTo: folder) }
        let path = arguments[3]
        guard let (package, kind) = locate(path), let kind else {
            return textMerge(base: files[0], ours: files[1], theirs: files[2], path: path, in: directory)
        }
        for (file, role) in zip(files, ["base", "ours", "theirs"]) where !FileManager.default.isReadableFile(atPath: file.path) {
            return Outcome(
                status: .failed,
                message: "folio merge-file: cannot read \(role) \(file.relativePath) for \(path): "
                    + "no such readable file")
        }
        let merged: MergedFile
        do {
            merged = try engine.merge(
                kind: kind, base: files[0], ours: files[1], theirs: files[2],
                package: folder.appendingPathComponent(package, isDirectory: true))
        } catch {
            return Outcome(status: .failed, message: "folio merge-file: \(path): \(error)")
        }
        do {
            try merged.contents.write(to: files[1], options: .atomic)
        } catch {
            return Outcome(
                status: .failed,
                message: "folio merge-file: cannot write the merged \(path) over "
                    + "\(files[1].relativePath): \(error.localizedDescription)")
        }
        guard merged.conflicts > 0 else { return Outcome(status: .clean, message: nil) }
        let count = merged.conflicts == 1 ? "1 conflict" : "\(merged.conflicts) conflicts"
        return Outcome(
            status: .conflicts,
            message: "folio merge-file: \(path): \(count) recorded in the package; "
                + "open it in folio to resolve them (conflicts, resolve), then git add it")
    }

    /// A file Folio does not merge, merged as Git would without the driver: `git merge-file`, line by line,
    /// conflict markers written into OURS.
    static func textMerge(base: URL, ours: URL, theirs: URL, path: String, in directory: URL) -> Outcome {
        do {
            let git = try GitProgram.onPath()
            let run = try git.run(
                [
                    "merge-file", "-L", "ours", "-L", "base", "-L", "theirs", "--",
                    ours.path, base.path, theirs.path,
                ], in: directory)
            // git merge-file exits with the number of conflicts (at most 127), or a negative number (255) on errors.
            switch run.status {
            case 0: return Outcome(status: .clean, message: nil)
            case 1...127:
                return Outcome(
                    status: .conflicts,
                    message: "folio merge-file: \(path) is not a file Folio "
                        + "merges; merged line by line, with conflict markers")
            default: return Outcome(status: .failed, message: "folio merge-file: \(path): git merge-file: \(run.reason)")
            }
        } catch {
            return Outcome(status: .failed, message: "folio merge-file: \(path): \(error)")
        }
    }

    /// The merge the driver runs: FolioCore's ``PackageFileMerge``.
    nonisolated(unsafe) static var engine: any PackageFileMerging = LibraryPackageFileMerge()
}

/// A package file merged: its new contents and how many conflicts it records.
struct MergedFile: Equatable, Sendable {
    /// What OURS becomes.
    var contents: Data
    /// Conflicts recorded in `contents` (0: a clean merge).
    var conflicts: Int
}

/// The library call `folio merge-file` makes: the three-way merge of one file
/// of a package (the same result however Git splits a package's merge into
/// files). A protocol so the driver's plumbing is tested with a fake too.
protocol PackageFileMerging: Sendable {
    /// Merges `ours` and `theirs`, both descended from `base` (an empty file
    /// when both sides added it), as a file of `kind` of the package at `package`.
    ///
    /// - Throws: when they cannot be merged (unreadable XML, schemas that differ); nothing is written then.
    func merge(kind: MergeDriver.FileKind, base: URL, ours: URL, theirs: URL, package: URL) throws -> MergedFile
}

/// ``PackageFileMerge``, FolioCore's merge of one package file.
struct LibraryPackageFileMerge: PackageFileMerging {
    func merge(kind: MergeDriver.FileKind, base: URL, ours: URL, theirs: URL, package: URL) throws -> MergedFile {
        let libraryKind: PackageFileMerge.Kind
        switch kind {
        case .manifest: libraryKind = .manifest
        case .part(let entity): libraryKind = .part(entity: entity)
        case .history: libraryKind = .history
        case .blob: libraryKind = .blob
        }
        let merged = try PackageFileMerge.merge(libraryKind, base: base, ours: ours, theirs: theirs, package: package)
        return MergedFile(contents: merged.contents, conflicts: merged.conflicts.count)
    }
}
