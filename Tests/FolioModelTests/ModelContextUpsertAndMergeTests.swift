import Folio
@testable import FolioCore
import Testing
import Synchronization
import Foundation
import Observation
import PropertyBased
import FolioTestSupport

/// What an initializer isolated to the main actor looks like to `_isNonisolated`.
@MainActor private func makeOnTheMainActor(_ backing: BackingData) -> Int { 0 }

@Model
final class Label {
    @Attribute(.unique) var name: String
    var note: String = ""
    @Transient var isSelected = false
    @Attribute(.transient) var draft: String = ""
    init(name: String, note: String = "") {
        self.name = name
        self.note = note
    }
}

@Model
final class Badge {
    @Attribute(.unique) var token = UUID()
    var name: String = ""
    var created = Date.now
    init(name: String) { self.name = name }
}

@Suite struct ModelContextUpsertAndMergeTests {
    @Test func `inserting a model with a taken unique value updates the object, and fetch returns the first model`() throws {
        let context = ModelContext(try ModelContainer(for: Label.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true)))
        let first = Label(name: "swift", note: "first")
        context.insert(first)
        let second = Label(name: "swift", note: "second")
        context.insert(second)
        #expect(second.persistentModelID == first.persistentModelID)
        #expect(first.note == "second")
        #expect(try context.fetchCount(FetchDescriptor<Label>()) == 1)
        #expect(try context.fetch(FetchDescriptor<Label>()).first === first)
        #expect((context.registeredModel(for: first.persistentModelID) as Label?) === first)
        second.note = "edited through the second"
        #expect(first.note == "edited through the second")
    }

    @Test func `a merged save from another context notifies the observers of the models it changes`() throws {
        let container = try ModelContainer(for: Label.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let main = ModelContext(container)
        let label = Label(name: "swift")
        main.insert(label)
        try main.save()
        let fired = Mutex(false)
        withObservationTracking {
            _ = label.note
        } onChange: {
            fired.withLock { $0 = true }
        }

        let background = ModelContext(container)
        let other = try #require(try background.fetch(FetchDescriptor<Label>()).first)
        other.note = "changed"
        try background.save()
        _ = try main.fetchCount(FetchDescriptor<Label>())
        #expect(label.note == "changed")
        #expect(fired.withLock { $0 })
    }

    @Test func `transient attributes are each context's own and are not merged from other contexts' saves`() throws {
        let container = try ModelContainer(for: Label.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let main = ModelContext(container)
        let label = Label(name: "swift")
        main.insert(label)
        try main.save()
        label.draft = "mine"

        let background = ModelContext(container)
        let other = try #require(try background.fetch(FetchDescriptor<Label>()).first)
        other.draft = "theirs"
        other.note = "saved"
        background.insert(Label(name: "new"))
        let newcomer = try #require(background.insertedModelsArray.first as? Label)
        newcomer.draft = "theirs too"
        try background.save()

        let fetched = try main.fetch(FetchDescriptor<Label>(sortBy: [SortDescriptor(\.name)]))
        #expect(fetched.map(\.name) == ["new", "swift"])
        #expect(label.note == "saved")
        #expect(label.draft == "mine")
        #expect(fetched[0].draft == "")
    }

    @Test func `dynamic inserts that leave a unique attribute to its default are new objects, not updates of the first`() throws {
        let context = ModelContext(try ModelContainer(for: Badge.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true)))
        let a = try context.insert("Badge", ["name": .string("a")])
        let b = try context.insert("Badge", ["name": .string("b")])
        #expect(a != b)
        #expect(try context.value("name", of: a) == .string("a"))
        // Both took the schema's one default token, so the save refuses them.
        #expect(throws: ModelError.self) { try context.save() }
        try context.setValue(.uuid(UUID()), for: "token", of: b)
        try context.save()
    }

    @Test(.tags(.long), .onlyInLongRuns)
    func `setting a to-one whose inverse is a large to-many appends to it in place, and one undo takes every link back`() throws {
        let container = try ModelContainer(for: AnimalCategory.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        context.undoManager = UndoManager()
        let category = AnimalCategory(name: "Mammal")
        context.insert(category)
        let animals = (0..<20_000).map { Animal(name: "a\($0)", diet: .herbivorous) }
        for animal in animals { context.insert(animal) }
        context.processPendingChanges()
        func storage() throws -> UnsafeRawPointer? {
            let (_, ref) = try #require(category.persistentBackingData.location)
            let slot = try #require(context.graph.layout.entities[Int(ref.entity)].linkIndex["animals"])
            return context.graph.tables[Int(ref.entity)].links[slot].many[Int(ref.row)].withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
        }
        var moves = 0
        var last = try storage()
        for animal in animals {
            animal.category = category
            let now = try storage()
            if now != last { moves += 1; last = now }
        }
        // Growth by doubling: about log2(20,000) ≈ 15 moves; a copy per set would be 20,000.
        #expect(moves <= 40, "the list moved \(moves) times")
        #expect(category.animals.count == animals.count && category.animals.last === animals.last)
        context.undoManager?.undo()
        #expect(category.animals.isEmpty && animals.allSatisfy { $0.category == nil })
        context.undoManager?.redo()
        #expect(category.animals.map(\.name) == animals.map(\.name))
    }

    @Test func `a class may have its models made on any thread only when its initializer is nonisolated, its initial values literals and it has no superclass`()
    {
        #expect(Country._$makesModelsAnywhere && ModelContext.makesModelsAnywhere(Country.self))
        #expect(DerivedNote._$makesModelsAnywhere && !ModelContext.makesModelsAnywhere(DerivedNote.self))
        #expect(!BackingData._isNonisolated(makeOnTheMainActor))
        #expect(BackingData._isNonisolated { (_: BackingData) in 0 })
        #expect(!StampedNote._$makesModelsAnywhere)
        #expect(!DynamicModel._$makesModelsAnywhere)
    }

    /// A context on a saved container of `count` countries, none of whose models is made yet.
    static func manyCountries(_ count: Int) throws -> (ModelContainer, ModelContext) {
        let container = try ModelContainer(for: Country.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let writer = ModelContext(container)
        for index in 0..<count { writer.insert(Country(name: "C\(index)", visited: index % 3 == 0)) }
        try writer.save()
        return (container, ModelContext(container))
    }

    @Test func `a fetch of many models, made on every core, registers each once and reads what the dynamic API reads`() throws {
        let count = ModelContext.modelsMadeConcurrentlyFrom + 5_001
        let (_, context) = try Self.manyCountries(count)
        let countries = try context.fetch(FetchDescriptor<Country>())
        #expect(countries.count == count)
        #expect(context.typed.registry.count == count)
        var mismatches = 0
        for country in countries {
            let id = country.persistentModelID
            guard context.registeredModel(for: id) as Country? === country,
                case .string(let name) = try context.value("name", of: id), name == country.name,
                case .bool(let visited) = try context.value("visited", of: id), visited == country.visited
            else { mismatches += 1; continue }
        }
        #expect(mismatches == 0)
        #expect(Set(countries.map(\.name)).count == count)
        // Fetched again, the same instances.
        let again = try context.fetch(FetchDescriptor<Country>())
        #expect(zip(countries, again).allSatisfy { $0 === $1 })
    }

    @Test func `models made on every core edit, undo and go like any other`() throws {
        let count = ModelContext.modelsMadeConcurrentlyFrom + 1_000
        let (_, context) = try Self.manyCountries(count)
        context.undoManager = UndoManager()
        do {
            let countries = try context.fetch(FetchDescriptor<Country>())
            let last = try #require(countries.last)
            last.name = "Renamed"
            context.processPendingChanges()
            #expect(try context.value("name", of: last.persistentModelID) == .string("Renamed"))
            context.undoManager?.undo()
            #expect(last.name == "C\(count - 1)")
        }
        // Released, each model leaves the registry (the edited one holds its own backing data).
        #expect(context.typed.registry.count == 0)
        #expect(context.columns(for: Country.self)?.sharingModels == 0)
        #expect(try context.fetch(FetchDescriptor<Country>()).count == count)
    }

    @Test func `a large fetch reuses the models made already and makes the rest`() throws {
        let count = ModelContext.modelsMadeConcurrentlyFrom + 2_000
        let (_, context) = try Self.manyCountries(count)
        var some = FetchDescriptor<Country>()
        some.fetchOffset = count / 2
        some.fetchLimit = 100
        let held = try context.fetch(some)
        let all = try context.fetch(FetchDescriptor<Country>())
        #expect(all.count == count)
        #expect(zip(held, all[(count / 2)...]).allSatisfy { $0 === $1 })
        #expect(context.typed.registry.count == count)
        #expect(all.allSatisfy { $0.modelContext === context })
    }

    @Test func `an object listed twice in a large batch gets one model, as on one thread`() throws {
        let count = ModelContext.modelsMadeConcurrentlyFrom / 2 + 100
        let (_, context) = try Self.manyCountries(count)
        let entity = try #require(context.graph.layout.entityIndex["Country"])
        let refs = (0..<count).map { ObjectRef(entity: entity, row: $0) }
        let models = context.models(Country.self, at: refs + refs)
        #expect(models.count == 2 * count)
        #expect((0..<count).allSatisfy { models[$0] === models[$0 + count] })
        #expect(context.typed.registry.count == count)
        #expect(context.columns(for: Country.self)?.sharingModels == count)
        #expect(models.allSatisfy { context.registeredModel(for: $0.persistentModelID) as Country? === $0 })
    }
}
