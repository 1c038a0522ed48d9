import Foundation
import Testing
import FolioTestSupport

/// The built `folio` executable (found by the shared test support, beside the test bundle).
let folioBinary = BuiltProgram.folio

/// The text of a package's document.xml.
func documentText(_ package: URL) throws -> String {
    try packageText(package)
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
        process.arguments = [
            "-c", "cd \"$1\" && rmdir \"$1\" && exec \"$2\" \"$3\" --yes --script \"$4\"", "sh",
            gone.path, folioBinary.path, animals.path, script.path,
        ]
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
