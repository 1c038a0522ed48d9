import Foundation
import Testing
@testable import FolioREPL

@Suite struct JSONOutputTests {
    /// Runs a line in JSON mode and parses its output as one JSON value.
    func json(_ session: Session, _ line: String) throws -> Any {
        let output = try session.run(line)
        #expect(output.hasSuffix("\n"))
        #expect(output.dropLast().contains("\n") == false)
        return try JSONSerialization.jsonObject(with: Data(output.utf8))
    }

    @Test("list writes one JSON object: entity, total and the objects with ids, attributes and relationships")
    func list() throws {
        let session = try Session("Animals", options: .init(json: true))
        let list = try #require(try json(session, "list Animal where category.name == 'Amphibian' sort name limit 2") as? [String: Any])
        #expect(list["entity"] as? String == "Animal")
        #expect(list["total"] as? Int == 4)
        let objects = try #require(list["objects"] as? [[String: Any]])
        #expect(objects.map { $0["id"] as? Int } == [4, 2])
        #expect((objects[0]["attributes"] as? [String: Any])?["name"] as? String == "Axolotl")
        #expect((objects[0]["relationships"] as? [String: Any])?["category"] as? Int == 1)
        let categories = try #require(try json(session, "list AnimalCategory limit 1") as? [String: Any])
        let amphibian = try #require((categories["objects"] as? [[String: Any]])?.first)
        #expect((amphibian["relationships"] as? [String: Any])?["animals"] as? [Int] == [2, 3, 4, 5])
    }

    @Test("show, count, status and schema write JSON")
    func showCountStatusSchema() throws {
        let session = try Session("Dogs", options: .init(json: true))
        let max = try #require(try json(session, "show 11") as? [String: Any])
        #expect(max["entity"] as? String == "Dog")
        let attributes = try #require(max["attributes"] as? [String: Any])
        #expect(attributes["age"] as? Int == 5)
        #expect(attributes["citiesVisited"] as? [String] == ["Boston", "New York", "Toronto"])
        #expect(attributes["favoriteParksByCity"] as? [String: String] == ["New York": "Central Park"])
        #expect(attributes["companion"] as? String == "Wolfie")
        #expect((max["relationships"] as? [String: Any])?["owner"] as? Int == 5)

        let count = try #require(try json(session, "count Dog where age > 2") as? [String: Any])
        #expect(count["count"] as? Int == 4)

        try session.run("set 11 age=6")
        let status = try #require(try json(session, "status") as? [String: Any])
        #expect(status["document"] as? String == session.url.path)
        #expect(status["unsaved"] as? Bool == true)
        #expect(status["changed"] as? Int == 1)
        #expect(status["undo"] as? [String] == ["Set Dog.age"])
        #expect(status["redo"] as? [String] == [])

        let schema = try #require(try json(session, "schema") as? [[String: Any]])
        #expect(schema.map { $0["name"] as? String } == ["DogToy", "Dog", "Person", "DogClub"])
        let person = try #require((schema[2]["attributes"] as? [[String: Any]])?.first)
        #expect(person["options"] as? [String] == ["unique"])
        let dogs = try #require((schema[2]["relationships"] as? [[String: Any]])?.first)
        #expect(dogs["deleteRule"] as? String == "cascade")
        #expect(dogs["toMany"] as? Bool == true)
        // As `Schema.Entity.uniquenessConstraints`: a `.unique` attribute is a group of one.
        #expect(schema[2]["uniquenessConstraints"] as? [[String]] == [["_id"]])
        #expect(schema[2]["indexes"] as? [[String]] == [])
    }

    @Test("dates are ISO 8601 strings; the trips sample lists as JSON")
    func dates() throws {
        let session = try Session("Trips", options: .init(json: true))
        let trip = try #require(try json(session, "show 1") as? [String: Any])
        #expect((trip["attributes"] as? [String: Any])?["startDate"] as? String == "2025-03-14T00:00:00Z")
        #expect((trip["relationships"] as? [String: Any])?["accommodation"] as? Int == 2)
    }

    @Test("JSON text escapes strings and keeps key order")
    func text() {
        #expect(JSONText.object([("b", .string("a\"\\\n\u{1}")), ("a", .array([.null, .bool(true), .int(3)]))]).text
                == "{\"b\":\"a\\\"\\\\\\n\\u0001\",\"a\":[null,true,3]}")
        #expect(JSONText(.double(.infinity)).text == "\"inf\"")
        #expect(JSONText(.set([.string("b"), .string("a")])).text == "[\"a\",\"b\"]")
    }
}
