import Foundation
import Testing
#if canImport(Glibc)
import Glibc
import FolioTestSupport
#endif

/// The terminal session, driven through a pseudo-terminal: banner, prompt,
/// tab completion, Ctrl-C, the unsaved-changes question on Ctrl-D, history.
@Suite struct InteractiveTests {
    @Test("completion, Ctrl-C, Ctrl-D's unsaved-changes question and the history file")
    func terminalSession() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let animals = try folder.copySample("Animals.folio")
        let before = try documentText(animals)
        let history = folder.url.appendingPathComponent("history")
        let terminal = try PseudoTerminal(
            executable: folioBinary.path, arguments: [animals.path],
            environment: [
                "FOLIO_HISTORY": history.path,
                "HOME": folder.url.path,  // no ~/.editrc of the person running the tests
                "TERM": "xterm",
                "PATH": "/usr/bin:/bin",
            ])

        // The banner, then the prompt naming the document.
        try #require(terminal.waitFor("Animals> "), "no prompt: \(terminal.screenText)")
        #expect(terminal.screenText.contains("folio — Animals.folio, 36 objects. Type help."))

        // Tab completes a command; the completed line runs.
        var mark = terminal.output.count
        terminal.type("he\t")
        #expect(terminal.waitFor("help", after: mark), "no completion: \(terminal.screenText)")
        terminal.type("\r")
        #expect(terminal.waitFor("commands:", after: mark), "help did not run: \(terminal.screenText)")
        try #require(terminal.waitFor("Animals> ", after: mark))

        // Completion knows the position: after count comes an entity name.
        mark = terminal.output.count
        terminal.type("count AnimalC\t\r")
        #expect(terminal.waitFor("count AnimalCategory", after: mark), "no entity completion: \(terminal.screenText)")
        #expect(terminal.waitFor("\n6\n", after: mark), "count did not run: \(terminal.screenText)")
        try #require(terminal.waitFor("Animals> ", after: mark))

