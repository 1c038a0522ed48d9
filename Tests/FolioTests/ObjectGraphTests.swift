import Foundation
import Testing
import Folio
@testable import FolioCore

@Suite struct ObjectGraphTests {
    @Test("linking a to-one updates the to-many inverse, in order")
    func toOneUpdatesInverse() throws {
        let graph = ObjectGraph(schema: try zooSchema())
        let mammals = try graph.insert("AnimalCategory", ["name": .string("Mammal")])
        let animals = try (0..<3).map { try graph.insert("Animal", ["name": .string("A\($0)")]) }
        for animal in animals.reversed() { try graph.link(animal, "category", to: mammals) }
        #expect(try graph.related("animals", of: mammals) == animals.reversed())
        #expect(try graph.related("category", of: animals[0]) == [mammals])
        #expect(graph.invariantViolations().isEmpty)
    }

    @Test("moving an object to another to-one destination removes it from the old inverse")
    func relinkMoves() throws {
        let graph = ObjectGraph(schema: try zooSchema())
        let first = try graph.insert("AnimalCategory", ["name": .string("1")])
        let second = try graph.insert("AnimalCategory", ["name": .string("2")])
        let rex = try graph.insert("Animal")
        try graph.link(rex, "category", to: first)
        try graph.link(second, "animals", to: rex)
        #expect(try graph.related("animals", of: first).isEmpty)
        #expect(try graph.related("animals", of: second) == [rex])
        #expect(try graph.related("category", of: rex) == [second])
        #expect(graph.invariantViolations().isEmpty)
    }

    @Test("to-one to to-one links steal from both previous partners")
    func oneToOneSteals() throws {
        let graph = ObjectGraph(schema: try kitchenSinkSchema())
        let (a, b, c) = (try graph.insert("Thing"), try graph.insert("Thing"), try graph.insert("Thing"))
        try graph.link(a, "twin", to: b)
        try graph.link(c, "twin", to: b)
        #expect(try graph.related("twin", of: a).isEmpty)
        #expect(try graph.related("twinOf", of: b) == [c])
        #expect(graph.invariantViolations().isEmpty)
    }

    @Test("many-to-many links are kept on both sides and unlink cuts both")
    func manyToMany() throws {
        let graph = ObjectGraph(schema: try kitchenSinkSchema())
        let ann = try graph.insert("Person", ["name": .string("Ann")])
        let chess = try graph.insert("Club", ["title": .string("Chess")])
        let go = try graph.insert("Club", ["title": .string("Go")])
        try graph.link(ann, "clubs", to: chess)
        try graph.link(go, "members", to: ann)
        try graph.link(ann, "clubs", to: chess)  // already there: no duplicate
        #expect(try graph.related("clubs", of: ann) == [chess, go])
        try graph.unlink(chess, "members", from: ann)
        #expect(try graph.related("clubs", of: ann) == [go])
        #expect(graph.invariantViolations().isEmpty)
    }

    @Test("setRelated replaces a to-many in the given order")
    func setRelatedOrders() throws {
        let graph = ObjectGraph(schema: try zooSchema())
        let category = try graph.insert("AnimalCategory")
        let animals = try (0..<4).map { _ in try graph.insert("Animal") }
        try graph.setRelated(animals, for: "animals", of: category)
        try graph.setRelated([animals[3], animals[1]], for: "animals", of: category)
        #expect(try graph.related("animals", of: category) == [animals[3], animals[1]])
        #expect(try graph.related("category", of: animals[0]).isEmpty)
        #expect(throws: GraphError.tooManyDestinations(entity: "Animal", relationship: "category")) {
            try graph.setRelated([category, category], for: "category", of: animals[0])
        }
        #expect(graph.invariantViolations().isEmpty)
    }

    @Test("removing an object cuts every link, including ones with no declared inverse")
    func removeCutsLinks() throws {
        let graph = ObjectGraph(schema: try kitchenSinkSchema())
        let (a, b) = (try graph.insert("Thing"), try graph.insert("Thing"))
        let owner = try graph.insert("Person")
        try graph.link(a, "friends", to: b)
        try graph.link(a, "owner", to: owner)
        try graph.remove(b)
        try graph.remove(owner)
        #expect(try graph.related("friends", of: a).isEmpty)
        #expect(try graph.related("owner", of: a).isEmpty)
        #expect(!graph.contains(b))
        #expect(graph.count == 1)
        #expect(graph.invariantViolations().isEmpty)
    }

    @Test("a removed object's values stay readable but it cannot be edited")
    func removedObjectReadable() throws {
        let graph = ObjectGraph(schema: try zooSchema())
        let rex = try graph.insert("Animal", ["name": .string("Rex")])
        try graph.remove(rex)
        #expect(try graph.value("name", of: rex) == .string("Rex"))
        #expect(throws: GraphError.objectNotFound(rex)) { try graph.setValue(.string("X"), for: "name", of: rex) }
    }

    @Test("identifiers are never reused, even after removal")
    func identifiersNotReused() throws {
        let graph = ObjectGraph(schema: try zooSchema())
        let first = try graph.insert("Animal")
        try graph.remove(first)
        let second = try graph.insert("Animal")
        #expect(second.id > first.id)
    }

    @Test("values of the wrong type, unknown names and wrong destinations are refused")
    func refusals() throws {
        let graph = ObjectGraph(schema: try kitchenSinkSchema())
        let thing = try graph.insert("Thing")
        let person = try graph.insert("Person")
        #expect(throws: GraphError.self) { try graph.setValue(.int(300), for: "v_int8", of: thing) }
        #expect(throws: GraphError.self) { try graph.setValue(.null, for: "v_string", of: thing) }
        #expect(throws: GraphError.self) { try graph.setValue(.string("x"), for: "v_int", of: thing) }
        #expect(throws: GraphError.self) { try graph.setValue(.set([.string("a"), .string("a")]), for: "tags", of: thing) }
        #expect(throws: GraphError.unknownAttribute(entity: "Thing", attribute: "nope")) {
            try graph.setValue(.int(1), for: "nope", of: thing)
        }
        #expect(throws: GraphError.unknownEntity("Nope")) { try graph.insert("Nope") }
        #expect(throws: GraphError.wrongDestination(entity: "Thing", relationship: "twin", expected: "Thing", found: person)) {
            try graph.link(thing, "twin", to: person)
        }
        try graph.setValue(.null, for: "o_string", of: thing)
        try graph.setValue(.null, for: "anything", of: thing)
        #expect(try graph.value("o_string", of: thing) == .null)
    }

    @Test("new objects start with defaults and zero values")
    func defaults() throws {
        let graph = ObjectGraph(schema: try kitchenSinkSchema())
        let thing = try graph.insert("Thing")
        #expect(try graph.value("withDefault", of: thing) == .string("tab\there"))
        #expect(try graph.value("v_int", of: thing) == .int(0))
        #expect(try graph.value("v_uint64", of: thing) == .uint(0))
        #expect(try graph.value("o_date", of: thing) == .null)
        #expect(try graph.value("anything", of: thing) == .null)
        #expect(try graph.value("tags", of: thing) == .set([]))
    }
}
