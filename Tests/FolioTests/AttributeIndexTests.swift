import Foundation
import Testing
import Folio
@testable import FolioCore

/// A declared index in the graph: fetches that use it visit only its
/// candidates and return what a scan returns, and every edit keeps it current.
@Suite struct AttributeIndexTests {
    static func schema() throws -> Schema {
        try Schema([
            .init(
                "Cow",
                attributes: [
                    .init("name", .string), .init("age", .int), .init("weight", .double, isOptional: true),
                    .init("born", .date), .init("serial", .int),
                ],
                relationships: [.init("herd", to: "Herd", inverse: "cows")],
                indexes: [["name"], ["age", "weight"], ["born"]]),
            .init(
                "Herd", attributes: [.init("name", .string)],
                relationships: [.init("cows", to: "Cow", toMany: true, inverse: "herd", deleteRule: .cascade)]),
        ])
    }

    /// A context holding `count` cows: ages cycle 0..<10, weights 100 + i % 7 (every 11th nil).
    static func herd(_ count: Int) throws -> ModelContext {
        let context = try makeContext(try schema())
        for i in 0..<count {
            try context.insert(
                "Cow",
                [
                    "name": .string("cow\(i % 50)"), "age": .int(Int64(i % 10)),
                    "weight": i % 11 == 0 ? .null : .double(Double(100 + i % 7)),
                    "born": .date(Date(timeIntervalSinceReferenceDate: Double(i * 86_400))),
                    "serial": .int(Int64(i % 10)),
                ])
        }
        context.processPendingChanges()
        return context
    }

    /// The identifiers a predicate selects, and those a scan selects: the same
    /// predicate behind `or false`, which no index answers.
    static func indexedAndScanned(
        _ context: ModelContext, _ predicate: String, sortBy: [DynamicFetchDescriptor.SortKey] = [],
        limit: Int? = nil
    ) throws -> (indexed: [PersistentIdentifier], scanned: [PersistentIdentifier]) {
        let indexed = try context.fetchIdentifiers(
            DynamicFetchDescriptor(
                entity: "Cow", predicate: try ObjectPredicate(predicate),
                sortBy: sortBy, fetchLimit: limit))
        let scanned = try context.fetchIdentifiers(
            DynamicFetchDescriptor(
                entity: "Cow", predicate: try ObjectPredicate("(\(predicate)) or false"),
                sortBy: sortBy, fetchLimit: limit))
        return (indexed, scanned)
    }

    @Test("an equality fetch by an indexed attribute visits only the matching objects, in identifier order")
    func equalityDoesNotScan() throws {
        let context = try Self.herd(1_000)
        let before = context.graph.rowsVisited
        let found = try context.fetchIdentifiers(DynamicFetchDescriptor(entity: "Cow", predicate: try ObjectPredicate("name == 'cow7'")))
        #expect(found.count == 20)
        #expect(context.graph.rowsVisited - before == 20)
        #expect(found.map(\.id) == found.map(\.id).sorted())
        // The same fetch by an attribute no index orders reads every object.
        let scanBefore = context.graph.rowsVisited
        _ = try context.fetchIdentifiers(DynamicFetchDescriptor(entity: "Cow", predicate: try ObjectPredicate("serial == 7")))
        #expect(context.graph.rowsVisited - scanBefore == 1_000)
    }

    @Test("ranges and equalities on a compound index's first attributes, with other conjuncts, sort and limit, give the scan's result")
    func rangesMatchTheScan() throws {
        let context = try Self.herd(700)
        let predicates = [
            "age == 3", "age < 3", "age <= 3", "age > 7", "age >= 7", "age > 2 and age <= 5", "3 < age", "age == 3 and weight > 102",
            "age == 3 and weight >= 102 and weight < 105", "age == 3 and weight == nil", "age == 4.5", "age < 4.5", "age == 3 and name == 'cow3'",
            "name == 'cow9' and serial > 4", "born < '2001-03-01T00:00:00Z'", "born >= '2001-02-01T00:00:00Z' and age == 1",
            "age == 3 and weight > 102 and weight < 102", "name == 'nobody'",
        ]
        for predicate in predicates {
            let visited = context.graph.rowsVisited
            let (indexed, scanned) = try Self.indexedAndScanned(context, predicate)
            #expect(indexed == scanned, "\(predicate)")
            #expect(context.graph.rowsVisited - visited < 700 + 700, "\(predicate): the indexed fetch scanned")
            let (sorted, sortedScan) = try Self.indexedAndScanned(context, predicate, sortBy: [.init("weight", ascending: false)], limit: 5)
            #expect(sorted == sortedScan, "\(predicate), sorted and limited")
        }
    }

