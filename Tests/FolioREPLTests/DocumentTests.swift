import Folio
import Foundation
import Testing
import FolioTestSupport
@testable import FolioREPL

@Suite struct DocumentTests {
    @Test("undo N and redo N step through whole commands, naming each")
    func undoRedo() throws {
        let session = try Session("Animals")
        session.answer = true
        try session.run("set 2 name=Eft")
        let kiwi = try firstNumber(in: try session.run("insert Animal name=Kiwi diet=omnivorous category=6"))
        try session.run("delete 24")
        #expect(try session.run("undo 2") == "undid Delete AnimalCategory#24 (8 objects)\nundid Insert Animal#\(kiwi)\n")
        #expect(try session.count("Animal") == 30)
        #expect(try session.run("redo") == "redid Insert Animal#\(kiwi)\n")
        #expect(try session.count("Animal") == 31)
        #expect(try session.run("redo 1") == "redid Delete AnimalCategory#24 (8 objects)\n")
        #expect(try session.count("Animal") == 24)
        #expect(try session.run("undo 3") == "undid Delete AnimalCategory#24 (8 objects)\nundid Insert Animal#\(kiwi)\nundid Set Animal#2.name\n")
        #expect(try session.interpreter.context.value("name", of: PersistentIdentifier(entityName: "Animal", id: 2)) == .string("Newt"))
        #expect(try session.run("redo 3").split(separator: "\n").count == 3)
    }

    @Test("undo and redo errors: nothing to do, too many steps, not a number")
    func undoErrors() throws {
        let session = try Session("Animals")
        #expect(session.error("undo") == CommandError("nothing to undo", column: 1))
        #expect(session.error("redo") == CommandError("nothing to redo", column: 1))
        try session.run("set 2 name=Eft")
        try session.run("set 3 name=Frog")
        #expect(session.error("undo 3") == CommandError("only 2 steps to undo", column: 6))
        #expect(session.error("undo x") == CommandError("'x' is not a number of steps", column: 6))
        #expect(session.error("undo 0") == CommandError("'0' is not a number of steps", column: 6))
        #expect(session.error("undo 9223372036854775807") == CommandError("only 2 steps to undo", column: 6))
        #expect(session.error("redo 9223372036854775807") == CommandError("nothing to redo", column: 1))
        #expect(session.error("undo 9223372036854775808") == CommandError("'9223372036854775808' is not a number of steps", column: 6))
        #expect(session.error("undo 1 2") == CommandError("unexpected '2'", column: 8))
        try session.run("undo")
        #expect(session.error("redo 2") == CommandError("only 1 step to redo", column: 6))
        #expect(session.interpreter.context.undoManager?.undoCount == 1)
    }

