import Foundation
import Folio
import Testing
import FolioTestSupport

/// An optional to-many, as apps declare it for CloudKit, with its inverse; and a
/// non-optional one beside it.
@Model
final class Basket {
    var name: String
    @Relationship(inverse: \Fruit.basket) var fruits: [Fruit]?
    @Relationship(inverse: \Sticker.basket) var stickers: [Sticker] = []

    init(name: String, fruits: [Fruit]? = nil) {
        self.name = name
        self.fruits = fruits
    }
}

@Model
final class Fruit {
    var name: String
    var basket: Basket?
    init(name: String) { self.name = name }
}

@Model
final class Sticker {
    var text: String
    var basket: Basket?
    init(text: String) { self.text = text }
}

@Suite struct OptionalToManyTests {
    let folder: TemporaryFolder
    var url: URL { folder.url.appendingPathComponent("Baskets.folio") }

    init() throws { folder = try TemporaryFolder() }

    func context(allowsSave: Bool = true) throws -> ModelContext {
        ModelContext(try ModelContainer(for: Basket.self, configurations: ModelConfiguration(url: url, allowsSave: allowsSave)))
    }

    func basket(_ name: String, in context: ModelContext) throws -> Basket {
        try #require(try context.fetch(FetchDescriptor<Basket>(predicate: #Predicate { $0.name == name })).first)
    }

    @Test("an optional to-many never assigned reads nil, [] reads empty and [a] then nil reads nil — after insert and after reopening")
    func nilEmptyAndReset() throws {
        do {
            let context = try context()
            let untouched = Basket(name: "untouched")
            let emptied = Basket(name: "emptied")
            let reset = Basket(name: "reset")
            for basket in [untouched, emptied, reset] { context.insert(basket) }
            #expect(untouched.fruits == nil)
            emptied.fruits = []
            #expect(emptied.fruits?.isEmpty == true)
            let apple = Fruit(name: "apple")
            reset.fruits = [apple]
            #expect(reset.fruits?.map(\.name) == ["apple"])
            reset.fruits = nil
            #expect(reset.fruits == nil)
            #expect(apple.basket == nil)
            #expect(untouched.stickers.isEmpty, "a non-optional to-many reads []")
            try context.save()
        }
        let reopened = try context(allowsSave: false)
        #expect(try basket("untouched", in: reopened).fruits == nil)
        #expect(try basket("emptied", in: reopened).fruits.map(\.isEmpty) == true)
        #expect(try basket("reset", in: reopened).fruits == nil)
        #expect(try basket("untouched", in: reopened).stickers.isEmpty)
    }

    @Test("a model initialised with fruits: [] holds an empty collection once inserted, and keeps it through a reopen")
    func emptyFromInitializer() throws {
        do {
            let context = try context()
            context.insert(Basket(name: "fresh", fruits: []))
            context.insert(Basket(name: "bare"))
            try context.save()
        }
        let reopened = try context(allowsSave: false)
        #expect(try basket("fresh", in: reopened).fruits.map(\.isEmpty) == true)
        #expect(try basket("bare", in: reopened).fruits == nil)
    }

    @Test("setting the inverse to-one gives a nil to-many a collection; removing the last object leaves it empty, not nil")
    func inverseMaintenance() throws {
        do {
            let context = try context()
            let basket = Basket(name: "b")
            let pear = Fruit(name: "pear")
            context.insert(basket)
            context.insert(pear)
            #expect(basket.fruits == nil)
            pear.basket = basket
            #expect(basket.fruits?.map(\.name) == ["pear"])
            pear.basket = nil
            #expect(basket.fruits.map(\.isEmpty) == true, "SwiftData shows []")
            let plum = Fruit(name: "plum")
            context.insert(plum)
            plum.basket = basket
            context.delete(plum)
            #expect(basket.fruits.map(\.isEmpty) == true)
            try context.save()
        }
        let reopened = try context(allowsSave: false)
        #expect(try basket("b", in: reopened).fruits.map(\.isEmpty) == true)
    }

    @Test("undo and redo restore nil and [] as they were, and undoing back to the saved state leaves no changes")
    func undoRedo() throws {
        do {
            let context = try context()
            context.insert(Basket(name: "b"))
            try context.save()
        }
        let context = try context()
        context.undoManager = UndoManager()
        let basket = try basket("b", in: context)
        #expect(basket.fruits == nil)
        basket.fruits = []
        context.processPendingChanges()
        #expect(context.hasChanges, "nil to [] is a change")
        let fig = Fruit(name: "fig")
        basket.fruits = [fig]
        context.processPendingChanges()
        basket.fruits = nil
        context.processPendingChanges()

        context.undoManager?.undo()
        #expect(basket.fruits?.map(\.name) == ["fig"])
        context.undoManager?.undo()
        #expect(basket.fruits.map(\.isEmpty) == true)
        context.undoManager?.undo()
        #expect(basket.fruits == nil)
        #expect(!context.hasChanges)
        context.undoManager?.redo()
        #expect(basket.fruits.map(\.isEmpty) == true)
        #expect(context.hasChanges)
        context.undoManager?.redo()
        context.undoManager?.redo()
        #expect(basket.fruits == nil)
        context.undoManager?.undo()
        #expect(basket.fruits?.map(\.name) == ["fig"])
        try context.save()

        let reopened = try self.context(allowsSave: false)
        #expect(try self.basket("b", in: reopened).fruits?.map(\.name) == ["fig"])
    }

    @Test("another context sees nil and [] as this one saved them")
    func otherContextSeesIt() throws {
        let container = try ModelContainer(for: Basket.self, configurations: ModelConfiguration(url: url))
        let first = ModelContext(container)
        let second = ModelContext(container)
        first.insert(Basket(name: "b"))
        try first.save()
        let seen = try basket("b", in: second)
        #expect(seen.fruits == nil)
        try basket("b", in: first).fruits = []
        try first.save()
        _ = try second.fetchCount(FetchDescriptor<Basket>())  // contexts merge on their next fetch
        #expect(seen.fruits.map(\.isEmpty) == true)
        try basket("b", in: first).fruits = nil
        try first.save()
        _ = try second.fetchCount(FetchDescriptor<Basket>())
        #expect(seen.fruits == nil)
    }
}
