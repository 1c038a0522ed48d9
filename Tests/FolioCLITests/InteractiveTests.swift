import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The terminal session, driven through a pseudo-terminal: banner, prompt,
/// tab completion, Ctrl-C, the unsaved-changes question on Ctrl-D, history.
@Suite struct InteractiveTests {
    @Test("completion, Ctrl-C, Ctrl-D's unsaved-changes question and the history file", .timeLimit(.minutes(1)))
    func terminalSession() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let animals = try folder.copySample("Animals.folio")
        let before = try documentText(animals)
        let history = folder.url.appendingPathComponent("history")
        let terminal = try PseudoTerminal(executable: folioBinary.path, arguments: [animals.path], environment: [
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
        #expect(!PseudoTerminal.visibleText(Array(terminal.output[mark...])).contains("error:"),
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

    @Test("a second Tab lists ids in numeric order (#6 before #13); 'save ' completes 'as'", .timeLimit(.minutes(1)))
    func completionListing() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let animals = try folder.copySample("Animals.folio")
        let terminal = try PseudoTerminal(executable: folioBinary.path, arguments: [animals.path], environment: [
            "FOLIO_HISTORY": "", "HOME": folder.url.path, "TERM": "xterm", "PATH": "/usr/bin:/bin",
        ])
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
}
