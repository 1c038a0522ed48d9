import Foundation
import PropertyBased
import Testing
import Folio
@testable import FolioCore
import FolioTestSupport

/// The whole-document merge builds object states for what the sides changed
/// (and what the reconcile must see beside it), not for every object — and
/// gives exactly what the merge of every object's state gives (issue 30, item 9).
@Suite struct MergeCostTests {
    /// A base of `categories` categories and `animals` animals, each animal in category `index % categories`.
    static func zoo(categories: Int, animals: Int, rule: Schema.Relationship.DeleteRule = .nullify) throws
        -> (MergeFixture, categories: [PersistentIdentifier], animals: [PersistentIdentifier])
    {
        let graph = ObjectGraph(schema: try mergeZooSchema(rule: rule))
        let categoryIDs = try (0..<categories).map { try graph.insert("Category", ["name": .string("Category \($0)")]) }
        var animalIDs: [PersistentIdentifier] = []
        animalIDs.reserveCapacity(animals)
        for index in 0..<animals {
            let animal = try graph.insert("Animal", ["name": .string("Animal \(index)"), "age": .int(Int64(index % 20))])
            try graph.link(animal, "category", to: categoryIDs[index % categories])
            animalIDs.append(animal)
        }
        return (MergeFixture(graph), categoryIDs, animalIDs)
    }

