import Foundation
import Testing
import Folio
@testable import FolioCore
import FolioTestSupport

/// One store per package per process: several containers share it, readers are
/// never refused, and the change sets kept stay bounded (issue 13, items 4 and 9).
@Suite struct SharedDocumentTests {
    static func animals(_ context: ModelContext) throws -> Int {
        try context.fetchCount(DynamicFetchDescriptor(entity: "Animal"))
    }

    @Test("two containers on one package in one process open, share one store, and each sees the other's saves on its next fetch")
    func twoContainersShare() throws {
        let url = temporaryPackageURL()
        let a = try ModelContainer(for: try zooSchema(), configurations: ModelConfiguration(url: url))
        let contextA = ModelContext(a)
        try contextA.insert("Animal", ["name": .string("Rex")])
        try contextA.save()  // creates the package and takes the lock
        let b = try ModelContainer(for: try zooSchema(), configurations: ModelConfiguration(url: url))
        let c = try ModelContainer(contentsOf: url)
        #expect(a.sharedDocument === b.sharedDocument && b.sharedDocument === c.sharedDocument)
        let contextB = ModelContext(b)
        let contextC = ModelContext(c)
        #expect(try Self.animals(contextB) == 1)
        try contextB.insert("Animal", ["name": .string("Kiwi")])
        try contextB.save()
        #expect(try Self.animals(contextA) == 2)
        #expect(try Self.animals(contextC) == 2)
        let rex = try #require(try contextC.fetchIdentifiers(DynamicFetchDescriptor(entity: "Animal", predicate: try ObjectPredicate("name == 'Rex'"))).first)
        try contextC.delete([rex])
        try contextC.save()
        #expect(try Self.animals(contextA) == 1)
        #expect(try Self.animals(contextB) == 1)
        // Identifiers come from the one store: no clash across containers.
        let one = try contextA.insert("Animal")
        let two = try contextB.insert("Animal")
        #expect(one != two)
        try contextA.save()
        try contextB.save()
        #expect(try DocumentPackage(url: url).read().count == 3)
    }

