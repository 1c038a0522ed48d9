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
        #expect(status["undo"] as? [String] == ["Set Dog#11.age"])
        #expect(status["redo"] as? [String] == [])

        let schemaResult = try #require(try json(session, "schema") as? [String: Any])
        #expect(schemaResult["command"] as? String == "schema")
        let schema = try #require(schemaResult["entities"] as? [[String: Any]])
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
        #expect(
            JSONText.object([("b", .string("a\"\\\n\u{1}")), ("a", .array([.null, .bool(true), .int(3)]))]).text
                == "{\"b\":\"a\\\"\\\\\\n\\u0001\",\"a\":[null,true,3]}")
        #expect(JSONText(.double(.infinity)).text == "\"inf\"")
        #expect(JSONText(.set([.string("b"), .string("a")])).text == "[\"a\",\"b\"]")
    }

    /// Runs a line in JSON mode: exactly one line of output, a JSON object naming `command`.
    func result(_ session: Session, _ line: String, command: String) throws -> [String: Any] {
        let object = try #require(try json(session, line) as? [String: Any], "\(line)")
        #expect(object["command"] as? String == command, "\(line)")
        return object
    }

    @Test("every command writes exactly one JSON object on one line, its command first")
    func everyCommand() throws {
        let session = try Session("Animals", options: .init(assumeYes: true, json: true))
        #expect(try session.run("help").hasPrefix(#"{"command":"help","#))
        let commands = try result(session, "help", command: "help")["commands"] as? [[String: Any]]
        #expect(commands?.map { $0["name"] as? String } == Interpreter.commandNames.filter { $0 != "quit!" })
        let topic = try result(session, "help delete", command: "help")
        #expect(topic["topic"] as? String == "delete")
        #expect((topic["usage"] as? [String])?.count == 4)
        #expect((topic["examples"] as? [String])?.first == "delete 24")
        #expect((try result(session, "schema", command: "schema")["entities"] as? [Any])?.count == 2)
        #expect(try result(session, "list AnimalCategory", command: "list")["total"] as? Int == 6)
        #expect(try result(session, "count Animal", command: "count")["count"] as? Int == 30)
        #expect(try result(session, "show 2", command: "show")["id"] as? Int == 2)

        let inserted = try result(session, "insert AnimalCategory name=Cryptid", command: "insert")
        #expect(inserted["entity"] as? String == "AnimalCategory")
        let cryptid = try #require(inserted["id"] as? Int)
        #expect(cryptid >> 32 != 0, "a new object's id is in its writer's lane")
        #expect(inserted["inserted"] as? Bool == true)
        let upserted = try result(session, "insert AnimalCategory name=Bird", command: "insert")
        #expect(upserted["id"] as? Int == 6)
        #expect(upserted["inserted"] as? Bool == false)

        let set = try result(session, "set 2 name=Eft diet=carnivorous", command: "set")
        #expect(set["id"] as? Int == 2)
        #expect(set["properties"] as? [String] == ["name", "diet"])
        let linked = try result(session, "link 2 category \(cryptid)", command: "link")
        #expect(linked["changed"] as? Bool == true)
        #expect((linked["target"] as? [String: Any])?["id"] as? Int == cryptid)
        #expect(try result(session, "link 2 category \(cryptid)", command: "link")["changed"] as? Bool == false)
        #expect(try result(session, "unlink \(cryptid) animals 2", command: "unlink")["changed"] as? Bool == true)

        let deleted = try result(session, "delete 24", command: "delete")
        #expect(deleted["deleted"] as? Int == 8)
        let requested = try #require(deleted["requested"] as? [[String: Any]])
        #expect(requested.map { $0["entity"] as? String } == ["AnimalCategory"])
        #expect(requested.map { $0["ids"] as? [Int] } == [[24]])
        let cascaded = try #require(deleted["cascaded"] as? [[String: Any]])
        #expect(cascaded.map { $0["entity"] as? String } == ["Animal"])
        #expect(cascaded.map { $0["ids"] as? [Int] } == [[25, 26, 27, 28, 29, 30, 31]])
        #expect(deleted["unlinked"] as? [Any] != nil && deleted["denials"] as? [String] == [])
        #expect(try result(session, "delete Animal where name == 'Nobody'", command: "delete")["deleted"] as? Int == 0)

        #expect(try result(session, "undo", command: "undo")["steps"] as? [String] == ["Delete AnimalCategory#24 (8 objects)"])
        #expect(try result(session, "redo", command: "redo")["steps"] as? [String] == ["Delete AnimalCategory#24 (8 objects)"])
        let history = try result(session, "history", command: "history")
        #expect((history["undo"] as? [String])?.last == "Delete AnimalCategory#24 (8 objects)")
        #expect(history["redo"] as? [String] == [])
        #expect(try result(session, "status", command: "status")["unsaved"] as? Bool == true)
        #expect(try result(session, "save", command: "save")["saved"] as? Bool == true)
        #expect(try result(session, "save", command: "save")["saved"] as? Bool == false)
        #expect((try result(session, "changes", command: "changes")["transactions"] as? [Any])?.count == 1)
        #expect(try result(session, "revert", command: "revert")["reverted"] as? Bool == false)
        try session.run("delete all Animal")
        let reverted = try result(session, "revert", command: "revert")
        #expect((reverted["discarded"] as? [String: Int])?["deleted"] == 23)
        let copy = session.url.deletingLastPathComponent().appendingPathComponent("Copy.folio")
        let savedAs = try result(session, "save as \(copy.path)", command: "save as")
        #expect(savedAs["path"] as? String == copy.path)
        #expect(savedAs["previous"] as? String == session.url.path)
        #expect(try session.run("# a comment") == "")
        #expect(try session.run("") == "")
        _ = try result(session, "quit", command: "quit")
        _ = try result(session, "quit!", command: "quit!")
        // Previews went to the notes, as JSON objects, one per line.
        #expect(!session.notes.isEmpty)
        for line in session.notes.split(separator: "\n") {
            let note = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(note["level"] as? String == "note")
            #expect(note["kind"] as? String == "preview")
            #expect(note["message"] is String)
        }
        #expect(session.notes.contains("deletes 1 AnimalCategory, also deletes 7 Animal"))
    }

    @Test("a refused question writes {command, cancelled} and changes nothing; the preview goes to the notes")
    func cancelled() throws {
        let session = try Session("Animals", options: .init(json: true))
        let cancelled = try result(session, "delete 24", command: "delete")
        #expect(cancelled["cancelled"] as? Bool == true)
        #expect(session.questions == ["Delete? [y/N] "])
        #expect(session.notes.contains("deletes 1 AnimalCategory"))
        #expect(try session.count("Animal") == 30)
        try session.run("insert AnimalCategory name=Cryptid")
        #expect(try result(session, "quit", command: "quit")["cancelled"] as? Bool == true)
        #expect(try session.outcome("quit") == .proceed)
    }

    @Test("a uniqueness clash refused at set is an edit error (the document refused it), not a command-line error")
    func uniqueClashIsAnEditError() throws {
        let session = try Session("Animals", options: .init(assumeYes: true, json: true))
        // AnimalCategory#6 is "Bird": naming #1 so breaks AnimalCategory.name's uniqueness.
        let clash = session.error("set 1 name=\"Bird\"")
        #expect(clash?.message.contains("is unique") == true, "\(String(describing: clash))")
        #expect(clash?.kind == .edit)
    }

    @Test("errors carry a kind: command, predicate, edit, validation, readOnly")
    func errorKinds() throws {
        let session = try Session("Animals", options: .init(assumeYes: true, json: true))
        #expect(session.error("frobnicate")?.kind == .command)
        #expect(session.error("list Animal where nme == 3")?.kind == .predicate)
        #expect(session.error("list Animal where nme == 3")?.column == 19)
        #expect(session.error("list Animal sort nme")?.kind == .predicate)
        try session.run("delete 1")
        try session.run("insert AnimalCategory name=Amphibian")
        #expect(session.error("show 99")?.kind == .command)
        let readOnly = try Session(url: session.url, options: .init(json: true, readOnly: true))
        #expect(readOnly.error("insert AnimalCategory name=X")?.kind == .readOnly)
        // The kind classifies; equality is message and column.
        #expect(CommandError("x", column: 2, kind: .file) == CommandError("x", column: 2))
        #expect(
            CommandError.Kind.allCases.map(\.rawValue)
                == ["command", "predicate", "edit", "validation", "file", "readOnly", "confirmation", "cancelled"])
    }
}
