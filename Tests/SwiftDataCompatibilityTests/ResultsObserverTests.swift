import Foundation
import FolioTestSupport
import Folio
import Observation
import Synchronization
import Testing

// SwiftData's ResultsObserver (iOS 27) as an app uses it: over the main
// context, over a container, in memory and on disk, with a second context
// saving, and read under observation tracking as a SwiftUI view reads it.

@Model
final class Book {
    var title: String
    var genre: String
    var shelf: String?
    var pages: Int
    var isPublished: Bool

    init(title: String, genre: String = "Fiction", shelf: String? = nil, pages: Int = 100, isPublished: Bool = true) {
        self.title = title
        self.genre = genre
        self.shelf = shelf
        self.pages = pages
        self.isPublished = isPublished
    }

    /// Computed: a predicate reading it is evaluated on the models.
    var isLong: Bool { pages > 500 }
}

/// Whether an observation's `onChange` fired.
final class ChangeFlag: Sendable {
    private let state = Mutex(false)
    var fired: Bool { state.withLock { $0 } }
    func fire() { state.withLock { $0 = true } }
}

@Suite @MainActor struct ResultsObserverTests {
    let directory: TemporaryFolder

    init() throws {
        directory = try TemporaryFolder()
    }

    func inMemoryContainer() throws -> ModelContainer {
        try ModelContainer(for: Book.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
    }

    func onDiskContainer() throws -> ModelContainer {
        try ModelContainer(for: Book.self, configurations: ModelConfiguration(url: directory.storeURL()))
    }

    /// Tracks a read as a SwiftUI view's body does; the flag tells whether its onChange fired.
    func tracking(_ read: () -> Void) -> ChangeFlag {
        let flag = ChangeFlag()
        withObservationTracking(read, onChange: { flag.fire() })
        return flag
    }

    static let published = #Predicate<Book> { $0.isPublished }

    // MARK: This context's own changes

    @Test func `results follow inserts, edits and deletes made in the observed context`() throws {
        let container = try inMemoryContainer()
        let context = container.mainContext
        let observer = try ResultsObserver<Book, Never>(
            filterBy: Self.published, sortBy: [SortDescriptor(\.title)],
            modelContext: context)
        #expect(observer.results.isEmpty)

        let emma = Book(title: "Emma")
        context.insert(emma)
        context.insert(Book(title: "Persuasion"))
        context.insert(Book(title: "Draft", isPublished: false))
        #expect(observer.results.map(\.title) == ["Emma", "Persuasion"])
        #expect(observer.results.first === emma)

        emma.title = "Sense and Sensibility"
        #expect(observer.results.map(\.title) == ["Persuasion", "Sense and Sensibility"])

        emma.isPublished = false
        #expect(observer.results.map(\.title) == ["Persuasion"])

        let draft = try #require(try context.fetch(FetchDescriptor<Book>(predicate: #Predicate { $0.title == "Draft" })).first)
        draft.isPublished = true
        #expect(observer.results.map(\.title) == ["Draft", "Persuasion"])

        context.delete(draft)
        #expect(observer.results.map(\.title) == ["Persuasion"])
        try context.save()
        #expect(observer.results.map(\.title) == ["Persuasion"])
    }

    @Test func `undo and redo move models back out of and into the results`() throws {
        let container = try inMemoryContainer()
        let context = container.mainContext
        context.undoManager = UndoManager()
        let observer = try ResultsObserver<Book, Never>(sortBy: [SortDescriptor(\.pages)], modelContext: context)

        let short = Book(title: "Short", pages: 50)
        context.insert(short)
        context.processPendingChanges()
        context.insert(Book(title: "Long", pages: 900))
        context.processPendingChanges()
        #expect(observer.results.map(\.title) == ["Short", "Long"])

        short.pages = 1000
        context.processPendingChanges()
        #expect(observer.results.map(\.title) == ["Long", "Short"])

        context.undoManager?.undo()
        #expect(observer.results.map(\.title) == ["Short", "Long"])

        context.undoManager?.undo()
        #expect(observer.results.map(\.title) == ["Short"])

        context.undoManager?.redo()
        #expect(observer.results.map(\.title) == ["Short", "Long"])

        context.delete(short)
        context.processPendingChanges()
        #expect(observer.results.map(\.title) == ["Long"])
        context.undoManager?.undo()
        #expect(observer.results.map(\.title) == ["Short", "Long"])
    }

    @Test func `a rollback puts the results back to the saved state`() throws {
        let container = try inMemoryContainer()
        let context = container.mainContext
        context.insert(Book(title: "Kept"))
        try context.save()
        let observer = try ResultsObserver<Book, Never>(sortBy: [SortDescriptor(\.title)], modelContext: context)
        context.insert(Book(title: "Dropped"))
        #expect(observer.results.map(\.title) == ["Dropped", "Kept"])
        context.rollback()
        #expect(observer.results.map(\.title) == ["Kept"])
    }

    @Test func `after any sequence of edits the results are what a fetch returns`() throws {
        let container = try inMemoryContainer()
        let context = container.mainContext
        context.undoManager = UndoManager()
        let descriptor = FetchDescriptor<Book>(
            predicate: #Predicate { $0.pages > 300 && $0.isPublished },
            sortBy: [SortDescriptor(\.genre), SortDescriptor(\.pages, order: .reverse)])
        let observer = try ResultsObserver<Book, Never>(fetchDescriptor: descriptor, modelContext: context)
        var generator = SeededGenerator(seed: 32)
        let genres = ["Fiction", "History", "Poetry"]
        for step in 0..<400 {
            let books = try context.fetch(FetchDescriptor<Book>())
            switch books.isEmpty ? 0 : Int.random(in: 0..<10, using: &generator) {
            case 0...2:
                context.insert(
                    Book(
                        title: "b\(step)", genre: genres.randomElement(using: &generator) ?? "Fiction",
                        pages: Int.random(in: 0...600, using: &generator),
                        isPublished: Bool.random(using: &generator)))
            case 3...4:
                books.randomElement(using: &generator)?.pages = Int.random(in: 0...600, using: &generator)
            case 5:
                books.randomElement(using: &generator)?.genre = genres.randomElement(using: &generator) ?? "Fiction"
            case 6:
                books.randomElement(using: &generator)?.isPublished.toggle()
            case 7:
                if let book = books.randomElement(using: &generator) { context.delete(book) }
            case 8:
                context.processPendingChanges()
                context.undoManager?.undo()
            default:
                try context.save()
            }
            let expected = try context.fetch(descriptor).map(\.persistentModelID)
            #expect(observer.results.map(\.persistentModelID) == expected, "step \(step)")
        }
    }

    // MARK: Other contexts and other launches

    @Test func `another context's save is in the results when they are next read`() throws {
        let container = try inMemoryContainer()
        let observer = try ResultsObserver<Book, Never>(sortBy: [SortDescriptor(\.title)], modelContext: container.mainContext)
        let background = ModelContext(container)
        background.insert(Book(title: "Mansfield Park"))
        let emma = Book(title: "Emma")
        background.insert(emma)
        try background.save()
        #expect(observer.results.map(\.title) == ["Emma", "Mansfield Park"])

        emma.title = "Northanger Abbey"
        try background.save()
        #expect(observer.results.map(\.title) == ["Mansfield Park", "Northanger Abbey"])

        background.delete(emma)
        try background.save()
        #expect(observer.results.map(\.title) == ["Mansfield Park"])
    }

    @Test func `another context's save is taken in on the observer's actor without a read`() async throws {
        let container = try inMemoryContainer()
        let observer = try ResultsObserver<Book, Never>(modelContext: container.mainContext)
        let background = ModelContext(container)
        var saveError: (any Error)?
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            withObservationTracking({ _ = observer.results }, onChange: { continuation.resume() })
            background.insert(Book(title: "Lady Susan"))
            do { try background.save() } catch { saveError = error }
        }
        #expect(saveError == nil)
        #expect(observer.results.map(\.title) == ["Lady Susan"])
    }