    @Test("two spellings of one package's path share one store")
    func canonicalPathShared() throws {
        let url = temporaryPackageURL()
        try DocumentPackage(url: url).write(ObjectGraph(schema: try zooSchema()))
        let spelled = url.deletingLastPathComponent().appendingPathComponent(".").appendingPathComponent(url.lastPathComponent)
        let link = url.deletingLastPathComponent().appendingPathComponent("Link.folio")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: url)
        let a = try ModelContainer(contentsOf: url)
        let b = try ModelContainer(contentsOf: spelled)
        let c = try ModelContainer(contentsOf: link)
        #expect(a.sharedDocument === b.sharedDocument && a.sharedDocument === c.sharedDocument)
    }

    @Test("a read-only container opens and reads while another holder has the package's write lock; a writer is refused")
    func readerNeverRefused() throws {
        let url = temporaryPackageURL()
        let graph = ObjectGraph(schema: try zooSchema())
        _ = try graph.insert("Animal", ["name": .string("Rex")])
        try DocumentPackage(url: url).write(graph)
        let other = try PackageLock(path: url.path)  // another process's writer, as the kernel sees it
        #expect(throws: ModelError.package(.locked(path: url.path))) { try ModelContainer(contentsOf: url) }
        let reader = ModelContext(try ModelContainer(contentsOf: url, allowsSave: false))
        #expect(try Self.animals(reader) == 1)
        let typed = ModelContext(try ModelContainer(for: try zooSchema(), configurations: ModelConfiguration(url: url, allowsSave: false)))
        #expect(try Self.animals(typed) == 1)
        try typed.insert("Animal")
        #expect(throws: ModelError.saveNotAllowed) { try typed.save() }
        withExtendedLifetime(other) {}
    }

    @Test("a read-only and a writing container in one process share the store; the reader does not block the writer and sees its saves")
    func readerAndWriterShare() throws {
        let url = temporaryPackageURL()
        try DocumentPackage(url: url).write(ObjectGraph(schema: try zooSchema()))
        let reader = ModelContext(try ModelContainer(contentsOf: url, allowsSave: false))
        let writer = ModelContext(try ModelContainer(contentsOf: url))
        #expect(reader.sharedDocument === writer.sharedDocument)
        try writer.insert("Animal")
        try writer.save()
        #expect(try Self.animals(reader) == 1)
        // The store now holds the lock for its writer.
        #expect(throws: PackageError.locked(path: url.path)) { _ = try PackageLock(path: url.path) }
        try reader.insert("Animal")
        #expect(throws: ModelError.saveNotAllowed) { try reader.save() }
        reader.container.deleteAllData(errorHandler: { #expect($0 == .saveNotAllowed) })
        #expect(try DocumentPackage(url: url).read().count == 1)
    }

    @Test("a writer joining a read-only store whose package another program changed since reads the package afresh")
    func writerAfterOutsideChange() throws {
        let url = temporaryPackageURL()
        try DocumentPackage(url: url).write(ObjectGraph(schema: try zooSchema()))
        let reader = ModelContext(try ModelContainer(contentsOf: url, allowsSave: false))
        let graph = ObjectGraph(schema: try zooSchema())
        _ = try graph.insert("Animal")
        try DocumentPackage(url: url).write(graph)  // another program saves
        let writer = ModelContext(try ModelContainer(contentsOf: url))
        #expect(writer.sharedDocument !== reader.sharedDocument)
        #expect(try Self.animals(writer) == 1)
        try writer.insert("Animal")
        try writer.save()
        #expect(try ModelContext(ModelContainer(contentsOf: url)).sharedDocument === writer.sharedDocument, "the fresh store is the registered one")
    }

    @Test("after 5,001 saves the store keeps no change set every live context has merged")
    func changeSetsBounded() throws {
        // In memory: the change sets are kept the same way, without 5,001 fsyncs.
        let container = try ModelContainer(for: try zooSchema(), configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let writer = ModelContext(container)
        let reader = ModelContext(container)
        let rex = try writer.insert("Animal", ["name": .string("Rex")])
        for save in 0...5_000 {
            try writer.setValue(.int(Int64(save)), for: "age", of: rex)
            try writer.save()
            if save % 1_000 == 0 { _ = try Self.animals(reader) }  // the reader merges now and then
            #expect(container.sharedDocument.changeSetCount <= 1_000)
        }
        _ = try Self.animals(reader)
        #expect(container.sharedDocument.changeSetCount == 0)
        #expect(try reader.value("age", of: rex) == .int(5_000))
        // A context created now checks out the saved graph and needs none.
        let late = ModelContext(container)
        #expect(try late.value("age", of: rex) == .int(5_000))
        #expect(container.sharedDocument.changeSetCount == 0)
    }

    @Test("a context that has not merged still gets every change saved since it last looked, and those are dropped when it goes")
    func laggingContextGetsEverything() throws {
        let container = try ModelContainer(for: try zooSchema(), configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let writer = ModelContext(container)
        var lagging: ModelContext? = ModelContext(container)
        var ids: [PersistentIdentifier] = []
        for index in 0..<50 {
            ids.append(try writer.insert("Animal", ["name": .string("A\(index)"), "age": .int(Int64(index))]))
            try writer.save()
        }
        try writer.delete([ids[0]])
        try writer.save()
        #expect(container.sharedDocument.changeSetCount == 51, "kept for the context that has not merged")
        do {
            let context = try #require(lagging)
            #expect(try Self.animals(context) == 49)
            #expect(try context.value("age", of: ids[49]) == .int(49))
        }
        #expect(container.sharedDocument.changeSetCount == 0)
        for index in 0..<10 {
            try writer.setValue(.int(Int64(index)), for: "age", of: ids[1])
            try writer.save()
        }
        #expect(container.sharedDocument.changeSetCount == 10)
        lagging = nil
        #expect(container.sharedDocument.changeSetCount == 0, "nobody needs them any more")
    }

    @Test("a reader opened after another program changed the package reads it as it is on disk now, without disturbing this process's writer")
    func readerAfterOutsideChange() throws {
        let url = temporaryPackageURL()
        let writer = ModelContext(try ModelContainer(for: try zooSchema(), configurations: ModelConfiguration(url: url)))
        try writer.insert("Animal")
        try writer.save()
        let graph = try DocumentPackage(url: url).read()
        _ = try graph.insert("Animal")
        try DocumentPackage(url: url).write(graph)  // a program ignoring the lock
        let reader = ModelContext(try ModelContainer(contentsOf: url, allowsSave: false))
        #expect(reader.sharedDocument !== writer.sharedDocument)
        #expect(try Self.animals(reader) == 2)
        try writer.insert("Animal")
        #expect(throws: ModelError.package(.modifiedOnDisk(path: url.path))) { try writer.save() }
        #expect(try ModelContext(ModelContainer(contentsOf: url)).sharedDocument === writer.sharedDocument, "the writer's store stays the registered one")
    }

    @Test("a save that merges another context's save made after it validated is validated again, and writes nothing when they clash")
    func mergedSaveIsValidatedAgain() throws {
        let url = temporaryPackageURL()
        defer { try? FileManager.default.removeItem(at: url) }
        let schema = try Schema([.init("Tag", attributes: [.init("name", .string, options: [.unique])])])
        let container = try ModelContainer(for: schema, configurations: ModelConfiguration(url: url))
        let first = ModelContext(container)
        let second = ModelContext(container)
        try first.insert("Tag", ["name": .string("x")])
        try second.insert("Tag", ["name": .string("x")])
        // The second context has validated (nothing clashes in it yet) when the first one saves.
        #expect(second.validationIssues().isEmpty)
        try first.save()
        let saved = try packageDocument(url)
        #expect(throws: ModelError.self) { try second.handOffSave(inBackground: false) }
        #expect(try packageDocument(url) == saved)
        // The clash is reported, not re-merged: the same save refuses the same way.
        #expect(throws: ModelError.self) { try second.save() }
        _ = try DocumentPackage(url: url).read()
    }

    @Test("exporting onto the document's own package is refused, also from a read-only container and through another spelling")
    func exportOntoOwnPackageIsRefused() throws {
        let url = temporaryPackageURL()
        defer { try? FileManager.default.removeItem(at: url) }
        let writer = ModelContext(try ModelContainer(for: try zooSchema(), configurations: ModelConfiguration(url: url)))
        try writer.insert("Animal", ["name": .string("Rex")])
        try writer.save()
        let saved = try packageDocument(url)
        let reader = ModelContext(try ModelContainer(contentsOf: url, allowsSave: false))
        try reader.insert("Animal", ["name": .string("Kiwi")])
        let otherSpelling = URL(fileURLWithPath: url.deletingLastPathComponent().path + "/./" + url.lastPathComponent)
        for context in [writer, reader] {
            for target in [url, otherSpelling] {
                #expect(throws: ModelError.self) { try context.exportPackage(to: target) }
            }
        }
        #expect(try packageDocument(url) == saved)
    }
}
