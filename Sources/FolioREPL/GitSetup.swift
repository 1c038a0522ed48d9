import Foundation

/// `folio git setup`: makes a Git repository merge Folio packages object by
/// object, with `folio merge-file` as its merge driver.
///
/// Two things, both idempotent:
/// - the repository's top-level `.gitattributes` gets ``attributesLine``
///   (every file inside a `*.folio` folder, at any depth, merges with the
///   driver named `folio`), its other lines kept; this file is committed and
///   travels with the repository;
/// - the repository's local config gets `merge.folio.name` and
///   `merge.folio.driver` (``driverCommand(for:)``). Git never copies config
///   in a clone, so every clone runs `folio git setup` once.
///
/// No diff driver is registered: a package's files are already line-per-object
/// text, which Git's own diff shows well.
///
/// ```swift
/// let setup = GitSetup(git: try GitProgram.onPath(), directory: URL(fileURLWithPath: "."),
///                      command: "/usr/local/bin/folio")
/// for line in try setup.run() { print(line) }
/// ```
public struct GitSetup: Sendable {
    /// The lines ``run()`` adds to the clone's `.git/info/exclude`: each
    /// package's undo journal (and its temporary file) is this user's on this
    /// machine, never shared (see the DocC article "Undo that survives quitting").
    public static let excludeLines = ["**/*.folio/.folio-undo", "**/*.folio/..folio-undo.tmp"]
    /// The comment written above ``excludeLines``.
    public static let excludeComment = "# Folio undo journals: private to this clone (folio git setup)"
    /// The attributes line: every file inside a Folio package, at any depth of the repository.
    public static let attributesLine = "**/*.folio/** merge=folio"
    /// The comment written above ``attributesLine``.
    public static let attributesComment = "# Folio document packages merge object by object (folio git setup; each clone runs it once)"
    /// `merge.folio.name`: how Git names the driver.
    public static let driverName = "Folio document packages (folio merge-file)"
    /// A path inside a package that ``check()`` asks Git about.
    public static let probePaths = ["Doc.folio/parts/Animal/00000000-0000.xml", "docs/Doc.folio/manifest.xml"]

    /// The git that runs the commands.
    public var git: GitProgram
    /// Where `folio` was started: any folder inside the work tree.
    public var directory: URL
    /// The absolute path of the `folio` executable the driver runs.
    public var command: String

    /// A setup of the repository around `directory`, with the driver running `command`.
    public init(git: GitProgram, directory: URL, command: String) {
        self.git = git
        self.directory = directory
        self.command = command
    }

    /// The driver's command line as Git runs it (through `sh`): `command`, quoted
    /// for the shell when it needs to be, then `merge-file %O %A %B %P` (Git
    /// replaces those with the base, ours and theirs temporary files and the
    /// path in the repository, quoted).
    ///
    /// ```swift
    /// GitSetup.driverCommand(for: "/usr/bin/folio")      // "/usr/bin/folio merge-file %O %A %B %P"
    /// GitSetup.driverCommand(for: "/opt/my tools/folio") // "'/opt/my tools/folio' merge-file %O %A %B %P"
    /// ```
    public static func driverCommand(for command: String) -> String {
        shellQuoted(command) + " merge-file %O %A %B %P"
    }

