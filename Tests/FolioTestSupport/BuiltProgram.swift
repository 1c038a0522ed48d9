import Foundation

/// The executables SwiftPM builds beside the test bundle (`folio`, `AutosaveChild`).
public enum BuiltProgram {
    /// The build folder the test process runs from: `swift test` and `swift build
    /// --build-tests` put every product of the package there.
    public static let folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()

    /// The built `folio` command.
    public static let folio = folder.appendingPathComponent("folio")

    /// The built `AutosaveChild` helper (see `Sources/AutosaveChild`).
    public static let autosaveChild = folder.appendingPathComponent("AutosaveChild")
}

/// What one run of a built program did.
public struct ProgramRun: Sendable {
    /// The exit status (or the signal's number, when it was killed).
    public var status: Int32
    /// Everything written to stdout.
    public var stdout: String
    /// Everything written to stderr.
    public var stderr: String

    /// stdout's lines, without the final empty one.
    public var lines: [String] { stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init) }
    /// How many times `folio`'s `help` printed its list.
    public var helpCount: Int { lines.filter { $0.hasPrefix("commands:") }.count }
}

/// A run that did not end in time; it was killed.
public struct ProgramTimedOut: Error, CustomStringConvertible {
    /// The command line, for the failure's message.
    public var command: String
    /// The limit it exceeded, in seconds.
    public var timeout: TimeInterval
    /// What it had written when it was killed.
    public var partial: ProgramRun

    public var description: String {
        "\(command) did not finish within \(timeout) s; stderr so far: \(partial.stderr)"
    }
}

/// A process for a built program, not started: `arguments`, run in `directory`
/// with `environment` added to the tests' own and `FOLIO_HISTORY` pointed into
/// `directory` (so no test touches the user's history). The caller sets its
/// streams, starts it and waits for it.
public func programProcess(
    _ program: URL, _ arguments: [String], in directory: URL,
    environment extra: [String: String] = [:]
) -> Process {
    let process = Process()
    process.executableURL = program
    process.arguments = arguments
    process.currentDirectoryURL = directory
    var environment = ProcessInfo.processInfo.environment
    environment["FOLIO_HISTORY"] = directory.appendingPathComponent(".folio_history").path
    environment.merge(extra) { _, new in new }
    process.environment = environment
    return process
}

/// Runs a built program with `input` on stdin (a file, so no pipe can fill up),
/// in `directory`, with `environment` added to the tests' own and
/// `FOLIO_HISTORY` pointed into `directory`; kills it after `timeout` seconds so
/// no test can hang.
///
/// - Throws: ``ProgramTimedOut`` when it was killed, or the error that kept it from starting.
public func runProgram(
    _ program: URL, _ arguments: [String], input: String = "", in directory: URL,
    timeout: TimeInterval = Patience.seconds, environment extra: [String: String] = [:]
) throws -> ProgramRun {
    let inputFile = directory.appendingPathComponent(".stdin-\(UUID().uuidString)")
    let outputFile = directory.appendingPathComponent(".stdout-\(UUID().uuidString)")
    let errorFile = directory.appendingPathComponent(".stderr-\(UUID().uuidString)")
    defer { for file in [inputFile, outputFile, errorFile] { try? FileManager.default.removeItem(at: file) } }
    try Data(input.utf8).write(to: inputFile)
    _ = FileManager.default.createFile(atPath: outputFile.path, contents: nil)
    _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)

    let process = programProcess(program, arguments, in: directory, environment: extra)
    let stdin = try FileHandle(forReadingFrom: inputFile)
    let stdout = try FileHandle(forWritingTo: outputFile)
    let stderr = try FileHandle(forWritingTo: errorFile)
    defer { try? stdin.close(); try? stdout.close(); try? stderr.close() }
    process.standardInput = stdin
    process.standardOutput = stdout
    process.standardError = stderr
    try process.run()
    let deadline = Date(timeIntervalSinceNow: timeout)
    while process.isRunning, Date() < deadline { usleep(10_000) }
    let timedOut = process.isRunning
    if timedOut { process.terminate() }
    process.waitUntilExit()
    let run = ProgramRun(
        status: process.terminationStatus,
        stdout: try String(contentsOf: outputFile, encoding: .utf8),
        stderr: try String(contentsOf: errorFile, encoding: .utf8))
    if timedOut {
        throw ProgramTimedOut(
            command: ([program.lastPathComponent] + arguments).joined(separator: " "),
            timeout: timeout, partial: run)
    }
    return run
}

/// ``runProgram(_:_:input:in:timeout:environment:)`` for the built `folio`.
public func runFolio(
    _ arguments: [String], input: String = "", in directory: URL, timeout: TimeInterval = Patience.seconds,
    environment extra: [String: String] = [:]
) throws -> ProgramRun {
    try runProgram(BuiltProgram.folio, arguments, input: input, in: directory, timeout: timeout, environment: extra)
}