        // Ctrl-C discards the partial line and shows a fresh prompt; folio keeps running.
        mark = terminal.output.count
        terminal.type("list Anim")
        terminal.waitFor("list Anim", after: mark)
        mark = terminal.output.count
        terminal.type("\u{3}")
        #expect(terminal.waitFor("Animals> ", after: mark), "no fresh prompt after Ctrl-C: \(terminal.screenText)")
        #expect(terminal.isRunning)
        mark = terminal.output.count
        terminal.type("help\r")
        #expect(terminal.waitFor("commands:", after: mark))
        try #require(terminal.waitFor("Animals> ", after: mark))
        #expect(
            !PseudoTerminal.visibleText(Array(terminal.output[mark...])).contains("error:"),
            "the interrupted line was not discarded: \(terminal.screenText)")

        // A change puts * in the prompt; Ctrl-D then asks before quitting.
        mark = terminal.output.count
        terminal.type("insert AnimalCategory name=Test\r")
        try #require(terminal.waitFor("Animals*> ", after: mark), "no unsaved marker: \(terminal.screenText)")
        mark = terminal.output.count
        terminal.type("\u{4}")
        #expect(terminal.waitFor("Quit without saving? [y/N]", after: mark), "no question: \(terminal.screenText)")
        terminal.type("y\r")
        #expect(terminal.waitForExit() == 0, "folio did not exit 0: \(terminal.screenText)")

        // Nothing was saved; the history was written, private to its owner.
        #expect(try documentText(animals) == before)
        var status = stat()
        try #require(stat(history.path, &status) == 0, "no history file")
        #expect(status.st_mode & 0o777 == 0o600)
        let saved = try String(contentsOf: history, encoding: .utf8)
        #expect(saved.contains("help"))
        #expect(saved.contains("insert"))
        #expect(!saved.contains("list"), "the interrupted line is not history")
    }

    @Test("a second Tab lists ids in numeric order (#6 before #13); 'save ' completes 'as'")
    func completionListing() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let animals = try folder.copySample("Animals.folio")
        let terminal = try PseudoTerminal.folio(on: animals, in: folder, history: false)
        try #require(terminal.waitFor("Animals> "), "no prompt: \(terminal.screenText)")
        var mark = terminal.output.count
        terminal.type("link 2 category \t\t")
        #expect(terminal.waitFor("32", after: mark), "no listing: \(terminal.screenText)")
        terminal.drain(for: 0.3)
        let listing = PseudoTerminal.visibleText(Array(terminal.output[mark...]))
        // libedit would list 1 13 18 24 32 6 as text.
        #expect(listing.range(of: #"1\s+6\s+13\s+18\s+24\s+32"#, options: .regularExpression) != nil, "\(listing)")
        terminal.type("\u{15}")  // Ctrl-U: clear the line
        mark = terminal.output.count
        terminal.type("save \t")
        #expect(terminal.waitFor("save as", after: mark), "no completion: \(terminal.screenText)")
        terminal.type("\u{15}quit!\r")
        #expect(terminal.waitForExit() == 0)
    }

    /// A terminal session on a copy of Animals, with its own history file
    /// (and `extra` in its environment).
    private func session(in folder: TemporaryFolder, environment extra: [String: String] = [:]) throws -> PseudoTerminal {
        try PseudoTerminal.folio(on: try folder.copySample("Animals.folio"), in: folder, environment: extra)
    }

    @Test("an error on the terminal echoes the line with a caret under the offending word")
    func caret() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let terminal = try session(in: folder)
        try #require(terminal.waitFor("Animals> "), "no prompt: \(terminal.screenText)")
        let mark = terminal.output.count
        terminal.type("count Animl\r")
        #expect(
            terminal.waitFor(
                "error: column 7: no entity named 'Animl'; did you mean 'Animal'?\n  count Animl\n        ^\n",
                after: mark), "\(terminal.screenText)")
        #expect(terminal.waitFor("Animals> ", after: mark))
        terminal.type("quit\r")
        #expect(terminal.waitForExit() == 0)
    }

    @Test("a pasted 1 MB line runs; a longer one is refused whole and the session goes on", .tags(.long), .onlyInLongRuns)
    func longLines() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let terminal = try session(in: folder)
        try #require(terminal.waitFor("Animals> "), "no prompt: \(terminal.screenText)")
        var mark = terminal.output.count
        try #require(terminal.paste("count Animal where name != '\(String(repeating: "a", count: 1_000_000))'\r"))
        #expect(terminal.waitFor("'\n30\nAnimals> ", after: mark), "the 1 MB line did not run")

        mark = terminal.output.count
        let overlong = "insert Animal name='\(String(repeating: "b", count: 1_500_000))'"
        try #require(terminal.paste(overlong + "\rcount Animal\r"))
        #expect(
            terminal.waitFor("error: the line is over the limit of 1048576 bytes; nothing of it was run\n", after: mark),
            "the long line was not refused")
        #expect(terminal.waitFor("\n30\n", after: mark), "the next line was lost, or the insert ran")

        mark = terminal.output.count
        terminal.type("quit\r")
        #expect(terminal.waitForExit() == 0, "unsaved changes? \(PseudoTerminal.visibleText(Array(terminal.output[mark...])))")
        let history = try String(contentsOf: folder.url.appendingPathComponent("history"), encoding: .utf8)
        #expect(history.utf8.count < 10_000, "long lines stay out of the history")
    }

    @Test("Tab deep in a long pasted line of tab-separated values neither crashes nor slows folio down")
    func tabsInLongLine() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let terminal = try session(in: folder)
        try #require(terminal.waitFor("Animals> "), "no prompt: \(terminal.screenText)")
        let mark = terminal.output.count
        try #require(terminal.paste("count Animal where name != '\(String(repeating: "ab\t", count: 20_000))'\r"))
        #expect(terminal.waitFor("'\n30\nAnimals> ", after: mark), "\(terminal.screenText.suffix(300))")
        #expect(terminal.isRunning)
        terminal.type("quit\r")
        #expect(terminal.waitForExit() == 0)
    }

    @Test("several lines pasted at once each run, in order, echoed as typed; a pasted Tab is text, not a completion")
    func pastedLines() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let terminal = try session(in: folder)
        try #require(terminal.waitFor("Animals> "), "no prompt: \(terminal.screenText)")
        let mark = terminal.output.count
        // Over a kilobyte arrives at once: a paste. The tab inside a quoted value stays in it.
        let padding = String(repeating: "x", count: 1200)
        let lines = [
            "insert AnimalCategory name='Cryptid\t\(padding)'", "count AnimalCategory where name != '\(padding)'",
            "count Animal",
        ]
        try #require(terminal.paste(lines.joined(separator: "\r") + "\r"))
        #expect(terminal.waitFor("\n30\nAnimals*> ", after: mark), "\(terminal.screenText.suffix(400))")
        let screen = PseudoTerminal.visibleText(Array(terminal.output[mark...]))
        // Each line echoed after its prompt (the first prompt came before the mark), the tab shown
        // escaped as every control character folio echoes, then its result.
        #expect(screen.hasPrefix("insert AnimalCategory name='Cryptid\\t"), "\(screen.prefix(300))")
        // The results, in order. (Lines that arrive while a command runs are echoed by the
        // terminal itself, as for any program, so echoes and results may interleave.)
        // The new category's id is in its writer's lane: any AnimalCategory#N line.
        let results = screen.split(separator: "\n").map(String.init)
            .filter { $0.hasPrefix("AnimalCategory#") && UInt64($0.dropFirst("AnimalCategory#".count)) != nil || ["7", "30"].contains($0) }
        #expect(
            results.map { $0.hasPrefix("AnimalCategory#") ? "AnimalCategory#new" : $0 } == ["AnimalCategory#new", "7", "30"],
            "\(screen.suffix(600))")
        terminal.type("quit!\r")
        #expect(terminal.waitForExit() == 0)
    }

    /// folio needs no libedit headers to build and no libedit to run: it opens
    /// the library when a terminal session starts (issue 36).
    @Test("without libedit, folio says so once and reads plain lines: commands run, Ctrl-C clears the line, Ctrl-D asks before quitting")
    func plainLinesWithoutLibedit() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // As on a machine without libedit.so.2.
        let terminal = try session(in: folder, environment: ["FOLIO_LIBEDIT": ""])
        try #require(terminal.waitFor("Animals> "), "no prompt: \(terminal.screenText)")
        #expect(terminal.screenText.contains("note: no line editing, history or completion"))
        var mark = terminal.output.count
        terminal.send("count Animal\n")
        #expect(terminal.waitFor("\n30\n", after: mark), "count did not run: \(terminal.screenText)")
        try #require(terminal.waitFor("Animals> ", after: mark))
        // Ctrl-C (the terminal's own interrupt) discards the partial line.
        mark = terminal.output.count
        terminal.send("list Anim")
        terminal.send("\u{3}")
        #expect(terminal.waitFor("Animals> ", after: mark), "no fresh prompt after Ctrl-C: \(terminal.screenText)")
        #expect(terminal.isRunning)
        mark = terminal.output.count
        terminal.send("insert AnimalCategory name=Test\n")
        try #require(terminal.waitFor("Animals*> ", after: mark), "no unsaved marker: \(terminal.screenText)")
        mark = terminal.output.count
        terminal.send("\u{4}")
        #expect(terminal.waitFor("Quit without saving? [y/N]", after: mark), "no question: \(terminal.screenText)")
        terminal.send("y\n")
        #expect(terminal.waitForExit() == 0, "folio did not exit 0: \(terminal.screenText)")
        let notes = terminal.screenText.components(separatedBy: "no line editing").count - 1
        #expect(notes == 1, "the note is said once: \(terminal.screenText)")
    }

    #if os(Linux)
    /// libedit is opened at run time, never linked: a machine without
    /// libedit-dev builds folio, and one without libedit runs it.
    @Test("the built folio does not link libedit")
    func folioDoesNotLinkLibedit() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let run = try runProgram(URL(fileURLWithPath: "/usr/bin/ldd"), [folioBinary.path], in: folder.url)
        #expect(run.status == 0)
        #expect(run.stdout.contains("libxml2"), "ldd lists the linked libraries: \(run.stdout)")
        #expect(!run.stdout.contains("libedit"), "\(run.stdout)")
    }
    #endif
}
