import Foundation
import FolioTestSupport
import Folio
import Testing

// Swift Testing as SwiftData apps write it: a main-actor suite whose tests
// open a store in a temporary directory, save, drop the container and open
// the store again, as an app does across launches.

@Suite @MainActor struct OnDiskStoreTests {
    let directory: TemporaryFolder

    init() throws {
        directory = try TemporaryFolder()
    }

    func makeContainer(allowsSave: Bool = true) throws -> ModelContainer {
        let configuration = ModelConfiguration(url: directory.storeURL(), allowsSave: allowsSave)
        return try ModelContainer(for: Trip.self, Accommodation.self, Traveller.self, configurations: configuration)
    }

    @Test func savedTripsAreThereAfterReopening() throws {
        do {
            let container = try makeContainer()
            let context = container.mainContext
            let trip = Trip(name: "Rome", destination: "Italy", startDate: .day(1), endDate: .day(4), kind: .family)
            trip.notes = "Bring sunscreen"
            trip.budget = Budget(amount: 1200, currency: "EUR")
            trip.accommodations = [Accommodation(name: "Hotel Roma", address: "Via del Corso 1")]
            trip.travellers = [Traveller(givenName: "Ada", familyName: "Lovelace")]
            context.insert(trip)
            try context.save()
        }

        let container = try makeContainer()
        let trips = try container.mainContext.fetch(FetchDescriptor<Trip>())
        let trip = try #require(trips.first)
        #expect(trips.count == 1)
        #expect(trip.name == "Rome")
        #expect(trip.kind == .family)
        #expect(trip.notes == "Bring sunscreen")
        #expect(trip.budget == Budget(amount: 1200, currency: "EUR"))
        #expect(trip.startDate == .day(1))
        #expect(trip.accommodations.map(\.address) == ["Via del Corso 1"])
        #expect(trip.travellers.map(\.givenName) == ["Ada"])
        #expect(trip.travellers.first?.trips.first === trip)
    }

    @Test func persistentModelIDIsStableAcrossSaveAndReopen() throws {
        let id: PersistentIdentifier
        let encoded: Data
        do {
            let container = try makeContainer()
            let context = ModelContext(container)
            let trip = Trip(name: "Rome", destination: "Italy", startDate: .day(1), endDate: .day(4))
            context.insert(trip)
            let idAfterInsert = trip.persistentModelID
            try context.save()
            #expect(trip.persistentModelID == idAfterInsert)
            id = trip.persistentModelID
            encoded = try JSONEncoder().encode(id)
        }

        let container = try makeContainer()
        let context = container.mainContext
        let decoded = try JSONDecoder().decode(PersistentIdentifier.self, from: encoded)
        #expect(decoded == id)
        let trip = try #require(context.model(for: id) as? Trip)
        #expect(trip.name == "Rome")
        #expect(trip.persistentModelID == id)
        let fetched = try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.persistentModelID == decoded }))
        #expect(fetched.map(\.name) == ["Rome"])
    }

    @Test func theMainContextAutosaves() throws {
        do {
            let container = try makeContainer()
            let context = container.mainContext
            #expect(context.autosaveEnabled)
            context.insert(Trip(name: "Rome", destination: "Italy", startDate: .day(1), endDate: .day(4)))
            context.processPendingChanges()
            #expect(!context.hasChanges)
        }

        let container = try makeContainer()
        #expect(try container.mainContext.fetchCount(FetchDescriptor<Trip>()) == 1)
    }

    @Test func aContextYouMakeDoesNotAutosave() throws {
        do {
            let container = try makeContainer()
            let context = ModelContext(container)
            #expect(!context.autosaveEnabled)
            context.insert(Trip(name: "Rome", destination: "Italy", startDate: .day(1), endDate: .day(4)))
            context.processPendingChanges()
            #expect(context.hasChanges)
        }

        let container = try makeContainer()
        #expect(try container.mainContext.fetchCount(FetchDescriptor<Trip>()) == 0)
    }

    @Test func aCascadeSavedAndUndoneIsSavedBack() throws {
        do {
            let container = try makeContainer()
            let context = container.mainContext
            context.undoManager = UndoManager()
            let trip = Trip(name: "Rome", destination: "Italy", startDate: .day(1), endDate: .day(4))
            trip.accommodations = [Accommodation(name: "Hotel Roma"), Accommodation(name: "Villa Borghese B&B")]
            context.insert(trip)
            try context.save()

            context.delete(trip)
            try context.save()
            #expect(try context.fetchCount(FetchDescriptor<Accommodation>()) == 0)

            context.undoManager?.undo()
            #expect(context.hasChanges)
            try context.save()
        }

        let container = try makeContainer()
        let trip = try #require(try container.mainContext.fetch(FetchDescriptor<Trip>()).first)
        #expect(Set(trip.accommodations.map(\.name)) == ["Hotel Roma", "Villa Borghese B&B"])
    }

    @Test func aReadOnlyConfigurationRefusesToSave() throws {
        do {
            let container = try makeContainer()
            container.mainContext.insert(Trip(name: "Rome", destination: "Italy", startDate: .day(1), endDate: .day(4)))
            try container.mainContext.save()
        }

        let container = try makeContainer(allowsSave: false)
        let context = ModelContext(container)
        #expect(try context.fetchCount(FetchDescriptor<Trip>()) == 1)
        context.insert(Trip(name: "Oslo", destination: "Norway", startDate: .day(1), endDate: .day(4)))
        #expect(throws: ModelError.saveNotAllowed) {
            try context.save()
        }
        #expect(try makeContainer().mainContext.fetchCount(FetchDescriptor<Trip>()) == 1)
    }

    @Test func deleteAllDataEmptiesTheStore() throws {
        let container = try makeContainer()
        let context = container.mainContext
        context.insert(Trip(name: "Rome", destination: "Italy", startDate: .day(1), endDate: .day(4)))
        try context.save()

        container.deleteAllData()

        #expect(try context.fetchCount(FetchDescriptor<Trip>()) == 0)
        #expect(try makeContainer().mainContext.fetchCount(FetchDescriptor<Trip>()) == 0)
    }

    @Test func eraseEmptiesTheStore() throws {
        let container = try makeContainer()
        let context = container.mainContext
        context.insert(Trip(name: "Rome", destination: "Italy", startDate: .day(1), endDate: .day(4)))
        try context.save()

        try container.erase()

        #expect(try context.fetchCount(FetchDescriptor<Trip>()) == 0)
        #expect(try makeContainer().mainContext.fetchCount(FetchDescriptor<Trip>()) == 0)
    }

    @Test func aSchemaOfTheRootModelIsEnough() throws {
        let schema = Schema([Trip.self])
        #expect(Set(schema.entities.map(\.name)) == ["Trip", "Accommodation", "Traveller"])

        let configuration = ModelConfiguration(schema: schema, url: directory.storeURL())
        let container = try ModelContainer(for: schema, configurations: [configuration])
        container.mainContext.insert(Trip(name: "Rome", destination: "Italy", startDate: .day(1), endDate: .day(4)))
        try container.mainContext.save()
        #expect(container.schema == Schema([Trip.self, Accommodation.self, Traveller.self]))
    }

    @Test func twoContainersOnOneStoreSeeEachOthersSaves() throws {
        let first = try makeContainer()
        let second = try makeContainer()
        first.mainContext.insert(Trip(name: "Rome", destination: "Italy", startDate: .day(1), endDate: .day(4)))
        try first.mainContext.save()

        #expect(try second.mainContext.fetch(FetchDescriptor<Trip>()).map(\.name) == ["Rome"])
    }
}
