// Internal: a model's `_$sharedRow` and held backing data, and the context's
// registry, are what these tests hold the sharing to.
import Foundation
import Observation
import Folio
@testable import FolioCore
import PropertyBased
import Synchronization
import Testing
import FolioTestSupport

@Model
final class ShareBook {
    var title: String
    var pages: Int
    var note: String?
    var words: [String]
    var shelf: ShareShelf?

    init(title: String, pages: Int, note: String? = nil, words: [String] = [], shelf: ShareShelf? = nil) {
        self.title = title
        self.pages = pages
        self.note = note
        self.words = words
        self.shelf = shelf
    }
}

@Model
final class ShareShelf {
    var label: String
    @Relationship(inverse: \ShareBook.shelf) var books: [ShareBook] = []

    init(label: String) { self.label = label }
}

/// A class that relates to itself: a to-one toward its own entity keeps no
/// destination, so no model can keep its own class's shared backing data alive.
@Model
final class ShareChapter {
    var heading: String
    var previous: ShareChapter?

    init(heading: String, previous: ShareChapter? = nil) {
        self.heading = heading
        self.previous = previous
    }
}

@Model
final class ShareTag {
    @Attribute(.unique) var name: String
    var uses: Int

    init(name: String, uses: Int) {
        self.name = name
        self.uses = uses
    }
}

