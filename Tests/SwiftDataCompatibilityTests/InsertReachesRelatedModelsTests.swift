import Foundation
import FolioTestSupport
import Folio
import Testing

// A notes app builds a little graph of new models and inserts one of them,
// as SwiftData apps do: the context inserts every model the inserted one is
// related to, whichever side set the relationship (issue 32, item 3: Folio
// inserted only what the inserted model's own properties held, so a folder
// made with `Notebook(name:pages: [page])` was dropped by `insert(page)`).

@Model
final class Notebook {
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \Page.notebook)
    var pages: [Page] = []

    init(name: String, pages: [Page] = []) {
        self.name = name
        self.pages = pages
    }
}

@Model
final class Page {
    var text: String
    var notebook: Notebook?
    @Relationship(inverse: \Sticker.pages) var stickers: [Sticker] = []

    init(text: String, notebook: Notebook? = nil, stickers: [Sticker] = []) {
        self.text = text
        self.notebook = notebook
        self.stickers = stickers
    }
}

@Model
final class Sticker {
    var name: String
    var pages: [Page] = []

    init(name: String) {
        self.name = name
    }
}

@Suite @MainActor struct InsertReachesRelatedModelsTests {
    let directory: TemporaryFolder

    init() throws {
        directory = try TemporaryFolder()
    }

    func makeContainer() throws -> ModelContainer {
        try ModelContainer(
            for: Notebook.self, Page.self, Sticker.self,
            configurations: ModelConfiguration(url: directory.storeURL("Notes.store")))
    }

    @Test func insertingAPageInsertsTheNewNotebookWhoseListHoldsIt() throws {
        do {
            let container = try makeContainer()
            let context = container.mainContext
            let page = Page(text: "first")
            let notebook = Notebook(name: "Ideas", pages: [page])
            context.insert(page)
            #expect(notebook.modelContext === context)
            #expect(page.notebook?.persistentModelID == notebook.persistentModelID)
            #expect(page.notebook?.name == "Ideas")
            #expect(notebook.pages.map(\.text) == ["first"])
            try context.save()
        }
        let context = try makeContainer().mainContext
        let pages = try context.fetch(FetchDescriptor<Page>())
        #expect(pages.map(\.text) == ["first"])
        #expect(pages.first?.notebook?.name == "Ideas")
        #expect(try context.fetchCount(FetchDescriptor<Notebook>()) == 1)
    }

    @Test func insertingANotebookInsertsTheNewPagesThatNameIt() throws {
        do {
            let container = try makeContainer()
            let context = container.mainContext
            let notebook = Notebook(name: "Ideas")
            let first = Page(text: "first", notebook: notebook)
            let second = Page(text: "second", notebook: notebook)
            context.insert(notebook)
            #expect(first.modelContext === context)
            #expect(second.modelContext === context)
            #expect(Set(notebook.pages.map(\.text)) == ["first", "second"])
            try context.save()
        }
        let context = try makeContainer().mainContext
        let notebook = try #require(try context.fetch(FetchDescriptor<Notebook>()).first)
        #expect(Set(notebook.pages.map(\.text)) == ["first", "second"])
    }

    @Test func insertingAStickerInsertsTheNewPagesThatListIt() throws {
        do {
            let container = try makeContainer()
            let context = container.mainContext
            let sticker = Sticker(name: "star")
            let page = Page(text: "first", stickers: [sticker])
            context.insert(sticker)
            #expect(page.modelContext === context)
            #expect(sticker.pages.map(\.text) == ["first"])
            try context.save()
        }
        let context = try makeContainer().mainContext
        let sticker = try #require(try context.fetch(FetchDescriptor<Sticker>()).first)
        #expect(sticker.pages.map(\.text) == ["first"])
        #expect(sticker.pages.first?.stickers.map(\.name) == ["star"])
    }

    @Test func insertingATagInsertsTheNewNoteWhoseOptionalListHoldsIt() throws {
        let container = try ModelContainer(for: Note.self, Tag.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = container.mainContext
        let tag = Tag(name: "home")
        let note = Note(title: "groceries")
        note.tags = [tag]
        context.insert(tag)
        #expect(note.modelContext === context)
        #expect(tag.notes?.map(\.title) == ["groceries"])
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Note>()) == 1)
    }

    @Test func insertingTheEndOfAChainOfNewModelsInsertsTheWholeChain() throws {
        do {
            let container = try makeContainer()
            let context = container.mainContext
            let sticker = Sticker(name: "star")
            let page = Page(text: "first", stickers: [sticker])
            let notebook = Notebook(name: "Ideas", pages: [page])
            context.insert(sticker)
            #expect(page.modelContext === context)
            #expect(notebook.modelContext === context)
            try context.save()
        }
        let context = try makeContainer().mainContext
        let sticker = try #require(try context.fetch(FetchDescriptor<Sticker>()).first)
        #expect(sticker.pages.first?.notebook?.name == "Ideas")
        #expect(try context.fetchCount(FetchDescriptor<Notebook>()) == 1)
        #expect(try context.fetchCount(FetchDescriptor<Page>()) == 1)
    }

    @Test func aRelationshipSetAfterTheInitializerReachesTheNewModelToo() throws {
        let container = try makeContainer()
        let context = container.mainContext
        let page = Page(text: "first")
        let notebook = Notebook(name: "Ideas")
        notebook.pages.append(page)
        context.insert(page)
        #expect(page.notebook === notebook, "the notebook the app holds is the one the page reads")
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Notebook>()) == 1)
    }

    @Test func aModelHoldingTheInsertedOneTwiceIsInsertedOnce() throws {
        let container = try makeContainer()
        let context = container.mainContext
        let page = Page(text: "first")
        let notebook = Notebook(name: "Ideas", pages: [page])
        notebook.pages = [page]
        let other = Page(text: "second", notebook: notebook)
        context.insert(page)
        #expect(page.notebook === notebook)
        #expect(other.modelContext === context, "the notebook's insert reaches its other new page")
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Notebook>()) == 1)
        #expect(Set(notebook.pages.map(\.text)) == ["first", "second"])
    }

    @Test func aModelThatNoLongerHoldsTheInsertedOneIsNotInserted() throws {
        let container = try makeContainer()
        let context = container.mainContext
        let page = Page(text: "first")
        let notebook = Notebook(name: "Ideas", pages: [page])
        notebook.pages = []
        context.insert(page)
        #expect(notebook.modelContext == nil)
        #expect(page.notebook == nil)
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Notebook>()) == 0)
    }

    @Test func undoingTheInsertTakesBackEveryModelItInserted() throws {
        let container = try makeContainer()
        let context = container.mainContext
        context.undoManager = UndoManager()
        let sticker = Sticker(name: "star")
        let page = Page(text: "first", stickers: [sticker])
        let notebook = Notebook(name: "Ideas", pages: [page])
        context.insert(sticker)
        #expect(notebook.modelContext === context)
        #expect(try context.fetchCount(FetchDescriptor<Notebook>()) == 1)
        context.undoManager?.undo()
        #expect(try context.fetchCount(FetchDescriptor<Sticker>()) == 0)
        #expect(try context.fetchCount(FetchDescriptor<Page>()) == 0)
        #expect(try context.fetchCount(FetchDescriptor<Notebook>()) == 0)
        #expect(!context.hasChanges)
        context.undoManager?.redo()
        try context.save()
        let reopened = try makeContainer().mainContext
        #expect(try reopened.fetch(FetchDescriptor<Sticker>()).first?.pages.first?.notebook?.name == "Ideas")
    }
}
