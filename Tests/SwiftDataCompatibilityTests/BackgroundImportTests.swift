import Foundation
import FolioTestSupport
import Folio
import Testing

// Background work as SwiftData apps do it: a `@ModelActor` with its own
// context imports and saves; the main context sees the saves; models cross
// actors only as `PersistentIdentifier`s.

struct TripRecord: Sendable {
    var name: String
    var destination: String
    var startDate: Date
    var endDate: Date
    var hotels: [String]
}

@ModelActor
actor TripImporter {
    func importTrips(_ records: [TripRecord]) throws -> [PersistentIdentifier] {
        var trips: [Trip] = []
        for record in records {
            let trip = Trip(
                name: record.name, destination: record.destination,
                startDate: record.startDate, endDate: record.endDate)
            trip.accommodations = record.hotels.map { Accommodation(name: $0) }
            modelContext.insert(trip)
            trips.append(trip)
        }
        try modelContext.save()
        return trips.map(\.persistentModelID)
    }

    func rename(_ id: PersistentIdentifier, to name: String) throws {
        guard let trip = self[id, as: Trip.self] else { return }
        trip.name = name
        try modelContext.save()
    }

    func deleteTrips(to destination: String) throws -> Int {
        let descriptor = FetchDescriptor<Trip>(predicate: #Predicate { $0.destination == destination })
        let count = try modelContext.fetchCount(descriptor)
        try modelContext.delete(model: Trip.self, where: #Predicate { $0.destination == destination })
        try modelContext.save()
        return count
    }
}

@Suite @MainActor struct BackgroundImportTests {
    static let records = [
        TripRecord(name: "Rome", destination: "Italy", startDate: .day(1), endDate: .day(4), hotels: ["Hotel Roma"]),
        TripRecord(name: "Milan", destination: "Italy", startDate: .day(5), endDate: .day(7), hotels: []),
        TripRecord(name: "Oslo", destination: "Norway", startDate: .day(9), endDate: .day(12), hotels: ["Thon", "Saga"]),
    ]

    @Test func anActorsImportIsSeenByTheMainContext() async throws {
        let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let importer = TripImporter(modelContainer: container)

        let ids = try await importer.importTrips(Self.records)

        let context = container.mainContext
        let trips = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.startDate)]))
        #expect(trips.map(\.name) == ["Rome", "Milan", "Oslo"])
        #expect(trips.map(\.persistentModelID) == ids)
        #expect(try context.fetchCount(FetchDescriptor<Accommodation>()) == 3)
        let oslo = try #require(context.model(for: ids[2]) as? Trip)
        #expect(Set(oslo.accommodations.map(\.name)) == ["Thon", "Saga"])
    }

    @Test func anActorEditsAndDeletesWhatTheMainContextInserted() async throws {
        let directory = try TemporaryFolder()
        let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: directory.storeURL()))
        let context = container.mainContext
        let rome = Trip(name: "Rome", destination: "Italy", startDate: .day(1), endDate: .day(4))
        rome.accommodations = [Accommodation(name: "Hotel Roma")]
        context.insert(rome)
        context.insert(Trip(name: "Oslo", destination: "Norway", startDate: .day(9), endDate: .day(12)))
        try context.save()

        let importer = TripImporter(modelContainer: container)
        let oslo = try #require(try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.name == "Oslo" })).first)
        try await importer.rename(oslo.persistentModelID, to: "Oslo Fjords")
        let deleted = try await importer.deleteTrips(to: "Italy")

        #expect(deleted == 1)
        let names = try context.fetch(FetchDescriptor<Trip>()).map(\.name)
        #expect(names == ["Oslo Fjords"])
        #expect(oslo.name == "Oslo Fjords")
        #expect(try context.fetchCount(FetchDescriptor<Accommodation>()) == 0)
        #expect(rome.modelContext == nil)
    }
}