    @Test("history lists the undo steps oldest first, each naming its object, marks the save point and where you are, then the redoable steps")
    func history() throws {
        let session = try Session("Animals")
        session.answer = true
        #expect(try session.run("history") == "no history\n")
        try session.run("set 2 name=Eft")
        let kiwi = try firstNumber(in: try session.run("insert Animal name=Kiwi diet=omnivorous"))
        try session.run("delete 24")
        try session.run("undo")
        #expect(
            try session.run("history") == """
                  -- saved
                  1  Set Animal#2.name
                  2  Insert Animal#\(kiwi)
                > you are here
                  3  Delete AnimalCategory#24 (8 objects)  (undone; redo)

                """)
        try session.run("save")
        try session.run("undo")
        #expect(
            try session.run("history") == """
                  1  Set Animal#2.name
                > you are here
                  2  Insert Animal#\(kiwi)  (undone; redo)
                  -- saved
                  3  Delete AnimalCategory#24 (8 objects)  (undone; redo)

                """)
        try session.run("redo")
        #expect(try session.run("history").contains("> you are here (saved)\n"))
    }

    @Test("a new step after undoing past the save point leaves no step marked saved")
    func savePointLost() throws {
        let session = try Session("Animals")
        try session.run("set 2 name=Eft")
        try session.run("save")
        try session.run("undo")
        try session.run("set 3 name=Frog")
        let history = try session.run("history")
        #expect(!history.contains("saved"))
        let json = try Session("Animals", options: .init(json: true))
        try json.run("set 2 name=Eft")
        #expect(try json.run("history").contains("\"savePoint\":0"))
    }

    @Test("status shows the document, unsaved counts, undo and redo")
    func status() throws {
        let session = try Session("Animals")
        session.answer = true
        #expect(
            try session.run("status") == """
                document: \(session.url.path)
                unsaved changes: no
                undo: nothing
                redo: nothing

                """)
        try session.run("insert Animal name=Kiwi diet=omnivorous")
        try session.run("set 2 name=Eft")
        try session.run("delete 24")
        try session.run("undo")
        #expect(
            try session.run("status") == """
                document: \(session.url.path)
                unsaved changes: yes (1 inserted, 1 changed, 0 deleted)
                undo: Set Animal#2.name (2 steps)
                redo: Delete AnimalCategory#24 (8 objects) (1 step)

                """)
        #expect(session.error("status now") == CommandError("unexpected 'now'", column: 8))
    }

    @Test("save writes the package; opened again with Folio it holds the edits")
    func save() throws {
        let session = try Session("Animals")
        session.answer = true
        #expect(try session.run("save") == "no changes to save\n")
        try session.run("insert Animal name=Kiwi diet=omnivorous category=6")
        try session.run("set 2 name=Eft")
        try session.run("delete 24")
        #expect(try session.run("save") == "saved \(session.url.path)\n")
        #expect(!session.interpreter.hasUnsavedChanges)
        let saved = try reopen(session.url)
        #expect(try saved.fetchCount(DynamicFetchDescriptor(entity: "Animal")) == 24)
        #expect(try saved.fetchCount(DynamicFetchDescriptor(entity: "AnimalCategory")) == 5)
        let kiwi = try saved.fetchIdentifiers(DynamicFetchDescriptor(entity: "Animal", predicate: try ObjectPredicate("name == 'Kiwi'")))
        #expect(kiwi.count == 1)
        #expect(try saved.related("category", of: kiwi[0]).map(\.id) == [6])
        #expect(try saved.value("name", of: try #require(saved.identifier(forNumber: 2))) == .string("Eft"))
        #expect(session.error("save it") == CommandError("unexpected 'it'; did you mean 'save as PATH'?", column: 6))
    }

    // A test of size: a plain run keeps DocumentLimitsTests' 10,000,001-byte string, saved and reopened.
    @Test(
        "a 10,000,001-byte name inserted and saved reopens (it used to save, then fail to open: AttValue length too long)",
        .onlyInLongRuns, .tags(.long))
    func aTenMegabyteValueSavesAndReopens() throws {
        let session = try Session("Animals")
        session.answer = true
        let name = String(repeating: "x", count: 10_000_001)
        try session.run("insert Animal name=\"\(name)\" diet=omnivorous category=6")
        #expect(try session.run("save") == "saved \(session.url.path)\n")
        let saved = try reopen(session.url)
        let found = try saved.fetchIdentifiers(DynamicFetchDescriptor(entity: "Animal")).filter {
            try saved.value("name", of: $0) == .string(name)
        }
        #expect(found.count == 1)
    }

    @Test("save as writes a copy with the unsaved changes and goes on editing it with a fresh undo history")
    func saveAs() throws {
        let session = try Session("Animals")
        session.answer = true
        try session.run("insert Animal name=Kiwi diet=omnivorous")
        let copy = session.url.deletingLastPathComponent().appendingPathComponent("My Zoo.folio")
        #expect(
            try session.run("save as \"\(copy.path)\"") == """
                saved as \(copy.path); now editing it (undo history starts afresh)
                Animals.folio itself keeps its last saved state

                """)
        #expect(session.interpreter.documentURL.path == copy.path)
        #expect(session.interpreter.prompt == "My Zoo> ")
        #expect(!session.interpreter.hasUnsavedChanges)
        #expect(session.error("undo") == CommandError("nothing to undo", column: 1))
        #expect(try reopen(copy).fetchCount(DynamicFetchDescriptor(entity: "Animal")) == 31)
        #expect(try reopen(session.url).fetchCount(DynamicFetchDescriptor(entity: "Animal")) == 30)

        // Editing goes on in the copy.
        try session.run("set 2 name=Eft")
        try session.run("save")
        #expect(try reopen(copy).value("name", of: PersistentIdentifier(entityName: "Animal", id: 2)) == .string("Eft"))
        #expect(try reopen(session.url).value("name", of: PersistentIdentifier(entityName: "Animal", id: 2)) == .string("Newt"))
    }

    @Test("save as over an existing package asks first; save as needs a path")
    func saveAsExisting() throws {
        let session = try Session("Animals")
        let other = try sampleCopy("Countries")
        #expect(try session.run("save as \(other.path)") == "\(other.path) exists\ncancelled\n")
        #expect(session.questions == ["Replace it? [y/N] "])
        #expect(session.interpreter.documentURL == session.url)
        #expect(try reopen(other).fetchCount(DynamicFetchDescriptor(entity: "Country")) == 24)
        #expect(session.error("save as") == CommandError("save as needs a path, e.g. save as Copy.folio", column: 8))
        #expect(session.error("save as a b") == CommandError("unexpected 'b'", column: 11))
        #expect(session.error("save as \(session.url.path)") == CommandError("that is this document's own path; use 'save'", column: 9))
    }

    @Test("revert asks when there are unsaved changes, then discards them and the undo history")
    func revert() throws {
        let session = try Session("Animals")
        #expect(try session.run("revert") == "no unsaved changes\n")
        try session.run("set 2 name=Eft")
        #expect(try session.run("revert") == "discards 0 inserted, 1 changed, 0 deleted\ncancelled\n")
        #expect(session.questions == ["Discard unsaved changes? [y/N] "])
        #expect(session.interpreter.hasUnsavedChanges)
        session.answer = true
        #expect(try session.run("revert") == "discards 0 inserted, 1 changed, 0 deleted\nreverted to Animals.folio as last saved (undo history cleared)\n")
        #expect(!session.interpreter.hasUnsavedChanges)
        #expect(try session.interpreter.context.value("name", of: PersistentIdentifier(entityName: "Animal", id: 2)) == .string("Newt"))
        #expect(session.interpreter.context.undoManager?.canUndo == false)
        #expect(session.error("revert all") == CommandError("unexpected 'all'", column: 8))
    }

    @Test("quit leaves at once without changes; with changes it asks, and no means stay")
    func quit() throws {
        let session = try Session("Animals")
        #expect(try session.outcome("quit") == .quit)
        #expect(session.questions.isEmpty)
        try session.run("set 2 name=Eft")
        #expect(try session.outcome("quit") == .proceed)
        #expect(session.questions == ["Quit without saving? [y/N] "])
        #expect(session.transcript.hasSuffix("unsaved changes: 0 inserted, 1 changed, 0 deleted\ncancelled\n"))
        session.answer = true
        #expect(try session.outcome("quit") == .quit)
        #expect(session.error("quit now") == CommandError("unexpected 'now'", column: 6))
    }

    @Test("quit! never asks; --yes quits with unsaved changes without asking")
    func quitBang() throws {
        let session = try Session("Animals")
        try session.run("set 2 name=Eft")
        #expect(try session.outcome("quit!") == .quit)
        #expect(session.questions.isEmpty)
        let yes = try Session("Animals", options: .init(assumeYes: true))
        try yes.run("set 2 name=Eft")
        #expect(try yes.outcome("quit") == .quit)
        #expect(yes.questions.isEmpty)
        #expect(session.error("quit! now") == CommandError("unexpected 'now'", column: 7))
    }

    @Test("undoing back to the saved state leaves no unsaved changes: status says no, the prompt has no *, quit does not ask")
    func undoBackToSavedIsClean() throws {
        let edits = [
            "set 2 name=Foo",
            "set 2 category=6",
            "link 24 animals 2",
            "unlink 1 animals 2",
            "insert Animal name=Kiwi diet=omnivorous category=6",
            "delete 2",
            "delete 6",
            "set 2 name=Newt diet=carnivorous",
        ]
        for edit in edits {
            let session = try Session("Animals")
            session.answer = true
            #expect(session.interpreter.prompt == "Animals> ")
            try session.run(edit)
            if edit != "set 2 name=Newt diet=carnivorous" {
                #expect(session.interpreter.prompt == "Animals*> ", "\(edit)")
            }
            try session.run("undo")
            #expect(try session.run("status").contains("unsaved changes: no\n"), "\(edit)")
            #expect(session.interpreter.prompt == "Animals> ", "\(edit)")
            #expect(session.interpreter.context.changedIdentifiers.isEmpty, "\(edit)")
            let asked = session.questions.count
            session.answer = false
            #expect(try session.outcome("quit") == .quit, "\(edit)")
            #expect(session.questions.count == asked, "\(edit): quit asked")
        }
    }

    @Test("an edit set back by hand, a redo and an undo after save track the saved state exactly")
    func handEditsAndRedoTrackTheSavedState() throws {
        let session = try Session("Animals")
        session.answer = true
        try session.run("set 2 name=Foo")
        try session.run("set 2 name=Newt")
        #expect(try session.run("status").contains("unsaved changes: no\n"))
        try session.run("set 3 name=Bar")
        try session.run("undo")
        try session.run("redo")
        #expect(try session.run("status").contains("unsaved changes: yes (0 inserted, 1 changed, 0 deleted)"))
        #expect(try session.run("save") == "saved \(session.url.path)\n")
        #expect(session.interpreter.prompt == "Animals> ")
        try session.run("undo")
        #expect(session.interpreter.prompt == "Animals*> ")
        #expect(try session.run("status").contains("unsaved changes: yes (0 inserted, 1 changed, 0 deleted)"))
        try session.run("redo")
        #expect(session.interpreter.prompt == "Animals> ")
    }
}
