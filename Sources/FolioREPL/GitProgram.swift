import Foundation

/// The `git` program, run with a list of arguments through Foundation's
/// `Process` (never through a shell, so no argument is ever parsed as shell text).
///
/// ```swift
/// let git = try GitProgram.onPath()
/// let top = try git.run(["rev-parse", "--show-toplevel"], in: URL(fileURLWithPath: "."))
/// ```
public struct GitProgram: Sendable {
    /// The `git` executable.
    public var executable: URL
    /// The environment git runs with; `nil` passes this process's own.
    public var environment: [String: String]?

    /// A git at `executable`.
    public init(executable: URL, environment: [String: String]? = nil) {
        self.executable = executable
        self.environment = environment
    }

    /// What one run of git did.
    public struct Run: Sendable {
        /// The exit status.
        public var status: Int32
        /// Everything written to stdout.
        public var stdout: String
        /// Everything written to stderr.
        public var stderr: String

        /// stdout without its trailing newline.
        public var output: String { stdout.hasSuffix("\n") ? String(stdout.dropLast()) : stdout }
        /// stderr's first line, trimmed: git's reason for a failure (`fatal: not a git repository…`).
        public var reason: String {
            stderr.split(separator: "\n").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? "exit status \(status)"
        }
    }

    /// The `git` found on `PATH` (of `environment`, by default this process's).
    ///
    /// - Throws: ``GitError`` when no directory on `PATH` holds an executable `git`.
    public static func onPath(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws(GitError) -> GitProgram {
        let path = environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for folder in path.split(separator: ":") where !folder.isEmpty {
            let candidate = URL(fileURLWithPath: String(folder)).appendingPathComponent("git")
            if FileManager.default.isExecutableFile(atPath: candidate.path) {
                return GitProgram(executable: candidate, environment: environment)
            }
        }
        throw GitError("git was not found on PATH; install Git first")
    }

    /// Runs `git ARGUMENTS` in `directory` with no input and waits for it.
    ///
    /// - Throws: ``GitError`` when git cannot be started (a non-zero exit is a ``Run``, not an error).
    public func run(_ arguments: [String], in directory: URL) throws(GitError) -> Run {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = directory
        if let environment { process.environment = environment }
        // Output goes to files, so neither stream can fill a pipe and stall git while the other is read.
        let folder = FileManager.default.temporaryDirectory
        let outputFile = folder.appendingPathComponent("folio-git-\(UUID().uuidString).out")
        let errorFile = folder.appendingPathComponent("folio-git-\(UUID().uuidString).err")
        defer { for file in [outputFile, errorFile] { try? FileManager.default.removeItem(at: file) } }
        do {
            _ = FileManager.default.createFile(atPath: outputFile.path, contents: nil)
            _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
            let stdout = try FileHandle(forWritingTo: outputFile)
            let stderr = try FileHandle(forWritingTo: errorFile)
            defer { try? stdout.close(); try? stderr.close() }
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = stdout
            process.standardError = stderr
            try process.run()
            process.waitUntilExit()
            return Run(
                status: process.terminationStatus,
                stdout: String(decoding: try Data(contentsOf: outputFile), as: UTF8.self),
                stderr: String(decoding: try Data(contentsOf: errorFile), as: UTF8.self))
        } catch {
            throw GitError("could not run \(executable.path): \(error.localizedDescription)")
        }
    }
}

/// Why a Git command of `folio` failed: a message for people.
public struct GitError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What went wrong.
    public var message: String

    /// An error saying `message`.
    public init(_ message: String) { self.message = message }

    public var description: String { message }
}
