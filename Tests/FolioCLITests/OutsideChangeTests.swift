import Foundation
import Testing
#if canImport(Glibc)
import Glibc
import FolioTestSupport
#endif

/// Another process changes the package while `folio` has it open: `reopen`
/// shows the change; `diff` shows this session's own unsaved ones.
@Suite struct OutsideChangeTests {
    @Test("folio --read-only, another folio saves a delete, reopen shows it; diff and the upsert question on the terminal")
    func reopenAfterAnotherProcessSaves() throws {
        let folder = try TemporaryFolder()
        let animals = try folder.copySample("Animals.folio")
        let reader = try PseudoTerminal(
            executable: folioBinary.path, arguments: ["--read-only", animals.path],
            environment: [
                "FOLIO_HISTORY": folder.appending("history").path, "HOME": folder.url.path, "TERM": "xterm", "PATH": "/usr/bin:/bin",
            ])
        try #require(reader.waitFor("Animals (read-only)> "), "no prompt: \(reader.screenText)")

        // Another process deletes a category (cascading to its animals) and saves.
        let writer = try runFolio([animals.path, "--yes"], input: "delete 24\nsave\n", in: folder.url)
        #expect(writer.status == 0, "\(writer.stderr)")

        var mark = reader.output.count
        reader.type("count Animal\r")
        #expect(reader.waitFor("\n30\n", after: mark), "the reader still shows what it read: \(reader.screenText)")
        try #require(reader.waitFor("> ", after: mark))
        mark = reader.output.count
        reader.type("reopen\r")
        #expect(reader.waitFor("reopened Animals.folio: 28 objects (undo history cleared)", after: mark), "\(reader.screenText)")
        try #require(reader.waitFor("Animals (read-only)> ", after: mark))
        mark = reader.output.count
        reader.type("count Animal\r")
        #expect(reader.waitFor("\n23\n", after: mark), "\(reader.screenText)")
        reader.type("quit\r")
        #expect(reader.waitForExit() == 0)

        // A writer on the terminal: diff lists its edit; an upsert asks, and "n" changes nothing.
        let editor = try PseudoTerminal(
            executable: folioBinary.path, arguments: [animals.path],
            environment: [
                "FOLIO_HISTORY": folder.appending("history").path, "HOME": folder.url.path, "TERM": "xterm", "PATH": "/usr/bin:/bin",
            ])
        try #require(editor.waitFor("Animals> "), "no prompt: \(editor.screenText)")
        mark = editor.output.count
        editor.type("set 2 name=Eft\r")
        try #require(editor.waitFor("Animals*> ", after: mark))
        mark = editor.output.count
        editor.type("diff\r")
        #expect(editor.waitFor("~ Animal#2: name \"Newt\" → \"Eft\"", after: mark), "\(editor.screenText)")
        #expect(editor.waitFor("0 inserted, 1 changed, 0 deleted", after: mark), "\(editor.screenText)")
        mark = editor.output.count
        editor.type("insert AnimalCategory name=Bird\r")
        #expect(
            editor.waitFor("AnimalCategory#6 already has name \"Bird\", unique in AnimalCategory: this insert updates it", after: mark),
            "\(editor.screenText)")
        #expect(editor.waitFor("Update AnimalCategory#6? [y/N] ", after: mark), "\(editor.screenText)")
        editor.type("n\r")
        #expect(editor.waitFor("cancelled", after: mark), "\(editor.screenText)")
        editor.type("quit!\r")
        #expect(editor.waitForExit() == 0)
    }
}
