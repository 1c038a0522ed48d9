import Foundation
import Testing
import Folio
@testable import FolioCore

@Suite struct FoundationPredicateTests {
    func countries() throws -> (ModelContext, [PersistentIdentifier]) {
        let schema = try Schema([
            .init(
                "Country",
                attributes: [
                    .init("name", .string), .init("visited", .bool),
                    .init("population", .int, isOptional: true),
                ])
        ])
        let context = try makeContext(schema)
        let ids = try [("France", true, 68), ("Peru", false, 34), ("Japan", true, 125), ("Chad", false, nil)].map {
            try context.insert(
                "Country",
                [
                    "name": .string($0.0), "visited": .bool($0.1),
                    "population": $0.2.map { .int(Int64($0)) } ?? .null,
                ])
        }
        try context.save()
        return (context, ids)
    }

    @Test("a Foundation #Predicate deletes the visited countries, as one undoable step")
    func deleteVisited() throws {
        let (context, ids) = try countries()
        let visited = Value.bool(true)
        #expect(try context.delete(entity: "Country", where: #Predicate<[String: Value]> { $0["visited"] == visited }) == 2)
        #expect(context.deletedIdentifiers == [ids[0], ids[2]])
        context.undoManager?.undo()
        #expect(try context.fetchCount(DynamicFetchDescriptor(entity: "Country")) == 4)
    }

    @Test("a Foundation #Predicate compares values in order, with nil-coalescing for absent ones")
    func fetchOrdered() throws {
        let (context, ids) = try countries()
        let fifty = Value.int(50), none = Value.null
        let big = try context.fetchIdentifiers(entity: "Country", matching: #Predicate<[String: Value]> { ($0["population"] ?? none) > fifty })
        #expect(big == [ids[0], ids[2]])
    }

    @Test("values encode to JSON and back unchanged")
    func codableRoundTrip() throws {
        let values: [Value] = [
            .null, .bool(true), .int(-3), .uint(.max), .double(-0.0), .double(.nan), .float(1.5),
            .string("a\u{0}b"), .date(Date(timeIntervalSinceReferenceDate: 0.1)), .data(Data([1, 2])),
            .uuid(UUID()), .url(URL(string: "https://example.com")!), .decimal(Decimal(string: "1.25")!),
            .array([.int(1), .null]), .set([.string("x")]), .dictionary(["k": .bool(false)]),
        ]
        let data = try JSONEncoder().encode(values)
        #expect(try JSONDecoder().decode([Value].self, from: data) == values)
    }

    @Test("values sort in a total order: numbers by value across types, then by kind")
    func totalOrder() {
        #expect(Value.int(2) < .double(2.5))
        #expect(Value.uint(3) > .int(-1))
        #expect(Value.null < .bool(false))
        #expect(Value.int(1) < .string("a"))
        #expect([Value.string("b"), .int(3), .null, .double(1)].sorted() == [.null, .double(1), .int(3), .string("b")])
    }
}
