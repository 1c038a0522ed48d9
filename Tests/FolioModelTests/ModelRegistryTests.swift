import Folio
import Synchronization
import Testing

// The models a context hands out: held unretained (a `deinit` from `@Model`
// takes them out), weakly for a class with a `deinit` of its own, and a to-one
// destination kept by the model that read it.

@Model
final class RegistryKeeper {
    var name: String
    var pen: RegistryPen?

    init(name: String) { self.name = name }
}

@Model
final class RegistryPen {
    var label: String
    @Relationship(inverse: \RegistryKeeper.pen) var keepers: [RegistryKeeper] = []

    init(label: String) { self.label = label }
}

/// A class declaring its own `deinit`, so `@Model` writes none: its context holds it weakly.
@Model
final class RegistryDiary {
    static let freed = Mutex(0)
    var entry: String

    init(entry: String) { self.entry = entry }

    deinit { Self.freed.withLock { $0 += 1 } }
}

@Suite struct ModelRegistryTests {
    func context() throws -> ModelContext {
        ModelContext(
            try ModelContainer(
                for: RegistryKeeper.self, RegistryDiary.self,
                configurations: ModelConfiguration(isStoredInMemoryOnly: true)))
    }

    @Test func `a model the program drops is freed, and the context makes a new one for its object`() throws {
        let context = try context()
        context.insert(RegistryKeeper(name: "Ann"))
        weak var dropped: RegistryKeeper?
        do {
            let fetched = try context.fetch(FetchDescriptor<RegistryKeeper>())
            #expect(try context.fetch(FetchDescriptor<RegistryKeeper>()).first === fetched.first)
            dropped = fetched.first
        }
        #expect(dropped == nil)
        let again = try #require(try context.fetch(FetchDescriptor<RegistryKeeper>()).first)
        #expect(again.name == "Ann")
        let registered: RegistryKeeper? = context.registeredModel(for: again.persistentModelID)
        #expect(registered === again)
    }

    @Test func `a class with a deinit of its own is handed out once while held, then freed and made again`() throws {
        let context = try context()
        context.insert(RegistryDiary(entry: "Monday"))
        let freedBefore = RegistryDiary.freed.withLock { $0 }
        do {
            let first = try #require(try context.fetch(FetchDescriptor<RegistryDiary>()).first)
            #expect(try context.fetch(FetchDescriptor<RegistryDiary>()).first === first)
            #expect(first.entry == "Monday")
        }
        #expect(RegistryDiary.freed.withLock { $0 } > freedBefore)
        let again = try #require(try context.fetch(FetchDescriptor<RegistryDiary>()).first)
        #expect(again.entry == "Monday")
        again.entry = "Tuesday"
        #expect(try context.fetch(FetchDescriptor<RegistryDiary>()).first?.entry == "Tuesday")
    }

    @Test func `a to-one read returns the same destination model while the reader lives, though the program dropped it`() throws {
        let context = try context()
        let keeper = RegistryKeeper(name: "Ann")
        context.insert(keeper)
        do {
            let pen = RegistryPen(label: "North")
            context.insert(pen)
            keeper.pen = pen
        }
        weak let firstRead = keeper.pen
        #expect(firstRead != nil)
        #expect(keeper.pen === firstRead)
        #expect(keeper.pen?.label == "North")
        // Pointing it elsewhere reads the new destination.
        let south = RegistryPen(label: "South")
        context.insert(south)
        keeper.pen = south
        #expect(keeper.pen === south)
        keeper.pen = nil
        #expect(keeper.pen == nil)
    }

    @Test func `models that read each other are freed with their context: a kept destination makes no cycle`() throws {
        weak var weakContext: ModelContext?
        weak var weakKeeper: RegistryKeeper?
        weak var weakPen: RegistryPen?
        do {
            let context = try context()
            let keeper = RegistryKeeper(name: "Ann")
            let pen = RegistryPen(label: "North")
            context.insert(keeper)
            keeper.pen = pen
            #expect(pen.keepers.first === keeper)
            #expect(keeper.pen === pen)
            #expect(pen.keepers.first?.pen === pen)
            weakContext = context
            weakKeeper = keeper
            weakPen = pen
        }
        #expect(weakKeeper == nil)
        #expect(weakPen == nil)
        #expect(weakContext == nil)
    }

    @Test func `a fetched model reads its stored values, not the initial values its class declares`() throws {
        let context = try context()
        let pen = RegistryPen(label: "North")
        context.insert(pen)
        let keepers = [RegistryKeeper(name: "Ann"), RegistryKeeper(name: "Bo")]
        for keeper in keepers {
            context.insert(keeper)
            keeper.pen = pen
        }
        let other = ModelContext(context.container)
        try context.save()
        let fetched = try #require(try other.fetch(FetchDescriptor<RegistryPen>()).first)
        #expect(fetched.keepers.map(\.name).sorted() == ["Ann", "Bo"])
        #expect(fetched !== pen)
    }
}
