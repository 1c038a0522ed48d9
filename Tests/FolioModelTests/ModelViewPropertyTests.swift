import Folio
import PropertyBased
import Testing
import FolioTestSupport

/// Random sessions mixing typed edits (models), dynamic edits (names and
/// values, as the REPL makes them), deletes, undo, redo, save and rollback:
/// after every step the models must read exactly what the dynamic API reads —
/// the typed layer is a view, not a second engine — and undoing everything
/// must bring back the starting document.
@Suite struct ModelViewPropertyTests {
    /// Everything the document holds, read through the dynamic API.
    struct Snapshot: Equatable {
        var categories: [PersistentIdentifier: (name: Value, animals: [PersistentIdentifier])]
        var animals: [PersistentIdentifier: (name: Value, diet: Value, category: [PersistentIdentifier])]

        static func == (lhs: Self, rhs: Self) -> Bool {
            lhs.categories.keys == rhs.categories.keys && lhs.animals.keys == rhs.animals.keys
                && lhs.categories.allSatisfy { id, entry in rhs.categories[id].map { $0.name == entry.name && $0.animals == entry.animals } ?? false }
                && lhs.animals.allSatisfy { id, entry in
                    rhs.animals[id].map { $0.name == entry.name && $0.diet == entry.diet && $0.category == entry.category } ?? false
                }
        }

        init(_ context: ModelContext) throws {
            categories = [:]
            animals = [:]
            for id in try context.fetchIdentifiers(DynamicFetchDescriptor(entity: "AnimalCategory")) {
                categories[id] = (try context.value("name", of: id), try context.related("animals", of: id))
            }
            for id in try context.fetchIdentifiers(DynamicFetchDescriptor(entity: "Animal")) {
                animals[id] = (try context.value("name", of: id), try context.value("diet", of: id), try context.related("category", of: id))
            }
        }
    }

    /// The models read the same as the dynamic API, object for object.
    static func expectModelsMatch(_ context: ModelContext, _ snapshot: Snapshot) throws {
        let categories = try context.fetch(FetchDescriptor<AnimalCategory>())
        #expect(Set(categories.map(\.persistentModelID)) == Set(snapshot.categories.keys))
        for category in categories {
            let entry = try #require(snapshot.categories[category.persistentModelID])
            #expect(.string(category.name) == entry.name)
            #expect(category.animals.map(\.persistentModelID) == entry.animals)
        }
        let animals = try context.fetch(FetchDescriptor<Animal>())
        #expect(Set(animals.map(\.persistentModelID)) == Set(snapshot.animals.keys))
        for animal in animals {
            let entry = try #require(snapshot.animals[animal.persistentModelID])
            #expect(.string(animal.name) == entry.name)
            #expect(.string(animal.diet.rawValue) == entry.diet)
            #expect(animal.category.map { [$0.persistentModelID] } ?? [] == entry.category)
        }
    }

    /// One session: each step's `roll` picks one of the 13 actions, its
    /// `seed` the action's choices.
    static func session(plan: [SessionStep]) throws {
        var rng = SeededGenerator(seed: 0)
        let container = try ModelContainer(for: AnimalCategory.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        context.undoManager = UndoManager()
        let start = try Snapshot(context)
        let names = ["Bird", "Fish", "Mammal", "Reptile"]
        let animalNames = ["Ant", "Bee", "Cat", "Dog", "Eel", "Fox"]

        for step in plan {
            rng = step.choices
            let categories = try context.fetch(FetchDescriptor<AnimalCategory>())
            let animals = try context.fetch(FetchDescriptor<Animal>())
            switch step.roll * 13 / 100 {
            case 0:  // typed insert; a repeated name is an upsert
                context.insert(AnimalCategory(name: names.randomElement(using: &rng)!))
            case 1:  // typed insert of an animal, related by its own side
                let animal = Animal(name: animalNames.randomElement(using: &rng)!, diet: Animal.Diet.allCases.randomElement(using: &rng)!)
                context.insert(animal)
                animal.category = categories.randomElement(using: &rng)
            case 2:  // typed attribute edit
                animals.randomElement(using: &rng)?.name = animalNames.randomElement(using: &rng)!
            case 3:  // typed to-one edit, the inverse follows
                animals.randomElement(using: &rng)?.category = Bool.random(using: &rng) ? categories.randomElement(using: &rng) : nil
            case 4:  // typed to-many edit
                if let category = categories.randomElement(using: &rng), let animal = animals.randomElement(using: &rng) {
                    category.animals.append(animal)
                }
            case 5:  // typed reorder
                if let category = categories.randomElement(using: &rng) { category.animals.reverse() }
            case 6:  // dynamic edit, as the REPL makes it
                if let animal = animals.randomElement(using: &rng) {
                    try context.setValue(.string("REPL"), for: "name", of: animal.persistentModelID)
                }
            case 7:  // dynamic link
                if let category = categories.randomElement(using: &rng), let animal = animals.randomElement(using: &rng) {
                    try context.link(animal.persistentModelID, "category", to: category.persistentModelID)
                }
            case 8:  // typed delete: cascades from categories
                if let model: any PersistentModel = Bool.random(using: &rng) ? categories.randomElement(using: &rng) : animals.randomElement(using: &rng) {
                    context.delete(model)
                }
            case 9:
                let diet = Animal.Diet.allCases.randomElement(using: &rng)!.rawValue
                try context.delete(model: Animal.self, where: #Predicate { $0.diet.rawValue == diet })
            case 10: context.undoManager?.undo()
            case 11: context.undoManager?.redo()
            default: try context.save()
            }
            context.processPendingChanges()
            try expectModelsMatch(context, try Snapshot(context))
        }
        while context.undoManager?.canUndo == true { context.undoManager?.undo() }
        #expect(try Snapshot(context) == start)
        try expectModelsMatch(context, start)
    }

    @Test func `models always read what the dynamic API reads, and undoing everything restores the start`() async {
        await checkProperty(count: 150, input: SessionStep.generator.array(of: 1...80)) { plan in
            try Self.session(plan: plan)
        }
    }
}