    @Test func `an observer over a container sees what the main context saves`() throws {
        let container = try onDiskContainer()
        let observer = try ResultsObserver<Book, Never>(
            filterBy: Self.published, sortBy: [SortDescriptor(\.title)],
            modelContainer: container)
        #expect(observer.modelContext !== container.mainContext)
        let context = container.mainContext
        context.insert(Book(title: "Emma"))
        #expect(observer.results.isEmpty)
        try context.save()
        #expect(observer.results.map(\.title) == ["Emma"])
    }

    @Test func `results over a reopened package are what was saved, and follow edits after`() throws {
        do {
            let container = try onDiskContainer()
            container.mainContext.insert(Book(title: "Emma", genre: "Fiction"))
            container.mainContext.insert(Book(title: "Letters", genre: "Correspondence"))
            try container.mainContext.save()
        }
        let container = try onDiskContainer()
        let context = container.mainContext
        let observer = try ResultsObserver<Book, String>(sortBy: [SortDescriptor(\.title)], sectionBy: \.genre, modelContext: context)
        #expect(observer.results.map(\.title) == ["Letters", "Emma"])
        #expect(observer.sections?.sectionTitles == ["Correspondence", "Fiction"])
        let letters = try #require(observer.results.first)
        letters.genre = "Fiction"
        #expect(observer.sections?.sectionTitles == ["Fiction"])
        #expect(observer.sections?[sectionTitle: "Fiction"]?.map(\.title) == ["Emma", "Letters"])
        try context.save()
        let reopened = try onDiskContainer()
        let again = try ResultsObserver<Book, String>(sectionBy: \.genre, modelContainer: reopened)
        #expect(again.sections?.map(\.count) == [2])
    }

