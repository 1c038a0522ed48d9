import Foundation
import Testing
@testable import Folio

/// `Schema.Entity.uniquenessConstraints` through every layer: validation, the
/// document format, the loader, inserts (upsert), saves and migration.
@Suite struct UniquenessConstraintTests {
    typealias F = LoaderFixtures

    /// Visits: no two on the same day in the same city.
    static func visitSchema(constraints: [[String]] = [["city", "day"]]) throws -> Schema {
        try Schema([
            .init("Visit", attributes: [.init("city", .string), .init("day", .int), .init("guide", .string, isOptional: true),
                                        .init("note", .string, defaultValue: .string(""))],
                  uniquenessConstraints: constraints),
        ])
    }

    static let visitSchemaXML = """
          <schema>
            <entity name="Visit">
              <attribute name="city" type="string"/>
              <attribute name="day" type="int"/>
              <attribute name="guide" type="string" optional="true"/>
              <unique attributes="city day"/>
            </entity>
          </schema>
        """

    @Test func `a constraint must name distinct stored attributes of a type unique allows`() throws {
        let cases: [([String], String)] = [
            ([], "names no attributes"),
            (["city", "city"], "names an attribute twice"),
            (["city", "nowhere"], "has no attribute 'nowhere'"),
            (["city", "tags"], "'tags' is of type array(string)"),
            (["city", "scratch"], "'scratch' is transient"),
            (["city", "stops"], "'stops' is a relationship"),
        ]
        for (constraint, reason) in cases {
            let entity = Schema.Entity("Visit", attributes: [.init("city", .string), .init("tags", .array(.string)),
                                                             .init("scratch", .int, options: [.transient])],
                                       relationships: [.init("stops", to: "Visit", toMany: true)],
                                       uniquenessConstraints: [constraint])
            #expect {
                try Schema([entity])
            } throws: { error in
                guard case .invalidUniquenessConstraint(let name, let attributes, let why) = error as? SchemaError else { return false }
                return name == "Visit" && attributes == constraint && why.contains(reason)
            }
        }
        #expect(try Self.visitSchema(constraints: [["city", "day"], ["guide"]]).entities[0].uniquenessConstraints.count == 2)
    }

    @Test func `constraints are written to the schema and read back`() throws {
        let url = temporaryPackageURL()
        defer { try? FileManager.default.removeItem(at: url) }
        let schema = try Self.visitSchema(constraints: [["city", "day"], ["day", "guide"]])
        try DocumentPackage(url: url).write(ObjectGraph(schema: schema))
        let text = try String(contentsOf: url.appending(path: "document.xml"), encoding: .utf8)
        #expect(text.contains(#"<unique attributes="city day"/>"#))
        #expect(try DocumentPackage(url: url).read().schema == schema)
    }

    @Test func `a document whose objects share a constraint's values is refused, naming both; a nil shares nothing`() throws {
        let document = F.document(schema: Self.visitSchemaXML, objects: """
                <Visit f.id="1" city="Rome" day="3" guide="Ada"/>
                <Visit f.id="2" city="Rome" day="4"/>
                <Visit f.id="3" city="Oslo" day="3"/>
                <Visit f.id="4" city="Rome" day="3"/>
            """)
        let error = try F.failure(of: document)
        guard case .uniqueViolation(_, let entity, let attributes, let values, let ids)? = error else {
            Issue.record("expected .uniqueViolation, got \(String(describing: error))")
            return
        }
        #expect(entity == "Visit" && attributes == "city, day" && values == "Rome, 3" && ids == [1, 4])
        #expect(error?.description.contains("Visit's (city, day) are unique together, but #1 and #4 both hold (Rome, 3)") == true)

        let distinct = F.document(schema: Self.visitSchemaXML.replacingOccurrences(of: "city day", with: "day guide"), objects: """
                <Visit f.id="1" city="Rome" day="3" guide="Ada"/>
                <Visit f.id="2" city="Oslo" day="3"/>
                <Visit f.id="3" city="Pisa" day="3"/>
            """)
        #expect(try F.withPackage(distinct) { try $0.read().count(of: "Visit") } == 3)
    }

    @Test func `inserting every value of a constraint that matches a live object updates it, undoably`() throws {
        let context = try makeContext(try Self.visitSchema())
        let rome = try context.insert("Visit", ["city": .string("Rome"), "day": .int(3), "note": .string("first")])
        let oslo = try context.insert("Visit", ["city": .string("Oslo"), "day": .int(3)])
        context.processPendingChanges()
        #expect(oslo != rome)

        let again = try context.insert("Visit", ["city": .string("Rome"), "day": .int(3), "note": .string("second")])
        #expect(again == rome)
        #expect(try context.value("note", of: rome) == .string("second"))
        #expect(try context.fetchCount(DynamicFetchDescriptor(entity: "Visit")) == 2)
        context.undoManager?.undo()
        #expect(try context.value("note", of: rome) == .string("first"))

        // A constraint only partly given is no match: the other attribute keeps its default.
        try context.setValue(.int(4), for: "day", of: oslo)
        let partial = try context.insert("Visit", ["city": .string("Rome")])
        #expect(partial != rome)
        // The index follows edits: Oslo moved to day 4, so (Oslo, 3) is free and (Oslo, 4) is taken.
        #expect(try context.insert("Visit", ["city": .string("Oslo"), "day": .int(4)]) == oslo)
        #expect(try context.insert("Visit", ["city": .string("Oslo"), "day": .int(3)]) != oslo)
    }

    @Test func `a save that would leave two objects sharing a constraint's values is refused`() throws {
        let context = try makeContext(try Self.visitSchema())
        let first = try context.insert("Visit", ["city": .string("Rome"), "day": .int(3)])
        let second = try context.insert("Visit", ["city": .string("Rome"), "day": .int(4)])
        try context.save()
        try context.setValue(.int(3), for: "day", of: second)
        #expect(throws: ModelError.validation([ValidationIssue(kind: .unique, object: second, relationship: "city, day",
                                                               related: [first])])) {
            try context.save()
        }
        let issue = ValidationIssue(kind: .unique, object: second, relationship: "city, day", related: [first])
        #expect(issue.description == "\(second) has the same (city, day) as \(first), and together they are unique")
        try context.setValue(.string("Oslo"), for: "city", of: second)
        try context.save()
    }

    @Test func `adding a constraint migrates when the stored values are distinct, and is refused naming both objects when not`() throws {
        let graph = ObjectGraph(schema: try Self.visitSchema(constraints: []))
        let rome = try graph.insert("Visit", ["city": .string("Rome"), "day": .int(3)])
        _ = try graph.insert("Visit", ["city": .string("Rome"), "day": .int(4)])
        _ = try graph.insert("Visit", ["city": .string("Oslo"), "day": .int(3)])
        let migrated = try graph.migrated(to: try Self.visitSchema())
        #expect(migrated.schema.entities[0].uniquenessConstraints == [["city", "day"]])
        #expect(migrated.object(entity: 0, uniqueGroup: [0, 1], values: [.string("Rome"), .int(3)]) == migrated.index[rome.id])

        let copy = try graph.insert("Visit", ["city": .string("Rome"), "day": .int(3)])
        #expect(throws: MigrationError.duplicateUniqueValue(entity: "Visit", attribute: "city, day",
                                                            value: "\(Value.string("Rome")), \(Value.int(3))",
                                                            ids: [rome.id, copy.id])) {
            try graph.migrated(to: try Self.visitSchema())
        }
        // Dropping a constraint is always allowed.
        let relaxed = try migrated.migrated(to: try Self.visitSchema(constraints: []))
        #expect(relaxed.schema.entities[0].uniquenessConstraints.isEmpty)
    }
}
