import Folio
@testable import FolioCore
import Foundation
import Testing
import FolioTestSupport

// Models isolated to the main actor, as an app's model classes often are (and as
// every class is in a module built with the main actor as its default isolation):
// `@Model` isolates their conformance to the main actor, so they compile and work
// through `mainContext` like any other model.

enum MainActorShelf {
    @MainActor @Model
    final class Shelf {
        var label: String = ""
        @Relationship(deleteRule: .cascade, inverse: \Book.shelf) var books: [Book] = []
        init(label: String) { self.label = label }
    }

    @MainActor @Model
    final class Book {
        var title: String = ""
        var pages: Int = 0
        var shelf: Shelf?
        init(title: String, pages: Int) { self.title = title; self.pages = pages }
    }
}

@Suite struct MainActorModelTests {
    typealias Shelf = MainActorShelf.Shelf
    typealias Book = MainActorShelf.Book

    @Test("@MainActor @Model classes insert, save, reopen, fetch and read through mainContext")
    @MainActor func mainActorModelsRoundTrip() throws {
        let url = temporaryPackageURL()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        do {
            let container = try ModelContainer(for: Shelf.self, configurations: ModelConfiguration(url: url))
            let context = container.mainContext
            let shelf = Shelf(label: "Novels")
            context.insert(shelf)
            for index in 0..<3 {
                let book = Book(title: "Book \(index)", pages: 100 + index)
                book.shelf = shelf
            }
            #expect(shelf.books.count == 3)
            try context.save()
        }
        let container = try ModelContainer(for: Shelf.self, configurations: ModelConfiguration(url: url))
        let context = container.mainContext
        // Key paths to main-actor properties are not Sendable, so #Predicate and
        // SortDescriptor cannot name them (in SwiftData too); the fetch is sorted here.
        let books = try context.fetch(FetchDescriptor<Book>()).sorted { $0.title < $1.title }
        #expect(books.map(\.title) == ["Book 0", "Book 1", "Book 2"])
        #expect(books.map(\.pages) == [100, 101, 102])
        #expect(books.allSatisfy { $0.shelf?.label == "Novels" })
        #expect(try context.fetch(FetchDescriptor<Shelf>()).first?.books.count == 3)
    }

    @Test("editing, cascade-deleting and undoing @MainActor models restores them and their links")
    @MainActor func mainActorModelsUndo() throws {
        let url = temporaryPackageURL()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let container = try ModelContainer(for: Shelf.self, configurations: ModelConfiguration(url: url))
        let context = container.mainContext
        context.undoManager = UndoManager()
        let shelf = Shelf(label: "Poems")
        context.insert(shelf)
        let book = Book(title: "Odes", pages: 40)
        book.shelf = shelf
        context.processPendingChanges()
        book.pages = 41
        context.processPendingChanges()
        context.delete(shelf)
        context.processPendingChanges()
        #expect(try context.fetchCount(FetchDescriptor<Book>()) == 0)
        context.undoManager?.undo()
        let books = try context.fetch(FetchDescriptor<Book>())
        #expect(books.map(\.pages) == [41])
        #expect(books.first?.shelf?.label == "Poems")
        context.undoManager?.undo()
        #expect(book.pages == 40)
    }

    /// Hands models to another thread, which drops the last references there.
    final class Handoff: @unchecked Sendable {
        var models: [AnyObject]?
        init(_ models: [AnyObject]) { self.models = models }
    }

    @Test("a @MainActor model (so Sendable) whose last reference goes on another thread leaves its context to the main actor")
    @MainActor func releasedOffTheMainActor() async throws {
        let container = try ModelContainer(for: Book.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = container.mainContext
        #expect(!Book._$unregistersOnDeinit, "a main-actor class's context holds its models weakly")
        var book: Book? = Book(title: "Odes", pages: 40)
        context.insert(book!)
        let id = book!.persistentModelID
        weak let probe = book
        let registered = context.typed.registry.count
        #expect(registered == 1)
        let handoff = Handoff([book!])
        book = nil
        // Safe Swift: a main-actor class is Sendable. Its deinit is nonisolated, so it runs
        // on the thread that drops the last reference, while the main actor may be using
        // the context (its registry, its shared backing data): a data race.
        await Task.detached { handoff.models = nil }.value
        #expect(probe == nil)
        #expect(context.typed.registry.count == registered, "another thread changed the main context's registry")
        // The context makes a new model for the object, which reads as the old one did.
        let again = try #require(context.model(for: id) as? Book)
        #expect(again.title == "Odes" && again.pages == 40)
        #expect(try context.fetch(FetchDescriptor<Book>()).map(\.title) == ["Odes"])
    }

    @Test("a large fetch of @MainActor models makes them on the main actor, and reads them all")
    @MainActor func largeFetchOfMainActorModels() throws {
        #expect(!ModelContext.makesModelsAnywhere(Book.self), "a main-actor init(backingData:) must not run on other cores")
        let url = temporaryPackageURL()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let count = ModelContext.modelsMadeConcurrentlyFrom + 1
        do {
            let container = try ModelContainer(for: Book.self, configurations: ModelConfiguration(url: url))
            for index in 0..<count { container.mainContext.insert(Book(title: "B\(index)", pages: index)) }
            try container.mainContext.save()
        }
        let container = try ModelContainer(for: Book.self, configurations: ModelConfiguration(url: url))
        let books = try container.mainContext.fetch(FetchDescriptor<Book>())
        #expect(books.count == count)
        #expect(books.reduce(0) { $0 + $1.pages } == count * (count - 1) / 2)
    }
}
