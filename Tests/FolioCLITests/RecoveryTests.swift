import Foundation
import Testing
#if canImport(Glibc)
import Glibc
import FolioTestSupport
#endif

/// Unsaved work survives SIGTERM, SIGHUP and traps: folio writes it to a
/// recovery package in the state folder and names it on the next open.
@Suite struct RecoveryTests {
    /// The recovery packages in `state`'s folio/recovery folder.
    static func recoveryPackages(in state: URL) -> [URL] {
        let folder = state.appendingPathComponent("folio/recovery")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(".folio") }.sorted().map { folder.appendingPathComponent($0) }
    }

    /// Runs folio on `document` as a script on a pipe, sends `lines`, waits until
    /// stdout holds `until`, then sends `signal`; returns how it ended and its stderr.
    static func scriptThenSignal(
        _ signal: Int32, document: URL, state: URL, lines: String, until: String,
        in folder: URL
    ) throws -> (reason: Process.TerminationReason, status: Int32, stderr: String) {
        try scriptThenSignal(signal, arguments: [document.path], state: state, lines: lines, until: until, in: folder)
    }

    /// ``scriptThenSignal(_:document:state:lines:until:in:)`` with folio's whole argument list.
    static func scriptThenSignal(
        _ signal: Int32, arguments: [String], state: URL, lines: String, until: String,
        in folder: URL
    ) throws -> (reason: Process.TerminationReason, status: Int32, stderr: String) {
        let outputFile = folder.appendingPathComponent(".out-\(UUID().uuidString)")
        let errorFile = folder.appendingPathComponent(".err-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: outputFile.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
        let process = programProcess(
            folioBinary, arguments, in: folder,
            environment: ["XDG_STATE_HOME": state.path, "SWIFT_BACKTRACE": "enable=no"])
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = try FileHandle(forWritingTo: outputFile)
        process.standardError = try FileHandle(forWritingTo: errorFile)
        try process.run()
        input.fileHandleForWriting.write(Data(lines.utf8))
        let deadline = Date(timeIntervalSinceNow: Patience.seconds)
        while deadline.timeIntervalSinceNow > 0,
            !((try? String(contentsOf: outputFile, encoding: .utf8)) ?? "").contains(until)
        {
            usleep(20_000)
        }
        usleep(200_000)  // back at the read of the next line
        kill(process.processIdentifier, signal)
        let end = Date(timeIntervalSinceNow: Patience.seconds)
        while process.isRunning, end.timeIntervalSinceNow > 0 { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        try? input.fileHandleForWriting.close()
        return (process.terminationReason, process.terminationStatus, try String(contentsOf: errorFile, encoding: .utf8))
    }

    @Test(
        "SIGTERM, SIGHUP, Ctrl-C (SIGINT) in a script and a trap signal write the unsaved edit to a recovery package in the state folder and end by that signal"
    )
    func signalsWriteRecovery() throws {
        for signal in [SIGTERM, SIGHUP, SIGINT, SIGSEGV, SIGILL] {
            let folder = try TemporaryFolder()
            defer { folder.remove() }
            let animals = try folder.copySample("Animals.folio")
            let before = try documentText(animals)
            let state = folder.url.appendingPathComponent("state")
            let ended = try Self.scriptThenSignal(
                signal, document: animals, state: state,
                lines: "set 2 name=Recovered\ncount Animal\n", until: "30\n", in: folder.url)
            #expect(
                ended.reason == .uncaughtSignal && ended.status == signal,
                "signal \(signal): \(ended) out: \((try? String(contentsOf: folder.url, encoding: .utf8)) ?? "")")
            let packages = Self.recoveryPackages(in: state)
            try #require(packages.count == 1, "signal \(signal): \(ended.stderr)")
            let recovery = packages[0]
            #expect(recovery.lastPathComponent.hasPrefix("Animals-"))
            #expect(ended.stderr.contains("unsaved changes were written to \(recovery.path)"), "\(ended.stderr)")
            #expect(try documentText(recovery).contains(#"name="Recovered""#))
            // The document itself is untouched, and nothing was written inside it.
            #expect(try documentText(animals) == before)
            let inside = try FileManager.default.contentsOfDirectory(atPath: animals.path)
            #expect(!inside.contains { $0.hasSuffix(".folio") }, "\(inside)")

            // The next open names the recovery package; it opens like any document.
            let reopened = try runFolio(
                [animals.path], input: "count Animal\n", in: folder.url,
                environment: ["XDG_STATE_HOME": state.path])
            #expect(
                reopened.stderr.contains("were recovered to \(recovery.path); open it with: folio \(recovery.path)"),
                "\(reopened.stderr)")
            let shown = try runFolio([recovery.path], input: "show 2\n", in: folder.url, environment: ["XDG_STATE_HOME": state.path])
            #expect(shown.status == 0)
            #expect(shown.stdout.contains("\"Recovered\""), "\(shown.stdout)")
        }
    }

    @Test("a script whose output is closed (folio X < s.txt | head -1) writes the recovery package and ends by SIGPIPE")
    func closedOutputWritesRecovery() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let animals = try folder.copySample("Animals.folio")
        let before = try documentText(animals)
        let state = folder.url.appendingPathComponent("state")
        let script = try folder.write("set 2 name=Recovered\nlist Animal\ncount Animal\ncount Animal\n", to: "script.txt")
        let process = programProcess(folioBinary, [animals.path], in: folder.url, environment: ["XDG_STATE_HOME": state.path])
        process.standardInput = try FileHandle(forReadingFrom: script)
        let output = Pipe()
        process.standardOutput = output
        let errorFile = folder.url.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: errorFile)
        try output.fileHandleForReading.close()  // as `head` does once it has its line
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGPIPE)
        let packages = Self.recoveryPackages(in: state)
        let stderr = try String(contentsOf: errorFile, encoding: .utf8)
        try #require(packages.count == 1, "\(stderr)")
        #expect(try documentText(packages[0]).contains(#"name="Recovered""#))
        #expect(stderr.contains("output closed; unsaved changes were written to"), "\(stderr)")
        #expect(try documentText(animals) == before)
    }

    @Test("without unsaved changes a SIGTERM writes no recovery package")
    func nothingToRecover() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let animals = try folder.copySample("Animals.folio")
        let state = folder.url.appendingPathComponent("state")
        let ended = try Self.scriptThenSignal(
            SIGTERM, document: animals, state: state,
            lines: "set 2 name=Foo\nundo\ncount Animal\n", until: "30\n", in: folder.url)
        #expect(ended.reason == .uncaughtSignal && ended.status == SIGTERM)
        #expect(Self.recoveryPackages(in: state).isEmpty)
        #expect(ended.stderr.isEmpty, "\(ended.stderr)")
    }

    @Test("a state folder inside the document package is refused: nothing is written inside the document")
    func stateFolderInsideTheDocument() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let animals = try folder.copySample("Animals.folio")
        let before = try FileManager.default.contentsOfDirectory(atPath: animals.path).sorted()
        let ended = try Self.scriptThenSignal(
            SIGTERM, document: animals, state: animals.appendingPathComponent("state"),
            lines: "set 2 name=Recovered\ncount Animal\n", until: "30\n", in: folder.url)
        #expect(ended.reason == .uncaughtSignal && ended.status == SIGTERM)
        #expect(ended.stderr.contains("could not be written"), "\(ended.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: animals.path).sorted() == before)
    }

    @Test("a SIGTERM at the interactive prompt writes the recovery package and ends by SIGTERM")
    func terminalSessionSIGTERM() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let animals = try folder.copySample("Animals.folio")
        let state = folder.url.appendingPathComponent("state")
        let terminal = try PseudoTerminal(
            executable: folioBinary.path, arguments: [animals.path],
            environment: [
                "FOLIO_HISTORY": folder.url.appendingPathComponent("history").path,
                "HOME": folder.url.path,
                "TERM": "xterm",
                "PATH": "/usr/bin:/bin",
                "XDG_STATE_HOME": state.path,
            ])
        try #require(terminal.waitFor("Animals> "), "no prompt: \(terminal.screenText)")
        let mark = terminal.output.count
        terminal.type("set 2 name=Recovered\r")
        try #require(terminal.waitFor("Animals*> ", after: mark), "no dirty prompt: \(terminal.screenText)")
        kill(terminal.pid, SIGTERM)
        _ = terminal.waitForExit()
        #expect(terminal.terminationSignal == SIGTERM, "\(terminal.screenText)")
        let packages = Self.recoveryPackages(in: state)
        try #require(packages.count == 1, "\(terminal.screenText)")
        #expect(try documentText(packages[0]).contains(#"name="Recovered""#))
        #expect(terminal.screenText.contains("unsaved changes were written to"))
    }
}
