import Foundation
import Testing
import PackageBytes

/// The built `folio` executable: beside the test bundle in the build folder.
let folioBinary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    .appendingPathComponent("folio")

/// The checked-in sample documents; tests copy them and never write here.
let sampleDocuments = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("SampleDocuments")

/// What one run of `folio` did.
struct FolioRun {
    var status: Int32
    var stdout: String
    var stderr: String
    /// stdout's lines, without the final empty one.
    var lines: [String] { stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init) }
    /// How many times `help` printed its list.
    var helpCount: Int { lines.filter { $0.hasPrefix("commands:") }.count }
}

/// A fresh folder under the temporary directory, removed by ``remove()``.
struct TemporaryFolder {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("FolioCLITests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// A copy of `SampleDocuments/NAME` in this folder.
    func copySample(_ name: String) throws -> URL {
        let copy = url.appendingPathComponent(name)
        try FileManager.default.copyItem(at: sampleDocuments.appendingPathComponent(name), to: copy)
        return copy
    }

    /// Writes `text` to a file in this folder and returns its URL.
    func write(_ text: String, to name: String) throws -> URL {
        let file = url.appendingPathComponent(name)
        try Data(text.utf8).write(to: file)
        return file
    }

    func remove() { try? FileManager.default.removeItem(at: url) }
}

/// The text of a package's document.xml.
func documentText(_ package: URL) throws -> String {
    try packageText(package)
}

/// Runs `folio` with `input` on stdin (a file, so no pipe can fill up), in
/// `directory`, with `environment` added to the tests' own; kills it after
/// `timeout` seconds so no test can hang.
func runFolio(_ arguments: [String], input: String = "", in directory: URL, timeout: TimeInterval = 60,
              environment extra: [String: String] = [:]) throws -> FolioRun {
    let inputFile = directory.appendingPathComponent(".stdin-\(UUID().uuidString)")
    let outputFile = directory.appendingPathComponent(".stdout-\(UUID().uuidString)")
    let errorFile = directory.appendingPathComponent(".stderr-\(UUID().uuidString)")
    defer { for file in [inputFile, outputFile, errorFile] { try? FileManager.default.removeItem(at: file) } }
    try Data(input.utf8).write(to: inputFile)
    _ = FileManager.default.createFile(atPath: outputFile.path, contents: nil)
    _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)

    let process = Process()
    process.executableURL = folioBinary
    process.arguments = arguments
    process.currentDirectoryURL = directory
    var environment = ProcessInfo.processInfo.environment
    environment["FOLIO_HISTORY"] = directory.appendingPathComponent(".folio_history").path
    environment.merge(extra) { _, new in new }
    process.environment = environment
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
    if process.isRunning {
        process.terminate()
        process.waitUntilExit()
        Issue.record("folio \(arguments.joined(separator: " ")) did not finish within \(timeout) s")
    }
    process.waitUntilExit()
    return FolioRun(status: process.terminationStatus,
                    stdout: try String(contentsOf: outputFile, encoding: .utf8),
                    stderr: try String(contentsOf: errorFile, encoding: .utf8))
}

@Suite struct FolioBinaryTests {
    @Test("piping help into folio prints the commands and exits 0")
    func pipedHelp() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let animals = try folder.copySample("Animals.folio")
        let run = try runFolio([animals.path], input: "help\n", in: folder.url)
        #expect(run.status == 0)
        #expect(run.stdout.contains("commands:"))
        #expect(run.stderr == "")
    }

    @Test("--help documents both forms, folio PATH and folio new PATH --schema FILE")
    func help() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let run = try runFolio(["--help"], in: folder.url)
        #expect(run.status == 0)
        #expect(run.stdout.contains("folio <path> [--yes] [--json] [--script <file>]"))
        #expect(run.stdout.contains("folio new <path> --schema <file>"))
        #expect(run.stdout.contains("FOLIO_HISTORY"))
    }

    @Test("no path is a usage error")
    func missingPath() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let run = try runFolio([], in: folder.url)
        #expect(run.status != 0)
        #expect(run.stderr.contains("<path>"))
    }

    @Test("a missing package is an error naming it, with a non-zero status")
    func missingPackage() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let run = try runFolio(["Nowhere.folio"], input: "help\n", in: folder.url)
        #expect(run.status == 1)
        #expect(run.stdout == "")
        #expect(run.stderr.hasPrefix("error: "))
        #expect(run.stderr.contains("Nowhere.folio"))
    }

    @Test("a damaged package: the error names document.xml, line and column")
    func damagedPackage() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let package = folder.url.appendingPathComponent("Broken.folio")
        try FileManager.default.createDirectory(at: package, withIntermediateDirectories: true)
        _ = try folder.write("<?xml version=\"1.0\"?>\n<folio format=\"1\">\n  <schema>\n  <oops\n", to: "Broken.folio/document.xml")
        let run = try runFolio(["Broken.folio"], input: "help\n", in: folder.url)
        #expect(run.status == 1)
        #expect(run.stdout == "")
        let error = run.stderr
        #expect(error.hasPrefix("error: "))
        #expect(error.range(of: #"document\.xml:\d+:\d+: "#, options: .regularExpression) != nil, "\(error)")
    }

    @Test("save names the package by its absolute path when the working directory is gone (no directory to be relative to)")
    func saveWithTheWorkingDirectoryGone() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let animals = try folder.copySample("Animals.folio")
        let gone = folder.url.appendingPathComponent("gone")
        try FileManager.default.createDirectory(at: gone, withIntermediateDirectories: true)
        let script = try folder.write("set 3 name=\"Frog\"\nsave\n", to: "edits.txt")
        // folio runs in a folder removed after it was entered: getcwd fails there.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "cd \"$1\" && rmdir \"$1\" && exec \"$2\" \"$3\" --yes --script \"$4\"", "sh",
                             gone.path, folioBinary.path, animals.path, script.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let stdout = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(stdout.hasSuffix("saved \(animals.standardizedFileURL.path)\n"), "\(stdout)")
    }
}
