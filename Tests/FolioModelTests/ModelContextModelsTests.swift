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
