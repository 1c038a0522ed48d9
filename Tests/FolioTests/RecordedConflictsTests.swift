import Foundation
import Testing
import Folio
@testable import FolioCore
import FolioTestSupport

/// The conflicts a merge recorded are part of the document: written with it,
/// read back when it is opened, listed by a context and resolved there, and
/// gone from the package once a resolution is saved.
@Suite struct RecordedConflictsTests {
    /// A zoo saved once, merged with two edits of one animal's name: the merged
    /// package at the returned URL records one value conflict.
    static func mergedPackage() throws -> (url: URL, rex: PersistentIdentifier) {
        let base = ObjectGraph(schema: try zooSchema())
        let mammals = try base.insert("AnimalCategory", ["name": .string("Mammal")])
        let rex = try base.insert("Animal", ["name": .string("Rex"), "age": .int(3)])
        try base.link(rex, "category", to: mammals)
        let ours = base.copy(), theirs = base.copy()
        try ours.setValue(.string("Rex the First"), for: "name", of: rex)
        try theirs.setValue(.string("Rexy"), for: "name", of: rex)
        try theirs.setValue(.int(4), for: "age", of: rex)
        let result = try ObjectGraph.merge(base: base, ours: ours, theirs: theirs)
        #expect(result.conflicts.count == 1)
        #expect(result.graph.conflicts == result.conflicts)
        let url = temporaryPackageURL("Merged")
        try DocumentPackage(url: url).write(result.graph)
        return (url, rex)
    }

    @Test("a merged package keeps its conflict records: written in its object's part and read back the same")
    func recordsRoundTrip() throws {
        let (url, rex) = try Self.mergedPackage()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let part = try String(contentsOf: url.appendingPathComponent(PackageLayout.partPath(entity: "Animal", id: rex.id)),
                              encoding: .utf8)
        #expect(part.contains(#"<f.conflict f.id="\#(rex.id)" kind="value" property="name" base="Rex" ours="Rex the First" theirs="Rexy"/>"#),
                "\(part)")
        let read = try DocumentPackage(url: url).read()
        #expect(read.conflicts == [MergeConflict(kind: .value, id: rex, property: "name", base: .value(.string("Rex")),
                                                 ours: .value(.string("Rex the First")), theirs: .value(.string("Rexy")))])
        #expect(try read.value("age", of: rex) == .int(4), "theirs' other edit is merged")
    }

    @Test("a context lists the records, resolves one (undoably), saves, and the reopened package has none left")
    @MainActor func resolveAndSave() throws {
        let (url, rex) = try Self.mergedPackage()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        do {
            let container = try ModelContainer(for: try zooSchema(), configurations: ModelConfiguration(url: url))
            let context = ModelContext(container)
            context.undoManager = UndoManager()
            let conflict = try #require(context.conflicts.first)
            #expect(context.conflicts.count == 1)
            try context.resolve(conflict, keeping: .theirs)
            #expect(try context.value("name", of: rex) == .string("Rexy"))
            #expect(context.conflicts.isEmpty)
            #expect(context.hasChanges)
            context.undoManager?.undo()
            #expect(try context.value("name", of: rex) == .string("Rex the First"))
            #expect(context.conflicts == [conflict])
            context.undoManager?.redo()
            #expect(context.conflicts.isEmpty)
            try context.save()
        }
        let reopened = try ModelContainer(for: try zooSchema(), configurations: ModelConfiguration(url: url))
        #expect(reopened.mainContext.conflicts.isEmpty)
        #expect(try reopened.mainContext.value("name", of: rex) == .string("Rexy"))
        let manifest = try String(contentsOf: url.appendingPathComponent("manifest.xml"), encoding: .utf8)
        #expect(!manifest.contains("<conflicts>"))
    }

    @Test("saving with conflicts left keeps them recorded")
    @MainActor func saveKeepsUnresolved() throws {
        let (url, rex) = try Self.mergedPackage()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        do {
            let container = try ModelContainer(for: try zooSchema(), configurations: ModelConfiguration(url: url))
            try container.mainContext.setValue(.int(9), for: "age", of: rex)
            try container.mainContext.save()
        }
        let reopened = try ModelContainer(for: try zooSchema(), configurations: ModelConfiguration(url: url))
        #expect(reopened.mainContext.conflicts.count == 1)
        #expect(try reopened.mainContext.value("age", of: rex) == .int(9))
    }
}
