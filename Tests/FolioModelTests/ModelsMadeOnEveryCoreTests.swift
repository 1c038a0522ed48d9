import Folio
@testable import FolioCore
import Testing
import Synchronization
import Foundation
import Observation
import PropertyBased
import FolioTestSupport

/// A large fetch makes its models on every core, each slice of the result
/// sharing a backing data of its own (``ModelContext/models(_:at:)``): these
/// hold the models of every slice, not only the first, to what models made on
/// one thread do — the right object, its to-one destinations, edits, undo,
/// rollback, save, merges, observers told, the registry and the count of
/// sharing models kept exact. Its point is its size (over the threshold for
/// making models on every core), so it runs in the long runs only.
@Suite(.tags(.long), .onlyInLongRuns) struct ModelsMadeOnEveryCoreTests {
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
