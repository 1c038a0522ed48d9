import Foundation
import FolioTestSupport
import Folio
import Testing

// `PersistentIdentifier.storeIdentifier` as an app reads it: to tell which
// store an identifier came from, next to the history's `storeIdentifier`, and
// across a container dropped and the package opened again.

@Suite @MainActor struct StoreIdentifierTests {
    @Test func anIdentifierNamesThePackageItCameFromAcrossReopening() throws {
        let directory = try TemporaryFolder()
        let configuration = ModelConfiguration(url: directory.storeURL())
        let saved: PersistentIdentifier
        do {
            let container = try ModelContainer(for: Trip.self, configurations: configuration)
            let context = ModelContext(container)
            let trip = Trip(name: "Rome", destination: "Italy", startDate: .day(1), endDate: .day(4))
            #expect(trip.persistentModelID.storeIdentifier == nil)
            context.insert(trip)
            try context.save()
            saved = trip.persistentModelID
            #expect(saved.storeIdentifier == configuration.url.path)
            let history = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
            #expect(history.last?.storeIdentifier == saved.storeIdentifier)
            #expect(history.last?.changes.first?.changedPersistentIdentifier.storeIdentifier == saved.storeIdentifier)
        }

        let container = try ModelContainer(for: Trip.self, configurations: configuration)
        let identifiers = try container.mainContext.fetchIdentifiers(FetchDescriptor<Trip>())
        #expect(identifiers == [saved])
        #expect(identifiers.first?.storeIdentifier == saved.storeIdentifier)
        let trip = try #require(try container.mainContext.fetch(FetchDescriptor<Trip>()).first)
        #expect(trip.persistentModelID.storeIdentifier == saved.storeIdentifier)
    }

    @Test func anIdentifierMadeByHandOrDecodedStillFindsItsModel() throws {
        let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = container.mainContext
        let trip = Trip(name: "Oslo", destination: "Norway", startDate: .day(1), endDate: .day(2))
        context.insert(trip)
        let id = trip.persistentModelID
        #expect(id.storeIdentifier == "/dev/null")

        // The store is not part of the identity: hashing and lookup go by entity and number.
        let byHand = PersistentIdentifier(entityName: id.entityName, id: id.id)
        #expect(byHand.storeIdentifier == nil)
        #expect(byHand == id)
        #expect(Set([id, byHand]).count == 1)
        #expect((context.model(for: byHand) as? Trip)?.name == "Oslo")

        // Encoded with its store, decoded with it; an encoding without one decodes to nil.
        let decoded = try JSONDecoder().decode(PersistentIdentifier.self, from: JSONEncoder().encode(id))
        #expect(decoded == id)
        #expect(decoded.storeIdentifier == id.storeIdentifier)
        let withoutStore = try JSONDecoder().decode(PersistentIdentifier.self, from: JSONEncoder().encode(byHand))
        #expect(withoutStore.storeIdentifier == nil)
        #expect((context.model(for: withoutStore) as? Trip) === trip)
    }

    @Test func twoPackagesHaveDifferentStoreIdentifiers() throws {
        let directory = try TemporaryFolder()
        var stores: [String?] = []
        for name in ["Work.store", "Home.store"] {
            let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: directory.storeURL(name)))
            let trip = Trip(name: name, destination: "", startDate: .day(1), endDate: .day(2))
            container.mainContext.insert(trip)
            stores.append(trip.persistentModelID.storeIdentifier)
        }
        #expect(stores[0] != nil && stores[1] != nil)
        #expect(stores[0] != stores[1])
    }
}
