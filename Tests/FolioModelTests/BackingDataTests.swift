import Foundation
import Folio
import Synchronization
import Testing
import FolioTestSupport

/// Every kind of attribute Folio stores, on one model.
@Model
final class Specimen {
    struct Tag: Codable, Hashable {
        var label: String
        var weight: Double
    }
    enum Mood: String, Codable { case calm, curious }

    var text: String = ""
    var flag: Bool = false
    var small: Int8 = 0
    var wide: UInt64 = 0
    var number: Int = 0
    var ratio: Double = 0
    var single: Float = 0
    var when: Date = Date(timeIntervalSinceReferenceDate: 0)
    var bytes: Data = Data()
    var uuid: UUID = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
    var link: URL = URL(fileURLWithPath: "/")
    var amount: Decimal = 0
    var maybe: String?
    var list: [Int] = []
    var cities: Set<String> = []
    var parks: [String: String] = [:]
    var companion: Value = .null
    var tag: Tag = Tag(label: "", weight: 0)
    var mood: Mood = .calm
    var optionalTag: Tag?
    @Attribute(.externalStorage) var photo: Data?
}

@Suite struct BackingDataTests {
    /// Lives as long as the test: externally stored values are read from the
    /// package when first used, so it must outlast the reads.
    let folder: TemporaryFolder

    init() throws { folder = try TemporaryFolder() }

