import Foundation
import Folio
import XCTest

// XCTest as SwiftData apps write it: a main-actor test class whose setUp makes
// an in-memory container and works on its `mainContext`.
//
// Test methods are `async`: on this toolchain (Swift 6.3.1, swift-corelibs-xctest)
// a synchronous test method of a `@MainActor` XCTestCase stops the whole test
// process when discovered (see KnownGaps.swift); async ones run on the main actor.

@MainActor
final class TripStoreXCTests: XCTestCase {
    var container: ModelContainer!
    var context: ModelContext!

    override func setUp() async throws {
        let configuration = ModelConfiguration(isStoredInMemoryOnly: true)
        container = try ModelContainer(for: Trip.self, Accommodation.self, Traveller.self, configurations: configuration)
        context = container.mainContext
        context.undoManager = UndoManager()
    }

    override func tearDown() async throws {
        context = nil
        container = nil
    }

    @discardableResult
    private func insertSampleTrips() throws -> [Trip] {
        let trips = [
            Trip(name: "Lisbon Summit", destination: "Portugal", startDate: .day(10), endDate: .day(13), kind: .business),
            Trip(name: "Alps", destination: "Switzerland", startDate: .day(1, month: 8), endDate: .day(15, month: 8)),
            Trip(name: "Porto", destination: "Portugal", startDate: .day(20), endDate: .day(22), kind: .family),
        ]
        for trip in trips { context.insert(trip) }
        try context.save()
        return trips
    }

    func testFetchWithPredicateAndSort() async throws {
        try insertSampleTrips()

        let descriptor = FetchDescriptor<Trip>(
            predicate: #Predicate { $0.destination == "Portugal" },
            sortBy: [SortDescriptor(\.startDate, order: .reverse)]
        )
        let trips = try context.fetch(descriptor)

        XCTAssertEqual(trips.map(\.name), ["Porto", "Lisbon Summit"])
        XCTAssertEqual(try context.fetchCount(FetchDescriptor<Trip>()), 3)
        XCTAssertEqual(try context.fetchCount(descriptor), 2)
    }

