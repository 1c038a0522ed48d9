import Foundation
import Testing
import Folio
@testable import FolioCore
import FolioTestSupport

/// Relationships whose destination has subentities, in the dynamic API: what
/// they accept, a save and reopen, two contexts saving one document, a
/// package merge, and a package whose links name an object outside the
/// hierarchy.
@Suite struct HierarchyRelationshipTests {
    static let tripRelationships: [Schema.Relationship] = [.init("traveler", to: "Person", inverse: "trips")]
    static let trip = Schema.Entity("Trip", attributes: [.init("name", .string)], relationships: tripRelationships)
    static let business = Schema.Entity(
        "BusinessTrip", attributes: trip.attributes + [.init("perdiem", .double)], relationships: tripRelationships,
        superentity: "Trip")
    static let personal = Schema.Entity(
        "PersonalTrip", attributes: trip.attributes + [.init("reason", .string)], relationships: tripRelationships,
        superentity: "Trip")
    static let person = Schema.Entity(
        "Person", attributes: [.init("name", .string)],
        relationships: [
            .init("trips", to: "Trip", toMany: true, inverse: "traveler", deleteRule: .cascade),
            // Before `favourite`: its hidden inverse then takes a slot of BusinessTrip's only, so
            // `favourite`'s hidden inverse sits in a different slot of each entity of the hierarchy.
            .init("claims", to: "BusinessTrip", toMany: true),
            .init("favourite", to: "Trip"),
            .init("guarded", to: "Trip", toMany: true, deleteRule: .deny),
        ])
    static func schema() throws -> Schema { try Schema([trip, business, personal, person]) }

    /// A person holding one trip of each entity, and one of them as favourite.
    static func fill(_ context: ModelContext) throws -> (person: PersistentIdentifier, trips: [PersistentIdentifier]) {
        let ada = try context.insert("Person", ["name": .string("Ada")])
        let trips = [
            try context.insert("BusinessTrip", ["name": .string("Summit"), "perdiem": .double(120)]),
            try context.insert("Trip", ["name": .string("Commute")]),
            try context.insert("PersonalTrip", ["name": .string("Holiday"), "reason": .string("sun")]),
        ]
        for trip in trips { try context.link(ada, "trips", to: trip) }
        try context.link(ada, "favourite", to: trips[2])
        try context.link(ada, "claims", to: trips[0])
        return (ada, trips)
    }

