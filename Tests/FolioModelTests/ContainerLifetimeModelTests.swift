import Foundation
import Folio
import Testing
import FolioTestSupport

// The README's typed example and a @ModelActor, run in a loop: everything the
// program drops goes away, the package's lock with it, and the same package
// reopens every time (issue 13, item 3).

enum ReadmeTravel {
    @Model
    final class Trip {
        @Attribute(.unique) var name: String
        var destination: String
        @Relationship(deleteRule: .cascade, inverse: \Accommodation.trip) var accommodations: [Accommodation] = []
        init(name: String, destination: String) { self.name = name; self.destination = destination }
    }

    @Model
    final class Accommodation {
        var name: String
        var trip: Trip?
        init(name: String) { self.name = name }
    }
}

@ModelActor
actor TripCleaner {
    func deleteTrips(in destination: String) throws -> Int {
        let trips = try modelContext.fetch(FetchDescriptor<ReadmeTravel.Trip>(predicate: #Predicate { $0.destination == destination }))
        for trip in trips { modelContext.delete(trip) }
        try modelContext.save()
        return trips.count
    }
}

/// Weak references to what one round made.
final class Dropped {
    weak var container: ModelContainer?
    weak var context: ModelContext?
    weak var undoManager: UndoManager?
    weak var trip: ReadmeTravel.Trip?
    weak var accommodation: ReadmeTravel.Accommodation?
    weak var actor: TripCleaner?

    var leftovers: [String] {
        [
            ("container", container as AnyObject?), ("context", context), ("undo manager", undoManager),
            ("trip", trip), ("accommodation", accommodation), ("actor", actor),
        ]
        .compactMap { $0.1 == nil ? nil : $0.0 }
    }
}

@Suite struct ContainerLifetimeModelTests {
    /// The README's "Typed models" example, as written there.
    @MainActor static func readmeTypedExample(_ url: URL, round: Int, _ dropped: Dropped) throws {
        let container = try ModelContainer(
            for: ReadmeTravel.Trip.self,
            configurations: ModelConfiguration(url: url))
        let context = container.mainContext
        context.undoManager = UndoManager()
        let trip = ReadmeTravel.Trip(name: "Rome \(round)", destination: "Italy")
        trip.accommodations = [ReadmeTravel.Accommodation(name: "Hotel Roma")]
        context.insert(trip)
        try context.save()

        let trips = try context.fetch(
            FetchDescriptor<ReadmeTravel.Trip>(
                predicate: #Predicate { $0.destination == "Italy" },
                sortBy: [SortDescriptor(\.name)]))
        #expect(trips.count == round + 1, "the earlier rounds' saves are there")
        context.delete(trip)
        context.undoManager?.undo()
        #expect(trip.accommodations.count == 1)
        try context.save()
        dropped.container = container
        dropped.context = context
        dropped.undoManager = context.undoManager
        dropped.trip = trip
        dropped.accommodation = trip.accommodations.first
    }

    @Test("the README's typed example frees its container, main context, undo manager and models, and the package reopens, again and again")
    @MainActor func readmeTypedExampleReleases() throws {
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("Trips.folio")
        for round in 0..<5 {
            let dropped = Dropped()
            try Self.readmeTypedExample(url, round: round, dropped)
            #expect(dropped.leftovers.isEmpty, "still alive after round \(round): \(dropped.leftovers)")
        }
        // The last container released the lock: another writer opens it.
        let reopened = try ModelContainer(for: ReadmeTravel.Trip.self, configurations: ModelConfiguration(url: url))
        #expect(try ModelContext(reopened).fetchCount(FetchDescriptor<ReadmeTravel.Trip>()) == 5)
    }

    @Test("a model the program keeps keeps its context and container; dropping it frees them")
    @MainActor func modelKeepsContext() throws {
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("Trips.folio")
        let dropped = Dropped()
        var kept: ReadmeTravel.Trip?
        do {
            let container = try ModelContainer(for: ReadmeTravel.Trip.self, configurations: ModelConfiguration(url: url))
            let context = ModelContext(container)
            let trip = ReadmeTravel.Trip(name: "Oslo", destination: "Norway")
            context.insert(trip)
            try context.save()
            kept = trip
            dropped.container = container
            dropped.context = context
        }
        #expect(dropped.context != nil && dropped.container != nil)
        kept?.destination = "Norge"
        try kept?.modelContext?.save()
        kept = nil
        #expect(dropped.leftovers.isEmpty, "\(dropped.leftovers)")
        _ = try ModelContainer(for: ReadmeTravel.Trip.self, configurations: ModelConfiguration(url: url))
    }

    @Test("a @ModelActor and its context go away with the program's references, and the package reopens, again and again")
    @MainActor func modelActorReleases() async throws {
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("Trips.folio")
        for round in 0..<5 {
            let dropped = Dropped()
            do {
                let container = try ModelContainer(for: ReadmeTravel.Trip.self, configurations: ModelConfiguration(url: url))
                let main = container.mainContext
                main.insert(ReadmeTravel.Trip(name: "Lima \(round)", destination: "Peru"))
                main.insert(ReadmeTravel.Trip(name: "Kyoto \(round)", destination: "Japan"))
                try main.save()
                let cleaner = TripCleaner(modelContainer: container)
                #expect(try await cleaner.deleteTrips(in: "Peru") == 1)
                #expect(try main.fetchCount(FetchDescriptor<ReadmeTravel.Trip>()) == round + 1)
                dropped.container = container
                dropped.context = main
                dropped.actor = cleaner
            }
            #expect(dropped.leftovers.isEmpty, "still alive after round \(round): \(dropped.leftovers)")
        }
    }
}
