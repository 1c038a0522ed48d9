import Folio
import Testing
import FolioTestSupport

// The Realm guide's asynchronous delete (seeds/realm-delete.md, last section),
// done the SwiftData way: an actor with its own context deletes and saves, off
// the caller's actor; the main context then no longer fetches the object, and
// its model of it is detached.

@Model
final class Todo {
    var name: String
    var status: String

    init(name: String, status: String = "Open") {
        self.name = name
        self.status = status
    }
}

@ModelActor
actor TodoActor {
    private(set) var ranOnMainThread: Bool?

    func getObjectId(forTodoNamed name: String) throws -> PersistentIdentifier? {
        try modelContext.fetch(FetchDescriptor<Todo>(predicate: #Predicate { $0.name == name })).first?.persistentModelID
    }

    func deleteTodo(id: PersistentIdentifier) throws {
        ranOnMainThread = Thread.isMainThread
        guard let todoToDelete = modelContext.model(for: id) as? Todo else { return }
        modelContext.delete(todoToDelete)
        try modelContext.save()
    }

    var count: Int {
        (try? modelContext.fetchCount(FetchDescriptor<Todo>())) ?? 0
    }
}

@Suite struct ModelActorTests {
    @Test @MainActor func `an actor's saved delete is gone from the main context's fetches and detaches its model`() async throws {
        let folder = try TemporaryFolder()
        let container = try ModelContainer(for: Todo.self, configurations: ModelConfiguration(url: folder.url.appendingPathComponent("Todos.folio")))
        let mainContext = container.mainContext
        for name in ["Keep Mr. Frodo safe from that Gollum", "Carry the ring", "Second breakfast"] {
            mainContext.insert(Todo(name: name))
        }
        try mainContext.save()
        let todos = try mainContext.fetch(FetchDescriptor<Todo>(sortBy: [SortDescriptor(\.name)]))
        let todoCount = todos.count
        let frodo = try #require(todos.first { $0.name.hasPrefix("Keep") })

        let actor = TodoActor(modelContainer: container)
        let todoId = try #require(try await actor.getObjectId(forTodoNamed: "Keep Mr. Frodo safe from that Gollum"))
        #expect(todoId == frodo.persistentModelID)
        try await actor.deleteTodo(id: todoId)
        let updatedTodoCount = await actor.count
        #expect(updatedTodoCount == todoCount - 1)
        #expect(await actor.ranOnMainThread == false)

        // The main context sees the actor's save on its next fetch.
        let remaining = try mainContext.fetch(FetchDescriptor<Todo>(sortBy: [SortDescriptor(\.name)]))
        #expect(remaining.map(\.name) == ["Carry the ring", "Second breakfast"])
        #expect(frodo.modelContext == nil)
        #expect(!frodo.isDeleted)
        #expect(mainContext.registeredModel(for: todoId) as Todo? == nil)
        #expect(frodo.name == "Keep Mr. Frodo safe from that Gollum")

        // And the package on disk no longer holds it.
        let reopened = ModelContext(
            try ModelContainer(for: Todo.self, configurations: ModelConfiguration(url: folder.url.appendingPathComponent("Todos.folio"), allowsSave: false)))
        #expect(try reopened.fetchCount(FetchDescriptor<Todo>()) == 2)
    }

    @Test func `an actor finds a model by identifier with self[id, as:], and nil for another class or a missing object`() async throws {
        let container = try ModelContainer(for: Todo.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        let todo = Todo(name: "Carry the ring")
        context.insert(todo)
        try context.save()
        let actor = TodoActor(modelContainer: container)
        #expect(try await actor.close(id: todo.persistentModelID))
        #expect(try await !actor.close(id: PersistentIdentifier(entityName: "Todo", id: 999)))
        _ = try context.fetchCount(FetchDescriptor<Todo>())
        #expect(todo.status == "Closed")
    }

    @Test func `an actor's context is its own: no undo manager and no autosave, as for contexts you create`() async throws {
        let container = try ModelContainer(for: Todo.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let actor = TodoActor(modelContainer: container)
        #expect(actor.modelContainer === container)
        let (hasUndo, autosaves) = await actor.contextSettings()
        #expect(!hasUndo)
        #expect(!autosaves)
    }
}

extension TodoActor {
    func contextSettings() -> (Bool, Bool) { (modelContext.undoManager != nil, modelContext.autosaveEnabled) }

    /// Looks a model up by identifier the SwiftData way, `self[id, as:]`.
    func close(id: PersistentIdentifier) throws -> Bool {
        guard let todo = self[id, as: Todo.self] else { return false }
        todo.status = "Closed"
        try modelContext.save()
        return true
    }
}
