import Folio
import Testing

// The model-layer code of seeds/swiftdata-deleting-persistent-data.md, as written
// there; the views become plain functions over the same context.

@Model
final class AnimalCategory {
    @Attribute(.unique) var name: String
    // `.cascade` tells SwiftData to delete all animals contained in the
    // category when deleting it.
    @Relationship(deleteRule: .cascade, inverse: \Animal.category)
    var animals = [Animal]()

    init(name: String) {
        self.name = name
    }
}

// The sample's Animal, which the guide does not show.
@Model
final class Animal {
    var name: String
    var diet: Diet
    var category: AnimalCategory?

    init(name: String, diet: Diet) {
        self.name = name
        self.diet = diet
    }

    enum Diet: String, Codable, CaseIterable {
        case herbivorous, carnivorous, omnivorous
    }
}

/// What the sample's `NavigationContext` holds: the selection.
final class NavigationContext {
    var selectedAnimal: Animal?
}

/// The sample's data, reloaded by `reloadSampleData`.
enum SampleData {
    static let animals: [(category: String, names: [String])] = [
        ("Amphibian", ["Frog"]),
        ("Bird", ["Robin", "Sparrow"]),
        ("Mammal", ["Bear", "Cat", "Dog", "Elephant", "Horse"]),
        ("Reptile", ["Gecko"]),
    ]

    static func insertSampleData(modelContext: ModelContext) {
        for (categoryName, names) in animals {
            let category = AnimalCategory(name: categoryName)
            modelContext.insert(category)
            for name in names {
                let animal = Animal(name: name, diet: .omnivorous)
                animal.category = category
            }
        }
    }

    static func reloadSampleData(modelContext: ModelContext) {
        do {
            try modelContext.delete(model: AnimalCategory.self)
            insertSampleData(modelContext: modelContext)
        } catch {
            fatalError(error.localizedDescription)
        }
    }
}

/// The sample's `AnimalList` and `AnimalDetailView`, minus SwiftUI: `animals`
/// is what `@Query(sort: \Animal.name)` holds, refreshed after each change.
@MainActor
final class AnimalListView {
    let modelContext: ModelContext
    let navigationContext = NavigationContext()
    private(set) var animals: [Animal] = []

    init(modelContext: ModelContext) {
        self.modelContext = modelContext
        refresh()
    }

    func refresh() {
        animals = (try? modelContext.fetch(FetchDescriptor<Animal>(sortBy: [SortDescriptor(\Animal.name)]))) ?? []
    }

    func removeAnimals(at indexSet: IndexSet) {
        do {
            for index in indexSet {
                let animalToDelete = animals[index]
                if navigationContext.selectedAnimal?.persistentModelID == animalToDelete.persistentModelID {
                    navigationContext.selectedAnimal = nil
                }
                modelContext.delete(animalToDelete)
            }
            try modelContext.save()
        } catch {
            // Handle error.
        }
        refresh()
    }

    func delete(_ animal: Animal) {
        do {
            navigationContext.selectedAnimal = nil
            modelContext.delete(animal)
            try modelContext.save()
        } catch {
            // Handle error.
        }
        refresh()
    }
}

@Suite @MainActor struct AnimalsSeedTests {
    let container: ModelContainer
    let modelContext: ModelContext
    let view: AnimalListView

    init() throws {
        container = try ModelContainer(for: AnimalCategory.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        modelContext = container.mainContext
        modelContext.autosaveEnabled = false
        modelContext.undoManager = UndoManager()
        SampleData.insertSampleData(modelContext: modelContext)
        try modelContext.save()
        view = AnimalListView(modelContext: modelContext)
    }

    var animalNames: [String] {
        ((try? modelContext.fetch(FetchDescriptor<Animal>(sortBy: [SortDescriptor(\Animal.name)]))) ?? []).map(\.name)
    }

    func category(_ name: String) throws -> AnimalCategory {
        try #require(try modelContext.fetch(FetchDescriptor<AnimalCategory>(predicate: #Predicate { $0.name == name })).first)
    }

    @Test func `the sample's categories hold their animals through the inverse`() throws {
        #expect(animalNames.count == 9)
        let mammals = try category("Mammal")
        #expect(mammals.animals.map(\.name) == ["Bear", "Cat", "Dog", "Elephant", "Horse"])
        #expect(mammals.animals.allSatisfy { $0.category === mammals })
        #expect(view.animals.first?.diet == .omnivorous)
    }

    @Test func `swiping to delete removes the animals and unselects the deleted selection`() {
        view.navigationContext.selectedAnimal = view.animals[2]  // Dog
        view.removeAnimals(at: IndexSet([0, 2]))  // Bear and Dog

        #expect(view.navigationContext.selectedAnimal == nil)
        #expect(view.animals.map(\.name) == ["Cat", "Elephant", "Frog", "Gecko", "Horse", "Robin", "Sparrow"])
        #expect(!modelContext.hasChanges)
    }

    @Test func `deleting with confirmation deletes the selected animal and clears the selection`() throws {
        let gecko = try #require(view.animals.first { $0.name == "Gecko" })
        view.navigationContext.selectedAnimal = gecko
        view.delete(gecko)
        #expect(view.navigationContext.selectedAnimal == nil)
        #expect(!view.animals.contains { $0.name == "Gecko" })
        #expect(gecko.modelContext == nil)
        #expect(gecko.name == "Gecko")  // still readable after the save, as the life cycle promises
    }

    @Test func `reloading the sample data deletes every category and, by cascade, every animal, then inserts them again`() throws {
        let before = try modelContext.fetchIdentifiers(FetchDescriptor<Animal>())
        SampleData.reloadSampleData(modelContext: modelContext)
        let after = try modelContext.fetchIdentifiers(FetchDescriptor<Animal>())
        #expect(after.count == 9)
        #expect(Set(before).isDisjoint(with: after))
        #expect(try modelContext.fetchCount(FetchDescriptor<AnimalCategory>()) == 4)
        #expect(modelContext.deletedModelsArray.count == 13)
        try modelContext.save()
        #expect(animalNames.count == 9)
    }

    @Test func `deleting all categories with delete(model:) cascades to every animal`() throws {
        try modelContext.delete(model: AnimalCategory.self)
        #expect(try modelContext.fetchCount(FetchDescriptor<Animal>()) == 0)
        #expect(try modelContext.fetchCount(FetchDescriptor<AnimalCategory>()) == 0)
    }

    @Test func `deleteAllData empties the store for every context`() throws {
        let other = ModelContext(container)
        container.deleteAllData()
        #expect(try modelContext.fetchCount(FetchDescriptor<Animal>()) == 0)
        #expect(try other.fetchCount(FetchDescriptor<AnimalCategory>()) == 0)
        #expect(view.animals.allSatisfy { $0.modelContext == nil })
    }

    @Test func `undoing a category's delete brings back its animals, in order, as the same models`() throws {
        let mammals = try category("Mammal")
        let members = mammals.animals
        modelContext.delete(mammals)
        modelContext.processPendingChanges()
        #expect(mammals.isDeleted)
        #expect(members.allSatisfy { $0.isDeleted })
        #expect(animalNames.count == 4)

        modelContext.undoManager?.undo()
        #expect(!mammals.isDeleted)
        #expect(mammals.animals == members)
        #expect(members.allSatisfy { $0.category === mammals })
        #expect(animalNames.count == 9)

        modelContext.undoManager?.redo()
        #expect(animalNames.count == 4)
    }
}
