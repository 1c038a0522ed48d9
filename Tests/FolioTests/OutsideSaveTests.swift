import Foundation
import Testing
import Folio
@testable import FolioCore
import FolioTestSupport

/// A read-only container takes in what another program saved to its package
/// (``SharedDocument/takeInOutsideSave()``): every context merges it at its
/// next access, as another context's save, keeping its own unsaved edits.
@Suite struct OutsideSaveTests {
    static func count(_ context: ModelContext, _ entity: String = "Animal", where predicate: String? = nil) throws -> Int {
        try context.fetchCount(DynamicFetchDescriptor(entity: entity, predicate: try predicate.map { try ObjectPredicate($0) }))
    }

    /// A package of two animals, Rex and Kiwi, written by a program, and their identifiers.
    static func twoAnimals() throws -> (url: URL, rex: PersistentIdentifier, kiwi: PersistentIdentifier) {
        let url = temporaryPackageURL()
        let graph = ObjectGraph(schema: try zooSchema())
        let rex = try graph.insert("Animal", ["name": .string("Rex"), "age": .int(3)])
        let kiwi = try graph.insert("Animal", ["name": .string("Kiwi"), "age": .int(1)])
        try DocumentPackage(url: url).write(graph)
        return (url, rex, kiwi)
    }

    @Test("after another program saves, a read-only container's contexts see its inserts, edits and deletes, keeping their own unsaved edits")
    func readerTakesInAnotherProgramsSave() throws {
        let (url, rex, kiwi) = try Self.twoAnimals()
        defer { try? FileManager.default.removeItem(at: url) }
        let container = try ModelContainer(contentsOf: url, allowsSave: false)
        let context = ModelContext(container)
        let other = ModelContext(container)
        #expect(try Self.count(other) == 2)
        // Unsaved edits of the reader: Rex renamed, an animal inserted.
        try context.setValue(.string("Rexy"), for: "name", of: rex)
        let mine = try context.insert("Animal", ["name": .string("Mine")])

        // Another program: Rex renamed and older, Kiwi deleted, Olm inserted.
        let graph = try DocumentPackage(url: url).read()
        try graph.setValue(.string("King"), for: "name", of: rex)
        try graph.setValue(.int(9), for: "age", of: rex)
        try graph.remove(kiwi)
        let olm = try graph.insert("Animal", ["name": .string("Olm"), "age": .int(70)])
        try DocumentPackage(url: url).write(graph)

        #expect(try Self.count(other) == 2, "nothing is taken in until asked")
        #expect(try container.sharedDocument.takeInOutsideSave())
        #expect(try !container.sharedDocument.takeInOutsideSave(), "nothing new the second time")

        // The context with edits merges at its next fetch: its rename wins, the rest is the other program's.
        #expect(try Self.count(context) == 3)
        #expect(try context.value("name", of: rex) == .string("Rexy"))
        #expect(try context.value("age", of: rex) == .int(9))
        #expect(try context.value("name", of: olm) == .string("Olm"))
        #expect(try context.value("name", of: mine) == .string("Mine"))
        #expect(try Self.count(context, where: "name == 'Kiwi'") == 0)
        #expect(context.hasChanges)
        // The context without edits: the package as it is now.
        #expect(try Self.count(other) == 2)
        #expect(try other.value("name", of: rex) == .string("King"))
        #expect(!other.hasChanges)
        // A context made now starts from the package as it is now.
        let late = ModelContext(container)
        #expect(try late.value("age", of: rex) == .int(9))
        #expect(try Self.count(late) == 2)
    }