@ModelActor
actor ShareBookReader {
    /// Each book's title and pages, read from this actor's own context's fetched models.
    func titlesAndPages() throws -> [String: Int] {
        var found: [String: Int] = [:]
        for book in try modelContext.fetch(FetchDescriptor<ShareBook>()) { found[book.title] = book.pages }
        return found
    }

    /// Edits a book through a fetched model and saves.
    func setPages(_ pages: Int, ofTitle title: String) throws {
        let book = try modelContext.fetch(FetchDescriptor<ShareBook>(predicate: #Predicate { $0.title == title })).first
        book?.pages = pages
        try modelContext.save()
    }
}

/// Models a context makes (fetch, relationship reads, `model(for:)`) share one
/// backing data per class and graph, each keeping its row in the instance
/// (``_SharedBackingRow``) until it needs backing data of its own. These tests
/// hold the shared models to what models with their own backing data did:
/// the right object's values, observers told, the registry kept exact, the
/// edges where a row stops being the object's (rollback, saved delete).
@Suite struct SharedBackingRowTests {
    let folder: TemporaryFolder

    init() throws { folder = try TemporaryFolder() }

    var url: URL { folder.url.appendingPathComponent("Books.folio") }

    func container() throws -> ModelContainer {
        try ModelContainer(for: ShareBook.self, ShareShelf.self, ShareChapter.self, ShareTag.self, configurations: ModelConfiguration(url: url))
    }

    /// `count` books on three shelves, saved; the container that saved them is
    /// dropped, so the tests fetch from the package as a program opening it does.
    func seed(_ count: Int = 12) throws {
        let container = try container()
        let context = ModelContext(container)
        let shelves = (0..<3).map { ShareShelf(label: "shelf \($0)") }
        for index in 0..<count {
            context.insert(
                ShareBook(
                    title: "book \(index)", pages: 10 * index + 1, note: index % 3 == 0 ? nil : "note \(index)",
                    words: (0..<(index % 4)).map { "w\(index).\($0)" }, shelf: index % 4 == 3 ? nil : shelves[index % 3]))
        }
        try context.save()
    }

    /// The values the dynamic API reads for a book's object.
    static func dynamicValues(_ id: PersistentIdentifier, in context: ModelContext) throws -> (String, Int, String?, String?) {
        guard case .string(let title) = try context.value("title", of: id),
            case .int(let pages) = try context.value("pages", of: id)
        else { throw ShareTestError.unexpectedValue }
        let note: String? = if case .string(let note) = try context.value("note", of: id) { note } else { nil }
        let shelf = try context.related("shelf", of: id).first
        let label: String? = try shelf.map { shelf in
            guard case .string(let label) = try context.value("label", of: shelf) else { throw ShareTestError.unexpectedValue }
            return label
        }
        return (title, Int(pages), note, label)
    }

    /// Whether a model's typed reads match the dynamic API's values for its object.
    static func readsMatch(_ book: ShareBook, in context: ModelContext, _ comment: Comment? = nil) throws {
        let (title, pages, note, label) = try dynamicValues(book.persistentModelID, in: context)
        #expect(book.title == title, comment)
        #expect(book.pages == pages, comment)
        #expect(book.note == note, comment)
        #expect(book.shelf?.label == label, comment)
    }

    @Test func `fetched models read the values the dynamic API reads, and share one backing data`() throws {
        try seed()
        let context = ModelContext(try container())
        let books = try context.fetch(FetchDescriptor<ShareBook>(sortBy: [SortDescriptor(\.pages)]))
        #expect(books.count == 12)
        for (index, book) in books.enumerated() {
            try Self.readsMatch(book, in: context, "book \(index)")
            #expect(book.title == "book \(index)")
            #expect(book.words == (0..<(index % 4)).map { "w\(index).\($0)" })
        }
        let fresh = try ModelContext(try container()).fetch(FetchDescriptor<ShareBook>())
        let held = Set(fresh.map { ObjectIdentifier($0._$heldBackingData) })
        #expect(held.count == 1, "one backing data for every model of the class in one graph")
        #expect(fresh.allSatisfy { $0._$sharedRow.isShared })
        _ = fresh.map { ($0.title, $0.pages, $0.note, $0.shelf?.label) }
        #expect(fresh.allSatisfy { $0._$sharedRow.isShared }, "scalar and to-one reads outside tracking keep the model sharing")
    }

    @Test @MainActor func `editing a fetched model gives it its own backing data, and undo, redo and its observers still work`() throws {
        try seed()
        let container = try container()
        let context = container.mainContext
        context.undoManager = UndoManager()
        let books = try context.fetch(FetchDescriptor<ShareBook>(sortBy: [SortDescriptor(\.pages)]))
        let book = books[4], neighbour = books[5]
        let shared = book._$heldBackingData
        book.pages = 999
        #expect(!book._$sharedRow.isShared)
        #expect(book._$heldBackingData !== shared)
        #expect(neighbour._$sharedRow.isShared && neighbour._$heldBackingData === shared, "the other models keep sharing")
        #expect(book.pages == 999)
        #expect(neighbour.pages == 51)
        try Self.readsMatch(book, in: context)
        context.processPendingChanges()

        let changes = Mutex(0)
        withObservationTracking {
            _ = book.pages
        } onChange: {
            changes.withLock { $0 += 1 }
        }
        context.undoManager?.undo()
        #expect(changes.withLock { $0 } == 1, "the undo told the observer")
        #expect(book.pages == 41)
        withObservationTracking {
            _ = book.pages
        } onChange: {
            changes.withLock { $0 += 1 }
        }
        context.undoManager?.redo()
        #expect(changes.withLock { $0 } == 2, "the redo told the observer")
        #expect(book.pages == 999)
        try Self.readsMatch(book, in: context)
        try Self.readsMatch(neighbour, in: context)
    }

    @Test @MainActor func `a fetched model observed with withObservationTracking is told of an undo, a dynamic edit and a merge`() throws {
        try seed()
        let container = try container()
        let context = container.mainContext
        context.undoManager = UndoManager()
        let books = try context.fetch(FetchDescriptor<ShareBook>(sortBy: [SortDescriptor(\.pages)]))
        let changed = Mutex<[String]>([])

        // An edit of the object made through the dynamic API, then undone: the
        // model was only ever read under tracking.
        let first = books[1]
        withObservationTracking {
            _ = first.pages
        } onChange: {
            changed.withLock { $0.append("dynamic") }
        }
        #expect(!first._$sharedRow.isShared, "a tracked read gives the model its own registrar")
        try context.setValue(.int(77), for: "pages", of: first.persistentModelID)
        #expect(first.pages == 77)
        context.processPendingChanges()
        withObservationTracking {
            _ = first.pages
        } onChange: {
            changed.withLock { $0.append("undo") }
        }
        context.undoManager?.undo()
        #expect(first.pages == 11)

        // A to-one read under tracking, then the link changed through the dynamic API.
        let second = books[2]
        withObservationTracking {
            _ = second.shelf
        } onChange: {
            changed.withLock { $0.append("shelf") }
        }
        try context.setRelated([], for: "shelf", of: second.persistentModelID)
        #expect(second.shelf == nil)

        // Another context's save, merged here.
        let third = books[4]
        withObservationTracking {
            _ = third.title
        } onChange: {
            changed.withLock { $0.append("merge") }
        }
        let other = ModelContext(container)
        let copy = try #require(try other.fetch(FetchDescriptor<ShareBook>(predicate: #Predicate { $0.title == "book 4" })).first)
        copy.title = "retitled"
        try other.save()
        _ = try context.fetch(FetchDescriptor<ShareShelf>())  // merges
        #expect(third.title == "retitled")
        #expect(changed.withLock { $0 } == ["dynamic", "undo", "shelf", "merge"])
    }

    @Test func `after a rollback a fetched model still alive reads its object's saved state, though rows moved`() throws {
        try seed()
        let container = try container()
        let main = ModelContext(container)
        let other = ModelContext(container)
        // Each context inserts a book; `other` saves first, so in the saved graph
        // `main`'s book has another row than in `main`'s own graph.
        _ = try main.insert("ShareBook", ["title": .string("late"), "pages": .int(500), "words": .array([])])
        _ = try other.insert("ShareBook", ["title": .string("early"), "pages": .int(400), "words": .array([])])
        try other.save()
        try main.save()
        let books = try main.fetch(FetchDescriptor<ShareBook>(sortBy: [SortDescriptor(\.pages)]))
        #expect(books.map(\.title).suffix(2) == ["early", "late"])
        #expect(books.allSatisfy { $0._$sharedRow.isShared })
        // `other` deletes the first book and saves: the rollback detaches its model.
        let gone = try #require(try other.fetch(FetchDescriptor<ShareBook>(predicate: #Predicate { $0.title == "book 0" })).first)
        other.delete(gone)
        try other.save()
        // An unsaved edit here, which the rollback discards.
        try main.setValue(.int(5), for: "pages", of: books[3].persistentModelID)
        let rowsBefore = books.map(\._$sharedRow.row)
        main.rollback()
        let rowsAfter = books.map { main.graph.index[$0.persistentModelID.id].map(\.row) ?? -1 }
        #expect(rowsAfter.last != rowsBefore.last, "the test needs a row that moved")
        #expect(books.allSatisfy { $0._$sharedRow.isShared }, "nothing has read the models since")
        #expect(books[0].modelContext == nil, "its object is gone: detached")
        #expect(books[0].title == "book 0", "a detached model keeps its last values")
        #expect(books[13].title == "late")
        #expect(books[13].pages == 500)
        #expect(books[12].title == "early")
        for (index, book) in books.enumerated().dropFirst() {
            #expect(book.modelContext === main)
            if index < 12 { #expect(book.pages == 10 * index + 1) }
            try Self.readsMatch(book, in: main, "book \(index)")
        }
        // A fetch after the rollback hands out the same instances.
        let again = try main.fetch(FetchDescriptor<ShareBook>(sortBy: [SortDescriptor(\.pages)]))
        #expect(again.map(ObjectIdentifier.init) == books.dropFirst().map(ObjectIdentifier.init))
    }

    @Test func `a rollback that keeps every row still reads each fetched model's own object`() throws {
        try seed()
        let context = ModelContext(try container())
        let books = try context.fetch(FetchDescriptor<ShareBook>(sortBy: [SortDescriptor(\.pages)]))
        let inserted = ShareBook(title: "unsaved", pages: 0)
        context.insert(inserted)
        context.rollback()
        #expect(inserted.modelContext == nil)
        // Read without any other access first: the shared row is of the older graph.
        #expect(books.map(\.pages) == (0..<12).map { 10 * $0 + 1 })
        #expect(books.map { $0.shelf?.label } == (0..<12).map { $0 % 4 == 3 ? nil : "shelf \($0 % 3)" })
        for book in books { try Self.readsMatch(book, in: context) }
    }

    @Test func `a fetched model dropped unregisters, shared, with its own backing data, or after a rollback`() throws {
        try seed()
        let context = ModelContext(try container())
        #expect(context.typed.registry.count == 0)
        do {
            let books = try context.fetch(FetchDescriptor<ShareBook>())
            #expect(context.typed.registry.count == 12)
            #expect(context.columns(for: ShareBook.self)?.sharingModels == 12)
            _ = books.map(\.pages)
        }
        #expect(context.typed.registry.count == 0, "shared models remove their entries")
        #expect(context.columns(for: ShareBook.self)?.sharingModels == 0)
        do {
            let books = try context.fetch(FetchDescriptor<ShareBook>())
            for book in books.prefix(6) { _ = book.persistentBackingData }
            #expect(books.prefix(6).allSatisfy { !$0._$sharedRow.isShared })
            #expect(context.typed.registry.count == 12)
            #expect(context.columns(for: ShareBook.self)?.sharingModels == 6)
        }
        #expect(context.typed.registry.count == 0, "models given their own backing data remove their entries too")
        #expect(context.columns(for: ShareBook.self)?.sharingModels == 0)
        do {
            let books = try context.fetch(FetchDescriptor<ShareBook>())
            context.rollback()
            #expect(books.allSatisfy { $0._$sharedRow.isShared })
            #expect(context.typed.registry.count == 12)
        }
        #expect(context.typed.registry.count == 0, "models sharing an older graph's backing data remove their entries")
        // No entry is left pointing at a freed instance: a new fetch makes fresh models that read right.
        for book in try context.fetch(FetchDescriptor<ShareBook>()) { try Self.readsMatch(book, in: context) }
    }

    @Test func `the backing data persistentBackingData gives a fetched model is its own and stable`() throws {
        try seed()
        let context = ModelContext(try container())
        let books = try context.fetch(FetchDescriptor<ShareBook>(sortBy: [SortDescriptor(\.pages)]))
        let id = books[2].persistentModelID
        let backing = books[2].persistentBackingData
        #expect(!backing.isShared)
        #expect(books[2].persistentBackingData === backing)
        #expect(books[3].persistentBackingData !== backing)
        #expect(books[2].persistentModelID == id)
        #expect(books[2].modelContext === context)
        #expect(context.typed.registry[id.id].map(ObjectIdentifier.init) == ObjectIdentifier(books[2]))
        try Self.readsMatch(books[2], in: context)
        // Handing it back, as a hand-written `persistentBackingData` setter would, keeps one registry entry.
        books[2].persistentBackingData = backing
        #expect(books[2].pages == 21)
    }

    @Test func `deleting a fetched model and saving leaves it readable, detached, and edits to it stay in the instance`() throws {
        try seed()
        let context = ModelContext(try container())
        let books = try context.fetch(FetchDescriptor<ShareBook>(sortBy: [SortDescriptor(\.pages)]))
        let book = books[5]
        let id = book.persistentModelID
        context.delete(book)
        #expect(book.isDeleted)
        #expect(book.modelContext === context)
        #expect(book.pages == 51)
        try context.save()
        #expect(book.modelContext == nil)
        #expect(!book.isDeleted)
        #expect(book.title == "book 5")
        #expect(book.pages == 51)
        #expect(book.persistentModelID == id)
        book.pages = 52
        #expect(book.pages == 52)
        #expect(!context.hasChanges)
        #expect(try context.fetchCount(FetchDescriptor<ShareBook>()) == 11)
        // Reopened, the document has neither the object nor the detached edit.
        let reopened = ModelContext(try container())
        #expect(try reopened.fetch(FetchDescriptor<ShareBook>()).map(\.title).sorted() == (0..<12).filter { $0 != 5 }.map { "book \($0)" }.sorted())
    }

    @Test func `inserting a fetched model is a no-op while its object is here, and makes a new object after its delete is saved`() throws {
        try seed()
        let context = ModelContext(try container())
        let book = try #require(try context.fetch(FetchDescriptor<ShareBook>(sortBy: [SortDescriptor(\.pages)])).first)
        context.insert(book)
        #expect(!context.hasChanges)
        #expect(book._$sharedRow.isShared, "inserting a model already here leaves it sharing")
        context.delete(book)
        try context.save()
        context.insert(book)
        #expect(book.modelContext === context)
        #expect(book.title == "book 0")
        #expect(try context.fetchCount(FetchDescriptor<ShareBook>()) == 12)
        try context.save()
        #expect(try ModelContext(try container()).fetchCount(FetchDescriptor<ShareBook>(predicate: #Predicate { $0.title == "book 0" })) == 1)
    }

    @Test func `an upsert onto a fetched model's object leaves the fetched model registered and reading the new values`() throws {
        do {
            let context = ModelContext(try container())
            context.insert(ShareTag(name: "red", uses: 1))
            context.insert(ShareTag(name: "blue", uses: 2))
            try context.save()
        }
        let context = ModelContext(try container())
        let tags = try context.fetch(FetchDescriptor<ShareTag>(sortBy: [SortDescriptor(\.name)]))
        let red = try #require(tags.last)
        #expect(red._$sharedRow.isShared)
        let newcomer = ShareTag(name: "red", uses: 9)
        context.insert(newcomer)
        #expect(newcomer.persistentModelID == red.persistentModelID, "the insert updated the object")
        #expect(red.uses == 9)
        #expect(context.typed.registry[red.persistentModelID.id].map(ObjectIdentifier.init) == ObjectIdentifier(red))
        newcomer.uses = 10
        #expect(red.uses == 10)
        try context.save()
        #expect(try ModelContext(try container()).fetch(FetchDescriptor<ShareTag>()).map(\.uses).sorted() == [2, 10])
    }

    @Test func `a to-one destination read through fetched models stays readable and the same model once its other holders are dropped`() throws {
        try seed()
        let context = ModelContext(try container())
        #expect(
            try #require(context.graph.layout.entityIndex["ShareShelf"]) > (try #require(context.graph.layout.entityIndex["ShareBook"])),
            "the destination is a later entity, so the shared backing data keeps it")
        let books = try context.fetch(FetchDescriptor<ShareBook>(sortBy: [SortDescriptor(\.pages)]))
        var first: [Int: ObjectIdentifier] = [:]
        do {
            // The shelves' own fetch is dropped at the end of this scope.
            let shelves = try context.fetch(FetchDescriptor<ShareShelf>())
            #expect(shelves.count == 3)
            for (index, book) in books.enumerated() { if let shelf = book.shelf { first[index] = ObjectIdentifier(shelf) } }
        }
        for (index, book) in books.enumerated() {
            #expect(book.shelf.map(ObjectIdentifier.init) == first[index], "book \(index)")
            #expect(book.shelf?.label == (index % 4 == 3 ? nil : "shelf \(index % 3)"))
        }
        // A to-one changed under the shared model reads the new destination, not the one kept for the old.
        let moved = books[0]
        let target = try #require(books[1].shelf)
        try context.setRelated([target.persistentModelID], for: "shelf", of: moved.persistentModelID)
        #expect(moved.shelf === target)
        // A destination deleted (unsaved, then saved) is no longer read.
        context.delete(target)
        #expect(moved.shelf == nil)
        try context.save()
        #expect(moved.shelf == nil)
        #expect(books[1].shelf == nil)
    }

    @Test func `dropping most fetched models lets most of the destinations they read go`() throws {
        let count = 3_000
        try seedOneShelfEach(count)
        let context = ModelContext(try container())
        var books = try context.fetch(FetchDescriptor<ShareBook>(sortBy: [SortDescriptor(\.pages)]))
        #expect(books.allSatisfy { $0.shelf != nil })
        #expect(context.typed.registry.count == 2 * count)
        // One book kept: models with their own backing data would keep its shelf, not all of them.
        books = [books[0]]
        #expect(context.typed.registry.count <= 1 + BackingData.keptDestinationCapacity, "\(context.typed.registry.count) models registered")
        #expect(books[0].shelf?.label == "shelf 0")
    }

    @Test(arguments: [false, true])
    func `a destination model detached while its insert was undone is not read through a to-one after redo`(ownBacking: Bool) throws {
        try seed()
        let context = ModelContext(try container())
        context.undoManager = UndoManager()
        let book = try #require(try context.fetch(FetchDescriptor<ShareBook>(predicate: #Predicate { $0.title == "book 3" })).first)
        // Sharing its context's backing data, or with its own (which keeps one destination).
        if ownBacking { _ = book.persistentBackingData }
        #expect(book._$sharedRow.isShared == !ownBacking)
        let shelf = ShareShelf(label: "new")
        context.insert(shelf)
        try context.setRelated([shelf.persistentModelID], for: "shelf", of: book.persistentModelID)
        #expect(book.shelf === shelf)
        context.processPendingChanges()
        context.undoManager?.undo()
        #expect(book.shelf == nil)
        // Edited while its insert is undone, the shelf's model is detached for good.
        shelf.label = "edited while undone"
        #expect(shelf.modelContext == nil)
        context.undoManager?.redo()
        let read = try #require(book.shelf)
        #expect(read.modelContext === context, "the to-one reads a model of the context's object")
        #expect(read.label == "new")
        try Self.readsMatch(book, in: context)
    }

    @Test func `a context whose fetched models related to their own class are dropped is freed`() throws {
        weak var weakContext: ModelContext?
        weak var weakChapter: ShareChapter?
        do {
            let container = try container()
            let context = ModelContext(container)
            var previous: ShareChapter?
            for index in 0..<4 {
                let chapter = ShareChapter(heading: "chapter \(index)", previous: previous)
                context.insert(chapter)
                previous = chapter
            }
            try context.save()
        }
        do {
            let context = ModelContext(try container())
            weakContext = context
            let chapters = try context.fetch(FetchDescriptor<ShareChapter>(sortBy: [SortDescriptor(\.heading)]))
            #expect(chapters.map { $0.previous?.heading } == [nil, "chapter 0", "chapter 1", "chapter 2"])
            weakChapter = chapters.last?.previous
            let books = try context.fetch(FetchDescriptor<ShareBook>())
            _ = books.map { $0.shelf?.label }
        }
        #expect(weakChapter == nil, "no model of its own class is kept by the shared backing data")
        #expect(weakContext == nil, "no cycle of kept models keeps the context alive")
    }

    @Test func `a batched fetch's models share backing data and read the right objects across batches`() throws {
        try seed(40)
        let context = ModelContext(try container())
        let books = try context.fetch(FetchDescriptor<ShareBook>(sortBy: [SortDescriptor(\.pages)]), batchSize: 7)
        #expect(books.count == 40)
        for (index, book) in books.enumerated() {
            #expect(book.title == "book \(index)")
            #expect(book.pages == 10 * index + 1)
            try Self.readsMatch(book, in: context, "book \(index)")
        }
        #expect(books[39]._$sharedRow.isShared)
    }

    /// `count` books, each on a shelf of its own, saved.
    func seedOneShelfEach(_ count: Int) throws {
        let context = ModelContext(try container())
        for index in 0..<count {
            context.insert(ShareBook(title: "book \(index)", pages: index, shelf: ShareShelf(label: "shelf \(index)")))
        }
        try context.save()
    }

    @Test func `walking a batched fetch and reading each model's to-one keeps a bounded number of destinations alive`() throws {
        // A walk reads as many shelves as books.
        let count = 3_000
        try seedOneShelfEach(count)
        let context = ModelContext(try container())
        let batchSize = 100
        let books = try context.fetch(FetchDescriptor<ShareBook>(), batchSize: batchSize)
        var mostEntries = 0
        for book in books {
            #expect(book.shelf?.label == "shelf \(book.pages)")
            mostEntries = max(mostEntries, context.typed.registry.count)
        }
        // The two batches the collection keeps, their shelves, and the destinations
        // the shared backing data keeps for reads to come: not every shelf read.
        #expect(mostEntries <= 4 * batchSize + BackingData.keptDestinationCapacity, "\(mostEntries) models registered")
        #expect(mostEntries < count)
    }

    @Test func `models the program holds read the same to-one destination model again, however many destinations there are`() throws {
        // As many destinations as models: each model kept its own before the sharing.
        let count = 3_000
        try seedOneShelfEach(count)
        let context = ModelContext(try container())
        let books = try context.fetch(FetchDescriptor<ShareBook>(sortBy: [SortDescriptor(\.pages)]))
        let first = books.map { $0.shelf.map(ObjectIdentifier.init) }
        #expect(context.typed.registry.count == 2 * count, "every shelf read is kept while the books are held")
        let again = books.map { $0.shelf.map(ObjectIdentifier.init) }
        #expect(again == first)
        #expect(books.allSatisfy { $0._$sharedRow.isShared })
    }

    @Test func `a model actor's fetched models read and edit its own context's objects`() async throws {
        try seed()
        let container = try container()
        let reader = ShareBookReader(modelContainer: container)
        let read = try await reader.titlesAndPages()
        #expect(read == Dictionary(uniqueKeysWithValues: (0..<12).map { ("book \($0)", 10 * $0 + 1) }))
        try await reader.setPages(1_000, ofTitle: "book 3")
        let context = ModelContext(container)
        let book = try #require(try context.fetch(FetchDescriptor<ShareBook>(predicate: #Predicate { $0.title == "book 3" })).first)
        #expect(book.pages == 1_000)
    }

    @Test func `the only model sharing its backing data reads right when a tracked read gives it its own`() throws {
        // The read gives the model its own backing data mid-getter, replacing the
        // model's reference to the shared one, on which the getter runs unretained.
        try seed()
        let context = ModelContext(try container())
        let book = try #require(try context.fetch(FetchDescriptor<ShareBook>(predicate: #Predicate { $0.title == "book 5" })).first)
        weak let shared = book._$heldBackingData
        #expect(shared != nil)
        var read: (Int, String?)?
        withObservationTracking {
            read = (book.pages, book.shelf?.label)
        } onChange: {
        }
        #expect(read?.0 == 51)
        #expect(read?.1 == "shelf 2")
        #expect(!book._$sharedRow.isShared)
        #expect(shared != nil, "the model's own backing data keeps the shared one it ran on alive")
        // A fetch now makes models sharing that backing data again, which read their own rows.
        let others = try context.fetch(FetchDescriptor<ShareBook>(sortBy: [SortDescriptor(\.pages)]))
        #expect(others[4]._$sharedRow.isShared)
        #expect(others[4].pages == 41)
        #expect(others[5] === book)
    }

    @Test func `model actors fetching at once each read their own context's models`() async throws {
        try seed()
        let container = try container()
        let expected = Dictionary(uniqueKeysWithValues: (0..<12).map { ("book \($0)", 10 * $0 + 1) })
        let results = try await withThrowingTaskGroup(of: [String: Int].self) { group in
            for _ in 0..<4 {
                group.addTask {
                    let reader = ShareBookReader(modelContainer: container)
                    var last: [String: Int] = [:]
                    for _ in 0..<20 { last = try await reader.titlesAndPages() }
                    return last
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.count == 4)
        #expect(results.allSatisfy { $0 == expected })
    }

    @Test func `model(for:) hands out the fetched model, and a DynamicModel never shares`() throws {
        try seed()
        let context = ModelContext(try container())
        let books = try context.fetch(FetchDescriptor<ShareBook>(sortBy: [SortDescriptor(\.pages)]))
        let found = try #require(context.model(for: books[7].persistentModelID) as? ShareBook)
        #expect(found === books[7])
        #expect(!DynamicModel._$sharesBackingData)
        let dynamic = DynamicModel(backingData: BackingData())
        dynamic._$sharedRow = _SharedBackingRow(id: 1, row: 1)
        #expect(!dynamic._$sharedRow.isShared, "a hand-written conformer keeps no row")
        #expect(dynamic._$heldBackingData === dynamic.persistentBackingData)
    }

    // MARK: Random sessions

    /// What a random session does to the models it holds: the same steps a
    /// program's code takes, on models its fetches made.
    enum Step {
        case fetch, read, merge, edit, dynamicEdit, relink, undo, redo, rollback, drop, save, trackedRead, delete

        init(roll: Int) {
            self =
                switch roll {
                case 0..<12: .fetch
                case 12..<20: .read
                case 20..<24: .merge
                case 24..<36: .edit
                case 36..<44: .dynamicEdit
                case 44..<50: .relink
                case 50..<58: .undo
                case 58..<64: .redo
                case 64..<69: .rollback
                case 69..<80: .drop
                case 80..<85: .save
                case 85..<94: .trackedRead
                default: .delete
                }
        }
    }

    /// Whether an observer was told.
    final class Told: Sendable {
        let value = Mutex(false)
    }

    /// A model read under observation tracking, the value it read, and whether its observer was told of a change.
    final class Observed {
        let book: ShareBook
        let pages: Int
        /// Shared with the observer's `onChange`, which may run on any thread.
        let told = Told()

        init(_ book: ShareBook) {
            self.book = book
            pages = book.pages
        }
    }

    /// A random session on fetched books: the steps (`Step`) applied to one
    /// context, and after each, the checks every session makes. `fetch` says
    /// how a fetch step fetches and which of the books it holds.
    @MainActor
    struct Session {
        let container: ModelContainer
        let context: ModelContext
        let shelves: [PersistentIdentifier]
        let fetch: (ModelContext, inout SeededGenerator) throws -> [ShareBook]
        var held: [ShareBook] = []
        var observed: [Observed] = []
        var steps: [String] = []

        init(_ container: ModelContainer, fetch: @escaping (ModelContext, inout SeededGenerator) throws -> [ShareBook]) throws {
            self.container = container
            context = container.mainContext
            context.undoManager = UndoManager()
            shelves = try context.fetchIdentifiers(FetchDescriptor<ShareShelf>())
            self.fetch = fetch
        }

        /// Applies the planned step, then checks the session.
        mutating func run(_ planned: SessionStep) throws {
            var rng = planned.choices
            let step = Step(roll: planned.roll)
            steps.append("\(step)")
            let label = "step \(steps.count - 1): \(steps)"
            do {
                // Scoped: the step holds no model past its end (a drop must free it).
                let inContext = held.filter { $0.modelContext === context && !$0.isDeleted }
                switch step {
                case .fetch:
                    held += try fetch(context, &rng)
                case .read:
                    if let book = held.randomElement(using: &rng) { _ = (book.title, book.pages, book.note, book.shelf?.label) }
                case .merge:
                    // Another context edits or deletes a book and saves; a fetch here merges it.
                    let other = ModelContext(container)
                    if let id = try other.fetchIdentifiers(FetchDescriptor<ShareBook>()).randomElement(using: &rng) {
                        if Int.random(in: 0..<4, using: &rng) == 0 {
                            try other.delete(id)
                        } else {
                            try other.setValue(.int(Int64.random(in: 0...1_000, using: &rng)), for: "pages", of: id)
                        }
                        try other.save()
                    }
                    _ = try context.fetch(FetchDescriptor<ShareShelf>())
                case .edit:
                    inContext.randomElement(using: &rng)?.pages = Int.random(in: 0...1_000, using: &rng)
                case .dynamicEdit:
                    let ids = try context.fetchIdentifiers(FetchDescriptor<ShareBook>())
                    if let id = ids.randomElement(using: &rng) {
                        try context.setValue(.int(Int64.random(in: 0...1_000, using: &rng)), for: "pages", of: id)
                    }
                case .relink:
                    if let book = inContext.randomElement(using: &rng) {
                        let shelf = shelves.randomElement(using: &rng)
                        try context.setRelated(Bool.random(using: &rng) ? shelf.map { [$0] } ?? [] : [], for: "shelf", of: book.persistentModelID)
                    }
                case .undo:
                    context.processPendingChanges()
                    context.undoManager?.undo()
                case .redo:
                    context.undoManager?.redo()
                case .rollback:
                    context.rollback()
                    // A rollback tells no observer, of any model (shared or not, before
                    // the sharing too): not what these sessions check.
                    observed.removeAll()
                case .drop:
                    if !held.isEmpty { held.remove(at: Int.random(in: 0..<held.count, using: &rng)) }
                    if !observed.isEmpty, Bool.random(using: &rng) { observed.remove(at: Int.random(in: 0..<observed.count, using: &rng)) }
                case .save:
                    try context.save()
                case .trackedRead:
                    if let book = inContext.randomElement(using: &rng) {
                        let watch = Observed(book)
                        let told = watch.told
                        withObservationTracking {
                            _ = book.pages
                        } onChange: {
                            told.value.withLock { $0 = true }
                        }
                        observed.append(watch)
                    }
                case .delete:
                    if let book = inContext.randomElement(using: &rng) { context.delete(book) }
                }
            }
            // Every model still in the context reads its object's values, and is the one the context hands out.
            for book in held where book.modelContext === context {
                try SharedBackingRowTests.readsMatch(book, in: context, "\(label), \(book.title)")
                #expect(context.typed.registry[book.persistentModelID.id].map(ObjectIdentifier.init) == ObjectIdentifier(book), "\(label)")
            }
            // No registry entry names a book the session dropped (an unretained one would dangle).
            let alive = held + observed.map(\.book)
            let aliveBooks = Set(alive.map(ObjectIdentifier.init))
            let strays = context.typed.registry.entries.filter { $0.model is ShareBook && !aliveBooks.contains(ObjectIdentifier($0.model)) }
            #expect(strays.isEmpty, "\(label): \(strays.count) registry entries for dropped books")
            // The columns count the models sharing a backing data of this graph, whichever made them.
            if let columns = context.columns(for: ShareBook.self) {
                let sharing = Set(
                    alive.filter { $0._$sharedRow.isShared && $0._$heldBackingData.sharedLocation($0._$sharedRow) != nil }
                        .map(ObjectIdentifier.init))
                #expect(columns.sharingModels == sharing.count, "\(label)")
            }
            // A model observed and changed since (by an edit, a dynamic edit, undo, redo or a merge) told its observer.
            for watch in observed where watch.book.modelContext === context && watch.book.pages != watch.pages {
                #expect(watch.told.value.withLock { $0 }, "\(label): \(watch.book.title) changed from \(watch.pages) unseen")
            }
        }
    }

    @Test(.tags(.long)) @MainActor
    func `fetched models read what the dynamic API reads, and tell their observers, through any fetches, edits, merges, undo, redo, rollbacks and drops`()
        async throws
    {
        await checkProperty(count: TestEffort.cases(40), input: SessionStep.generator.array(of: 1...40)) { plan in
            // A package of its own per session: a session saves.
            let seeded = try SharedBackingRowTests()
            try seeded.seed(8)
            var session = try Session(try seeded.container()) { context, rng in
                try context.fetch(FetchDescriptor<ShareBook>(sortBy: [SortDescriptor(\.title)])).filter { _ in Bool.random(using: &rng) }
            }
            for planned in plan { try session.run(planned) }
        }
    }
}

enum ShareTestError: Error { case unexpectedValue }
