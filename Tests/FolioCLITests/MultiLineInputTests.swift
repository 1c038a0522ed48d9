import Foundation
import Testing
import FolioTestSupport

/// Commands over several lines, in a script and on a terminal.
@Suite struct MultiLineInputTests {
    @Test("a script's command continues over lines; an error names the line it falls on and points into that line")
    func script() throws {
        let folder = try TemporaryFolder()
        let animals = try folder.copySample("Animals.folio")
        let ok = try runFolio(
            [animals.path, "--discard-at-end"], input: "list Animal name, \\\n  diet where name == 'Koala'\ncount Animal\n",
            in: folder.url)
        #expect(ok.status == 0, "\(ok.stderr)")
        #expect(ok.lines == ["name   diet", "-----  -----------", "Koala  herbivorous", "1 Animal", "30"])
        let failing = try runFolio([animals.path], input: "count Animal\nlist Animal name,\\\n  nme \\\n  limit 2\n", in: folder.url)
        #expect(failing.status == 1)
        #expect(
            failing.stderr == """
                error: 3: column 3: Animal has no attribute or relationship 'nme'; did you mean 'name'?
                    nme \\
                    ^

                """)
    }

    @Test("an unfinished command at the end of a script runs as it is and fails at what is open")
    func unfinishedAtEnd() throws {
        let folder = try TemporaryFolder()
        let animals = try folder.copySample("Animals.folio")
        let run = try runFolio([animals.path], input: "count Animal\ninsert Animal name='Rex\n", in: folder.url)
        #expect(run.status == 1)
        #expect(run.stderr.hasPrefix("error: 2: column 20: unterminated string\n"))
    }

    #if canImport(Glibc)
    @Test("on a terminal an unfinished line prompts ...> for the rest")
    func terminal() throws {
        let folder = try TemporaryFolder()
        let animals = try folder.copySample("Animals.folio")
        let terminal = try PseudoTerminal.folio(on: animals, in: folder, history: false)
        try #require(terminal.waitFor("Animals> "), "no prompt: \(terminal.screenText)")
        var mark = terminal.output.count
        terminal.type("count Animal \\\r")
        #expect(terminal.waitFor("...> ", after: mark), "no continuation prompt: \(terminal.screenText)")
        mark = terminal.output.count
        terminal.type("where name == 'Koala'\r")
        #expect(terminal.waitFor("\n1\n", after: mark), "the command did not run: \(terminal.screenText)")
        try #require(terminal.waitFor("Animals> ", after: mark))
        mark = terminal.output.count
        terminal.type("insert Animal name='Rex\r")
        #expect(terminal.waitFor("...> ", after: mark), "no continuation prompt in a quote: \(terminal.screenText)")
        mark = terminal.output.count
        terminal.type("\u{3}")
        #expect(terminal.waitFor("Animals> ", after: mark), "Ctrl-C did not discard the command: \(terminal.screenText)")
        mark = terminal.output.count
        terminal.type("timing on\rcount Animal\r")
        #expect(terminal.waitFor("Time: ", after: mark), "no time: \(terminal.screenText)")
        terminal.type("quit!\r")
        #expect(terminal.waitForExit() == 0, "\(terminal.screenText)")
    }
    #endif
}
