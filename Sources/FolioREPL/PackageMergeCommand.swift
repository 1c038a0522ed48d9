import Foundation
import FolioCore

/// `folio merge BASE OURS THEIRS [-o OUT]`: three packages of one document
/// merged by ``DocumentPackage/merge(base:ours:theirs:into:)``, for sync tools
/// that keep conflict copies, and for scripts.
///
/// Without OUT the result replaces OURS, as `git merge-file` writes over its
/// first file. It prints what was merged and how many conflicts were
/// recorded, and ends with ``Status``: 0 clean, 1 with conflicts recorded in
/// the result (open it in folio and run `conflicts`), 2 on errors, with a
/// message on stderr and nothing written.
public enum PackageMergeCommand {
    /// How `folio merge` ends.
    public enum Status: Int32, Sendable {
        /// Merged cleanly.
        case clean = 0
        /// Merged, with conflicts recorded in the result.
        case conflicts = 1
        /// Not merged (a path that is not a package, an existing OUT, a merge refused): nothing written.
        case failed = 2
    }

    /// What a run did: its exit status, its summary for stdout, its message for stderr.
    public struct Outcome: Equatable, Sendable {
        /// The exit status.
        public var status: Status
        /// The summary for stdout (empty on errors).
        public var output: String
        /// A message for stderr, or nil.
        public var message: String?
    }

    /// Merges `base`, `ours` and `theirs` (paths, relative ones taken from
    /// `directory`) into `output`, or into `ours` when it is nil.
    public static func run(base: String, ours: String, theirs: String, output: String?, in directory: URL) -> Outcome {
        let folder = URL(fileURLWithPath: directory.path, isDirectory: true)
        func url(_ path: String) -> URL { URL(fileURLWithPath: path, relativeTo: folder).standardizedFileURL }
        let destination = output ?? ours
        let result: PackageMergeResult
        do {
            result = try DocumentPackage.merge(base: url(base), ours: url(ours), theirs: url(theirs), into: url(destination))
        } catch {
            return Outcome(status: .failed, output: "", message: "error: folio merge: \(error)")
        }
        return Outcome(
            status: result.hasConflicts ? .conflicts : .clean,
            output: summary(result, destination: destination), message: nil)
    }

    /// The lines `folio merge` prints: what was merged, then the conflicts.
    static func summary(_ result: PackageMergeResult, destination: String) -> String {
        var lines: [String] = []
        switch result.method {
        case .fileByFile:
            lines.append(
                "merged into \(destination) file by file: \(count(result.mergedFiles, "file")) merged object by object, "
                    + "\(count(result.takenFiles, "file")) taken from theirs, \(count(result.removedFiles, "file")) removed")
        case .wholeGraph:
            lines.append("merged into \(destination) as whole documents: \(count(result.objectCount ?? 0, "object"))")
        }
        if result.conflicts.isEmpty {
            lines.append("no conflicts")
        } else {
            lines.append(
                "\(count(result.conflicts.count, "conflict")) recorded: open \(destination) in folio and run "
                    + "'conflicts' to resolve them")
            for conflict in result.conflicts.prefix(maximumListed) { lines.append("  \(conflict)") }
            if result.conflicts.count > maximumListed { lines.append("  … and \(result.conflicts.count - maximumListed) more") }
        }
        return lines.map { $0 + "\n" }.joined()
    }

    /// How many conflicts the summary names one by one.
    static let maximumListed = 10

    /// `1 file`, `2 files`, `1,234 objects`.
    private static func count(_ number: Int, _ noun: String) -> String {
        let digits = String(number)
        var grouped = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { grouped.append(",") }
            grouped.append(digit)
        }
        return "\(grouped) \(noun)\(number == 1 ? "" : "s")"
    }
}
