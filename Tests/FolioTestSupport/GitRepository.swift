import Foundation
import Testing

/// A Git repository in a temporary folder, driven through the real `git`
/// binary: commit, branch, merge, rebase, cherry-pick, and read the status
/// and the conflicts. Git's system and global configuration are kept out
/// (``environment``), so what a test sees depends only on what it set.
///
/// Tests that need Git are skipped, saying why, only when no `git` is on `PATH`:
///
/// ```swift
/// @Test(.enabled(if: GitRepository.isAvailable, GitRepository.unavailableReason))
/// func mergesTwoBranches() throws {
///     let repository = try GitRepository()
///     try repository.write("one\n", to: "notes.txt")
///     try repository.commitAll("first")
///     try repository.git("switch", "-c", "topic")
/// }
/// ```
public final class GitRepository: @unchecked Sendable {
    /// The `git` on `PATH`, or nil.
    public static let executable: URL? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        return path.split(separator: ":").map { URL(fileURLWithPath: String($0)).appendingPathComponent("git") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    /// Whether `git` is installed; tests that need it are enabled only then.
    public static var isAvailable: Bool { executable != nil }

    /// Why Git tests were skipped.
    public static let unavailableReason: Comment = "git is not installed (not on PATH): the Git tests need it; CI installs it"

    /// The environment every git command (and every `folio` that runs git for a test) gets, added to the
    /// process's own: no system or global config, no editor, no prompt, no pager.
    public static let environment: [String: String] = [
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "GIT_EDITOR": "true",
        "GIT_MERGE_AUTOEDIT": "no",
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_PAGER": "cat",
        "GIT_AUTHOR_NAME": "Folio Tests",
        "GIT_AUTHOR_EMAIL": "tests@folio.invalid",
        "GIT_COMMITTER_NAME": "Folio Tests",
        "GIT_COMMITTER_EMAIL": "tests@folio.invalid",
    ]

    /// The folder that holds the work tree (removed with this value).
    public let folder: TemporaryFolder
    /// The work tree's top.
    public let url: URL

    /// A git command that exited with a non-zero status where a test expected success.
    public struct CommandFailed: Error, CustomStringConvertible {
        /// The command, as typed.
        public var command: String
        /// What it did.
        public var run: ProgramRun
        public var description: String { "\(command) exited with \(run.status): \(run.stderr)\(run.stdout)" }
    }

    /// A new repository (`git init`, branch `main`) in a new temporary folder, with a local user name and
    /// e-mail and no commit signing.
    public init(_ label: String = "git") throws {
        folder = try TemporaryFolder(label)
        url = folder.appending("repository")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        try git("init", "--quiet", "--initial-branch=main")
        try git("config", "user.name", "Folio Tests")
        try git("config", "user.email", "tests@folio.invalid")
        try git("config", "commit.gpgsign", "false")
        try git("config", "core.autocrlf", "false")
    }

    // MARK: Running git

    /// Runs `git ARGUMENTS` in the work tree and returns what it did, whatever its exit status.
    public func run(_ arguments: [String]) throws -> ProgramRun {
        guard let git = Self.executable else { throw CommandFailed(command: "git", run: ProgramRun(status: 127, stdout: "", stderr: "git is not installed")) }
        // Run from the folder around the work tree (`-C` points git at it): runProgram keeps its
        // stdin and output files in the folder it runs in, and git must not see them.
        return try runProgram(git, ["-C", url.path] + arguments, in: folder.url, environment: Self.environment)
    }

    /// Runs `git ARGUMENTS` and returns its stdout.
    ///
    /// - Throws: ``CommandFailed`` when it exits with a non-zero status.
    @discardableResult
    public func git(_ arguments: String...) throws -> String {
        try git(arguments)
    }

    /// ``git(_:)-(String...)`` with an array.
    @discardableResult
    public func git(_ arguments: [String]) throws -> String {
        let run = try run(arguments)
        guard run.status == 0 else { throw CommandFailed(command: (["git"] + arguments).joined(separator: " "), run: run) }
        return run.stdout
    }

    // MARK: Files

    /// `path` (relative to the work tree) as a URL.
    public func file(_ path: String) -> URL { url.appendingPathComponent(path) }

    /// Writes `text` to `path` in the work tree, making its folders.
    public func write(_ text: String, to path: String) throws {
        let file = file(path)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: file)
    }

