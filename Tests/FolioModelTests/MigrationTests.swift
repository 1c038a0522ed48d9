import Folio
import Testing
import FolioTestSupport

// Two versions of the same model classes, as an app's source has them before
// and after an update; nested, so both can live in one test module.

enum TravelV1 {
    @Model
    final class Trip {
        var name: String
        var destination: String
        var notes: String

        init(name: String, destination: String, notes: String = "") {
            self.name = name
            self.destination = destination
            self.notes = notes
        }
    }
}

enum TravelV2 {
    /// Renamed `destination` to `place`, dropped `notes`, added `rating` and `budget`,
    /// and a new entity.
    @Model
    final class Trip {
        var name: String
        @Attribute(originalName: "destination") var place: String
        var rating: Int = 3
        var budget: Decimal?
        var stops: [Stop] = []
    }

    @Model
    final class Stop {
        var city: String
        var trip: Trip?
    }
}

enum TravelV3 {
    /// `name` is now an Int: not a lightweight change.
    @Model
    final class Trip {
        var name: Int
        var destination: String
        var notes: String
    }
}

@Suite struct MigrationTests {
    func writeVersion1(_ url: URL) throws {
        let context = ModelContext(try ModelContainer(for: TravelV1.Trip.self, configurations: ModelConfiguration(url: url)))
        context.insert(TravelV1.Trip(name: "Lisbon", destination: "Portugal", notes: "trams"))
        context.insert(TravelV1.Trip(name: "Oslo", destination: "Norway"))
        try context.save()
    }

    @Test func `opening a package with renamed, removed and added attributes and a new entity migrates it`() throws {
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("Travel.folio")
        try writeVersion1(url)
        let idsBefore = try ModelContext(try ModelContainer(contentsOf: url, allowsSave: false))
            .fetchIdentifiers(DynamicFetchDescriptor(entity: "Trip", sortBy: [.init("name")]))

        let context = ModelContext(try ModelContainer(for: TravelV2.Trip.self, configurations: ModelConfiguration(url: url)))
        let trips = try context.fetch(FetchDescriptor<TravelV2.Trip>(sortBy: [SortDescriptor(\.name)]))
        #expect(trips.map(\.name) == ["Lisbon", "Oslo"])
        #expect(trips.map(\.place) == ["Portugal", "Norway"])
        #expect(trips.map(\.rating) == [3, 3])
        #expect(trips.map(\.budget) == [nil, nil])
        #expect(trips.map(\.persistentModelID) == idsBefore)

        // The new entity works, and the next save writes the new shape.
        trips[0].stops.append(TravelV2.Stop(city: "Sintra"))
        try context.save()
        let document = try packageText(url)
        #expect(document.contains("place"))
        #expect(!document.contains("notes"))
        #expect(document.contains("Sintra"))
    }

    @Test func `a change that is not lightweight fails with a clear error and leaves the package untouched`() throws {
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("Travel.folio")
        try writeVersion1(url)
        let before = try packageDocument(url)

        let error = #expect(throws: ModelError.self) {
            _ = try ModelContainer(for: TravelV3.Trip.self, configurations: ModelConfiguration(url: url))
        }
        guard case .migration(let path, .attributeTypeChanged(let entity, let attribute, _, _))? = error else {
            Issue.record("unexpected error \(String(describing: error))")
            return
        }
        #expect(path == url.path)
        #expect(entity == "Trip")
        #expect(attribute == "name")
        #expect("\(error!)".contains("name"))
        #expect(try packageDocument(url) == before)
    }
}
