import Foundation
import Folio
import Testing
import FolioTestSupport

/// Xcode's SwiftData app template's model.
@Model
final class Item {
    var timestamp: Date

    init(timestamp: Date) {
        self.timestamp = timestamp
    }
}

/// The configuration forms SwiftData code uses, and the ones a one-package
/// container refuses rather than ignores.
@Suite struct ModelConfigurationTests {
    @Test func `the SwiftData app template's container code works as written`() throws {
        // As Xcode's template writes it (in memory here, to leave no file behind).
        let sharedModelContainer: ModelContainer = try { () throws -> ModelContainer in
            let schema = Schema([
                Item.self
            ])
            let modelConfiguration = ModelConfiguration(schema: schema, isStoredInMemoryOnly: true)
            do {
                return try ModelContainer(for: schema, configurations: [modelConfiguration])
            } catch {
                Issue.record("Could not create ModelContainer: \(error)")
                throw error
            }
        }()
        let context = ModelContext(sharedModelContainer)
        let newItem = Item(timestamp: Date())
        context.insert(newItem)
        #expect(try context.fetch(FetchDescriptor<Item>()) == [newItem])
        #expect(sharedModelContainer.configurations.first?.schema == Schema([Item.self]))
    }

    @Test func `a configuration for model types stores them and the types they relate to`() throws {
        let configuration = ModelConfiguration(for: Trip.self, isStoredInMemoryOnly: true)
        #expect(configuration.schema?.entities.map(\.name) == ["Accommodation", "Trip"])
        #expect(configuration.isStoredInMemoryOnly)
        let container = try ModelContainer(for: Trip.self, configurations: configuration)
        let context = ModelContext(container)
        context.insert(Trip(name: "Lisbon", destination: "Portugal", startDate: .now, endDate: .now))
        #expect(try context.fetchCount(FetchDescriptor<Trip>()) == 1)
    }

    @Test func `two configurations are refused, naming both, instead of one being ignored`() {
        let first = ModelConfiguration("Recipes", isStoredInMemoryOnly: true)
        let second = ModelConfiguration("Comments", isStoredInMemoryOnly: true)
        #expect {
            try ModelContainer(for: Trip.self, configurations: first, second)
        } throws: { error in
            guard case ModelError.configuration(let reason) = error else { return false }
            return reason.contains("'Recipes'") && reason.contains("'Comments'") && reason.contains("one document package")
        }
    }

    @Test func `a configuration naming classes the container lacks is refused, naming them`() {
        let configuration = ModelConfiguration(for: Item.self, isStoredInMemoryOnly: true)
        #expect {
            try ModelContainer(for: Trip.self, configurations: configuration)
        } throws: { error in
            guard case ModelError.configuration(let reason) = error else { return false }
            return reason.contains("Item") && !reason.contains("Trip")
        }
    }

    @Test func `a configuration set to in-memory after it was made writes nothing to disk`() throws {
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("Scratch.folio")
        var configuration = ModelConfiguration(url: url)
        configuration.isStoredInMemoryOnly = true
        let context = ModelContext(try ModelContainer(for: NotebookV1.Note.self, configurations: configuration))
        context.insert(NotebookV1.Note(title: "Ideas"))
        try context.save()
        #expect(!FileManager.default.fileExists(atPath: url.path), "an in-memory configuration wrote \(url.path)")
        #expect(configuration.url.path == "/dev/null")
    }
}
