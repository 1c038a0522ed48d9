import Foundation
import Testing
import Folio
@testable import FolioCore
import FolioTestSupport

/// Subentities (`Schema.Entity.superentity`, model inheritance) in the dynamic
/// API: what validation accepts, how the schema's XML writes and reads them,
/// and fetches and counts of an entity including its subentities' objects.
@Suite struct SchemaInheritanceTests {
    typealias F = LoaderFixtures

    static let trip = Schema.Entity("Trip", attributes: [.init("name", .string), .init("days", .int)])
    static let business = Schema.Entity(
        "BusinessTrip", attributes: trip.attributes + [.init("perdiem", .double)],
        superentity: "Trip")
    static let personal = Schema.Entity(
        "PersonalTrip", attributes: trip.attributes + [.init("reason", .string)],
        superentity: "Trip")

    @Test("a schema names each entity's subentities and hierarchy, at any depth")
    func hierarchy() throws {
        let summit = Schema.Entity(
            "SummitTrip", attributes: Self.business.attributes + [.init("venue", .string)],
            superentity: "BusinessTrip")
        let schema = try Schema([Self.trip, Self.business, Self.personal, summit])
        #expect(schema.subentities(of: "Trip").map(\.name) == ["BusinessTrip", "PersonalTrip"])
        #expect(schema.hierarchy(of: "Trip") == ["Trip", "BusinessTrip", "SummitTrip", "PersonalTrip"])
        #expect(schema.hierarchy(of: "BusinessTrip") == ["BusinessTrip", "SummitTrip"])
        #expect(schema.entity("SummitTrip", isKindOf: "Trip") && !schema.entity("Trip", isKindOf: "SummitTrip"))
        // The graph's layout finds the same hierarchies, by table, from each entity's subentities found once.
        let layout = SchemaLayout(schema)
        for entity in schema.entities {
            #expect(
                layout.hierarchies[layout.entityIndex[entity.name] ?? -1].map { schema.entities[$0].name }
                    == schema.hierarchy(of: entity.name))
        }
    }

    @Test("a superentity that is unknown, a loop, or a subentity not starting with its superentity's properties is refused")
    func invalid() {
        func reason(_ entities: [Schema.Entity]) -> String? {
            do {
                _ = try Schema(entities)
                return nil
            } catch {
                guard case .invalidInheritance(_, _, let why) = error else { return "\(error)" }
                return why
            }
        }
        var unknown = Self.business
        unknown.superentity = "Tirp"
        #expect(reason([Self.trip, unknown])?.contains("no entity Tirp; did you mean 'Trip'?") == true)
        var loopA = Schema.Entity("A", superentity: "B")
        loopA.attributes = []
        let loopB = Schema.Entity("B", superentity: "A")
        #expect(reason([loopA, loopB])?.contains("loops") == true)
        let reordered = Schema.Entity("BusinessTrip", attributes: [.init("days", .int), .init("name", .string)], superentity: "Trip")
        #expect(reason([Self.trip, reordered])?.contains("'name'") == true)
        let retyped = Schema.Entity("BusinessTrip", attributes: [.init("name", .string), .init("days", .double)], superentity: "Trip")
        #expect(reason([Self.trip, retyped])?.contains("'days'") == true)
    }

    @Test("a relationship into a hierarchy is accepted; an inverse holding only a subentity of the entity declaring it is refused, naming it")
    func relationshipIntoAHierarchy() throws {
        let stamp = Schema.Entity(
            "Stamp", attributes: [.init("country", .string)],
            relationships: [.init("trip", to: "Trip")])
        _ = try Schema([Self.trip, Self.business, stamp])
        // Trip.owner's inverse holds only business trips: a plain trip's owner could not hold it back.
        var owned = Self.trip
        owned.relationships = [.init("owner", to: "Owner", inverse: "trips")]
        var ownedBusiness = Self.business
        ownedBusiness.relationships = owned.relationships
        let owner = Schema.Entity("Owner", relationships: [.init("trips", to: "BusinessTrip", toMany: true, inverse: "owner")])
        #expect(throws: SchemaError.relationshipIntoHierarchy(entity: "Owner", relationship: "trips", destination: "BusinessTrip")) {
            _ = try Schema([owned, ownedBusiness, owner])
        }
        var trip = Self.trip
        trip.relationships = [.init("stamps", to: "Stamp", toMany: true)]
        var business = Self.business
        business.relationships = trip.relationships
        let schema = try Schema([trip, business, Schema.Entity("Stamp", attributes: [.init("country", .string)])])
        #expect(schema.entity(named: "BusinessTrip")?.relationships.map(\.name) == ["stamps"])
    }

    @Test("the schema's XML writes superentity on the subentity's element and reads it back equal")
    func xmlRoundTrip() throws {
        let schema = try Schema([Self.trip, Self.business, Self.personal])
        let text = String(decoding: SchemaXML.bytes(schema), as: UTF8.self)
        #expect(text.contains(#"<entity name="BusinessTrip" superentity="Trip">"#))
        #expect(text.contains(#"<entity name="Trip">"#))
        let url = temporaryPackageURL()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        do {
            let context = ModelContext(try ModelContainer(for: schema, configurations: ModelConfiguration(url: url)))
            _ = try context.insert("BusinessTrip", ["name": .string("Summit"), "days": .int(2), "perdiem": .double(80)])
            try context.save()
        }
        let stored = try DocumentPackage(url: url).read().schema
        #expect(stored == schema)
    }

    @Test("a document whose superentity names no entity does not open, the error at the schema")
    func invalidInDocument() throws {
        let schema = """
              <schema>
                <entity name="BusinessTrip" superentity="Trip">
                  <attribute name="name" type="string"/>
                </entity>
              </schema>
            """
        try F.withPackage(F.document(schema: schema, objects: "")) { package in
            guard case .invalidSchema(_, let error)? = F.readFailure(package),
                case .invalidInheritance(let entity, let superentity, _) = error
            else {
                Issue.record("expected .invalidSchema(.invalidInheritance)")
                return
            }
            #expect(entity == "BusinessTrip" && superentity == "Trip")
        }
    }

    @Test("a fetch and a count of an entity include its subentities' objects, after its own, unless told not to; sorted together")
    func fetchIncludesSubentities() throws {
        let schema = try Schema([Self.trip, Self.business, Self.personal])
        let context = ModelContext(try ModelContainer(for: schema, configurations: ModelConfiguration(isStoredInMemoryOnly: true)))
        let commute = try context.insert("Trip", ["name": .string("Commute"), "days": .int(1)])
        let summit = try context.insert("BusinessTrip", ["name": .string("Summit"), "days": .int(3), "perdiem": .double(80)])
        let holiday = try context.insert("PersonalTrip", ["name": .string("Holiday"), "days": .int(9), "reason": .string("sun")])
        #expect(try context.fetchIdentifiers(DynamicFetchDescriptor(entity: "Trip")) == [commute, summit, holiday])
        #expect(try context.fetchIdentifiers(DynamicFetchDescriptor(entity: "Trip", includesSubentities: false)) == [commute])
        #expect(try context.fetchIdentifiers(DynamicFetchDescriptor(entity: "BusinessTrip")) == [summit])
        let longest = DynamicFetchDescriptor(entity: "Trip", sortBy: [.init("days", ascending: false)])
        #expect(try context.fetchIdentifiers(longest) == [holiday, summit, commute])
        let long = DynamicFetchDescriptor(entity: "Trip", predicate: try ObjectPredicate("days > 2"))
        #expect(try context.fetchIdentifiers(long) == [summit, holiday])
        #expect(try context.fetchCount(DynamicFetchDescriptor(entity: "Trip")) == 3)
        #expect(try context.fetchCount(DynamicFetchDescriptor(entity: "Trip", includesSubentities: false)) == 1)
        #expect(try context.fetchCount(long) == 2)
        #expect(summit.entityName == "BusinessTrip")
    }
}
