import Foundation
import Testing
import Folio
@testable import FolioCore
import FolioTestSupport

/// A cow of a herd, found by name, by age and weight, and by birth date.
@Model
final class IndexedCow {
    #Index<IndexedCow>([\.name], [\.age, \.weight], [\.born])
    var name: String
    var age: Int
    var weight: Double
    var born: Date
    var tag: String?
    var serial: Int

    init(name: String, age: Int, weight: Double, born: Date, tag: String? = nil, serial: Int) {
        self.name = name
        self.age = age
        self.weight = weight
        self.born = born
        self.tag = tag
        self.serial = serial
    }
}

/// An index on a relationship, which has no value of its own to order by.
@Model
final class IndexedPen {
    #Index<IndexedPen>([\.keeper])
    var keeper: IndexedCow?
    init() {}
}

/// `#Index` on model classes: the schema carries it, typed fetches use it
/// and return what a scan returns, and edits keep it current.
@MainActor
@Suite struct IndexTests {
    static func herd(_ count: Int) throws -> (ModelContainer, ModelContext) {
        let container = try ModelContainer(for: IndexedCow.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = container.mainContext
        for i in 0..<count {
            context.insert(
                IndexedCow(
                    name: "cow\(i % 40)", age: i % 9, weight: Double(400 + i % 13),
                    born: Date(timeIntervalSinceReferenceDate: Double(i % 30) * 86_400),
                    tag: i % 5 == 0 ? nil : "t\(i % 3)", serial: i % 9))
        }
        try context.save()
        return (container, context)
    }

    @Test("Schema(_ types:) carries #Index into the entity, by attribute name")
    func schemaFromTypes() throws {
        let schema = Schema([IndexedCow.self])
        #expect(schema.entity(named: "IndexedCow")?.indexes == [["name"], ["age", "weight"], ["born"]])
    }

    @Test("#Index naming a relationship makes ModelContainer throw SchemaError.invalidIndex")
    func relationshipRefused() {
        #expect {
            try ModelContainer(for: IndexedPen.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        } throws: { error in
            guard case .schema(.invalidIndex(let entity, let attributes, let reason))? = error as? ModelError else { return false }
            return entity == "IndexedPen" && attributes == ["keeper"] && reason.contains("relationship")
        }
    }

    @Test("a #Predicate equality on an indexed property visits only the matches, and returns the scan's models in its order")
    func equality() throws {
        let (_, context) = try Self.herd(800)
        let before = context.graph.rowsVisited
        let name = "cow7"
        let found = try context.fetch(FetchDescriptor<IndexedCow>(predicate: #Predicate { $0.name == name }))
        #expect(found.count == 20)
        #expect(context.graph.rowsVisited - before == 20)
        #expect(found.map(\.persistentModelID) == found.map(\.persistentModelID).sorted())
        let scanned = try context.fetch(FetchDescriptor<IndexedCow>(predicate: #Predicate { $0.name == name || false }))
        #expect(found.map(\.persistentModelID) == scanned.map(\.persistentModelID))
    }

    @Test("equalities and ranges on a compound index, with other conjuncts, sort, limit and count, give the scan's result")
    func rangesMatchTheScan() throws {
        let (_, context) = try Self.herd(600)
        let day = Date(timeIntervalSinceReferenceDate: 10 * 86_400)
        func same(_ indexed: Predicate<IndexedCow>, _ scanned: Predicate<IndexedCow>, _ label: String) throws {
            let visited = context.graph.rowsVisited
            let a = try context.fetchIdentifiers(FetchDescriptor(predicate: indexed))
            #expect(context.graph.rowsVisited - visited < 600, "\(label): scanned")
            let b = try context.fetchIdentifiers(FetchDescriptor(predicate: scanned))
            #expect(a == b, "\(label)")
            var sortedIndexed = FetchDescriptor(predicate: indexed, sortBy: [SortDescriptor(\.weight, order: .reverse)])
            sortedIndexed.fetchLimit = 7
            var sortedScan = FetchDescriptor(predicate: scanned, sortBy: [SortDescriptor(\.weight, order: .reverse)])
            sortedScan.fetchLimit = 7
            #expect(try context.fetchIdentifiers(sortedIndexed) == context.fetchIdentifiers(sortedScan), "\(label): sorted")
            #expect(try context.fetchCount(FetchDescriptor(predicate: indexed)) == b.count, "\(label): count")
        }
        try same(#Predicate { $0.age == 3 }, #Predicate { $0.serial == 3 }, "age == 3")
        try same(#Predicate { $0.age > 6 }, #Predicate { $0.serial > 6 }, "age > 6")
        try same(#Predicate { 2 <= $0.age && $0.age < 4 }, #Predicate { 2 <= $0.serial && $0.serial < 4 }, "2 <= age < 4")
        let (low, high) = (405.0, 410.0)
        let compound = #Predicate<IndexedCow> { cow in cow.age == 3 && (cow.weight >= low && cow.weight < high) }
        let compoundScan = #Predicate<IndexedCow> { cow in cow.serial == 3 && (cow.weight >= low && cow.weight < high) }
        try same(compound, compoundScan, "age == 3, weight in 405..<410")
        try same(#Predicate { $0.age == 5 && $0.tag == "t1" }, #Predicate { $0.serial == 5 && $0.tag == "t1" }, "with a filter")
        try same(#Predicate { $0.born < day }, #Predicate { $0.born < day || false }, "born < day")
        try same(#Predicate { $0.name == "cow3" && $0.tag == nil }, #Predicate { ($0.name == "cow3" || false) && $0.tag == nil }, "name and nil")
    }

    @Test("edits, deletes, undo and redo through models keep the index current: fetches see every change")
    func keptCurrent() throws {
        let (_, context) = try Self.herd(100)
        context.undoManager = UndoManager()
        let name = "cow1"
        let first = try context.fetch(FetchDescriptor<IndexedCow>(predicate: #Predicate { $0.name == name }))
        #expect(first.count == 3)
        first[0].name = "renamed"
        context.processPendingChanges()
        #expect(try context.fetchCount(FetchDescriptor<IndexedCow>(predicate: #Predicate { $0.name == name })) == 2)
        #expect(try context.fetchCount(FetchDescriptor<IndexedCow>(predicate: #Predicate { $0.name == "renamed" })) == 1)
        context.delete(first[1])
        context.processPendingChanges()
        #expect(try context.fetchCount(FetchDescriptor<IndexedCow>(predicate: #Predicate { $0.name == name })) == 1)
        context.undoManager?.undo()
        #expect(try context.fetchCount(FetchDescriptor<IndexedCow>(predicate: #Predicate { $0.name == name })) == 2)
        context.undoManager?.undo()
        #expect(try context.fetchCount(FetchDescriptor<IndexedCow>(predicate: #Predicate { $0.name == name })) == 3)
        context.undoManager?.redo()
        #expect(try context.fetchCount(FetchDescriptor<IndexedCow>(predicate: #Predicate { $0.name == "renamed" })) == 1)
        #expect(context.graph.invariantViolations().isEmpty)
    }

    @Test("a package saved with #Index reopens with it; the dynamic API finds the same objects through it")
    func reopened() throws {
        let folder = try temporaryFolderURL("index")
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("Herd.folio")
        do {
            let container = try ModelContainer(for: IndexedCow.self, configurations: ModelConfiguration(url: url))
            let context = ModelContext(container)
            for i in 0..<30 {
                context.insert(IndexedCow(name: "cow\(i % 4)", age: i % 3, weight: 400, born: .now, serial: i % 3))
            }
            try context.save()
        }
        let container = try ModelContainer(for: IndexedCow.self, configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        let typed = try context.fetchIdentifiers(FetchDescriptor<IndexedCow>(predicate: #Predicate { $0.name == "cow2" }))
        let dynamic = try context.fetchIdentifiers(DynamicFetchDescriptor(entity: "IndexedCow", predicate: try ObjectPredicate("name == 'cow2'")))
        #expect(typed.count == 7)
        #expect(typed == dynamic)
        #expect(try ModelContainer(contentsOf: url).schema.entity(named: "IndexedCow")?.indexes.count == 3)
    }
}
