import Folio
import Foundation
import Testing
@testable import FolioREPL

/// A document whose schema has subentities (model inheritance), read and
/// edited in the REPL without the classes.
@Suite struct InheritanceTests {
    /// Trips, business trips and personal trips, one of each, saved; their identifiers.
    static func tripsDocument() throws -> (url: URL, commute: UInt64, summit: UInt64, holiday: UInt64) {
        let url = try sampleCopy("Animals").deletingLastPathComponent().appendingPathComponent("Journeys.folio")
        let schema = try Schema([
            .init("Trip", attributes: [.init("name", .string), .init("destination", .string)]),
            .init(
                "BusinessTrip", attributes: [.init("name", .string), .init("destination", .string), .init("perdiem", .double)],
                superentity: "Trip"),
            .init(
                "PersonalTrip", attributes: [.init("name", .string), .init("destination", .string), .init("reason", .string)],
                superentity: "Trip"),
        ])
        // The setup's container releases the package's write lock when it goes.
        let setup = ModelContext(try ModelContainer(for: schema, configurations: ModelConfiguration(url: url)))
        let commute = try setup.insert("Trip", ["name": .string("Commute"), "destination": .string("Lyon")]).id
        let summit = try setup.insert(
            "BusinessTrip",
            [
                "name": .string("Summit"), "destination": .string("Oslo"),
                "perdiem": .double(120),
            ]
        ).id
        let holiday = try setup.insert(
            "PersonalTrip",
            [
                "name": .string("Holiday"), "destination": .string("Rome"),
                "reason": .string("sun"),
            ]
        ).id
        try setup.save()
        return (url, commute, summit, holiday)
    }

    @Test("list and count of an entity include its subentities' objects, each row naming its entity; a subentity's only its own")
    func listAndCountIncludeSubentities() throws {
        let document = try Self.tripsDocument()
        let session = try Session(url: document.url)
        let list = try session.run("list Trip sort name")
        let lines = list.split(separator: "\n").map(String.init)
        #expect(lines.first?.split(separator: " ").map(String.init) == ["id", "entity", "name", "destination"], "\(list)")
        // The heading, its rule, a row per trip by name, the total.
        try #require(lines.count == 6 && lines.last == "3 Trip", "\(list)")
        #expect(lines[2].contains(" Trip ") && lines[2].contains("Commute") && lines[2].contains("\(document.commute)"))
        #expect(lines[3].contains("PersonalTrip") && lines[3].contains("Holiday") && lines[3].contains("\(document.holiday)"))
        #expect(lines[4].contains("BusinessTrip") && lines[4].contains("Summit") && lines[4].contains("\(document.summit)"))
        #expect(try session.run("count Trip") == "3\n")
        #expect(try session.run("count Trip where destination == 'Oslo'") == "1\n")
        #expect(try session.run("count BusinessTrip") == "1\n")
        #expect(try session.run("list BusinessTrip").hasSuffix("1 BusinessTrip\n"))
        #expect(!(try session.run("list BusinessTrip")).contains("entity"), "a leaf lists no entity column")
        #expect(try session.run("list Trip entity, name where destination == 'Rome'").contains("PersonalTrip  Holiday"))
    }

    @Test("show and the schema name a subentity's superentity and its own properties")
    func showAndSchemaNameTheHierarchy() throws {
        let document = try Self.tripsDocument()
        let session = try Session(url: document.url)
        let schema = try session.run("schema")
        #expect(schema.contains("BusinessTrip (inherits Trip)\n") && schema.contains("PersonalTrip (inherits Trip)\n"))
        let show = try session.run("show \(document.summit)")
        #expect(show.contains("perdiem") && show.contains("120"), "\(show)")
    }

    @Test("delete ENTITY where … deletes the subentities' matches too, and undo brings them back")
    func deleteWhereIncludesSubentities() throws {
        let document = try Self.tripsDocument()
        let session = try Session(url: document.url)
        session.answer = true
        let output = try session.run("delete Trip where destination != 'Lyon'")
        #expect(output.hasSuffix("deleted 2 objects\n"), "\(output)")
        #expect(try session.count("Trip") == 1)
        _ = try session.run("undo")
        #expect(try session.count("Trip") == 3)
        #expect(try session.count("PersonalTrip") == 1)
        // Every object once, though a fetch of Trip lists the others too.
        #expect(try session.run("delete everything").hasSuffix("deleted 3 objects\n"))
        #expect(try session.count("Trip") == 0)
    }
    @Test("link, show and list follow a relationship into a hierarchy: it holds any trip, each named by its entity")
    func relationshipIntoTheHierarchy() throws {
        let url = try sampleCopy("Animals").deletingLastPathComponent().appendingPathComponent("Travellers.folio")
        let traveler: [Schema.Relationship] = [.init("traveler", to: "Person", inverse: "trips")]
        let schema = try Schema([
            .init("Trip", attributes: [.init("name", .string)], relationships: traveler),
            .init("BusinessTrip", attributes: [.init("name", .string), .init("perdiem", .double)], relationships: traveler, superentity: "Trip"),
            .init("PersonalTrip", attributes: [.init("name", .string)], relationships: traveler, superentity: "Trip"),
            .init("Person", attributes: [.init("name", .string)], relationships: [.init("trips", to: "Trip", toMany: true, inverse: "traveler")]),
        ])
        let (ada, summit, holiday): (UInt64, UInt64, UInt64)
        do {
            let setup = ModelContext(try ModelContainer(for: schema, configurations: ModelConfiguration(url: url)))
            ada = try setup.insert("Person", ["name": .string("Ada")]).id
            summit = try setup.insert("BusinessTrip", ["name": .string("Summit"), "perdiem": .double(120)]).id
            holiday = try setup.insert("PersonalTrip", ["name": .string("Holiday")]).id
            try setup.save()
        }
        let session = try Session(url: url)
        _ = try session.run("link \(ada) trips \(summit)")
        _ = try session.run("link \(ada) trips \(holiday)")
        let show = try session.run("show \(ada)")
        #expect(show.contains("BusinessTrip#\(summit)") && show.contains("PersonalTrip#\(holiday)"), "\(show)")
        let shown = try session.run("show \(holiday)")
        #expect(shown.contains("Person#\(ada)"), "\(shown)")
        #expect(throws: (any Error).self) { try session.run("link \(ada) trips \(ada)") }
        #expect(try session.run("list Person").contains("Ada              2"))
        let list = try session.run("list Trip entity, name, traveler sort name")
        let rows = list.split(separator: "\n").filter { $0.contains("Trip ") && $0.contains("\(ada)") }
        #expect(rows.count == 2 && rows[0].contains("PersonalTrip") && rows[1].contains("BusinessTrip"), "\(list)")
    }
}