    func roundTrip(_ configure: (Specimen) -> Void) throws -> (saved: Specimen, reopened: Specimen) {
        let url = folder.url.appendingPathComponent("Specimens.folio")
        let context = ModelContext(try ModelContainer(for: Specimen.self, configurations: ModelConfiguration(url: url)))
        let specimen = Specimen()
        configure(specimen)
        context.insert(specimen)
        try context.save()
        let reopened = ModelContext(try ModelContainer(for: Specimen.self, configurations: ModelConfiguration(url: url, allowsSave: false)))
        return (specimen, try #require(try reopened.fetch(FetchDescriptor<Specimen>()).first))
    }

    @Test func `every attribute type keeps its exact value through insert, save and reopen`() throws {
        let when = Date(timeIntervalSinceReferenceDate: 123_456.789_012)
        let uuid = UUID()
        let (saved, reopened) = try roundTrip { specimen in
            specimen.text = "é\u{0}x"
            specimen.flag = true
            specimen.small = -128
            specimen.wide = .max
            specimen.number = -42
            specimen.ratio = -0.0
            specimen.single = .pi
            specimen.when = when
            specimen.bytes = Data([0, 255])
            specimen.uuid = uuid
            specimen.link = URL(string: "https://example.com/a?b=c")!
            specimen.amount = Decimal(string: "12.345")!
            specimen.maybe = "here"
            specimen.list = [3, 1, 2]
            specimen.cities = ["Boston", "New York"]
            specimen.parks = ["New York": "Central Park"]
            specimen.companion = .string("Fluffy the Cat")
            specimen.tag = Specimen.Tag(label: "blue", weight: 1.5)
            specimen.mood = .curious
            specimen.optionalTag = Specimen.Tag(label: "x", weight: 2)
            specimen.photo = Data(repeating: 7, count: 10_000)
        }
        for specimen in [saved, reopened] {
            #expect(specimen.text == "é\u{0}x")
            #expect(specimen.flag)
            #expect(specimen.small == -128)
            #expect(specimen.wide == .max)
            #expect(specimen.number == -42)
            #expect(specimen.ratio.bitPattern == (-0.0 as Double).bitPattern)
            #expect(specimen.single == .pi)
            #expect(specimen.when == when)
            #expect(specimen.bytes == Data([0, 255]))
            #expect(specimen.uuid == uuid)
            #expect(specimen.link.absoluteString == "https://example.com/a?b=c")
            #expect(specimen.amount == Decimal(string: "12.345")!)
            #expect(specimen.maybe == "here")
            #expect(specimen.list == [3, 1, 2])
            #expect(specimen.cities == ["Boston", "New York"])
            #expect(specimen.parks == ["New York": "Central Park"])
            #expect(specimen.companion == .string("Fluffy the Cat"))
            #expect(specimen.tag == Specimen.Tag(label: "blue", weight: 1.5))
            #expect(specimen.mood == .curious)
            #expect(specimen.optionalTag == Specimen.Tag(label: "x", weight: 2))
            #expect(specimen.photo == Data(repeating: 7, count: 10_000))
        }
    }

    @Test func `an externally stored property is read when first used; a damaged file is reported and reads as empty data`() throws {
        let url = folder.url.appendingPathComponent("Specimens.folio")
        do {
            // Dropped before the reopen: a container still open would share its store,
            // whose graph holds the bytes it saved, and never read the file.
            let context = ModelContext(try ModelContainer(for: Specimen.self, configurations: ModelConfiguration(url: url)))
            let specimen = Specimen()
            specimen.photo = Data(repeating: 7, count: 10_000)
            context.insert(specimen)
            try context.save()
        }
        let blobs = url.appendingPathComponent("blobs")
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: blobs.path).first)
        let path = blobs.appendingPathComponent(name).path
        try Data(repeating: 8, count: 10_000).write(to: URL(fileURLWithPath: path))
        let context = ModelContext(try ModelContainer(for: Specimen.self, configurations: ModelConfiguration(url: url, allowsSave: false)))
        let reopened = try #require(try context.fetch(FetchDescriptor<Specimen>()).first)
        let reported = Mutex<[ModelError]>([])
        reopened.modelContext?.autosaveErrorHandler = { error in reported.withLock { $0.append(error) } }
        #expect(reopened.photo == Data())
        #expect(reported.withLock { $0 } == [.package(.blobHashMismatch(path: path))])
    }

    @Test func `the Realm guide's removals are ordinary edits: a set element, a map entry, an any-value set to none`() throws {
        let context = ModelContext(try ModelContainer(for: Specimen.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true)))
        context.undoManager = UndoManager()
        let dog = Specimen()
        dog.cities = ["New York", "Boston", "Toronto"]
        dog.parks = ["New York": "Central Park", "Boston": "Common"]
        dog.companion = .string("Fluffy the Cat")
        context.insert(dog)
        context.processPendingChanges()

        dog.cities.remove("Toronto")
        dog.parks["New York"] = nil
        dog.companion = .null
        context.processPendingChanges()
        #expect(dog.cities == ["New York", "Boston"])
        #expect(dog.parks == ["Boston": "Common"])
        #expect(dog.companion == .null)

        context.undoManager?.undo()
        #expect(dog.cities.count == 3)
        #expect(dog.parks["New York"] == "Central Park")
        #expect(dog.companion == .string("Fluffy the Cat"))
    }

    @Test func `a model not yet inserted keeps its values itself and has a temporary identifier`() {
        let first = Specimen()
        let second = Specimen()
        first.text = "draft"
        #expect(first.text == "draft")
        #expect(first.modelContext == nil)
        #expect(!first.isDeleted)
        #expect(first.persistentModelID != second.persistentModelID)
        #expect(first != second)
    }

    /// Before insertion a value a type Folio stores directly is kept in its
    /// stored form and read back through `init(persistentValue:)`: every type
    /// must come back exactly as set, before the insert and after it.
    @Test @MainActor func `a model not yet inserted reads back every attribute type exactly as last set, and so does the inserted model`() throws {
        let when = Date(timeIntervalSinceReferenceDate: 123_456.789_012)
        let uuid = UUID()
        let link = try #require(URL(string: "b?c=d", relativeTo: URL(string: "https://example.com/a/")))
        let specimen = Specimen()
        // Each set twice, the first value overwritten: what counts is the last.
        specimen.text = "first"
        specimen.text = "é\u{0}x"
        specimen.small = 1
        specimen.small = -128
        specimen.wide = .max
        specimen.number = -42
        specimen.ratio = -0.0
        specimen.single = .nan
        specimen.when = when
        specimen.bytes = Data([0, 1, 255])[1...]
        specimen.uuid = uuid
        specimen.link = link
        specimen.amount = try #require(Decimal(string: "12.345"))
        specimen.maybe = "here"
        specimen.maybe = nil
        specimen.list = [3, 1, 2]
        specimen.cities = ["Boston", "New York"]
        specimen.parks = ["New York": "Central Park"]
        specimen.companion = .array([.int(1), .null])
        specimen.companion = .string("Fluffy the Cat")
        specimen.tag = Specimen.Tag(label: "blue", weight: 1.5)
        specimen.mood = .curious
        specimen.photo = Data(repeating: 7, count: 100)

        func expectAsSet(_ specimen: Specimen, sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(specimen.text == "é\u{0}x", sourceLocation: sourceLocation)
            #expect(specimen.small == -128, sourceLocation: sourceLocation)
            #expect(specimen.wide == .max, sourceLocation: sourceLocation)
            #expect(specimen.number == -42, sourceLocation: sourceLocation)
            #expect(specimen.ratio.bitPattern == (-0.0 as Double).bitPattern, sourceLocation: sourceLocation)
            #expect(specimen.single.isNaN, sourceLocation: sourceLocation)
            #expect(specimen.when == when, sourceLocation: sourceLocation)
            #expect(specimen.bytes == Data([1, 255]), sourceLocation: sourceLocation)
            #expect(specimen.uuid == uuid, sourceLocation: sourceLocation)
            #expect(specimen.link.absoluteString == "https://example.com/a/b?c=d", sourceLocation: sourceLocation)
            #expect(specimen.amount == Decimal(string: "12.345"), sourceLocation: sourceLocation)
            #expect(specimen.maybe == nil, sourceLocation: sourceLocation)
            #expect(specimen.list == [3, 1, 2], sourceLocation: sourceLocation)
            #expect(specimen.cities == ["Boston", "New York"], sourceLocation: sourceLocation)
            #expect(specimen.parks == ["New York": "Central Park"], sourceLocation: sourceLocation)
            #expect(specimen.companion == .string("Fluffy the Cat"), sourceLocation: sourceLocation)
            #expect(specimen.tag == Specimen.Tag(label: "blue", weight: 1.5), sourceLocation: sourceLocation)
            #expect(specimen.mood == .curious, sourceLocation: sourceLocation)
            #expect(specimen.photo == Data(repeating: 7, count: 100), sourceLocation: sourceLocation)
        }
        expectAsSet(specimen)
        let container = try ModelContainer(for: Specimen.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        container.mainContext.insert(specimen)
        #expect(specimen.modelContext === container.mainContext)
        expectAsSet(specimen)
    }

    @Test func `setting a property notifies Observation, inserted or not`() throws {
        let specimen = Specimen()
        let changes = Mutex(0)
        withObservationTracking {
            _ = specimen.text
        } onChange: {
            changes.withLock { $0 += 1 }
        }
        specimen.text = "one"
        #expect(changes.withLock { $0 } == 1)

        let context = ModelContext(try ModelContainer(for: Specimen.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true)))
        context.insert(specimen)
        withObservationTracking {
            _ = specimen.text
        } onChange: {
            changes.withLock { $0 += 1 }
        }
        specimen.text = "two"
        #expect(changes.withLock { $0 } == 2)
    }

    @Test func `undo, redo and dynamic edits notify the observers of the models they change`() throws {
        let context = ModelContext(try ModelContainer(for: AnimalCategory.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true)))
        context.undoManager = UndoManager()
        let birds = AnimalCategory(name: "Bird")
        let robin = Animal(name: "Robin", diet: .omnivorous)
        context.insert(birds)
        context.insert(robin)
        context.processPendingChanges()
        robin.category = birds
        context.processPendingChanges()

        let changes = Mutex<[String]>([])
        func observe() {
            withObservationTracking {
                _ = robin.name
            } onChange: {
                changes.withLock { $0.append("name") }
            }
            withObservationTracking {
                _ = birds.animals
            } onChange: {
                changes.withLock { $0.append("animals") }
            }
        }
        observe()
        context.undoManager?.undo()  // unlinks: the category's list changes
        #expect(changes.withLock { $0 } == ["animals"])
        #expect(birds.animals.isEmpty)

        observe()
        try context.setValue(.string("Wren"), for: "name", of: robin.persistentModelID)
        #expect(changes.withLock { $0 }.contains("name"))
        #expect(robin.name == "Wren")
    }

    @Test func `a typed edit and a dynamic edit are the same edit, undone the same way`() throws {
        let context = ModelContext(try ModelContainer(for: Specimen.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true)))
        context.undoManager = UndoManager()
        let specimen = Specimen()
        context.insert(specimen)
        context.processPendingChanges()
        let id = specimen.persistentModelID

        specimen.text = "typed"
        context.processPendingChanges()
        #expect(try context.value("text", of: id) == .string("typed"))
        #expect(context.undoManager?.undoActionName == "Set Specimen.text")

        try context.setValue(.string("dynamic"), for: "text", of: id)
        context.processPendingChanges()
        #expect(specimen.text == "dynamic")

        context.undoManager?.undo()
        #expect(specimen.text == "typed")
        context.undoManager?.undo()
        #expect(specimen.text == "")
        context.undoManager?.redo()
        #expect(try context.value("text", of: id) == .string("typed"))
    }
}