    @Test("a relationship into a hierarchy holds objects of every entity in it, and one to a subentity refuses the others")
    func acceptsTheHierarchyOnly() throws {
        let context = ModelContext(try ModelContainer(for: try Self.schema(), configurations: ModelConfiguration(isStoredInMemoryOnly: true)))
        let (ada, trips) = try Self.fill(context)
        #expect(try context.related("trips", of: ada) == trips)
        #expect(try context.related("favourite", of: ada) == [trips[2]])
        for trip in trips { #expect(try context.related("traveler", of: trip) == [ada]) }
        #expect(throws: ModelError.self) { try context.link(ada, "claims", to: trips[2]) }
        #expect(throws: ModelError.self) { try context.link(ada, "trips", to: ada) }
        #expect(context.graph.invariantViolations().isEmpty)
    }

    @Test("deny, cascade and nullify reach objects of every entity of the hierarchy; undo restores the links exactly")
    func deleteRules() throws {
        let context = ModelContext(try ModelContainer(for: try Self.schema(), configurations: ModelConfiguration(isStoredInMemoryOnly: true)))
        context.undoManager = UndoManager()
        let (ada, trips) = try Self.fill(context)
        let bob = try context.insert("Person", ["name": .string("Bob")])
        let kept = try context.insert("PersonalTrip", ["name": .string("Kept"), "reason": .string("r")])
        try context.link(bob, "favourite", to: trips[0])
        try context.link(ada, "guarded", to: kept)
        // Saved first: deleting an object inserted since the last save is no delete to deny.
        try context.save()
        try context.delete(ada)
        context.processPendingChanges()
        // Cascade took every trip of hers, whatever its entity; Bob's favourite was nullified.
        #expect(try context.fetchIdentifiers(DynamicFetchDescriptor(entity: "Trip")) == [kept])
        #expect(try context.related("favourite", of: bob).isEmpty)
        // Deny: the personal trip Ada guarded still lives, so the save is refused naming it.
        let error = #expect(throws: ModelError.self) { try context.save() }
        guard case .validation(let issues)? = error else {
            Issue.record("expected a validation error, got \(String(describing: error))")
            return
        }
        #expect(issues.contains { $0.kind == .deny && $0.related == [kept] })
        context.undoManager?.undo()
        #expect(try context.related("trips", of: ada) == trips)
        #expect(try context.related("guarded", of: ada) == [kept])
        #expect(try context.related("favourite", of: bob) == [trips[0]])
        for trip in trips { #expect(try context.related("traveler", of: trip) == [ada]) }
        #expect(context.graph.invariantViolations().isEmpty)
        try context.save()
    }

    @Test("a save and reopen keeps every link and its order; a second save writes the same bytes")
    func roundTrip() throws {
        let folder = try TemporaryFolder()
        let url = folder.appending("Trips.folio")
        let (ada, trips): (PersistentIdentifier, [PersistentIdentifier])
        do {
            let context = ModelContext(try ModelContainer(for: try Self.schema(), configurations: ModelConfiguration(url: url)))
            (ada, trips) = try Self.fill(context)
            try context.save()
        }
        let first = try packageText(url)
        #expect(first.contains(#"trips="\#(trips[0].id) \#(trips[1].id) \#(trips[2].id)""#))
        let context = ModelContext(try ModelContainer(contentsOf: url))
        #expect(try context.related("trips", of: ada) == trips)
        #expect(try context.related("favourite", of: ada) == [trips[2]])
        #expect(try context.related("claims", of: ada) == [trips[0]])
        #expect(try context.related("traveler", of: trips[2]) == [ada])
        #expect(context.graph.invariantViolations().isEmpty)
        try context.setValue(.string("Ada L."), for: "name", of: ada)
        try context.setValue(.string("Ada"), for: "name", of: ada)
        try context.link(ada, "favourite", to: trips[1])
        try context.link(ada, "favourite", to: trips[2])
        try context.save()
        #expect(try packageText(url) == first)
    }

    @Test("two contexts on one document each link a trip of another entity; both links are saved")
    func twoContextsSaving() throws {
        let folder = try TemporaryFolder()
        let url = folder.appending("Trips.folio")
        let container = try ModelContainer(for: try Self.schema(), configurations: ModelConfiguration(url: url))
        let first = ModelContext(container)
        let (ada, _) = try Self.fill(first)
        try first.save()
        let second = ModelContext(container)
        let business = try first.insert("BusinessTrip", ["name": .string("Fair")])
        try first.link(ada, "trips", to: business)
        let personal = try second.insert("PersonalTrip", ["name": .string("Walk")])
        try second.link(ada, "trips", to: personal)
        try first.save()
        try second.save()
        let reopened = ModelContext(try ModelContainer(contentsOf: url, allowsSave: false))
        let held = try reopened.related("trips", of: ada)
        #expect(held.count == 5 && held.contains(business) && held.contains(personal))
        #expect(try reopened.related("traveler", of: personal) == [ada])
        #expect(reopened.graph.invariantViolations().isEmpty)
    }

    @Test("undoing a delete after another context's save was merged brings the links back and keeps the other context's")
    func undoAfterAMerge() throws {
        let folder = try TemporaryFolder()
        let container = try ModelContainer(for: try Self.schema(), configurations: ModelConfiguration(url: folder.appending("Trips.folio")))
        let mine = ModelContext(container)
        mine.undoManager = UndoManager()
        let (ada, trips) = try Self.fill(mine)
        try mine.save()
        try mine.delete(trips[1])
        mine.processPendingChanges()
        let theirs = ModelContext(container)
        let fair = try theirs.insert("BusinessTrip", ["name": .string("Fair")])
        try theirs.link(ada, "trips", to: fair)
        try theirs.link(ada, "favourite", to: fair)
        try theirs.save()
        _ = try mine.fetchIdentifiers(DynamicFetchDescriptor(entity: "Person"))  // takes in their save
        #expect(try mine.related("trips", of: ada) == [trips[0], trips[2], fair])
        mine.undoManager?.undo()
        let held = try mine.related("trips", of: ada)
        #expect(Set(held) == Set(trips + [fair]) && held.count == 4, "\(held)")
        for trip in trips + [fair] { #expect(try mine.related("traveler", of: trip) == [ada]) }
        #expect(try mine.related("favourite", of: ada) == [fair])
        #expect(mine.graph.invariantViolations().isEmpty)
        mine.undoManager?.redo()
        #expect(try mine.related("trips", of: ada) == [trips[0], trips[2], fair])
        #expect(mine.graph.invariantViolations().isEmpty)
        try mine.save()
    }

    @Test("undoing a move of a subentity's object after another context moved it too leaves one holder, both sides agreeing")
    func undoAMoveAfterAMerge() throws {
        let folder = try TemporaryFolder()
        let container = try ModelContainer(for: try Self.schema(), configurations: ModelConfiguration(url: folder.appending("Trips.folio")))
        let mine = ModelContext(container)
        mine.undoManager = UndoManager()
        let (ada, trips) = try Self.fill(mine)
        let bob = try mine.insert("Person", ["name": .string("Bob")])
        try mine.save()
        try mine.link(bob, "trips", to: trips[2])
        mine.processPendingChanges()
        let theirs = ModelContext(container)
        let cy = try theirs.insert("Person", ["name": .string("Cy")])
        try theirs.link(cy, "trips", to: trips[2])
        try theirs.save()
        _ = try mine.fetchIdentifiers(DynamicFetchDescriptor(entity: "Person"))
        mine.undoManager?.undo()
        let holders = try [ada, bob, cy].filter { try mine.related("trips", of: $0).contains(trips[2]) }
        let traveler = try mine.related("traveler", of: trips[2])
        #expect(holders.count <= 1 && traveler == holders, "\(holders) \(traveler)")
        #expect(try mine.related("trips", of: bob).isEmpty)
        #expect(mine.graph.invariantViolations().isEmpty)
        mine.undoManager?.redo()
        #expect(try mine.related("traveler", of: trips[2]) == [bob])
        #expect(mine.graph.invariantViolations().isEmpty)
        try mine.save()
    }

    @Test("a package merge takes a business trip linked on one side and a personal trip linked on the other")
    func packageMerge() throws {
        let folder = try TemporaryFolder()
        let base = folder.appending("Base.folio")
        let (ada, trips): (PersistentIdentifier, [PersistentIdentifier])
        do {
            let context = ModelContext(try ModelContainer(for: try Self.schema(), configurations: ModelConfiguration(url: base)))
            (ada, trips) = try Self.fill(context)
            try context.save()
        }
        let (ours, theirs) = (folder.appending("Ours.folio"), folder.appending("Theirs.folio"))
        try FileManager.default.copyItem(at: base, to: ours)
        try FileManager.default.copyItem(at: base, to: theirs)
        var added: [PersistentIdentifier] = []
        for (url, entity) in [(ours, "BusinessTrip"), (theirs, "PersonalTrip")] {
            let context = ModelContext(try ModelContainer(contentsOf: url))
            let trip = try context.insert(entity, ["name": .string(entity)])
            try context.link(ada, "trips", to: trip)
            if entity == "PersonalTrip" { try context.unlink(ada, "trips", from: trips[1]) }
            try context.save()
            added.append(trip)
        }
        let out = folder.appending("Out.folio")
        let result = try DocumentPackage.merge(base: base, ours: ours, theirs: theirs, into: out)
        #expect(result.conflicts.isEmpty)
        let merged = ModelContext(try ModelContainer(contentsOf: out, allowsSave: false))
        let mergedTrips = try merged.related("trips", of: ada)
        // The two sides' additions follow what both kept, in identifier order (each side drew its own lane).
        #expect(mergedTrips == [trips[0], trips[2]] + added.sorted(), "\(mergedTrips)")
        #expect(try merged.related("traveler", of: added[0]) == [ada])
        #expect(try merged.related("traveler", of: trips[1]).isEmpty)
        #expect(merged.graph.invariantViolations().isEmpty)
    }

    @Test("a subentity added to a relationship's destination, then an attribute added, migrate every link and its inverse")
    func migrationKeepsLinks() throws {
        let folder = try TemporaryFolder()
        let url = folder.appending("Trips.folio")
        let leaf = try Schema([Self.trip, Self.person.dropping("claims")])
        let (ada, trips): (PersistentIdentifier, [PersistentIdentifier])
        do {
            let context = ModelContext(try ModelContainer(for: leaf, configurations: ModelConfiguration(url: url)))
            ada = try context.insert("Person", ["name": .string("Ada")])
            trips = [try context.insert("Trip", ["name": .string("A")]), try context.insert("Trip", ["name": .string("B")])]
            for trip in trips.reversed() { try context.link(ada, "trips", to: trip) }
            try context.link(ada, "favourite", to: trips[0])
            try context.save()
        }
        let business: PersistentIdentifier
        do {
            let context = ModelContext(try ModelContainer(for: try Self.schema(), configurations: ModelConfiguration(url: url)))
            #expect(try context.related("trips", of: ada) == trips.reversed())
            #expect(try context.related("favourite", of: ada) == [trips[0]])
            business = try context.insert("BusinessTrip", ["name": .string("C")])
            try context.link(ada, "trips", to: business)
            try context.link(ada, "favourite", to: business)
            #expect(context.graph.invariantViolations().isEmpty)
            try context.save()
        }
        var noted = Self.person
        noted.attributes.append(.init("note", .string, isOptional: true))
        let context = ModelContext(
            try ModelContainer(for: try Schema([Self.trip, Self.business, Self.personal, noted]), configurations: ModelConfiguration(url: url)))
        #expect(try context.related("trips", of: ada) == trips.reversed() + [business])
        #expect(try context.related("favourite", of: ada) == [business])
        #expect(try context.related("traveler", of: business) == [ada])
        #expect(context.graph.invariantViolations().isEmpty)
        try context.delete(business)
        #expect(try context.related("favourite", of: ada).isEmpty)
        #expect(context.graph.invariantViolations().isEmpty)
    }

    // MARK: Hostile input

    static let schemaXML = """
          <schema>
            <entity name="Trip">
              <attribute name="name" type="string"/>
              <relationship name="traveler" destination="Person" inverse="trips"/>
            </entity>
            <entity name="BusinessTrip" superentity="Trip">
              <attribute name="name" type="string"/>
              <relationship name="traveler" destination="Person" inverse="trips"/>
            </entity>
            <entity name="Person">
              <attribute name="name" type="string"/>
              <relationship name="trips" destination="Trip" to-many="true" inverse="traveler"/>
              <relationship name="claims" destination="BusinessTrip" to-many="true"/>
            </entity>
          </schema>
        """

    @Test("a link into a hierarchy naming an object outside it, or a superentity's object in a relationship to a subentity, is refused with its place")
    func wrongEntityIsRefused() throws {
        let cases: [(String, UInt64, String, UInt64)] = [
            (#"<Person f.id="1" name="Ada" trips="2"/><Person f.id="2" name="Bob"/>"#, 1, "trips", 2),
            (#"<Person f.id="1" name="Ada" claims="2"/><Trip f.id="2" name="Commute"/>"#, 1, "claims", 2),
            (#"<BusinessTrip f.id="2" name="Fair" traveler="3"/><Trip f.id="3" name="Walk"/>"#, 2, "traveler", 3),
        ]
        for (objects, id, relationship, target) in cases {
            let document = LoaderFixtures.document(schema: Self.schemaXML, objects: "    " + objects)
            try LoaderFixtures.withPackage(document) { package in
                guard case .wrongDestination(let location, let entity, let at, let name, let to, _)? = LoaderFixtures.readFailure(package) else {
                    Issue.record("expected .wrongDestination for \(objects)")
                    return
                }
                LoaderFixtures.expectLocation(location, isIn: package)
                #expect(at == id && name == relationship && to == target && !entity.isEmpty)
            }
        }
    }

    @Test("links into a hierarchy whose two sides disagree are refused; agreeing ones open")
    func inverseMismatchIsRefused() throws {
        let agreeing = #"<Person f.id="1" name="Ada" trips="2 3"/><Trip f.id="2" name="A" traveler="1"/><BusinessTrip f.id="3" name="B" traveler="1"/>"#
        try LoaderFixtures.withPackage(LoaderFixtures.document(schema: Self.schemaXML, objects: "    " + agreeing)) { package in
            let graph = try package.read()
            #expect(try graph.related("trips", of: PersistentIdentifier(entityName: "Person", id: 1)).map(\.entityName) == ["Trip", "BusinessTrip"])
        }
        let disagreeing = #"<Person f.id="1" name="Ada" trips="2"/><Trip f.id="2" name="A" traveler="1"/><BusinessTrip f.id="3" name="B" traveler="1"/>"#
        try LoaderFixtures.withPackage(LoaderFixtures.document(schema: Self.schemaXML, objects: "    " + disagreeing)) { package in
            guard case .inverseMismatch? = LoaderFixtures.readFailure(package) else {
                Issue.record("expected .inverseMismatch")
                return
            }
        }
    }
}

extension Schema.Entity {
    /// This entity without the relationship named `name`.
    fileprivate func dropping(_ name: String) -> Schema.Entity {
        var entity = self
        entity.relationships.removeAll { $0.name == name }
        return entity
    }
}
