import Foundation
import FolioTestSupport
import Testing
import Folio
@testable import FolioCore

/// A document's history names only what its schema declares: entities,
/// updated properties, and tombstone values of the attribute's type. A
/// history that names anything else is refused where it says it; a migration
/// that renames or drops entities and properties renames its history with it,
/// so a migrated document always opens again.
@Suite struct HistorySchemaTests {
    typealias Transaction = DefaultHistoryTransaction

    /// A package whose history holds inserts of a category and two animals, an
    /// update of Rex's age, and Tom's delete with his tombstone (name and notes).
    static func packageWithHistory() throws -> URL {
        let url = temporaryPackageURL()
        let context = try makeContext(try ModelContextHistoryTests.schema(), url: url)
        let mammals = try context.insert("AnimalCategory", ["name": .string("Mammal")])
        let rex = try context.insert("Animal", ["name": .string("Rex"), "age": .int(3)])
        let tom = try context.insert("Animal", ["name": .string("Tom"), "age": .int(1), "notes": .string("a cat")])
        try context.link(rex, "category", to: mammals)
        try context.save()
        try context.setValue(.int(4), for: "age", of: rex)
        try context.delete(tom)
        try context.save()
        return url
    }

    /// The package's manifest with `old` replaced by `new` (which must occur).
    static func editManifest(_ url: URL, _ old: String, _ new: String) throws {
        let manifest = url.appendingPathComponent("manifest.xml")
        let text = try String(contentsOf: manifest, encoding: .utf8)
        #expect(text.contains(old), "\(text)")
        try text.replacingOccurrences(of: old, with: new).write(to: manifest, atomically: true, encoding: .utf8)
    }

    /// The `PackageError` opening the package and reading its history throws.
    static func refusal(_ url: URL) -> PackageError? {
        HistoryBoundsTests.refusal(url, readingHistory: true)
    }

    /// Renames Animal to Creature and its `age` to `years`, drops `notes` and the categories.
    static func migratedSchema() throws -> Schema {
        try Schema([
            .init(
                "Creature",
                attributes: [
                    .init("name", .string, options: [.preserveValueOnDeletion]),
                    .init("years", .int, originalName: "age"),
                ],
                originalName: "Animal")
        ])
    }

    /// Each transaction's changes as `kind entity#id [properties]` lines, oldest first.
    static func changeLines(_ context: ModelContext) throws -> [[String]] {
        try context.fetchHistory(HistoryDescriptor<Transaction>()).map(ModelContextHistoryTests.lines)
    }

    // MARK: Refused

    @Test(.format2) func `a transaction naming an entity the schema lacks is refused at its element`() throws {
        let url = try Self.packageWithHistory()
        try Self.editManifest(url, #"<insert entity="Animal""#, #"<insert entity="Beast""#)
        let error = try #require(Self.refusal(url))
        guard case .unknownEntity(let location, "Beast") = error else { Issue.record("got \(error)"); return }
        #expect(location.file.hasSuffix("manifest.xml") && location.line > 1 && location.column > 1)
    }

    @Test(.format2) func `an update naming a property its entity lacks is refused`() throws {
        let url = try Self.packageWithHistory()
        try Self.editManifest(url, #"properties="age""#, #"properties="weight""#)
        let error = try #require(Self.refusal(url))
        guard case .unknownProperty(let location, "Animal", "weight") = error else { Issue.record("got \(error)"); return }
        #expect(location.file.hasSuffix("manifest.xml") && location.line > 1)
    }

    @Test(.format2) func `a tombstone value kept under another type than the schema declares is refused`() throws {
        let url = try Self.packageWithHistory()
        try Self.editManifest(url, #"name="name" type="string" text="Tom""#, #"name="name" type="int" text="7""#)
        let error = try #require(Self.refusal(url))
        guard case .invalidValue(_, "Animal", "name", "int", let expected) = error else { Issue.record("got \(error)"); return }
        #expect(expected.contains("string"), "\(expected)")
    }

    @Test func `a format-3 history file naming an entity the schema lacks is refused when the history is read, at that file`() throws {
        let url = try Self.packageWithHistory()
        let folder = url.appendingPathComponent("history")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".xml") }
        let file = folder.appendingPathComponent(try #require(files.first))
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(text.contains(#"entity="Animal""#))
        try text.replacingOccurrences(of: #"entity="Animal""#, with: #"entity="Beast""#)
            .write(to: file, atomically: true, encoding: .utf8)
        let error = try #require(Self.refusal(url))
        guard case .unknownEntity(let location, "Beast") = error else { Issue.record("got \(error)"); return }
        #expect(location.file.hasSuffix(file.lastPathComponent))
    }

    // MARK: Migrated

    @Test(arguments: [false, true])
    func `a migration renaming and dropping entities and properties renames the history, which reopens under the new schema`(
        format2: Bool
    ) throws {
        try DocumentPackage.$writesFormat2OnThisTask.withValue(format2) {
            let url = try Self.packageWithHistory()
            let before = try Self.changeLines(try makeContext(try ModelContextHistoryTests.schema(), url: url))
            #expect(before.count == 2)
            var expected: [[String]] = []
            do {
                let context = try makeContext(try Self.migratedSchema(), url: url)
                let transactions = try context.fetchHistory(HistoryDescriptor<Transaction>())
                // The categories' inserts went with their entity; Animal is Creature, age is years.
                expected = transactions.map(ModelContextHistoryTests.lines)
                #expect(
                    expected
                        == before.map { lines in
                            lines.filter { !$0.contains("AnimalCategory") }.map {
                                $0.replacingOccurrences(of: "Animal", with: "Creature").replacingOccurrences(of: "\"age\"", with: "\"years\"")
                            }
                        })
                let groups = transactions.flatMap(\.changeGroups)
                #expect(Set(groups.map(\.entityName)) == ["Creature"])
                #expect(groups.filter { $0.kind == .update }.map(\.updatedAttributeNames) == [["years"]])
                // Tom's tombstone keeps his name; the dropped notes are gone from it.
                let stored = try context.sharedDocument.historyTransactions()
                #expect(stored.last?.tombstones.map { $0.values.map(\.name) } == [["name"]])
                #expect(stored.last?.tombstones.map(\.entity) == ["Creature"])
                // The migration is written by the next save, history and all.
                let rex = try #require(try context.fetchIdentifiers(DynamicFetchDescriptor(entity: "Creature")).first)
                try context.setValue(.int(5), for: "years", of: rex)
                try context.save()
            }
            let reopened = try makeContext(try Self.migratedSchema(), url: url)
            let after = try Self.changeLines(reopened)
            #expect(after.count == 3)
            #expect(Array(after.prefix(2)) == expected)
            // Read with the package's own schema, as `folio` reads it: every name is one it declares.
            let package = DocumentPackage(url: url)
            let onDisk = package.readHistory()
            #expect(try onDisk.log.transactions(in: package.folder, limits: .standard, schema: onDisk.schema).count == 3)
            #expect(onDisk.schema?.entities.map(\.name) == ["Creature"])
        }
    }
}