@Model
final class Shelf {
    var label: String
    @Relationship(deleteRule: .cascade, inverse: \Volume.shelf) var volumes: [Volume] = []
    init(label: String) { self.label = label }
}

@Model
final class Volume {
    var title: String
    var price: Decimal = 0
    var extra: Value = .null
    var shelf: Shelf?
    init(title: String, shelf: Shelf? = nil) {
        self.title = title
        self.shelf = shelf
    }
}

struct Nest: Codable, Equatable {
    var inner: [Nest]
}

@Model
final class Burrow {
    var nest = Nest(inner: [])
    init() {}
}

/// Collects what a context reports to its `autosaveErrorHandler`.
final class ReportedErrors: Sendable {
    private let errors = Mutex<[ModelError]>([])
    var all: [ModelError] { errors.withLock { $0 } }
    func attach(to context: ModelContext) { context.autosaveErrorHandler = { error in self.errors.withLock { $0.append(error) } } }
}

@Suite struct BackingDataLifeCycleTests {
    func memoryContext() throws -> ModelContext {
        ModelContext(try ModelContainer(for: Shelf.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true)))
    }

    @Test func `a typed setter refuses what the document cannot hold, as the dynamic API does, and reports it`() throws {
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("Shelves.folio")
        do {
            let context = ModelContext(try ModelContainer(for: Shelf.self, configurations: ModelConfiguration(url: url)))
            let reported = ReportedErrors()
            reported.attach(to: context)
            let volume = Volume(title: "Dune")
            context.insert(volume)
            volume.price = 12.5
            volume.price = Decimal.nan
            volume.extra = .array([.int(1)])  // an any-value holds one scalar, never a list
            #expect(volume.price == 12.5)
            #expect(volume.extra == .null)
            #expect(reported.all.count == 2)
            guard case .graph(.typeMismatch(let entity, let attribute, _, _))? = reported.all.first else {
                Issue.record("expected a type mismatch, got \(reported.all)")
                return
            }
            #expect(entity == "Volume" && attribute == "price")
            try context.save()
        }
        let reopened = ModelContext(try ModelContainer(for: Shelf.self, configurations: ModelConfiguration(url: url, allowsSave: false)))
        #expect(try reopened.fetch(FetchDescriptor<Volume>()).map(\.price) == [12.5])
    }

    @Test func `a typed setter refuses a value nested deeper than the document's limit, naming it, and the saved document reopens`() throws {
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("Nests.folio")
        // Each Nest is a dictionary holding an array: two levels of the 64 allowed.
        func nest(_ levels: Int) -> Nest { (0..<levels).reduce(Nest(inner: [])) { inner, _ in Nest(inner: [inner]) } }
        do {
            let context = ModelContext(try ModelContainer(for: Burrow.self, configurations: ModelConfiguration(url: url)))
            let reported = ReportedErrors()
            reported.attach(to: context)
            let burrow = Burrow()
            context.insert(burrow)
            burrow.nest = nest(31)  // 64 levels
            burrow.nest = nest(32)  // 66 levels: refused
            #expect(burrow.nest == nest(31))
            guard case .graph(.limitExceeded(let entity, let attribute, .nesting, let size, let maximum))? = reported.all.first else {
                Issue.record("expected a nesting limit, got \(reported.all)")
                return
            }
            #expect(entity == "Burrow" && attribute == "nest" && size > maximum && maximum == 64)
            try context.save()
        }
        let reopened = ModelContext(try ModelContainer(for: Burrow.self, configurations: ModelConfiguration(url: url, allowsSave: false)))
        #expect(try reopened.fetch(FetchDescriptor<Burrow>()).map(\.nest) == [nest(31)])
    }

    @Test func `models related to each other before insertion are freed with their context`() throws {
        weak var weakShelf: Shelf?
        weak var weakVolume: Volume?
        weak var weakContext: ModelContext?
        do {
            let context = try memoryContext()
            let shelf = Shelf(label: "SF")
            let volume = Volume(title: "Dune", shelf: shelf)
            shelf.volumes = [volume]
            context.insert(shelf)
            try context.save()
            #expect(shelf.volumes.map(\.title) == ["Dune"])
            weakShelf = shelf
            weakVolume = volume
            weakContext = context
        }
        #expect(weakShelf == nil)
        #expect(weakVolume == nil)
        #expect(weakContext == nil)
    }

    @Test func `a model whose insert was undone is unmanaged again, keeps its values, and inserting it makes a new object`() throws {
        let context = try memoryContext()
        context.undoManager = UndoManager()
        let shelf = Shelf(label: "SF")
        context.insert(shelf)
        context.processPendingChanges()
        let firstID = shelf.persistentModelID
        context.undoManager?.undo()
        #expect(shelf.modelContext == nil)
        #expect(!shelf.isDeleted)
        #expect(shelf.label == "SF")

        shelf.label = "Fantasy"  // goes to the instance, not the dead object
        #expect(try context.fetchCount(FetchDescriptor<Shelf>()) == 0)
        context.insert(shelf)
        #expect(shelf.modelContext === context)
        #expect(shelf.persistentModelID != firstID)
        #expect(try context.fetch(FetchDescriptor<Shelf>()).map(\.label) == ["Fantasy"])
        #expect(try context.fetch(FetchDescriptor<Shelf>()).first === shelf)
    }

    @Test func `a model whose delete was saved can be inserted again, or related, as a new object`() throws {
        let context = try memoryContext()
        let volume = Volume(title: "Dune")
        context.insert(volume)
        try context.save()
        context.delete(volume)
        try context.save()
        #expect(volume.modelContext == nil)
        volume.title = "Dune Messiah"
        #expect(try context.fetchCount(FetchDescriptor<Volume>()) == 0)

        let shelf = Shelf(label: "SF")
        context.insert(shelf)
        shelf.volumes = [volume]
        #expect(volume.modelContext === context)
        #expect(shelf.volumes.map(\.title) == ["Dune Messiah"])
        #expect(volume.shelf === shelf)
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Volume>()) == 1)
    }

    @Test func `undoing and redoing an insert with no edit in between leaves the model attached to its object`() throws {
        let context = try memoryContext()
        context.undoManager = UndoManager()
        let shelf = Shelf(label: "SF")
        context.insert(shelf)
        context.processPendingChanges()
        context.undoManager?.undo()
        #expect(shelf.modelContext == nil)
        context.undoManager?.redo()
        #expect(shelf.modelContext === context)
        shelf.label = "Fantasy"
        #expect(try context.fetch(FetchDescriptor<Shelf>()).first === shelf)
        #expect(try context.value("label", of: shelf.persistentModelID) == .string("Fantasy"))
    }
}