    /// `word` as one word for `sh`: as it is when it holds only letters, digits and `/._+-`
    /// (and `%`-free, since Git expands `%` in a driver's command), else in single quotes.
    public static func shellQuoted(_ word: String) -> String {
        let plain =
            !word.isEmpty
            && word.unicodeScalars.allSatisfy { scalar in
                scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || "/._+-".unicodeScalars.contains(scalar))
            }
        if plain { return word }
        return "'" + word.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }

    /// `text` (a `.gitattributes` file's contents, `nil` when there is none)
    /// with ``attributesComment`` and ``attributesLine`` appended, or `nil`
    /// when it already has that line (the same words, however spaced). Other
    /// lines are kept as they are; a file with `\r\n` line endings keeps them.
    public static func addingAttributes(to text: String?) -> String? {
        let text = text ?? ""
        let wanted = attributesLine.split(whereSeparator: \.isWhitespace)
        // `\r\n` is one Character, and a newline: splitting at newlines splits both kinds of line.
        if text.split(whereSeparator: \.isNewline).contains(where: { $0.split(whereSeparator: \.isWhitespace) == wanted }) {
            return nil
        }
        let newline = text.contains("\r\n") ? "\r\n" : "\n"
        var result = text
        if let last = result.last {
            if !last.isNewline { result += newline }
            result += newline  // a blank line before the block
        }
        return result + attributesComment + newline + attributesLine + newline
    }

    /// `text` (an exclude file's contents, `nil` when there is none) with
    /// ``excludeComment`` and the ``excludeLines`` it lacks appended, or `nil`
    /// when it has them all. Other lines are kept as they are.
    public static func addingExcludes(to text: String?) -> String? {
        let text = text ?? ""
        let present = Set(text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) })
        let missing = excludeLines.filter { !present.contains($0) }
        guard !missing.isEmpty else { return nil }
        let newline = text.contains("\r\n") ? "\r\n" : "\n"
        var result = text
        if let last = result.last {
            if !last.isNewline { result += newline }
            result += newline
        }
        return result + excludeComment + newline + missing.map { $0 + newline }.joined()
    }

    /// The work tree's top folder (`git rev-parse --show-toplevel`).
    ///
    /// - Throws: ``GitError`` outside a Git work tree (or in a bare repository), saying so.
    public func topLevel() throws(GitError) -> URL {
        let run = try git.run(["rev-parse", "--show-toplevel"], in: directory)
        guard run.status == 0, !run.output.isEmpty else {
            throw GitError(
                "\(directory.path) is not inside a Git work tree (git: \(run.reason)); "
                    + "run folio git setup inside a clone of the repository")
        }
        return URL(fileURLWithPath: run.output, isDirectory: true)
    }

    /// Sets the repository up and returns what it did, one line each, ending with the reminder that every
    /// clone runs it once. A second run changes nothing and says so.
    ///
    /// - Throws: ``GitError`` outside a work tree, or when `.gitattributes` or the config cannot be written.
    public func run() throws(GitError) -> [String] {
        let top = try topLevel()
        var report: [String] = []

        let attributes = top.appendingPathComponent(".gitattributes")
        let existing: String?
        if FileManager.default.fileExists(atPath: attributes.path) {
            guard let data = try? Data(contentsOf: attributes) else {
                throw GitError("cannot read \(attributes.path)")
            }
            existing = String(decoding: data, as: UTF8.self)
        } else {
            existing = nil
        }
        let updated = Self.addingAttributes(to: existing)
        let changedAttributes = updated != nil
        if let updated {
            do {
                try Data(updated.utf8).write(to: attributes, options: .atomic)
            } catch {
                throw GitError("cannot write \(attributes.path): \(error.localizedDescription)")
            }
            report.append("\(existing == nil ? "created" : "updated") .gitattributes: \(Self.attributesLine)")
        }

        for (key, value) in [("merge.folio.name", Self.driverName), ("merge.folio.driver", Self.driverCommand(for: command))] {
            let current = try git.run(["config", "--local", "--get", key], in: top)
            if current.status == 0, current.output == value { continue }
            let set = try git.run(["config", "--local", key, value], in: top)
            guard set.status == 0 else { throw GitError("git config \(key) failed: \(set.reason)") }
            report.append(current.status == 0 ? "updated \(key): \(value) (was: \(current.output))" : "set \(key): \(value)")
        }

        // The undo journals stay out of Git in this clone only: they are per user and machine.
        let excludeRun = try git.run(["rev-parse", "--git-path", "info/exclude"], in: top)
        guard excludeRun.status == 0, !excludeRun.output.isEmpty else {
            throw GitError("cannot find the repository's exclude file (git: \(excludeRun.reason))")
        }
        let exclude = URL(fileURLWithPath: excludeRun.output, relativeTo: top).standardizedFileURL
        let excluded = (try? Data(contentsOf: exclude)).map { String(decoding: $0, as: UTF8.self) }
        if let updated = Self.addingExcludes(to: excluded) {
            do {
                try FileManager.default.createDirectory(at: exclude.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(updated.utf8).write(to: exclude, options: .atomic)
            } catch {
                throw GitError("cannot write \(exclude.path): \(error.localizedDescription)")
            }
            report.append("ignored undo journals in \(exclude.path): \(Self.excludeLines.joined(separator: ", "))")
        }

        if report.isEmpty {
            report.append("already set up in \(top.path): nothing changed")
        } else {
            report.insert("set up \(top.path) to merge Folio packages with folio merge-file:", at: 0)
        }
        for path in Self.probePaths {
            let value = try mergeAttribute(of: path, in: top)
            if value != "folio" {
                report.append(
                    "warning: Git still merges \(path) with merge=\(value ?? "unspecified"): "
                        + "another attributes line or file (.git/info/attributes) overrides .gitattributes")
            }
        }
        if changedAttributes {
            report.append("commit .gitattributes, so every clone routes packages to the driver")
        }
        report.append("Git does not copy merge drivers into clones: run folio git setup once in every clone")
        return report
    }

    /// Whether the repository is set up: what Git answers for a package's files
    /// (`git check-attr merge`) and for `merge.folio.driver` (in any config
    /// file), one line each, and a last line saying whether it is set up.
    ///
    /// - Throws: ``GitError`` outside a work tree.
    public func check() throws(GitError) -> (isSetUp: Bool, report: [String]) {
        let top = try topLevel()
        var report: [String] = []
        var isSetUp = true
        for path in Self.probePaths {
            let value = try mergeAttribute(of: path, in: top)
            if value == "folio" {
                report.append("\(path): merge=folio")
            } else {
                isSetUp = false
                report.append("\(path): merge=\(value ?? "unspecified") (want merge=folio: \(Self.attributesLine))")
            }
        }
        let driver = try git.run(["config", "--get", "merge.folio.driver"], in: top)
        if driver.status == 0, !driver.output.isEmpty {
            let wanted = Self.driverCommand(for: command)
            report.append(
                "merge.folio.driver: \(driver.output)"
                    + (driver.output == wanted ? "" : " (this folio would register \(wanted))"))
        } else {
            isSetUp = false
            report.append("merge.folio.driver: not set")
        }
        report.append(
            isSetUp
                ? "\(top.path) is set up: Git merges Folio packages with folio merge-file"
                : "\(top.path) is not set up: run folio git setup")
        return (isSetUp, report)
    }

    /// The `merge` attribute Git gives `path` (relative to the top folder): its value, or nil when unspecified.
    private func mergeAttribute(of path: String, in top: URL) throws(GitError) -> String? {
        let run = try git.run(["check-attr", "merge", "--", path], in: top)
        guard run.status == 0 else { throw GitError("git check-attr failed: \(run.reason)") }
        // "PATH: merge: VALUE", VALUE being "unspecified", "set", "unset" or the driver's name.
        guard let value = run.output.components(separatedBy: ": ").last, value != "unspecified" else { return nil }
        return value
    }
}
