import Foundation
import Testing
@testable import FolioREPL
import FolioCore

/// The REPL keeping undo between sessions (`folio`'s default): the last
/// session's steps come back, `history` gives their times, and undo takes them back.
@Suite struct UndoJournalREPLTests {
    private static var keeping: Interpreter.Options {
        var options = Interpreter.Options()
        options.keepsUndo = true
        return options
    }

    @Test func aReopenedDocumentListsTheLastSessionsStepsWithTheirTimesAndUndoesThem() throws {
        let url: URL
        do {
            let session = try Session("Animals", options: Self.keeping)
            url = session.url
            try session.run("set 2 name=Eft")
            try session.run("save")
        }
        let session = try Session(url: url, options: Self.keeping)
        #expect(session.interpreter.undoJournalNote == "restored 1 undo and 0 redo steps from the last session")
        #expect(try session.run("history").contains("1  Set Animal#2.name  (last session, "))
        try session.run("undo")
        #expect(try session.interpreter.context.value("name", of: PersistentIdentifier(entityName: "Animal", id: 2)) != .string("Eft"))
    }

    @Test func withoutTheOptionNothingIsKeptOrSaid() throws {
        let url: URL
        do {
            let session = try Session("Animals")
            url = session.url
            try session.run("set 2 name=Eft")
            try session.run("save")
        }
        let session = try Session(url: url, options: Self.keeping)
        #expect(session.interpreter.undoJournalNote == nil)
        #expect(try session.run("history") == "no history\n")
    }
}
