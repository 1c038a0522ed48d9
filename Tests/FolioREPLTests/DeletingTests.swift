import Folio
import Foundation
import Testing
@testable import FolioREPL

@Suite struct DeletingTests {
    @Test("deleting a category shows its cascade and asks; declining changes nothing")
    func declined() throws {
        let session = try Session("Animals")
        #expect(try session.run("delete 24") == "deletes 1 AnimalCategory, also deletes 7 Animal\ncancelled\n")
        #expect(session.questions == ["Delete? [y/N] "])
        #expect(try session.count("Animal") == 30)
        #expect(!session.interpreter.hasUnsavedChanges)
        #expect(session.interpreter.context.undoManager?.canUndo == false)
    }

    @Test("accepting deletes the cascade as one undo step; undo brings it all back")
    func accepted() throws {
        let session = try Session("Animals")
        session.answer = true
        #expect(try session.run("delete AnimalCategory#24") == "deletes 1 AnimalCategory, also deletes 7 Animal\ndeleted 8 objects\n")
        #expect(try session.count("Animal") == 23)
        #expect(session.interpreter.context.undoManager?.undoActionNames == ["Delete AnimalCategory#24 (8 objects)"])
        try session.run("undo")
        #expect(try session.count("Animal") == 30)
        #expect(try session.count("Animal", "category.name == 'Mammal'") == 7)
    }

    @Test("--yes deletes without asking; the preview goes to the notes (stderr), the result alone to the output")
    func assumeYes() throws {
        let session = try Session("Animals", options: .init(assumeYes: true))
        #expect(try session.run("delete 24 1") == "deleted 13 objects\n")
        #expect(session.notes == "deletes 2 AnimalCategory, also deletes 11 Animal\n")
        #expect(session.questions.isEmpty)
        try session.run("insert AnimalCategory name=Cryptid")
        #expect(try session.run("revert") == "reverted to Animals.folio as last saved (undo history cleared)\n")
        #expect(session.notes.hasSuffix("discards 1 inserted, 0 changed, 13 deleted\n"))
    }

    @Test("the preview lists the links cut on surviving objects")
    func nullified() throws {
        let session = try Session("Animals")
        session.answer = true
        #expect(
            try session.run("delete 2 3") == """
                deletes 2 Animal, unlinks 1 surviving object
                  unlinks 2 from AnimalCategory#1.animals
                deleted 2 objects

                """)
        #expect(try session.count("Animal") == 28)
    }

    @Test("delete ENTITY where PREDICATE deletes the matches; nothing matching asks nothing")
    func deleteWhere() throws {
        let session = try Session("Countries")
        session.answer = true
        #expect(try session.run("delete Country where visited == false") == "deletes 12 Country\ndeleted 12 objects\n")
        #expect(try session.count("Country") == 12)
        #expect(try session.run("delete Country where name == 'Atlantis'") == "nothing to delete: no Country matches\n")
        #expect(session.questions.count == 1)
        #expect(session.interpreter.context.undoManager?.undoCount == 1)
    }

    @Test("delete all ENTITY and delete everything")
    func deleteAllAndEverything() throws {
        let session = try Session("Animals")
        session.answer = true
        let output = try session.run("delete all Animal")
        #expect(output.hasPrefix("deletes 30 Animal, unlinks 6 surviving objects\n  unlinks 4 from AnimalCategory#1.animals\n"))
        #expect(output.hasSuffix("deleted 30 objects\n"))
        #expect(try session.count("Animal") == 0)
        #expect(try session.run("delete all Animal") == "nothing to delete: there is no Animal\n")
        try session.run("undo")
        #expect(try session.run("delete everything") == "deletes 30 Animal, 6 AnimalCategory\ndeleted 36 objects\n")
        #expect(try session.count("Animal") + session.count("AnimalCategory") == 0)
        #expect(session.interpreter.context.undoManager?.undoActionName == "Delete everything (36 objects)")
        #expect(try session.run("delete everything") == "nothing to delete: the document is empty\n")
        try session.run("undo")
        #expect(try session.count("Animal") == 30)
    }

    @Test("a delete that breaks a deny rule says so, and save refuses until it is undone")
    func deny() throws {
        let folder = try sampleCopy("Animals").deletingLastPathComponent()
        let url = folder.appendingPathComponent("Library.folio")
        let schema = try Schema([
            .init(
                "Library", attributes: [.init("name", .string)],
                relationships: [.init("books", to: "Book", toMany: true, inverse: "library", deleteRule: .deny)]),
            .init(
                "Book", attributes: [.init("title", .string)],
                relationships: [.init("library", to: "Library", inverse: "books")]),
        ])
        var libraryID: UInt64 = 0, bookID: UInt64 = 0
        do {  // the setup's container releases the package's write lock when it goes
            let setup = ModelContext(try ModelContainer(for: schema, configurations: ModelConfiguration(url: url)))
            let library = try setup.insert("Library", ["name": .string("City")])
            let book = try setup.insert("Book", ["title": .string("Dune")])
            (libraryID, bookID) = (library.id, book.id)
            try setup.link(book, "library", to: library)
            try setup.save()
        }

        let session = try Session(url: url)
        session.answer = true
        #expect(
            try session.run("delete \(libraryID)") == """
                deletes 1 Library, unlinks 1 surviving object, DENIED by 1 rule
                  unlinks 1 from Book#\(bookID).library
                  DENY: Library#\(libraryID) cannot be deleted: books still holds Book#\(bookID)
                  save will refuse while this deny rule is broken
                deleted 1 object

                """)
        #expect(session.error("save") == CommandError("save refused: Library#\(libraryID) cannot be deleted: books still holds Book#\(bookID)"))
        #expect(session.error("save")?.kind == .validation)
        try session.run("undo")
        // The undo put the document back as saved: nothing is left to write.
        #expect(try session.run("save") == "no changes to save\n")
        #expect(try reopen(url).fetchCount(DynamicFetchDescriptor(entity: "Library")) == 1)
    }

    @Test("delete errors name the column and delete nothing")
    func errors() throws {
        let session = try Session("Animals")
        session.answer = true
        #expect(session.error("delete") == CommandError("delete needs ids, ENTITY where PREDICATE, all ENTITY or everything", column: 7))
        #expect(session.error("delete abc") == CommandError("'abc' is not an object id or an entity", column: 8))
        #expect(session.error("delete 2 999") == CommandError("no object #999", column: 10))
        #expect(
            session.error("delete Animal")
                == CommandError(
                    "to delete every Animal write 'delete all Animal'; or 'delete Animal where …'", column: 14))
        #expect(session.error("delete Animal wher x") == CommandError("unexpected 'wher'; expected where", column: 15))
        #expect(session.error("delete Animal where dit == 'x'") == CommandError("Animal has no property 'dit'; did you mean 'diet'?", column: 21))
        #expect(
            session.error("delete Animal where diet == ")
                == CommandError(
                    "expected a value or a property name, found end of predicate", column: 28))
        #expect(session.error("delete all") == CommandError("delete all needs an entity, e.g. delete all Animal", column: 11))
        #expect(session.error("delete all Animl") == CommandError("no entity named 'Animl'; did you mean 'Animal'?", column: 12))
        #expect(session.error("delete all Animal now") == CommandError("unexpected 'now'", column: 19))
        #expect(session.error("delete everything now") == CommandError("unexpected 'now'", column: 19))
        #expect(session.questions.isEmpty)
        #expect(try session.count("Animal") == 30)
    }
}
