import Folio
import Testing

// The code of seeds/swiftdata-deleting-data-recap.md, as written there, with
// its XCTest assertions as Swift Testing expectations.

@Model
final class Country {
    var name: String
    var visited: Bool

    init(name: String, visited: Bool = false) {
        self.name = name
        self.visited = visited
    }
}

@Suite @MainActor struct CountriesSeedTests {
    let container: ModelContainer
    let context: ModelContext

    init() throws {
        container = try ModelContainer(for: Country.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        context = ModelContext(container)
        for (name, visited) in [("France", true), ("Japan", false), ("Peru", true), ("Kenya", false)] {
            context.insert(Country(name: name, visited: visited))
        }
        try context.save()
    }

    var names: [String] {
        ((try? context.fetch(FetchDescriptor<Country>(sortBy: [SortDescriptor(\.name)]))) ?? []).map(\.name)
    }

    @Test func `a deleted country is marked deleted and stays in its context until the save`() throws {
        let country = try #require(try context.fetch(FetchDescriptor<Country>(predicate: #Predicate { $0.name == "Japan" })).first)

        context.delete(country)

        // isDeleted property is true
        #expect(country.isDeleted)
        // country is in the deletedModelsArray of the context
        #expect(!context.deletedModelsArray.isEmpty)
        // The country is still part of the context
        #expect(country.modelContext != nil)

        try context.save()

        // isDeleted property is false
        #expect(!country.isDeleted)
        // deletedModelsArray of the context is empty
        #expect(context.deletedModelsArray.isEmpty)
        // The country has no model context
        #expect(country.modelContext == nil)

        // "It's safe to have a view showing a deleted object."
        #expect(country.name == "Japan")
        #expect(names == ["France", "Kenya", "Peru"])
    }

    @Test func `delete where visited removes exactly the visited countries`() throws {
        let viewContext = context
        // Delete visited countries
        try viewContext.delete(
            model: Country.self,
            where: #Predicate {
                $0.visited
            })
        #expect(names == ["Japan", "Kenya"])
        #expect(context.deletedModelsArray.count == 2)
    }

    @Test func `delete(model:) without a predicate deletes every country`() throws {
        let viewContext = context
        // Delete *ALL* Country items
        try viewContext.delete(model: Country.self)
        #expect(names.isEmpty)
    }

    @Test func `deleteAllData empties the store`() throws {
        container.deleteAllData()
        #expect(names.isEmpty)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Country>()) == 0)
    }
}
