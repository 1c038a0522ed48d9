import Foundation
import Folio
import FolioTestSupport
import XCTest

// SwiftData's 2025–26 API as an app's XCTest target exercises it: a
// main-actor test class over an on-disk container, dropped and opened again.
// (The Swift Testing suites beside it — ModelInheritanceTests,
// ResultsObserverTests, HistoryObserverTests, CodableAttributeTests — go
// through each piece in depth.) Test methods are `async`: see TripStoreXCTests.

@MainActor
final class NewerAPIXCTests: XCTestCase {
    var folder: TemporaryFolder!

    override func setUp() async throws {
        folder = try TemporaryFolder()
    }

    override func tearDown() async throws {
        folder = nil
    }

    private func container(_ types: any PersistentModel.Type..., name: String) throws -> ModelContainer {
        try ModelContainer(for: Schema(types), configurations: ModelConfiguration(url: folder.url.appendingPathComponent(name)))
    }

    /// iOS 26: a subclass persists, and a fetch of its superclass returns it as itself after reopening.
    func testSubclassesComeBackFromTheSuperclassFetch() async throws {
        do {
            let context = try container(Journey.self, BusinessJourney.self, LeisureJourney.self, name: "Journeys.folio").mainContext
            context.insert(BusinessJourney(name: "Summit", destination: "Lisbon", perdiem: 120))
            context.insert(Journey(name: "Walk", destination: "Park"))
            try context.save()
        }
        let context = try container(Journey.self, BusinessJourney.self, LeisureJourney.self, name: "Journeys.folio").mainContext
        let journeys = try context.fetch(FetchDescriptor<Journey>(sortBy: [SortDescriptor(\.name)]))
        XCTAssertEqual(journeys.map(\.name), ["Summit", "Walk"])
        XCTAssertEqual((journeys.first as? BusinessJourney)?.perdiem, 120)
        XCTAssertEqual(try context.fetchCount(FetchDescriptor<BusinessJourney>()), 1)
    }

    /// iOS 27: a ResultsObserver follows the context's edits and keeps its sections in order.
    func testResultsObserverFollowsEditsInSections() async throws {
        let context = try container(Book.self, name: "Books.folio").mainContext
        context.insert(Book(title: "Dune", genre: "Fiction"))
        context.insert(Book(title: "Cosmos", genre: "Science"))
        try context.save()
        let observer = try ResultsObserver<Book, String>(
            sortBy: [SortDescriptor(\.title)], sectionBy: \.genre,
            modelContext: context)
        XCTAssertEqual(observer.results.map(\.title), ["Dune", "Cosmos"])
        context.insert(Book(title: "Brief History", genre: "Science"))
        XCTAssertEqual(observer.sections?.sectionTitles, ["Fiction", "Science"])
        XCTAssertEqual(observer.sections?[sectionTitle: "Science"]?.map(\.title), ["Brief History", "Cosmos"])
        context.undoManager = UndoManager()
        let dune = try XCTUnwrap(observer.results.first)
        context.delete(dune)
        XCTAssertEqual(observer.results.map(\.title), ["Brief History", "Cosmos"])
    }

    /// iOS 27: a HistoryObserver's counter rises with a save of the models it observes, not with others.
    func testHistoryObserverCountsSavesOfItsModels() async throws {
        let container = try container(Sighting.self, Birdwatcher.self, name: "Birds.folio")
        let observer = try HistoryObserver(observedModels: [Sighting.self], modelContainer: container)
        let context = container.mainContext
        XCTAssertEqual(observer.eventCounter, 0)
        context.insert(Birdwatcher(name: "Ana"))
        try context.save()
        XCTAssertEqual(observer.eventCounter, 0)
        context.insert(Sighting(species: "Wren", count: 2))
        try context.save()
        XCTAssertEqual(observer.eventCounter, 1)
        let history = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(sortBy: [SortDescriptor(\.token, order: .reverse)]))
        XCTAssertEqual(history.count, 2)
    }

    /// iOS 27: `@Attribute(.codable)` values come back exactly after the container is dropped.
    func testCodableAttributesSurviveReopening() async throws {
        do {
            let context = try container(Garden.self, name: "Gardens.folio").mainContext
            context.insert(
                Garden(
                    name: "Kew", palette: Palette(colors: ["green"], isDark: false), temperature: Celsius(18),
                    season: .spring, plants: ["fern"]))
            try context.save()
        }
        let garden = try XCTUnwrap(try container(Garden.self, name: "Gardens.folio").mainContext.fetch(FetchDescriptor<Garden>()).first)
        XCTAssertEqual(garden.temperature, Celsius(18))
        XCTAssertEqual(garden.season, .spring)
        XCTAssertEqual(garden.plants, ["fern"])
        XCTAssertNil(garden.note)
    }
}