    /// The text of `path` in the work tree.
    public func read(_ path: String) throws -> String {
        try String(contentsOf: file(path), encoding: .utf8)
    }

    /// Copies `SampleDocuments/NAME` into the work tree as `path` (default: its own name).
    public func copySample(_ name: String, to path: String? = nil) throws {
        let destination = file(path ?? name)
        try FileManager.default.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: SampleDocuments.folder.appendingPathComponent(name), to: destination)
    }

    // MARK: Commits and branches

    /// Stages everything (`git add -A`) and commits it; returns the new commit's hash.
    @discardableResult
    public func commitAll(_ message: String) throws -> String {
        try git("add", "-A")
        try git("commit", "--quiet", "--allow-empty", "-m", message)
        return try head()
    }

    /// The hash of `HEAD` (or of `revision`).
    public func head(_ revision: String = "HEAD") throws -> String {
        try git("rev-parse", revision).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The current branch's name.
    public func currentBranch() throws -> String {
        try git("rev-parse", "--abbrev-ref", "HEAD").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Creates `branch` at `start` (default `HEAD`) and switches to it.
    public func createBranch(_ branch: String, at start: String = "HEAD") throws {
        try git("switch", "--quiet", "-c", branch, start)
    }

    /// Switches to `branch`.
    public func switchTo(_ branch: String) throws {
        try git("switch", "--quiet", branch)
    }

    // MARK: Combining branches (their runs: a conflict is a non-zero status, not an error)

    /// `git merge --no-edit BRANCH` into the current branch.
    public func merge(_ branch: String) throws -> ProgramRun {
        try run(["merge", "--no-edit", branch])
    }

    /// `git rebase ONTO` of the current branch.
    public func rebase(onto: String) throws -> ProgramRun {
        try run(["rebase", onto])
    }

    /// `git cherry-pick COMMIT` onto the current branch.
    public func cherryPick(_ commit: String) throws -> ProgramRun {
        try run(["cherry-pick", commit])
    }

    // MARK: State

    /// `git status --porcelain` lines (`XY PATH`), untracked files included.
    public func status() throws -> [String] {
        try git("status", "--porcelain", "--untracked-files=all").split(separator: "\n").map(String.init)
    }

    /// The paths Git holds as unmerged (conflicted), sorted.
    public func conflictedPaths() throws -> [String] {
        try git("diff", "--name-only", "--diff-filter=U").split(separator: "\n").map(String.init).sorted()
    }

    /// Whether a merge, rebase or cherry-pick stopped and waits for the user.
    public func isStopped() -> Bool {
        ["MERGE_HEAD", "CHERRY_PICK_HEAD", "rebase-merge", "rebase-apply"].contains { name in
            FileManager.default.fileExists(atPath: url.appendingPathComponent(".git/\(name)").path)
        }
    }

    /// The value Git gives attribute `name` for `path` (`git check-attr`): `folio`, `set`, `unset` or `unspecified`.
    public func attribute(_ name: String, of path: String) throws -> String {
        let line = try git("check-attr", name, "--", path).trimmingCharacters(in: .whitespacesAndNewlines)
        return line.components(separatedBy: ": ").last ?? ""
    }

    /// `git config --get KEY`, or nil when it is not set.
    public func config(_ key: String) throws -> String? {
        let run = try run(["config", "--get", key])
        return run.status == 0 ? run.stdout.trimmingCharacters(in: .newlines) : nil
    }
}