    @Test func `another program's save of the package reaches an observer over it without a read`() async throws {
        do {
            let container = try onDiskContainer()
            container.mainContext.insert(Book(title: "Emma"))
            try container.mainContext.save()
        }
        // A widget's read-only container over the app's package.
        let reader = try ModelContainer(for: Book.self, configurations: ModelConfiguration(url: directory.storeURL(), allowsSave: false))
        let observer = try ResultsObserver<Book, Never>(sortBy: [SortDescriptor(\.title)], modelContainer: reader)
        #expect(observer.results.map(\.title) == ["Emma"])

        var writeError: (any Error)?
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            withObservationTracking({ _ = observer.results }, onChange: { continuation.resume() })
            // The app, in its own process, saves a book: written here as another program
            // writes the package, through the document API, not through the reader's store.
            do {
                let package = DocumentPackage(url: directory.storeURL())
                let document = try package.read()
                _ = try document.insert(
                    "Book",
                    [
                        "title": .string("Persuasion"), "genre": .string("Fiction"),
                        "pages": .int(250), "isPublished": .bool(true),
                    ])
                try package.write(document)
            } catch {
                writeError = error
                continuation.resume()
            }
        }
        #expect(writeError == nil)
        #expect(observer.results.map(\.title) == ["Emma", "Persuasion"])
    }

    @Test func `an observer made after another program saved starts from that save`() throws {
        do {
            let container = try onDiskContainer()
            container.mainContext.insert(Book(title: "Emma"))
            try container.mainContext.save()
        }
        let reader = try ModelContainer(for: Book.self, configurations: ModelConfiguration(url: directory.storeURL(), allowsSave: false))
        #expect(try reader.mainContext.fetchCount(FetchDescriptor<Book>()) == 1)
        // Another program saves a book while the reader has the document open.
        let package = DocumentPackage(url: directory.storeURL())
        let document = try package.read()
        _ = try document.insert(
            "Book",
            [
                "title": .string("Persuasion"), "genre": .string("Fiction"),
                "pages": .int(250), "isPublished": .bool(true),
            ])
        try package.write(document)

        let observer = try ResultsObserver<Book, Never>(sortBy: [SortDescriptor(\.title)], modelContainer: reader)
        #expect(observer.results.map(\.title) == ["Emma", "Persuasion"])
        #expect(try reader.mainContext.fetchCount(FetchDescriptor<Book>()) == 2, "taken in for every context of the container")
    }

    // MARK: Sections

    @Test func `sections group the results by key, in sort order, each model in result order`() throws {
        let context = try inMemoryContainer().mainContext
        for (title, genre) in [("Odes", "Poetry"), ("Emma", "Fiction"), ("SPQR", "History"), ("Beowulf", "Poetry"), ("Ulysses", "Fiction")] {
            context.insert(Book(title: title, genre: genre))
        }
        let observer = try ResultsObserver<Book, String>(sortBy: [SortDescriptor(\.title)], sectionBy: \.genre, modelContext: context)
        let sections = try #require(observer.sections)
        #expect(sections.sectionTitles == ["Fiction", "History", "Poetry"])
        #expect(sections.map { $0.map(\.title) } == [["Emma", "Ulysses"], ["SPQR"], ["Beowulf", "Odes"]])
        #expect(sections[sectionTitle: "Poetry"]?.id == "Poetry")
        #expect(sections[sectionTitle: "Drama"] == nil)
        #expect(observer.results.map(\.title) == ["Emma", "Ulysses", "SPQR", "Beowulf", "Odes"])

        context.insert(Book(title: "Hamlet", genre: "Drama"))
        #expect(observer.sections?.sectionTitles == ["Drama", "Fiction", "History", "Poetry"])
        let spqr = try #require(observer.sections?[sectionTitle: "History"]?.first)
        context.delete(spqr)
        #expect(observer.sections?.sectionTitles == ["Drama", "Fiction", "Poetry"])
    }

    @Test func `models with no key form the section titled with the empty string, first`() throws {
        let context = try inMemoryContainer().mainContext
        context.insert(Book(title: "Loose", shelf: nil))
        context.insert(Book(title: "Shelved", shelf: "A"))
        let observer = try ResultsObserver<Book, String>(sectionBy: \.shelf, modelContext: context)
        #expect(observer.sections?.sectionTitles == ["", "A"])
        #expect(observer.sections?[sectionTitle: ""]?.map(\.title) == ["Loose"])
        let loose = try #require(observer.sections?[sectionTitle: ""]?.first)
        loose.shelf = "B"
        #expect(observer.sections?.sectionTitles == ["A", "B"])
    }

    @Test func `an unsectioned observer has no sections`() throws {
        let observer = try ResultsObserver<Book, Never>(modelContext: try inMemoryContainer().mainContext)
        #expect(observer.sections == nil)
        #expect(observer.sectionBy == nil)
    }

    // MARK: Observation

    @Test func `observation fires when a model enters, leaves or moves in the results, not for other edits`() throws {
        let context = try inMemoryContainer().mainContext
        let observer = try ResultsObserver<Book, Never>(
            filterBy: Self.published, sortBy: [SortDescriptor(\.title)],
            modelContext: context)
        var flag = tracking { _ = observer.results }
        let emma = Book(title: "Emma")
        context.insert(emma)
        #expect(flag.fired)

        flag = tracking { _ = observer.results }
        emma.pages = 300
        #expect(!flag.fired, "a property neither filtered nor sorted on leaves the results as they are")

        flag = tracking { _ = observer.results }
        context.insert(Book(title: "Draft", isPublished: false))
        #expect(!flag.fired, "a model the predicate excludes")

        flag = tracking { _ = observer.results }
        emma.title = "Persuasion"
        #expect(flag.fired, "a sort key changed")

        flag = tracking { _ = observer.results }
        emma.isPublished = false
        #expect(flag.fired)
        #expect(observer.results.isEmpty)
    }

    @Test func `observation of sections fires when a section key changes`() throws {
        let context = try inMemoryContainer().mainContext
        let book = Book(title: "Emma", genre: "Fiction")
        context.insert(book)
        let observer = try ResultsObserver<Book, String>(sectionBy: \.genre, modelContext: context)
        let flag = tracking { _ = observer.sections }
        book.genre = "Romance"
        #expect(flag.fired)
        #expect(observer.sections?.sectionTitles == ["Romance"])
    }

    @Test func `changing the filter or the sort fetches again and tells observers`() throws {
        let context = try inMemoryContainer().mainContext
        context.insert(Book(title: "Emma", pages: 400))
        context.insert(Book(title: "Persuasion", pages: 250))
        let observer = try ResultsObserver<Book, Never>(sortBy: [SortDescriptor(\.title)], modelContext: context)
        var flag = tracking { _ = observer.results }
        observer.filterBy = #Predicate { $0.pages > 300 }
        #expect(flag.fired)
        #expect(observer.results.map(\.title) == ["Emma"])
        flag = tracking { _ = observer.results }
        observer.filterBy = nil
        observer.sortBy = [SortDescriptor(\.pages)]
        #expect(flag.fired)
        #expect(observer.results.map(\.title) == ["Persuasion", "Emma"])
        #expect(observer.fetchDescriptor.sortBy.count == 1)
    }

    @Test func `a predicate through a computed property is followed by fetching again`() throws {
        let context = try inMemoryContainer().mainContext
        let observer = try ResultsObserver<Book, Never>(filterBy: #Predicate { $0.isLong }, modelContext: context)
        let emma = Book(title: "Emma", pages: 300)
        context.insert(emma)
        #expect(observer.results.isEmpty)
        emma.pages = 900
        #expect(observer.results.map(\.title) == ["Emma"])
        context.delete(emma)
        #expect(observer.results.isEmpty)
    }
}
