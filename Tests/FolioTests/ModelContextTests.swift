import Foundation
import FolioTestSupport
import Testing
import Folio
@testable import FolioCore

@Suite struct ModelContextTests {
    @Test("the delete life cycle matches SwiftData's: deleted until save, then gone")
    func lifeCycle() throws {
        let context = try makeContext(try zooSchema(), url: temporaryPackageURL())
        let country = try context.insert("Animal", ["name": .string("Rex")])
        try context.save()
        try context.delete(country)
        #expect(context.isDeleted(country))
        #expect(context.deletedIdentifiers == [country])
        #expect(try context.value("name", of: country) == .string("Rex"))  // reading a deleted object does not crash
        try context.save()
        #expect(!context.isDeleted(country))
        #expect(context.deletedIdentifiers.isEmpty)
        #expect(!context.contains(country))
        #expect(try context.value("name", of: country) == .string("Rex"))
    }

    @Test("inserts, edits and deletes are tracked until save clears them")
    func changeTracking() throws {
        let context = try makeContext(try zooSchema())
        let a = try context.insert("Animal")
        #expect(context.hasChanges && context.insertedIdentifiers == [a])
        try context.save()
        #expect(!context.hasChanges)
        try context.setValue(.int(4), for: "age", of: a)
        #expect(context.changedIdentifiers == [a] && context.insertedIdentifiers.isEmpty)
        let b = try context.insert("Animal")
        try context.delete(b)  // inserted then deleted: it simply never was
        #expect(context.insertedIdentifiers.isEmpty && context.deletedIdentifiers.isEmpty)
    }

    @Test("rollback returns to the last saved state and clears undo")
    func rollback() throws {
        let context = try makeContext(try zooSchema())
        let a = try context.insert("Animal", ["name": .string("A")])
        try context.save()
        try context.setValue(.string("B"), for: "name", of: a)
        try context.insert("Animal")
        context.rollback()
        #expect(try context.value("name", of: a) == .string("A"))
        #expect(context.graph.count == 1 && !context.hasChanges)
        #expect(context.undoManager?.canUndo == false)
    }

    @Test("a save writes the package and a new container reads it back")
    func saveAndReopen() throws {
        let url = temporaryPackageURL()
        let context = try makeContext(try zooSchema(), url: url)
        let categories = try context.insertZoo(categories: 3, perCategory: 4)
        try context.save()
        let reopened = ModelContext(try ModelContainer(contentsOf: url, allowsSave: false))
        #expect(try reopened.related("animals", of: categories[2]) == context.related("animals", of: categories[2]))
        #expect(reopened.graph.snapshot() == context.graph.snapshot())
    }

    @Test("an insert with an existing unique value updates that object, undoably")
    func uniqueUpsert() throws {
        let context = try makeContext(try zooSchema())
        let mammal = try context.insert("AnimalCategory", ["name": .string("Mammal")])
        try context.save()
        context.processPendingChanges()
        let again = try context.insert("AnimalCategory", ["name": .string("Mammal")])
        #expect(again == mammal)
        #expect(try context.fetchCount(DynamicFetchDescriptor(entity: "AnimalCategory")) == 1)
        let pending = try context.insert("AnimalCategory", ["name": .string("Bird")])
        #expect(try context.insert("AnimalCategory", ["name": .string("Bird")]) == pending)  // pending inserts count
    }