    func testFetchLimitOffsetAndCapturedValues() async throws {
        try insertSampleTrips()
        let cutoff = Date.day(15)

        var descriptor = FetchDescriptor<Trip>(predicate: #Predicate { $0.startDate < cutoff }, sortBy: [SortDescriptor(\.name)])
        descriptor.fetchLimit = 1
        XCTAssertEqual(try context.fetch(descriptor).map(\.name), ["Lisbon Summit"])

        var everything = FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)])
        everything.fetchOffset = 1
        XCTAssertEqual(try context.fetch(everything).map(\.name), ["Lisbon Summit", "Porto"])
    }

    func testEnumAndCodableAttributesRoundTrip() async throws {
        let trip = Trip(name: "Kyoto", destination: "Japan", startDate: .day(3, month: 4), endDate: .day(10, month: 4), kind: .business)
        trip.budget = Budget(amount: Decimal(string: "2499.95")!, currency: "JPY")
        context.insert(trip)
        try context.save()

        let fetched = try XCTUnwrap(try context.fetch(FetchDescriptor<Trip>()).first)
        XCTAssertEqual(fetched.kind, .business)
        XCTAssertEqual(fetched.budget, Budget(amount: Decimal(string: "2499.95")!, currency: "JPY"))
        XCTAssertNil(fetched.notes)
        XCTAssertEqual(fetched.nights, 7)
    }

    func testInsertingATripInsertsItsAccommodations() async throws {
        let trip = Trip(name: "Rome", destination: "Italy", startDate: .day(1), endDate: .day(4))
        trip.accommodations = [Accommodation(name: "Hotel Roma"), Accommodation(name: "Villa Borghese B&B")]
        context.insert(trip)

        let accommodations = try context.fetch(FetchDescriptor<Accommodation>(sortBy: [SortDescriptor(\.name)]))
        XCTAssertEqual(accommodations.map(\.name), ["Hotel Roma", "Villa Borghese B&B"])
        XCTAssertTrue(accommodations.allSatisfy { $0.trip === trip })
    }

    func testDeletingATripCascadesToItsAccommodations() async throws {
        let trip = Trip(name: "Rome", destination: "Italy", startDate: .day(1), endDate: .day(4))
        trip.accommodations = [Accommodation(name: "Hotel Roma"), Accommodation(name: "Villa Borghese B&B")]
        context.insert(trip)
        try context.save()

        context.delete(trip)
        try context.save()

        XCTAssertEqual(try context.fetchCount(FetchDescriptor<Trip>()), 0)
        XCTAssertEqual(try context.fetchCount(FetchDescriptor<Accommodation>()), 0)
    }

    func testDeletingAnAccommodationNullifiesTheTripsReference() async throws {
        let trip = Trip(name: "Rome", destination: "Italy", startDate: .day(1), endDate: .day(4))
        let hotel = Accommodation(name: "Hotel Roma")
        let villa = Accommodation(name: "Villa Borghese B&B")
        trip.accommodations = [hotel, villa]
        let ada = Traveller(givenName: "Ada", familyName: "Lovelace")
        trip.travellers = [ada]
        context.insert(trip)
        try context.save()

        context.delete(hotel)
        context.delete(ada)
        try context.save()

        XCTAssertEqual(trip.accommodations.map(\.name), ["Villa Borghese B&B"])
        XCTAssertEqual(trip.travellers, [])
        XCTAssertEqual(try context.fetchCount(FetchDescriptor<Trip>()), 1)
    }

    func testUndoBringsBackACascadedDelete() async throws {
        let trip = Trip(name: "Rome", destination: "Italy", startDate: .day(1), endDate: .day(4))
        trip.accommodations = [Accommodation(name: "Hotel Roma"), Accommodation(name: "Villa Borghese B&B")]
        context.insert(trip)
        try context.save()

        context.delete(trip)
        context.processPendingChanges()
        XCTAssertEqual(try context.fetchCount(FetchDescriptor<Accommodation>()), 0)

        context.undoManager?.undo()
        XCTAssertEqual(try context.fetchCount(FetchDescriptor<Trip>()), 1)
        XCTAssertEqual(try context.fetchCount(FetchDescriptor<Accommodation>()), 2)
        XCTAssertFalse(trip.isDeleted)
        XCTAssertEqual(Set(trip.accommodations.map(\.name)), ["Hotel Roma", "Villa Borghese B&B"])

        context.undoManager?.redo()
        XCTAssertEqual(try context.fetchCount(FetchDescriptor<Accommodation>()), 0)
    }

    func testUndoOfAnEdit() async throws {
        context.autosaveEnabled = false
        let trip = Trip(name: "Rome", destination: "Italy", startDate: .day(1), endDate: .day(4))
        context.insert(trip)
        try context.save()

        trip.destination = "Lazio"
        context.processPendingChanges()
        XCTAssertTrue(context.undoManager?.canUndo ?? false)

        context.undoManager?.undo()
        XCTAssertEqual(trip.destination, "Italy")
        XCTAssertFalse(context.hasChanges)
    }

    func testInsertingAnExistingUniqueNameUpdatesTheStoredTrip() async throws {
        context.insert(Trip(name: "Rome", destination: "Italy", startDate: .day(1), endDate: .day(4)))
        try context.save()

        context.insert(Trip(name: "Rome", destination: "Lazio", startDate: .day(2), endDate: .day(5)))
        try context.save()

        let trips = try context.fetch(FetchDescriptor<Trip>())
        XCTAssertEqual(trips.count, 1)
        XCTAssertEqual(trips.first?.destination, "Lazio")
        XCTAssertEqual(trips.first?.startDate, .day(2))
    }

    func testUniqueConstraintOverTwoAttributesUpserts() async throws {
        context.insert(Traveller(givenName: "Ada", familyName: "Lovelace"))
        context.insert(Traveller(givenName: "Ada", familyName: "Byron"))
        try context.save()

        context.insert(Traveller(givenName: "Ada", familyName: "Lovelace", email: "ada@example.org"))
        try context.save()

        let travellers = try context.fetch(FetchDescriptor<Traveller>(sortBy: [SortDescriptor(\.familyName)]))
        XCTAssertEqual(travellers.map(\.familyName), ["Byron", "Lovelace"])
        XCTAssertEqual(travellers.last?.email, "ada@example.org")
    }

    func testHasChangesAndRollback() async throws {
        try insertSampleTrips()
        XCTAssertFalse(context.hasChanges)

        let trip = Trip(name: "Oslo", destination: "Norway", startDate: .day(1, month: 9), endDate: .day(4, month: 9))
        context.insert(trip)
        XCTAssertTrue(context.hasChanges)
        XCTAssertTrue(trip.hasChanges)

        context.rollback()
        XCTAssertFalse(context.hasChanges)
        XCTAssertEqual(try context.fetchCount(FetchDescriptor<Trip>()), 3)
        XCTAssertNil(trip.modelContext)
    }

    func testDeleteModelWhere() async throws {
        try insertSampleTrips()

        try context.delete(model: Trip.self, where: #Predicate { $0.destination == "Portugal" })
        try context.save()

        XCTAssertEqual(try context.fetch(FetchDescriptor<Trip>()).map(\.name), ["Alps"])

        try context.delete(model: Trip.self)
        XCTAssertEqual(try context.fetchCount(FetchDescriptor<Trip>()), 0)
    }

    func testTransientPropertiesAreNotStored() async throws {
        let trip = Trip(name: "Rome", destination: "Italy", startDate: .day(1), endDate: .day(4))
        trip.isExpanded = true
        context.insert(trip)
        try context.save()
        XCTAssertNil(container.schema.entities.first { $0.name == "Trip" }?.attributes.first { $0.name == "isExpanded" })

        // A model made for a fetch in another context starts from the declared value.
        let other = ModelContext(container)
        let fetched = try XCTUnwrap(try other.fetch(FetchDescriptor<Trip>()).first)
        XCTAssertFalse(fetched.isExpanded)
    }

    func testTransactionSavesItsBlockAsOneUndoStep() async throws {
        try context.transaction {
            let trip = Trip(name: "Rome", destination: "Italy", startDate: .day(1), endDate: .day(4))
            context.insert(trip)
            trip.accommodations.append(Accommodation(name: "Hotel Roma"))
        }
        XCTAssertFalse(context.hasChanges)

        try context.transaction(block: {
            try context.delete(model: Accommodation.self)
        })
        XCTAssertEqual(try context.fetchCount(FetchDescriptor<Accommodation>()), 0)

        context.undoManager?.undo()
        XCTAssertEqual(try context.fetchCount(FetchDescriptor<Accommodation>()), 1)
    }

    func testTheSchemaDescribesTheModels() async throws {
        let trip = try XCTUnwrap(container.schema.entitiesByName["Trip"])
        XCTAssertEqual(trip.attributesByName["name"]?.isUnique, true)
        XCTAssertNil(trip.attributesByName["isExpanded"])
        XCTAssertEqual(trip.relationshipsByName["accommodations"]?.deleteRule, .cascade)
        XCTAssertEqual(trip.relationshipsByName["accommodations"]?.inverse, "trip")
        XCTAssertEqual(container.schema.entitiesByName["Traveller"]?.uniquenessConstraints, [["givenName", "familyName"]])
    }

    func testModelIDsFindModels() async throws {
        let trips = try insertSampleTrips()
        let id = trips[1].persistentModelID

        XCTAssertTrue(context.model(for: id) as? Trip === trips[1])
        let fetched = try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.persistentModelID == id }))
        XCTAssertEqual(fetched.map(\.name), ["Alps"])
    }
}
