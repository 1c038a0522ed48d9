import Folio
@testable import FolioCore
import Testing
import Synchronization
import Foundation
import Observation
import PropertyBased
import FolioTestSupport

/// A plain base class whose initial value is a call.
class StampedBase {
    var stamp = Date()
    init() {}
}

/// A model whose own initial values are literals, but whose superclass's are not.
@Model
final class DerivedNote: StampedBase {
    var text: String = ""
    init(text: String) {
        super.init()
        self.text = text
    }
}

/// What an initializer isolated to the main actor looks like to `_isNonisolated`.
@MainActor private func makeOnTheMainActor(_ backing: BackingData) -> Int { 0 }

/// A model class whose transient state starts as a call: made on the fetching thread only.
@Model
final class StampedNote {
    var text: String
    @Transient var seen = Date()
    init(text: String) { self.text = text }
}

@Suite struct ModelContextModelsTests {
    let container: ModelContainer
    let context: ModelContext

    init() throws {
        container = try ModelContainer(for: Country.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        context = ModelContext(container)
        for (name, visited) in [("Chile", false), ("Fiji", true), ("Laos", false), ("Mali", true), ("Oman", false)] {
            context.insert(Country(name: name, visited: visited))
        }
        try context.save()
    }

    @Test func `fetch honours sort, offset and limit, and fetchCount ignores the window`() throws {
        var descriptor = FetchDescriptor<Country>(sortBy: [SortDescriptor(\.name, order: .reverse)])
        descriptor.fetchOffset = 1
        descriptor.fetchLimit = 2
        #expect(try context.fetch(descriptor).map(\.name) == ["Mali", "Laos"])
        #expect(try context.fetchCount(descriptor) == 5)
        #expect(try context.fetchIdentifiers(descriptor).count == 2)
    }

    @Test func `includePendingChanges false fetches what was last saved`() throws {
        context.insert(Country(name: "Peru"))
        let fiji = try #require(try context.fetch(FetchDescriptor<Country>(predicate: #Predicate { $0.name == "Fiji" })).first)
        context.delete(fiji)
        var saved = FetchDescriptor<Country>(sortBy: [SortDescriptor(\.name)])
        saved.includePendingChanges = false
        #expect(try context.fetch(saved).map(\.name) == ["Chile", "Fiji", "Laos", "Mali", "Oman"])
        #expect(try context.fetch(FetchDescriptor<Country>(sortBy: [SortDescriptor(\.name)])).map(\.name) == ["Chile", "Laos", "Mali", "Oman", "Peru"])
    }

    @Test func `a fetched object is the same model instance every time while it is held`() throws {
        let first = try context.fetch(FetchDescriptor<Country>(sortBy: [SortDescriptor(\.name)]))
        let second = try context.fetch(FetchDescriptor<Country>(sortBy: [SortDescriptor(\.name)]))
        #expect(zip(first, second).allSatisfy { $0 === $1 })
        let id = first[0].persistentModelID
        #expect(context.registeredModel(for: id) as Country? === first[0])
        #expect(context.model(for: id) as? Country === first[0])
    }

    @Test func `model(for:) makes a model for an identifier, and nil for an unknown one`() throws {
        let id = try #require(try context.fetchIdentifiers(FetchDescriptor<Country>()).first)
        let other = ModelContext(container)
        let model = try #require(other.model(for: id) as? Country)
        #expect(model.name == "Chile")
        #expect(model.modelContext === other)
        #expect(other.model(for: PersistentIdentifier(entityName: "Country", id: 9_999)) == nil)
        #expect(other.model(for: PersistentIdentifier(entityName: "Nation", id: id.id)) == nil)
    }

    @Test func `the inserted, changed and deleted arrays list the models of unsaved changes`() throws {
        let countries = try context.fetch(FetchDescriptor<Country>(sortBy: [SortDescriptor(\.name)]))
        let peru = Country(name: "Peru")
        context.insert(peru)
        countries[0].visited = true
        context.delete(countries[1])

        #expect(context.insertedModelsArray.map { $0 as? Country } == [peru])
        #expect(context.changedModelsArray.map { $0 as? Country } == [countries[0]])
        #expect(context.deletedModelsArray.map { $0 as? Country } == [countries[1]])
        #expect(peru.hasChanges && countries[0].hasChanges && !countries[2].hasChanges)

        try context.save()
        #expect(context.insertedModelsArray.isEmpty && context.changedModelsArray.isEmpty && context.deletedModelsArray.isEmpty)
    }

    @Test func `edits undone or set back by hand leave no changes: hasChanges and the arrays follow the saved state`() throws {
        context.undoManager = UndoManager()
        let countries = try context.fetch(FetchDescriptor<Country>(sortBy: [SortDescriptor(\.name)]))
        countries[0].visited = true
        context.processPendingChanges()
        #expect(context.hasChanges && countries[0].hasChanges)
        context.undoManager?.undo()
        #expect(!context.hasChanges && !countries[0].hasChanges)
        #expect(context.changedModelsArray.isEmpty)

        context.undoManager?.redo()
        #expect(context.changedModelsArray.map { $0 as? Country } == [countries[0]])
        context.undoManager?.undo()

        countries[1].name = "Fiji Islands"
        countries[1].name = "Fiji"
        #expect(!context.hasChanges && context.changedModelsArray.isEmpty)

        countries[0].visited = true
        context.processPendingChanges()
        context.delete(countries[2])
        context.processPendingChanges()
        context.undoManager?.undo()
        #expect(context.deletedModelsArray.isEmpty && !countries[2].isDeleted)
        #expect(context.changedModelsArray.map { $0 as? Country } == [countries[0]])
    }

    @Test func `rollback detaches unsaved inserts, which keep their values, and restores edited models`() throws {
        let chile = try #require(try context.fetch(FetchDescriptor<Country>(predicate: #Predicate { $0.name == "Chile" })).first)
        let peru = Country(name: "Peru", visited: true)
        context.insert(peru)
        chile.visited = true

        context.rollback()
        #expect(peru.modelContext == nil)
        #expect(peru.name == "Peru" && peru.visited)
        #expect(chile.modelContext === context)
        #expect(!chile.visited)
        #expect(try context.fetchCount(FetchDescriptor<Country>()) == 5)
    }

    @Test func `inserting a model twice, or one of another context, adds nothing`() throws {
        let peru = Country(name: "Peru")
        context.insert(peru)
        context.insert(peru)
        #expect(try context.fetchCount(FetchDescriptor<Country>()) == 6)
        let other = ModelContext(container)
        let chile = try #require(try context.fetch(FetchDescriptor<Country>(predicate: #Predicate { $0.name == "Chile" })).first)
        other.insert(chile)
        #expect(try other.fetchCount(FetchDescriptor<Country>()) == 5)
    }

    @Test func `enumerate visits the selected models in order and skips the ones the block deleted`() throws {
        let undo = UndoManager()
        context.undoManager = undo
        var visited: [String] = []
        try context.enumerate(FetchDescriptor<Country>(sortBy: [SortDescriptor(\.name)]), batchSize: 2) { country in
            visited.append(country.name)
            if country.name == "Chile" {
                let laos = try #require(try context.fetch(FetchDescriptor<Country>(predicate: #Predicate { $0.name == "Laos" })).first)
                context.delete(laos)
            }
            country.visited = true
        }
        #expect(visited == ["Chile", "Fiji", "Mali", "Oman"])
        #expect(try context.fetchCount(FetchDescriptor<Country>(predicate: #Predicate { $0.visited })) == 4)
        // The block's edits are ordinary edits: undo takes them back.
        context.processPendingChanges()
        undo.undo()
        #expect(try context.fetchCount(FetchDescriptor<Country>()) == 5)
        #expect(try context.fetchCount(FetchDescriptor<Country>(predicate: #Predicate { $0.visited })) == 2)
    }

    @Test func `an error thrown by the enumerate block stops the enumeration and reaches the caller`() throws {
        struct Stop: Error {}
        var visited = 0
        #expect(throws: Stop.self) {
            try context.enumerate(FetchDescriptor<Country>(predicate: #Predicate { !$0.visited })) { _ in
                visited += 1
                if visited == 2 { throw Stop() }
            }
        }
        #expect(visited == 2)
    }

    @Test func `fetching a model class the container does not know throws`() throws {
        #expect(throws: ModelError.graph(.unknownEntity("Todo"))) {
            _ = try context.fetch(FetchDescriptor<Todo>())
        }
    }
}

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

    @Test func `setting a to-one whose inverse is a large to-many appends to it in place, and one undo takes every link back`() throws {
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

/// A large fetch makes its models on every core, each slice of the result
/// sharing a backing data of its own (``ModelContext/models(_:at:)``): these
/// hold the models of every slice, not only the first, to what models made on
/// one thread do — the right object, its to-one destinations, edits, undo,
/// rollback, save, merges, observers told, the registry and the count of
/// sharing models kept exact.
@Suite struct ModelsMadeOnEveryCoreTests {
    /// Over the threshold, so fetching every book makes its models on every core.
    static let count = ModelContext.modelsMadeConcurrentlyFrom + 1_000

    /// `count` books, book `i` with `i` pages, on three shelves (every fourth on
    /// none), saved in a package at `url` by a container dropped since.
    static func seed(at url: URL, count: Int = count) throws {
        let container = try ModelContainer(for: ShareBook.self, ShareShelf.self, configurations: ModelConfiguration(url: url))
        let writer = ModelContext(container)
        writer.autosaveEnabled = false
        let shelves = (0..<3).map { ShareShelf(label: "shelf \($0)") }
        for index in 0..<count {
            writer.insert(ShareBook(title: "book \(index)", pages: index, shelf: index % 4 == 3 ? nil : shelves[index % 3]))
        }
        try writer.save()
    }

    /// The package ``seed(at:count:)`` makes, made once per test process and
    /// copied by each test: seeding makes 33,768 models, most of a test's work.
    private static let template: Result<TemporaryFolder, any Error> = Result {
        let folder = try TemporaryFolder("every-core-template")
        try seed(at: folder.appending("Books.folio"))
        atexit { try? ModelsMadeOnEveryCoreTests.template.get().remove() }
        return folder
    }

    /// A copy at `url` of the package ``seed(at:count:)`` makes with ``count`` books.
    static func seededCopy(at url: URL) throws {
        try FileManager.default.copyItem(at: template.get().appending("Books.folio"), to: url)
    }

    /// A seeded package in a folder of its own (removed when this goes), a container on it, a context of it.
    struct Seeded {
        let folder: TemporaryFolder
        let url: URL
        let container: ModelContainer
        let context: ModelContext

        init() throws {
            folder = try TemporaryFolder("every-core")
            url = folder.appending("Books.folio")
            try ModelsMadeOnEveryCoreTests.seededCopy(at: url)
            container = try ModelContainer(for: ShareBook.self, ShareShelf.self, configurations: ModelConfiguration(url: url))
            context = ModelContext(container)
        }
    }

    /// The shelf label book `index` was seeded with.
    static func label(of index: Int) -> String? { index % 4 == 3 ? nil : "shelf \(index % 3)" }

    /// Whether the fetch took the concurrent path here: its shared models hold more than one backing data.
    static func backings(_ books: [ShareBook]) -> Int {
        Set(books.filter { $0._$sharedRow.isShared }.map { ObjectIdentifier($0._$heldBackingData) }).count
    }

    @Test func `models of every slice read their own objects and their to-one destinations, one model per destination`() throws {
        let seeded = try Seeded()
        let context = seeded.context
        let books = try context.fetch(FetchDescriptor<ShareBook>())
        #expect(books.count == Self.count)
        if ProcessInfo.processInfo.activeProcessorCount > 1 {
            #expect(Self.backings(books) == ProcessInfo.processInfo.activeProcessorCount, "one backing data per slice")
        }
        var wrong = 0
        for (index, book) in books.enumerated()
        where book.pages != index || book.title != "book \(index)"
            || book.shelf?.label != Self.label(of: index)
        {
            wrong += 1
        }
        #expect(wrong == 0)
        // The same shelf read through a book of the first slice and one of the last is one model.
        let first = try #require(books.first?.shelf)
        let last = try #require(books[(Self.count - 1) / 12 * 12].shelf)
        #expect(first === last && first.label == "shelf 0")
        #expect(books.allSatisfy { $0._$sharedRow.isShared }, "reads outside tracking keep every model sharing")
        #expect(context.columns(for: ShareBook.self)?.sharingModels == Self.count)
    }

    @Test @MainActor func `a model of the last slice edits, relinks, undoes, rolls back, saves and tells its observer like one of the first`() throws {
        let folder = try TemporaryFolder("every-core")
        let url = folder.appending("Books.folio")
        try Self.seededCopy(at: url)
        let container = try ModelContainer(for: ShareBook.self, ShareShelf.self, configurations: ModelConfiguration(url: url))
        let context = container.mainContext
        context.autosaveEnabled = false
        context.undoManager = UndoManager()
        let index = Self.count - 2  // in the last slice, on a shelf
        do {
            let books = try context.fetch(FetchDescriptor<ShareBook>())
            let book = books[index]
            let neighbour = books[index - 1]
            let shared = book._$heldBackingData
            if ProcessInfo.processInfo.activeProcessorCount > 1 {
                #expect(shared !== books[0]._$heldBackingData, "made by another thread than the first slice")
            }
            // Observed, then edited through the dynamic API and undone.
            let told = Mutex<[String]>([])
            withObservationTracking {
                _ = book.pages
            } onChange: {
                told.withLock { $0.append("dynamic") }
            }
            #expect(!book._$sharedRow.isShared && neighbour._$heldBackingData === shared)
            try context.setValue(.int(-7), for: "pages", of: book.persistentModelID)
            #expect(book.pages == -7)
            context.processPendingChanges()
            withObservationTracking {
                _ = book.pages
            } onChange: {
                told.withLock { $0.append("undo") }
            }
            context.undoManager?.undo()
            #expect(book.pages == index)
            #expect(told.withLock { $0 } == ["dynamic", "undo"])
            // A typed edit and a relink, undone and redone.
            let shelves = try context.fetch(FetchDescriptor<ShareShelf>(sortBy: [SortDescriptor(\.label)]))
            let original = try #require(book.shelf)
            #expect(original.label == Self.label(of: index) && original !== shelves[2])
            book.pages = 5
            book.shelf = shelves[2]
            context.processPendingChanges()
            #expect(book.shelf === shelves[2] && shelves[2].books.contains { $0 === book })
            context.undoManager?.undo()
            #expect(book.pages == index && book.shelf === original)
            context.undoManager?.redo()
            #expect(book.pages == 5 && book.shelf?.label == "shelf 2")
            try context.save()
            // Edited again, then rolled back to what was saved.
            book.pages = 9
            neighbour.pages = 9
            context.rollback()
            #expect(book.pages == 5 && neighbour.pages == index - 1)
            #expect(book.shelf?.label == "shelf 2")
            #expect(context.registeredModel(for: book.persistentModelID) as ShareBook? === book)
            #expect(context.registeredModel(for: neighbour.persistentModelID) as ShareBook? === neighbour)
        }
        // Every model released: none stays registered or counted.
        #expect(!context.typed.registry.entries.contains { $0.model is ShareBook })
        #expect(context.columns(for: ShareBook.self)?.sharingModels ?? 0 == 0)
        // Another container reads the save.
        let reopened = ModelContext(try ModelContainer(for: ShareBook.self, ShareShelf.self, configurations: ModelConfiguration(url: url)))
        let again = try reopened.fetch(FetchDescriptor<ShareBook>())
        #expect(again[index].pages == 5 && again[index].shelf?.label == "shelf 2")
        #expect(again[index - 1].pages == index - 1)
    }

    @Test func `another context's save merges into the models of every slice`() throws {
        let seeded = try Seeded()
        let (container, context) = (seeded.container, seeded.context)
        let books = try context.fetch(FetchDescriptor<ShareBook>())
        let other = ModelContext(container)
        let ids = try other.fetchIdentifiers(FetchDescriptor<ShareBook>())
        for index in [0, Self.count / 2, Self.count - 1] { try other.setValue(.int(-1), for: "pages", of: ids[index]) }
        try other.delete(ids[Self.count - 5])
        try other.save()
        _ = try context.fetch(FetchDescriptor<ShareShelf>())  // merges
        #expect([0, Self.count / 2, Self.count - 1].allSatisfy { books[$0].pages == -1 })
        #expect(books[Self.count - 5].modelContext == nil && books[Self.count - 6].modelContext === context)
        #expect(books[Self.count - 6].pages == Self.count - 6)
        // A refetch after the merge hands out the same instances.
        let again = try context.fetch(FetchDescriptor<ShareBook>())
        #expect(again.count == Self.count - 1)
        #expect(again.last === books.last && again.first === books.first)
    }

    @Test @MainActor
    func `models made on every core read what the dynamic API reads through any fetches, edits, merges, undo, redo, rollbacks, saves and drops`() async throws {
        let seedFolder = try TemporaryFolder("every-core-seed")
        let seeded = seedFolder.appending("Books.folio")
        try Self.seededCopy(at: seeded)
        await checkProperty(count: 6, input: SessionStep.generator.array(of: 1...16)) { plan in
            let folder = try TemporaryFolder("every-core")
            let url = folder.appending("Books.folio")
            try FileManager.default.copyItem(at: seeded, to: url)
            let container = try ModelContainer(for: ShareBook.self, ShareShelf.self, configurations: ModelConfiguration(url: url))
            container.mainContext.autosaveEnabled = false
            var session = try SharedBackingRowTests.Session(container) { context, rng in
                // The whole entity: over the threshold, made on every core. Held: a few of each slice.
                let books = try context.fetch(FetchDescriptor<ShareBook>())
                return (0..<4).compactMap { _ in books.randomElement(using: &rng) } + (books.last.map { [$0] } ?? [])
            }
            for planned in plan { try session.run(planned) }
        }
    }
}