    /// The merge equals the merge of every object: graph, conflicts (in order), records and counter.
    static func expectSameAsEveryObject(
        _ fixture: MergeFixture, _ result: MergeResult,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let whole = try ObjectGraph.mergeEveryObject(base: fixture.base, ours: fixture.ours, theirs: fixture.theirs)
        #expect(result.graph.snapshot() == whole.graph.snapshot(), sourceLocation: sourceLocation)
        #expect(result.conflicts == whole.conflicts, sourceLocation: sourceLocation)
        #expect(result.graph.conflicts == whole.graph.conflicts, sourceLocation: sourceLocation)
        #expect(result.graph.nextID == whole.graph.nextID, sourceLocation: sourceLocation)
        #expect(result.graph.count == whole.graph.count, sourceLocation: sourceLocation)
        #expect(result.graph.invariantViolations().isEmpty, sourceLocation: sourceLocation)
        // The same rows too: each entity's in one order, every link column (hidden inverses included) alike.
        for (entity, table) in result.graph.tables.enumerated() {
            let other = whole.graph.tables[entity]
            #expect(table.ids == other.ids && table.isLive == other.isLive, sourceLocation: sourceLocation)
            for (slot, column) in table.links.enumerated() {
                let otherColumn = other.links[slot]
                #expect(
                    column.one == otherColumn.one && column.many == otherColumn.many && column.absent == otherColumn.absent,
                    "\(result.graph.layout.entities[entity].name) slot \(slot)", sourceLocation: sourceLocation)
            }
        }
    }

    @Test(
        "two sides of a 20,000-object graph with 10 edits each: states for the edited objects and their categories, not 20,000", .tags(.long), .onlyInLongRuns)
    func statesFollowTheEdits() throws {
        let (fixture, categories, animals) = try Self.zoo(categories: 200, animals: 19_800)
        for (side, offset) in [(fixture.ours, 0), (fixture.theirs, 7_000)] {
            for k in 0..<5 { try side.setValue(.int(100 + Int64(k)), for: "age", of: animals[offset + 1_000 * k]) }
            for k in 0..<3 {
                let animal = try side.insert("Animal", ["name": .string("New \(offset) \(k)")])
                try side.link(animal, "category", to: categories[(offset + 31 * k) % categories.count])
            }
            try side.remove(animals[offset + 500])
            try side.link(animals[offset + 600], "friends", to: animals[offset + 601])
        }
        // One object both sides edited: a conflict, as the whole merge reports it.
        try fixture.ours.setValue(.string("Ours"), for: "name", of: animals[12_345])
        try fixture.theirs.setValue(.string("Theirs"), for: "name", of: animals[12_345])

        let result = try fixture.merge()
        // 21 edited objects, their (at most 10) categories, each built from up to three versions.
        #expect(result.statesBuilt > 0 && result.statesBuilt <= 3 * 31)
        #expect(result.conflicts.map(\.kind) == [.value])
        try Self.expectSameAsEveryObject(fixture, result)
        let whole = try ObjectGraph.mergeEveryObject(base: fixture.base, ours: fixture.ours, theirs: fixture.theirs)
        #expect(whole.statesBuilt >= 3 * 19_990)
    }

    @Test("a renamed object taking an untouched one's unique name removes the untouched one, and its removal reaches its animals")
    func uniqueClashWithUntouchedObject() throws {
        for rule in [Schema.Relationship.DeleteRule.nullify, .cascade, .deny] {
            let (fixture, categories, _) = try Self.zoo(categories: 20, animals: 400, rule: rule)
            // The smaller identifier keeps the name: the untouched category (larger) is the one removed.
            try fixture.theirs.setValue(.string("Category 7"), for: "name", of: categories[3])
            let result = try fixture.merge()
            #expect(!result.graph.contains(categories[7]))
            #expect(result.conflicts.contains { $0.kind == .uniqueness && $0.id == categories[7] })
            #expect(result.statesBuilt < 3 * 100)
            try Self.expectSameAsEveryObject(fixture, result)
        }
    }

    @Test("a category deleted on one side and grown on the other: deleted-and-edited, and the deny rule brings it back")
    func deletedAndGrown() throws {
        for rule in [Schema.Relationship.DeleteRule.nullify, .cascade, .deny] {
            let (fixture, categories, animals) = try Self.zoo(categories: 20, animals: 400, rule: rule)
            try MergeEdit(kind: 12, pick: 0, other: 0).delete(categories[5], in: fixture.ours)
            let animal = try fixture.theirs.insert("Animal", ["name": .string("Late")])
            try fixture.theirs.link(animal, "category", to: categories[5])
            try fixture.theirs.setValue(.int(99), for: "age", of: animals[25])
            let result = try fixture.merge()
            try Self.expectSameAsEveryObject(fixture, result)
        }
    }

    @Test("versions read from packages, their rows shifted by deletes and inserts, merge as the merge of every object")
    func versionsReadFromPackages() throws {
        let (fixture, categories, animals) = try Self.zoo(categories: 10, animals: 300, rule: .cascade)
        for (side, offset) in [(fixture.ours, 0), (fixture.theirs, 1)] {
            for k in stride(from: offset, to: 300, by: 37) { try side.remove(animals[k]) }
            try MergeEdit(kind: 12, pick: 0, other: 0).delete(categories[4 + offset], in: side)
            for k in 0..<5 {
                let animal = try side.insert("Animal", ["name": .string("New \(offset) \(k)"), "age": .int(Int64(k))])
                try side.link(animal, "category", to: categories[(3 * k + offset) % 4])
            }
            for k in stride(from: 2 + offset, to: 300, by: 41) where side.contains(animals[k]) {
                try side.setValue(.int(50 + Int64(offset)), for: "age", of: animals[k])
                try side.setRelated([animals[(k + 1) % 300]].filter(side.contains), for: "friends", of: animals[k])
            }
        }
        var read: [ObjectGraph] = []
        for graph in [fixture.base, fixture.ours, fixture.theirs] {
            let package = DocumentPackage(url: temporaryPackageURL())
            defer { try? FileManager.default.removeItem(at: package.url.deletingLastPathComponent()) }
            try package.write(graph)
            read.append(try package.read())
        }
        let result = try ObjectGraph.merge(base: read[0], ours: read[1], theirs: read[2])
        #expect(result.statesBuilt < 3 * 100)
        let whole = try ObjectGraph.mergeEveryObject(base: read[0], ours: read[1], theirs: read[2])
        #expect(result.graph.snapshot() == whole.graph.snapshot())
        #expect(result.conflicts == whole.conflicts)
        #expect(result.graph.invariantViolations().isEmpty)
        #expect(result.graph.snapshot() == (try fixture.merge()).graph.snapshot())
    }

    @Test("random edits: the merge of the changed objects equals the merge of every object, conflicts in order")
    func randomEditsMatchEveryObject() async {
        await checkProperty(
            count: 150, input: MergePropertyTests.seeds, MergeEdit.sequence, MergeEdit.sequence,
            MergeEdit.sequence
        ) { seed, start, ours, theirs in
            let fixture = try MergePropertyTests.fixture(seed, start, ours, theirs)
            try Self.expectSameAsEveryObject(fixture, try fixture.merge())
        }
    }
}
