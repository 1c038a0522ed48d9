import Folio
import Testing

// The model-layer code of seeds/swiftdata-preserving-model-data.md, as written
// there (SwiftUI parts aside).

@Model
class Trip {
    var name: String
    var destination: String
    var startDate: Date
    var endDate: Date
    var accommodation: Accommodation?
}

@Model
final class Accommodation {
    var name: String
    var trip: Trip?
}

@Suite struct TripsSeedTests {
    @Test func insertingAndFetchingTrips() throws {
        let container = try ModelContainer(for: Trip.self, Accommodation.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        let trip = Trip(name: "Paris", destination: "France", startDate: .now, endDate: .now)
        context.insert(trip)
        #expect(trip.name == "Paris")
        trip.name = "Lyon"
        #expect(trip.name == "Lyon")
        let trips = try context.fetch(FetchDescriptor<Trip>())
        #expect(trips.map(\.name) == ["Lyon"])
    }
}
