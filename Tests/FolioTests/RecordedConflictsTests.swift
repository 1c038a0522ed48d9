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
        let part = try String(
            contentsOf: url.appendingPathComponent(PackageLayout.partPath(entity: "Animal", id: rex.id)),
            encoding: .utf8)
        #expect(
            part.contains(#"<f.conflict f.id="\#(rex.id)" kind="value" property="name" base="Rex" ours="Rex the First" theirs="Rexy"/>"#),
            "\(part)")
        let read = try DocumentPackage(url: url).read()
        #expect(
            read.conflicts == [
                MergeConflict(
                    kind: .value, id: rex, property: "name", base: .value(.string("Rex")),
                    ours: .value(.string("Rex the First")), theirs: .value(.string("Rexy")))
            ])
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

/// A merge's conflict records name entities and properties: a migration that
/// renames or drops them carries the records over, so the migrated document
/// opens again with its conflicts still to resolve.
@Suite struct MigratedConflictRecordsTests {
    @Test func `a rename migration renames the conflict records; the saved package reopens with them`() throws {
        let (url, rex) = try RecordedConflictsTests.mergedPackage()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        // Animal is Creature, its name is title; notes is dropped.
        let schema = try Schema([
            .init(
                "AnimalCategory", attributes: [.init("name", .string, options: [.unique])],
                relationships: [.init("animals", to: "Creature", toMany: true, inverse: "category", deleteRule: .cascade)]),
            .init(
                "Creature",
                attributes: [
                    .init("title", .string, originalName: "name"), .init("age", .int), .init("weight", .double),
                    .init("born", .date),
                ],
                relationships: [.init("category", to: "AnimalCategory", inverse: "animals")], originalName: "Animal"),
        ])
        let creature = PersistentIdentifier(entityName: "Creature", id: rex.id)
        let expected = MergeConflict(
            kind: .value, id: creature, property: "title", base: .value(.string("Rex")),
            ours: .value(.string("Rex the First")), theirs: .value(.string("Rexy")))
        do {
            let context = try makeContext(schema, url: url)
            #expect(context.conflicts == [expected])
            try context.setValue(.int(5), for: "age", of: creature)
            try context.save()
        }
        let reopened = try makeContext(schema, url: url)
        #expect(reopened.conflicts == [expected])
        try reopened.resolve(try #require(reopened.conflicts.first), keeping: .theirs)
        #expect(try reopened.value("title", of: creature) == .string("Rexy"))
    }

    @Test func `a record about a dropped attribute goes with it; one whose object lost a property keeps the rest`() throws {
        let record = MergeConflict(
            kind: .deletedAndEdited, id: PersistentIdentifier(entityName: "Animal", id: 7),
            ours: .object([
                "name": .value(.string("Rex")), "notes": .value(.string("old")),
                "category": .related([PersistentIdentifier(entityName: "AnimalCategory", id: 1)]),
            ]))
        let target = try Schema([
            .init(
                "AnimalCategory", attributes: [.init("name", .string, options: [.unique])],
                relationships: [.init("animals", to: "Animal", toMany: true, inverse: "category", deleteRule: .cascade)]),
            .init(
                "Animal", attributes: [.init("name", .string), .init("age", .int), .init("weight", .double), .init("born", .date)],
                relationships: [.init("category", to: "AnimalCategory", inverse: "animals")]),
        ])
        let renaming = try SchemaRenaming(from: try zooSchema(), to: target)
        #expect(
            renaming.renamed(record)?.ours
                == .object([
                    "name": .value(.string("Rex")),
                    "category": .related([PersistentIdentifier(entityName: "AnimalCategory", id: 1)]),
                ]))
        let about = MergeConflict(
            kind: .value, id: PersistentIdentifier(entityName: "Animal", id: 7), property: "notes",
            base: .value(.null), ours: .value(.string("a")), theirs: .value(.string("b")))
        #expect(renaming.renamed(about) == nil)
        #expect(renaming.keepsEveryName(of: try zooSchema()) == false)
        #expect(try SchemaRenaming(from: try zooSchema(), to: try zooSchema()).keepsEveryName(of: try zooSchema()))
    }
}
