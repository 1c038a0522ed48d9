import Folio
import Foundation
import Testing
import FolioTestSupport

// Every declaration here is isolated to the main actor unless it says otherwise,
// as in an app target created by Xcode 26: `@Model` classes written as in any
// other module must compile and work through `mainContext`.

@Model
final class Recipe {
    var name: String = ""
    var minutes: Int = 0
    @Relationship(deleteRule: .cascade, inverse: \Ingredient.recipe) var ingredients: [Ingredient] = []
    init(name: String, minutes: Int) { self.name = name; self.minutes = minutes }
}

@Model
final class Ingredient {
    var name: String = ""
    var recipe: Recipe?
    init(name: String) { self.name = name }
}

/// Opting out of the default, as SwiftData suggests for models that
/// #Predicate and SortDescriptor must name (their key paths must be Sendable).
@Model
nonisolated final class Timer {
    var label: String = ""
    var seconds: Int = 0
    init(label: String, seconds: Int) { self.label = label; self.seconds = seconds }
}

@Suite struct DefaultMainActorModelTests {
    @Test("in a module isolated to the main actor by default, @Model classes save, reopen, fetch, cascade and undo")
    func mainActorModuleModels() throws {
        let url = temporaryPackageURL()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        do {
            let container = try ModelContainer(for: Recipe.self, configurations: ModelConfiguration(url: url))
            let recipe = Recipe(name: "Soup", minutes: 30)
            container.mainContext.insert(recipe)
            for name in ["Leek", "Potato"] { Ingredient(name: name).recipe = recipe }
            try container.mainContext.save()
        }
        let container = try ModelContainer(for: Recipe.self, configurations: ModelConfiguration(url: url))
        let context = container.mainContext
        context.undoManager = UndoManager()
        let recipes = try context.fetch(FetchDescriptor<Recipe>())
        #expect(recipes.map(\.name) == ["Soup"])
        #expect(Set(recipes.first?.ingredients.map(\.name) ?? []) == ["Leek", "Potato"])
        context.delete(try #require(recipes.first))
        context.processPendingChanges()
        #expect(try context.fetchCount(FetchDescriptor<Ingredient>()) == 0)
        context.undoManager?.undo()
        #expect(try context.fetch(FetchDescriptor<Ingredient>()).allSatisfy { $0.recipe?.name == "Soup" })
        #expect(try context.fetchCount(FetchDescriptor<Ingredient>()) == 2)
    }

    @Test("a nonisolated @Model in that module is fetched with #Predicate and SortDescriptor")
    func nonisolatedModelInMainActorModule() throws {
        let url = temporaryPackageURL()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let container = try ModelContainer(for: Timer.self, configurations: ModelConfiguration(url: url))
        let context = container.mainContext
        for (label, seconds) in [("tea", 180), ("egg", 420), ("pasta", 600)] {
            context.insert(Timer(label: label, seconds: seconds))
        }
        let long = try context.fetch(
            FetchDescriptor<Timer>(
                predicate: #Predicate { $0.seconds > 200 },
                sortBy: [SortDescriptor(\.seconds, order: .reverse)]))
        #expect(long.map(\.label) == ["pasta", "egg"])
    }
}