    @Test("a relationship another program set is taken in on both ends, and a context's own unsaved link is kept")
    func linksTakenIn() throws {
        let url = temporaryPackageURL()
        defer { try? FileManager.default.removeItem(at: url) }
        let graph = ObjectGraph(schema: try zooSchema())
        let rex = try graph.insert("Animal", ["name": .string("Rex")])
        let kiwi = try graph.insert("Animal", ["name": .string("Kiwi")])
        let birds = try graph.insert("AnimalCategory", ["name": .string("Birds")])
        let dogs = try graph.insert("AnimalCategory", ["name": .string("Dogs")])
        try DocumentPackage(url: url).write(graph)
        let reader = ModelContext(try ModelContainer(contentsOf: url, allowsSave: false))
        try reader.link(kiwi, "category", to: dogs)  // unsaved
        let outside = try DocumentPackage(url: url).read()
        try outside.link(rex, "category", to: birds)
        try outside.link(kiwi, "category", to: birds)
        try DocumentPackage(url: url).write(outside)
        #expect(try reader.related("category", of: rex).isEmpty)
        #expect(try reader.sharedDocument.takeInOutsideSave())
        #expect(try Self.count(reader, "AnimalCategory") == 2)  // a fetch merges
        #expect(try reader.related("category", of: rex) == [birds])
        #expect(try reader.related("category", of: kiwi) == [dogs], "the reader's own link wins")
        #expect(try reader.related("animals", of: birds) == [rex])
        #expect(try reader.related("animals", of: dogs) == [kiwi])
    }

    @Test("another process's autosaves are taken in by a reader that had the package open")
    func anotherProcessTakenIn() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let animals = try folder.copySample("Animals.folio")
        let reader = ModelContext(try ModelContainer(contentsOf: animals, allowsSave: false))
        let categories = try Self.count(reader, "AnimalCategory")
        let transactions = try reader.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).count
        let run = try runProgram(BuiltProgram.autosaveChild, [animals.path, "1", "5"], in: folder.url)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try Self.count(reader, "AnimalCategory") == categories)
        #expect(try reader.sharedDocument.takeInOutsideSave())
        #expect(try Self.count(reader, "AnimalCategory") == categories + 5)
        #expect(try Self.count(reader, "AnimalCategory", where: "name == 'v5'") == 1)
        // The history now read from the store is the package's: the child's autosaves are in it.
        let history = try reader.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(history.count > transactions && history.count <= transactions + 5)
    }

    @Test("a store with saves not yet written takes nothing in over them: the write reports the conflict instead")
    func unwrittenSavesAreNotTakenOver() throws {
        let url = temporaryPackageURL()
        defer { try? FileManager.default.removeItem(at: url) }
        let context = ModelContext(try ModelContainer(for: try zooSchema(), configurations: ModelConfiguration(url: url)))
        try context.insert("Animal", ["name": .string("Written")])
        try context.save()
        let store = context.sharedDocument
        store.beforeBackgroundWrite = { AutosaveTests.diskFull }
        context.autosaveEnabled = true
        try context.insert("Animal", ["name": .string("Unwritten")])
        context.processPendingChanges()
        store.waitForBackgroundWrites()
        store.beforeBackgroundWrite = nil
        #expect(store.hasFailedWrite)
        // A program ignoring the lock writes meanwhile.
        let graph = try DocumentPackage(url: url).read()
        _ = try graph.insert("Animal", ["name": .string("Outside")])
        try DocumentPackage(url: url).write(graph)
        #expect(try !store.takeInOutsideSave())
        #expect(try Self.count(context, where: "name == 'Unwritten'") == 1)
        #expect(try Self.count(context, where: "name == 'Outside'") == 0)
        #expect(throws: ModelError.package(.modifiedOnDisk(path: url.path))) { try store.flush() }
    }

    @Test("a store whose package nobody else changed, or in memory, has nothing to take in")
    func nothingToTakeIn() throws {
        let (url, _, _) = try Self.twoAnimals()
        defer { try? FileManager.default.removeItem(at: url) }
        let writer = ModelContext(try ModelContainer(contentsOf: url))
        try writer.insert("Animal")
        try writer.save()
        #expect(try !writer.sharedDocument.takeInOutsideSave(), "its own save is no outside change")
        let memory = ModelContext(try ModelContainer(for: try zooSchema(), configurations: ModelConfiguration(isStoredInMemoryOnly: true)))
        #expect(try !memory.sharedDocument.takeInOutsideSave())
    }
}