    @Test("inserts, edits, deletes with cascades, undo and redo keep a built index exactly the live objects in order")
    func keptCurrent() throws {
        let context = try Self.herd(300)
        let herd = try context.insert("Herd", ["name": .string("north")])
        let cows = try context.fetchIdentifiers(DynamicFetchDescriptor(entity: "Cow"))
        for cow in cows.prefix(40) { try context.link(cow, "herd", to: herd) }
        context.processPendingChanges()
        _ = try Self.indexedAndScanned(context, "age == 1 and weight > 100")  // builds the (age, weight) index
        _ = try Self.indexedAndScanned(context, "name == 'cow1'")
        #expect(context.graph.attributeIndexes.count == 2)
        func check(_ step: String) throws {
            #expect(context.graph.invariantViolations().isEmpty, "\(step)")
            for predicate in ["age == 1", "age == 5 and weight >= 103", "name == 'cow1'", "name == 'renamed'", "age > 8"] {
                let (indexed, scanned) = try Self.indexedAndScanned(context, predicate)
                #expect(indexed == scanned, "\(step): \(predicate)")
            }
        }
        try context.setValue(.int(5), for: "age", of: cows[1])
        try context.setValue(.string("renamed"), for: "name", of: cows[2])
        try context.setValue(.null, for: "weight", of: cows[3])
        context.processPendingChanges()
        try check("edits")
        _ = try context.insert("Cow", ["name": .string("cow1"), "age": .int(1), "weight": .double(101)])
        context.processPendingChanges()
        try check("insert")
        try context.delete([herd])  // cascades to 40 cows
        context.processPendingChanges()
        try check("cascade")
        for step in 0..<3 {
            context.undoManager?.undo()
            try check("undo \(step)")
        }
        for step in 0..<3 {
            context.undoManager?.redo()
            try check("redo \(step)")
        }
        try context.save()
        context.rollback()
        try check("rollback")
    }

    @Test("a saved state shares its indexes with the context: editing one leaves the other's order intact")
    func copiesShareIndexes() throws {
        let context = try Self.herd(200)
        _ = try Self.indexedAndScanned(context, "name == 'cow1'")
        let copy = context.graph.copy()
        #expect(copy.attributeIndexes.count == 1)
        let cows = try context.fetchIdentifiers(DynamicFetchDescriptor(entity: "Cow", predicate: try ObjectPredicate("name == 'cow1'")))
        for cow in cows { try context.setValue(.string("zzz"), for: "name", of: cow) }
        #expect(context.graph.invariantViolations().isEmpty)
        #expect(copy.invariantViolations().isEmpty)
        let inCopy = try copy.fetchRows(DynamicFetchDescriptor(entity: "Cow", predicate: try ObjectPredicate("name == 'cow1'")))
        #expect(inCopy.count == cows.count)
    }

    @Test("a fetch of the saved state (includePendingChanges false) gives the scan's result and builds nothing in the shared graph")
    func savedStateFetch() throws {
        let context = try Self.herd(100)
        try context.save()
        // The fourth cow inserted (cow3 until renamed).
        let fourth = try #require(try context.fetchIdentifiers(DynamicFetchDescriptor(entity: "Cow", predicate: try ObjectPredicate("name == 'cow3'"))).first)
        try context.setValue(.string("cow1"), for: "name", of: fourth)
        let saved = try context.fetchIdentifiers(
            DynamicFetchDescriptor(
                entity: "Cow", predicate: try ObjectPredicate("name == 'cow1'"),
                includePendingChanges: false))
        #expect(saved.count == 2)
        #expect(context.baseline.attributeIndexes.isEmpty)
        let current = try context.fetchIdentifiers(DynamicFetchDescriptor(entity: "Cow", predicate: try ObjectPredicate("name == 'cow1'")))
        #expect(current.count == 3)
    }

    @Test("chunks split as rows go in and vanish as rows go out, keeping every row in order")
    func chunks() throws {
        let context = try Self.herd(10)
        _ = try Self.indexedAndScanned(context, "age == 1")
        for i in 0..<(AttributeIndex.chunkCapacity * 3) {
            _ = try context.insert("Cow", ["name": .string("x"), "age": .int(Int64(i % 3)), "weight": .double(Double(i))])
        }
        let key = AttributeIndexKey(entity: 0, attributes: [1, 2])
        let index = try #require(context.graph.attributeIndexes[key])
        #expect(index.chunks.count > 3)
        #expect(index.chunks.allSatisfy { !$0.isEmpty && $0.count <= AttributeIndex.chunkCapacity })
        #expect(context.graph.invariantViolations().isEmpty)
        try context.delete(entity: "Cow", where: try ObjectPredicate("age == 1"))
        #expect(context.graph.invariantViolations().isEmpty)
        let (indexed, scanned) = try Self.indexedAndScanned(context, "age >= 1")
        #expect(indexed == scanned)
    }
}
