import Folio
import Testing
import FolioTestSupport

// The model-layer code of seeds/swiftdata-preserving-model-data.md, as written
// there, SwiftUI parts aside. The guide shows Trip growing an attribute at a
// time; this is the class with all of them.

@Model
class Trip {
    @Attribute(.unique) var name: String
    var destination: String
    var startDate: Date
    var endDate: Date
    @Relationship(.cascade) var accommodation: Accommodation?
    @Transient var destinationWeather = Weather.current()
}

// The guide never shows Accommodation; this is the smallest class that fits.
@Model
final class Accommodation {
    var name: String
    var trip: Trip?

    init(name: String) {
        self.name = name
    }
}

/// The guide's transient example: "the current weather at an upcoming trip's destination".
struct Weather {
    var summary: String
    static func current() -> Weather { Weather(summary: "sunny") }
}

@Suite struct TripsSeedTests {
    static let day: TimeInterval = 86_400

    /// "let container = try ModelContainer([Trip.self, Accommodation.self])" —
    /// with the in-memory configuration the guide shows next, so the test leaves no files.
    @Test func `a container made from the model classes derives their schema, including destinations by traversal`() throws {
        let container = try ModelContainer([Trip.self, Accommodation.self], configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        #expect(container.schema.entities.map(\.name) == ["Accommodation", "Trip"])
        let trip = try #require(container.schema.entity(named: "Trip"))
        #expect(trip.attributes.map(\.name) == ["name", "destination", "startDate", "endDate"])
        #expect(trip.attribute(named: "name")?.isUnique == true)
        #expect(trip.relationship(named: "accommodation")?.deleteRule == .cascade)
        #expect(trip.relationship(named: "accommodation")?.destination == "Accommodation")

        // The tip: a relationship's destination is included without being listed.
        let traversed = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        #expect(traversed.schema.entities.map(\.name) == ["Accommodation", "Trip"])
    }

    @Test func `an in-memory read-only configuration keeps models in memory and refuses to save`() throws {
        let configuration = ModelConfiguration(isStoredInMemoryOnly: true, allowsSave: false)
        let container = try ModelContainer(
            for: Trip.self, Accommodation.self,
            configurations: configuration
        )
        let context = ModelContext(container)
        context.insert(Trip(name: "Rome", destination: "Italy", startDate: .now, endDate: .now))
        #expect(try context.fetchCount(FetchDescriptor<Trip>()) == 1)
        #expect(throws: ModelError.saveNotAllowed) { try context.save() }
    }

    @Test @MainActor func `inserted trips are saved to the package and fetched with a predicate and a sort`() throws {
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("Trips.folio")
        let container = try ModelContainer(for: Trip.self, Accommodation.self, configurations: ModelConfiguration(url: url))
        let context = container.mainContext

        let start = Date.now
        for (offset, name) in ["Paris", "Past", "Kyoto", "Lima"].enumerated() {
            let shift = name == "Past" ? -10 * Self.day : Double(4 - offset) * Self.day
            let trip = Trip(
                name: name,
                destination: "\(name) centre",
                startDate: start + shift,
                endDate: start + shift + Self.day)
            context.insert(trip)
        }
        try context.save()

        // As in the guide, with three repairs that the guide's snippet needs on any
        // platform: `upcomingTrips` must be `var` to set its limit, `Date.now` cannot
        // be called inside #Predicate (Foundation rejects it), and fetch throws.
        let now = Date.now
        var upcomingTrips = FetchDescriptor<Trip>(
            predicate: #Predicate { $0.startDate > now },
            sortBy: [
                .init(\.startDate)
            ]
        )
        upcomingTrips.fetchLimit = 50
        upcomingTrips.includePendingChanges = true

        let results = try context.fetch(upcomingTrips)
        #expect(results.map(\.name) == ["Lima", "Kyoto", "Paris"])

        // Saved: a fresh container on the same package sees the same trips.
        let reopened = ModelContext(
            try ModelContainer(
                for: Trip.self, Accommodation.self,
                configurations: ModelConfiguration(url: url, allowsSave: false)))
        #expect(try reopened.fetch(upcomingTrips).map(\.destination) == ["Lima centre", "Kyoto centre", "Paris centre"])
    }

    @Test func `a unique name makes a second insert update the existing trip`() throws {
        let context = ModelContext(try ModelContainer(for: Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true)))
        let first = Trip(name: "Oslo", destination: "Norway", startDate: .now, endDate: .now)
        context.insert(first)
        let second = Trip(name: "Oslo", destination: "Fjords", startDate: .now, endDate: .now)
        context.insert(second)

        #expect(try context.fetchCount(FetchDescriptor<Trip>()) == 1)
        #expect(second.persistentModelID == first.persistentModelID)
        #expect(first.destination == "Fjords")
    }

    @Test func `deleting a trip cascades to its accommodation`() throws {
        let context = ModelContext(try ModelContainer(for: Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true)))
        let trip = Trip(
            name: "Cairo", destination: "Egypt", startDate: .now, endDate: .now,
            accommodation: Accommodation(name: "Nile Hotel"))
        context.insert(trip)
        #expect(try context.fetchCount(FetchDescriptor<Accommodation>()) == 1)
        #expect(trip.accommodation?.trip === trip)

        context.delete(trip)
        #expect(try context.fetchCount(FetchDescriptor<Accommodation>()) == 0)
        #expect(try context.fetchCount(FetchDescriptor<Trip>()) == 0)
    }

    @Test func `a transient property is neither in the schema nor saved, and fetched models start from its initial value`() throws {
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("Trips.folio")
        let context = ModelContext(try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: url)))
        let trip = Trip(name: "Quito", destination: "Ecuador", startDate: .now, endDate: .now)
        trip.destinationWeather = Weather(summary: "rain")
        context.insert(trip)
        try context.save()
        #expect(trip.destinationWeather.summary == "rain")

        let document = try packageText(url)
        #expect(!document.contains("destinationWeather"))
        let fetched = try ModelContext(try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: url, allowsSave: false)))
            .fetch(FetchDescriptor<Trip>())
        #expect(fetched.map(\.destinationWeather.summary) == ["sunny"])
    }
}
