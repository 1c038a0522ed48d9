import Foundation
import Testing
@testable import FolioREPL

/// `timing`, and what folio says to a command psql, sqlite3 or SQL would take.
@Suite struct SessionCommandsTests {
    @Test("timing on prints a time after each command; off stops it")
    func timing() throws {
        let session = try Session("Animals")
        #expect(try session.run("timing on") == "Timing is on.\n")
        let lines = try session.run("count Animal").split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines[0] == "30")
        #expect(lines[1].hasPrefix("Time: ") && lines[1].hasSuffix(" ms"))
        #expect(try session.run("timing off") == "Timing is off.\n")
        #expect(try session.run("count Animal") == "30\n")
        #expect(session.error("timing maybe") == CommandError("expected on or off, found 'maybe'", column: 8))
    }

    @Test("with --json the time is a note, so stdout keeps one object per command")
    func timingJSON() throws {
        let session = try Session("Animals", options: .init(json: true))
        try session.run("timing on")
        #expect(try session.run("count Animal") == "{\"command\":\"count\",\"entity\":\"Animal\",\"count\":30}\n")
        #expect(session.notes.contains("\"kind\":\"timing\""))
    }

    @Test("\\d, .tables and select point at schema and list; other shells' commands at folio's")
    func foreignCommands() throws {
        let session = try Session("Animals")
        for command in ["\\d", "\\dt", ".tables", ".schema"] {
            #expect(
                session.error(command)?.message
                    == "unknown command '\(command)'; folio's 'schema' shows the entities, attributes and relationships, 'list ENTITY' the objects")
        }
        #expect(session.error("SELECT * FROM Animal")?.message.contains("folio has no SQL: 'list ENTITY [COLUMN, …] [where PREDICATE]'") == true)
        #expect(session.error("\\q")?.message == "unknown command '\\q'; folio's is 'quit'")
        #expect(session.error(".import x.csv Animal")?.message.contains("'import ENTITY from FILE.csv'") == true)
        #expect(session.error("\\timing")?.message == "unknown command '\\timing'; folio's is 'timing on' (or off)")
    }
}