    @Test("a context sees another context's save on its next fetch and keeps its own edits")
    func twoContexts() throws {
        let container = try ModelContainer(for: try zooSchema(), configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let first = ModelContext(container)
        let second = ModelContext(container)
        let shared = try first.insert("Animal", ["name": .string("Shared"), "age": .int(1)])
        try first.save()
        let mine = try second.insert("Animal", ["name": .string("Mine")])
        #expect(try second.fetchIdentifiers(DynamicFetchDescriptor(entity: "Animal")).contains(shared))
        try second.setValue(.int(50), for: "age", of: shared)
        try first.setValue(.string("Renamed"), for: "name", of: shared)
        try first.setValue(.int(2), for: "age", of: shared)
        try first.save()
        _ = try second.fetchIdentifiers(DynamicFetchDescriptor(entity: "Animal"))
        #expect(try second.value("name", of: shared) == .string("Renamed"))
        #expect(try second.value("age", of: shared) == .int(50))  // its own unsaved edit wins
        #expect(second.contains(mine) && second.insertedIdentifiers == [mine])
        try second.save()
        let third = ModelContext(container)
        #expect(try third.value("age", of: shared) == .int(50))
        #expect(third.contains(mine))
        #expect(mine.id != shared.id)
    }

    @Test("deleteAllData empties the package, and contexts can undo it")
    func deleteAllData() throws {
        let url = temporaryPackageURL()
        let container = try ModelContainer(for: try kitchenSinkSchema(), configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        context.undoManager = UndoManager()
        let thing = try context.insert("Thing", ["photo": .data(Data([1, 2, 3]))])
        try context.save()
        container.deleteAllData()
        #expect(try context.fetchCount(DynamicFetchDescriptor(entity: "Thing")) == 0)
        #expect(!context.hasChanges)
        #expect(try DocumentPackage(url: url).read().count == 0)
        Self.expectEmptied(url)
        #expect(context.undoManager?.undoActionName == "Delete All Data")
        context.undoManager?.undo()
        #expect(context.contains(thing) && context.insertedIdentifiers == [thing])
        try context.save()
        #expect(try DocumentPackage(url: url).read().value("photo", of: thing) == .data(Data([1, 2, 3])))
    }

    /// Checks a package emptied by deleteAllData or erase: its manifest, and
    /// its part and history files kept (format 3 never removes one) holding
    /// no object and no transaction; no blob.
    static func expectEmptied(_ url: URL) {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: url.path).sorted()) ?? []
        #expect(Set(entries).isSubset(of: ["manifest.xml", "parts", "history"]), "\(entries)")
        for file in filesBelow(url) where !file.path.hasSuffix("/manifest.xml") {
            let text = String(decoding: file.bytes, as: UTF8.self)
            #expect(
                text.hasSuffix("<objects entity=\"\(file.path.split(separator: "/").dropLast().last ?? "")\">\n</objects>\n")
                    || text.hasSuffix("<history>\n</history>\n"), "\(file.path) is not empty: \(text)")
        }
    }

    /// Every file in a folder and below it, as bytes.
    static func filesBelow(_ folder: URL) -> [(path: String, bytes: Data)] {
        guard let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey]) else { return [] }
        var files: [(path: String, bytes: Data)] = []
        for case let url as URL in walker where (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true {
            if let bytes = try? Data(contentsOf: url) { files.append((url.path, bytes)) }
        }
        return files
    }

    @Test("erase rewrites the package empty: no byte of an old value is left in any file, in the package or beside it")
    func eraseLeavesNoBytes() throws {
        let url = temporaryPackageURL()
        let container = try ModelContainer(for: try kitchenSinkSchema(), configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        context.undoManager = UndoManager()
        let marker = "ERASE-ME-7f3a"
        let blob = Data(String(repeating: "BLOB-\(marker)-", count: 20_000).utf8)
        var things: [PersistentIdentifier] = []
        for number in 0..<3 {
            things.append(try context.insert("Thing", ["v_string": .string("\(marker) \(number)"), "photo": .data(blob)]))
        }
        try context.insert("Person", ["name": .string("\(marker) person")])
        try context.save()
        // A second save, so that earlier versions of parts could be lying around.
        try context.setValue(.string("\(marker) edited"), for: "v_string", of: things[0])
        try context.save()
        let needles = [Data(marker.utf8), Data(blob.base64EncodedString().prefix(64).utf8), blob.prefix(64)]
        let folder = url.deletingLastPathComponent()
        #expect(
            Self.filesBelow(folder).contains { file in needles.contains { file.bytes.range(of: $0) != nil } },
            "the values are on disk before erasing")

        try container.erase()

        for file in Self.filesBelow(folder) {
            for needle in needles { #expect(file.bytes.range(of: needle) == nil, "\(file.path) still holds old bytes") }
        }
        Self.expectEmptied(url)
        #expect(try DocumentPackage(url: url).read().count == 0)
        #expect(try context.fetchCount(DynamicFetchDescriptor(entity: "Thing")) == 0)
        // The same undoable step as deleteAllData's, which brings the objects back as unsaved inserts.
        #expect(context.undoManager?.undoActionName == "Delete All Data")
        context.undoManager?.undo()
        #expect(context.insertedIdentifiers.count == 4)
        #expect(try context.value("photo", of: things[1]) == .data(blob))
        #expect(
            Self.filesBelow(folder).allSatisfy { file in needles.allSatisfy { file.bytes.range(of: $0) == nil } },
            "undo is in memory until a save")
        // Reopened, the package is empty.
        #expect(
            try ModelContext(try ModelContainer(for: try kitchenSinkSchema(), configurations: ModelConfiguration(url: url)))
                .fetchCount(DynamicFetchDescriptor(entity: "Thing")) == 0)
    }

    @Test("erase removes the history too: no byte of a tombstone's preserved values is left on disk")
    func eraseRemovesHistory() throws {
        let url = temporaryPackageURL()
        let container = try ModelContainer(for: try ModelContextHistoryTests.schema(), configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        let marker = "TOMBSTONE-9c1e"
        let animals = try (0..<3).map { try context.insert("Animal", ["name": .string("\(marker) \($0)"), "age": .int(1)]) }
        try context.save()
        try context.delete(animals[0])
        try context.save()
        let history = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(history.count == 2)
        let folder = url.deletingLastPathComponent()
        #expect(Self.filesBelow(folder).contains { $0.bytes.range(of: Data(marker.utf8)) != nil })

        try container.erase()

        for file in Self.filesBelow(folder) {
            #expect(file.bytes.range(of: Data(marker.utf8)) == nil, "\(file.path) still holds old bytes")
        }
        #expect(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).isEmpty)
        // Numbering goes on: the next save's token sorts after every erased one.
        try context.insert("Animal", ["name": .string("after"), "age": .int(2)])
        try context.save()
        let next = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(next.count == 1)
        #expect(history.allSatisfy { $0.token < (next.first?.token ?? $0.token) })
    }

    @Test("erase throws where deleteAllData reports, and a refused erase changes nothing")
    func eraseThrows() throws {
        let url = temporaryPackageURL()
        let writer = try makeContext(try zooSchema(), url: url)
        try writer.insert("Animal", ["name": .string("Rex")])
        try writer.save()
        let before = Self.filesBelow(url).map(\.bytes)
        let readOnly = try ModelContainer(for: try zooSchema(), configurations: ModelConfiguration(url: url, allowsSave: false))
        #expect(throws: ModelError.saveNotAllowed) { try readOnly.erase() }
        var reported: [ModelError] = []
        readOnly.deleteAllData(errorHandler: { reported.append($0) })
        #expect(reported == [.saveNotAllowed])
        #expect(Self.filesBelow(url).map(\.bytes) == before)
        #expect(try ModelContext(readOnly).fetchCount(DynamicFetchDescriptor(entity: "Animal")) == 1)
    }

    @Test("a read-only configuration refuses to save; a failed write keeps the edits")
    func saveFailures() throws {
        let url = temporaryPackageURL()
        try makeContext(try zooSchema(), url: url).save()
        let readOnly = ModelContext(try ModelContainer(for: try zooSchema(), configurations: ModelConfiguration(url: url, allowsSave: false)))
        try readOnly.insert("Animal")
        #expect(throws: ModelError.saveNotAllowed) { try readOnly.save() }
        let blocked = URL(fileURLWithPath: "/proc/folio-cannot-write-here.folio")
        let context = try makeContext(try zooSchema(), url: blocked)
        let animal = try context.insert("Animal")
        #expect(throws: ModelError.self) { try context.save() }
        #expect(context.contains(animal) && context.hasChanges)
    }

    @Test("autosave runs at processPendingChanges and writes in the background; a failed write is reported at the next call")
    func autosave() throws {
        let url = temporaryPackageURL()
        let context = try makeContext(try zooSchema(), url: url)
        context.autosaveEnabled = true
        try context.insert("Animal")
        #expect(!FileManager.default.fileExists(atPath: url.path))
        context.processPendingChanges()
        #expect(!context.hasChanges)
        context.sharedDocument.waitForBackgroundWrites()
        #expect(FileManager.default.fileExists(atPath: url.path))

        LibraryLog.capture()
        do {
            let failing = try makeContext(try zooSchema(), url: URL(fileURLWithPath: "/proc/nope.folio"))
            failing.autosaveEnabled = true
            nonisolated(unsafe) var reported: ModelError?
            failing.autosaveErrorHandler = { reported = $0 }
            try failing.insert("Animal")
            failing.processPendingChanges()
            failing.sharedDocument.waitForBackgroundWrites()
            failing.processPendingChanges()
            #expect(reported != nil)
            #expect(throws: ModelError.self) { try failing.save() }
        }
        // Dropped with its changes still unwritten: the last try fails where no handler
        // is left to hear it, so it is logged (swift-log), never printed or lost.
        #expect(!LibraryLog.messages(containing: "/proc/nope.folio").isEmpty)
    }

    @Test("fetch filters with a runtime predicate, sorts and windows")
    func fetch() throws {
        let context = try makeContext(try zooSchema())
        _ = try context.insertZoo(categories: 2, perCategory: 10)
        let old = try ObjectPredicate("age >= 5 and category.name == 'Category 1'")
        let descriptor = DynamicFetchDescriptor(
            entity: "Animal", predicate: old, sortBy: [.init("age", ascending: false)],
            fetchLimit: 3, fetchOffset: 1)
        let ids = try context.fetchIdentifiers(descriptor)
        #expect(try ids.map { try context.value("age", of: $0) } == [.int(8), .int(7), .int(6)])
        #expect(try context.fetchCount(descriptor) == 5)
        #expect(try context.delete(entity: "Animal", where: old) == 5)
        #expect(try context.fetchCount(DynamicFetchDescriptor(entity: "Animal")) == 15)
    }

    @Test("a transaction is one undo step and saves")
    func transaction() throws {
        let url = temporaryPackageURL()
        let context = try makeContext(try zooSchema(), url: url)
        try context.transaction(actionName: "Add Pair") {
            try context.insert("Animal")
            try context.insert("Animal")
        }
        #expect(!context.hasChanges && context.undoManager?.undoActionName == "Add Pair")
        context.undoManager?.undo()
        #expect(context.graph.count == 0 && context.hasChanges)
        struct Boom: Error {}
        #expect(throws: Boom.self) {
            try context.transaction {
                try context.insert("Animal"); throw Boom()
            }
        }
        #expect(context.graph.count == 0)
    }

    @Test("a second container on the same package in one process shares it; another holder of the lock refuses writers, not readers")
    func secondWriterLocked() throws {
        let url = temporaryPackageURL()
        let first = try makeContext(try zooSchema(), url: url)
        try first.insert("Animal")
        try first.save()  // creates the package and takes its lock
        // In this process: the store is shared, so neither is refused.
        _ = try ModelContainer(contentsOf: url)
        _ = try ModelContainer(for: try zooSchema(), configurations: ModelConfiguration(url: url))
        _ = consume first  // the lock goes with the last container on the package
        // Another holder (as another process would be): writers are refused, readers are not.
        let other = try PackageLock(path: url.path)
        #expect(throws: ModelError.package(.locked(path: url.path))) { try ModelContainer(contentsOf: url) }
        #expect(throws: ModelError.package(.locked(path: url.path))) {
            try ModelContainer(for: try zooSchema(), configurations: ModelConfiguration(url: url))
        }
        let reader = ModelContext(try ModelContainer(contentsOf: url, allowsSave: false))
        #expect(try reader.fetchCount(DynamicFetchDescriptor(entity: "Animal")) == 1)
        _ = consume reader
        _ = consume other
        _ = try ModelContainer(contentsOf: url)
    }

    @Test("a save over a package another program changed since it was opened is refused, keeping the edits")
    func changedOnDisk() throws {
        let url = temporaryPackageURL()
        let first = try makeContext(try zooSchema(), url: url)
        try first.insert("Animal", ["name": .string("First")])
        try first.save()

        // Another program rewriting the file is noticed; our own saves are not.
        try first.insert("Animal")
        try first.save()
        let document = url.appendingPathComponent("manifest.xml")
        try (try String(contentsOf: document, encoding: .utf8) + "\n").write(to: document, atomically: false, encoding: .utf8)
        try first.insert("Animal")
        #expect(throws: ModelError.package(.modifiedOnDisk(path: url.path))) { try first.save() }
    }

    @Test("a save that would leave two objects with the same unique value is refused, so every saved document reopens")
    func uniqueCheckedAtSave() throws {
        let url = temporaryPackageURL()
        let context = try makeContext(try zooSchema(), url: url)
        let birds = try context.insert("AnimalCategory", ["name": .string("Bird")])
        let fish = try context.insert("AnimalCategory", ["name": .string("Fish")])
        try context.save()
        try context.setValue(.string("Bird"), for: "name", of: fish)
        let error = #expect(throws: ModelError.self) { try context.save() }
        #expect(error == .validation([ValidationIssue(kind: .unique, object: fish, relationship: "name", related: [birds])]))
        try context.setValue(.string("Fish"), for: "name", of: fish)
        try context.save()
        #expect(try DocumentPackage(url: url).read().count == 2)
    }
}