@Suite struct UnreadableEnumTests {
    @Test func `a dynamic edit storing a raw value the enum has no case for is refused with a type mismatch`() throws {
        let context = ModelContext(try ModelContainer(for: Specimen.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true)))
        let specimen = Specimen()
        context.insert(specimen)
        let id = specimen.persistentModelID
        #expect(throws: ModelError.self) { try context.setValue(.string("grumpy"), for: "mood", of: id) }
        #expect(throws: ModelError.self) { try context.insert("Specimen", ["mood": .string("grumpy")]) }
        try context.setValue(.string("curious"), for: "mood", of: id)
        #expect(specimen.mood == .curious)
        let fetched = try #require(try context.fetch(FetchDescriptor<Specimen>()).first)
        #expect(fetched.mood == .curious)
    }
}

extension UnreadableEnumTests {
    @Test func `a package holding a raw value the enum has no case for is refused on open with a typed error, not read`() throws {
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("Specimens.folio")
        let id: PersistentIdentifier
        do {
            let typed = ModelContext(try ModelContainer(for: Specimen.self, configurations: ModelConfiguration(url: url)))
            let specimen = Specimen()
            typed.insert(specimen)
            try typed.save()
            id = specimen.persistentModelID
        }
        do {
            // A program without the model classes (the REPL, say) knows no enum: it stores any string.
            let dynamic = ModelContext(try ModelContainer(contentsOf: url))
            try dynamic.setValue(.string("grumpy"), for: "mood", of: id)
            try dynamic.save()
        }
        do {
            _ = try ModelContainer(for: Specimen.self, configurations: ModelConfiguration(url: url))
            Issue.record("the package opened")
        } catch {
            guard case .graph(.typeMismatch(let entity, let attribute, _, _)) = error else {
                Issue.record("expected a type mismatch, got \(error)")
                return
            }
            #expect(entity == "Specimen" && attribute == "mood")
        }
    }
}
