// A to-one relationship of a non-optional type, as SwiftData apps declare it
// (`var payer: Person`, `@Relationship var payee: Person`): it compiles, saves
// and reopens; a delete of its destination leaves it to the app to reassign or
// delete before saving, as SwiftData asks, and a save that would leave it empty
// is a validation error, never a crash; migrations to and from optional.
import Foundation
import FolioTestSupport
import Folio
import Testing

@Model
final class Payer {
    var name: String
    var paid: [Expense] = []
    var received: [Expense] = []

    init(name: String) { self.name = name }
}

@Model
final class Expense {
    var amount: Int
    // Paired with Payer.paid by inference, as SwiftData pairs them.
    @Relationship(inverse: \Payer.paid) var payer: Payer
    @Relationship(inverse: \Payer.received) var payee: Payer

    init(amount: Int, payer: Payer, payee: Payer) {
        self.amount = amount
        self.payer = payer
        self.payee = payee
    }
}

@Suite @MainActor struct RequiredToOneTests {
    static func container(_ url: URL) throws -> ModelContainer {
        try ModelContainer(for: Expense.self, Payer.self, configurations: ModelConfiguration(url: url))
    }

    static func names(_ expenses: [Expense]) -> [String] {
        expenses.sorted { $0.amount < $1.amount }.map { "\($0.amount) \($0.payer.name)→\($0.payee.name)" }
    }

    @Test("a required to-one is set in the initializer, inserted with its models, saved and read back after reopening, with its inverse")
    func savesAndReopens() throws {
        let folder = try TemporaryFolder()
        let url = folder.storeURL("Expenses.store")
        do {
            let context = ModelContext(try Self.container(url))
            let ada = Payer(name: "Ada"), bob = Payer(name: "Bob")
            let lunch = Expense(amount: 12, payer: ada, payee: bob)
            #expect(lunch.payer === ada && lunch.payee === bob)
            context.insert(lunch)
            #expect(try context.fetchCount(FetchDescriptor<Payer>()) == 2, "the payer and payee are inserted with it")
            #expect(ada.paid.map(\.amount) == [12] && bob.received.map(\.amount) == [12])
            lunch.payee = ada
            #expect(bob.received.isEmpty && ada.received.map(\.amount) == [12])
            try context.save()
        }
        let context = ModelContext(try Self.container(url))
        let expenses = try context.fetch(FetchDescriptor<Expense>())
        #expect(Self.names(expenses) == ["12 Ada→Ada"])
        let schema = try #require(context.container.schema.entity(named: "Expense"))
        #expect(schema.relationship(named: "payer")?.minimumModelCount == 1)
        #expect(schema.relationship(named: "payee")?.minimumModelCount == 1)
    }

    @Test("a delete of the destination leaves the relationship to the app: it reads the deleted model, the save is refused naming it, reassigning saves")
    func deleteOfTheDestination() throws {
        let folder = try TemporaryFolder()
        let url = folder.storeURL("Expenses.store")
        let container = try Self.container(url)
        let context = container.mainContext
        context.autosaveEnabled = false
        let ada = Payer(name: "Ada"), bob = Payer(name: "Bob")
        let lunch = Expense(amount: 12, payer: ada, payee: bob)
        context.insert(lunch)
        try context.save()

        context.delete(bob)
        // A model fetched afresh, which never read the relationship, reads the deleted model too.
        let fetched = try #require(try ModelContext(container).fetch(FetchDescriptor<Expense>()).first)
        #expect(fetched.payee.name == "Bob", "another context still has Bob")
        #expect(lunch.payee.name == "Bob", "the deleted model, with its values as they were")
        #expect(lunch.payee.isDeleted)
        let refusal = #expect(throws: ModelError.self) { try context.save() }
        guard case .validation(let issues)? = refusal else {
            Issue.record("the save was not refused as a validation failure: \(String(describing: refusal))")
            return
        }
        #expect(issues.map(\.kind) == [.minimumCount])
        #expect(issues.first?.relationship == "payee" && issues.first?.object == lunch.persistentModelID)
        lunch.payee = ada
        try context.save()
        #expect(Self.names(try ModelContext(try Self.container(url)).fetch(FetchDescriptor<Expense>())) == ["12 Ada→Ada"])
    }

    @Test("undoing the delete of the destination brings the relationship back; deleting the expense too saves")
    func undoOrDeleteTheHolder() throws {
        let folder = try TemporaryFolder()
        let url = folder.storeURL("Expenses.store")
        let container = try Self.container(url)
        let context = container.mainContext
        context.autosaveEnabled = false
        context.undoManager = UndoManager()
        let ada = Payer(name: "Ada"), bob = Payer(name: "Bob")
        let lunch = Expense(amount: 12, payer: ada, payee: bob)
        context.insert(lunch)
        try context.save()

        context.delete(bob)
        context.processPendingChanges()
        #expect(lunch.payee === bob && bob.isDeleted)
        context.undoManager?.undo()
        #expect(lunch.payee === bob && !bob.isDeleted)
        #expect(bob.received.map(\.amount) == [12])

        context.delete(bob)
        context.delete(lunch)
        try context.save()
        let reopened = ModelContext(try Self.container(url))
        #expect(try reopened.fetchCount(FetchDescriptor<Expense>()) == 0)
        #expect(try reopened.fetch(FetchDescriptor<Payer>()).map(\.name) == ["Ada"])
    }

    @Test("a detached model, or an object another program left without one, reads a model holding no values, never traps")
    func readsWithoutAModel() throws {
        let folder = try TemporaryFolder()
        let url = folder.storeURL("Expenses.store")
        let context = ModelContext(try Self.container(url))
        let lunch = Expense(amount: 12, payer: Payer(name: "Ada"), payee: Payer(name: "Bob"))
        context.insert(lunch)
        // Undoing nothing here: a rollback of the unsaved insert detaches the expense.
        context.rollback()
        #expect(lunch.modelContext == nil)
        #expect(lunch.amount == 12)
        #expect(lunch.payer.name == "" && lunch.payer.modelContext == nil)
    }

    /// A package holding expenses whose relationships the schema declares
    /// optional (as `var payer: Payer?` would), the second one without a payee when `missing`.
    static func optionalPackage(_ url: URL, missing: Bool) throws {
        let payer = Schema.Entity(
            "Payer", attributes: [Schema.Attribute("name", .string)],
            relationships: [
                Schema.Relationship("paid", to: "Expense", toMany: true, inverse: "payer"),
                Schema.Relationship("received", to: "Expense", toMany: true, inverse: "payee"),
            ])
        let expense = Schema.Entity(
            "Expense", attributes: [Schema.Attribute("amount", .int)],
            relationships: [
                Schema.Relationship("payer", to: "Payer", toMany: false, inverse: "paid"),
                Schema.Relationship("payee", to: "Payer", toMany: false, inverse: "received"),
            ])
        let container = try ModelContainer(for: try Schema([expense, payer]), configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        let ada = try context.insert("Payer", ["name": .string("Ada")])
        let first = try context.insert("Expense", ["amount": .int(1)])
        let second = try context.insert("Expense", ["amount": .int(2)])
        try context.link(first, "payer", to: ada)
        try context.link(first, "payee", to: ada)
        try context.link(second, "payer", to: ada)
        if !missing { try context.link(second, "payee", to: ada) }
        try context.save()
    }

    @Test("a package with the relationships optional opens with them required when every object holds one; otherwise it is refused naming the object")
    func migrationFromOptional() throws {
        let folder = try TemporaryFolder()
        let whole = folder.storeURL("Whole.store"), missing = folder.storeURL("Missing.store")
        try Self.optionalPackage(whole, missing: false)
        try Self.optionalPackage(missing, missing: true)

        #expect(Self.names(try ModelContext(try Self.container(whole)).fetch(FetchDescriptor<Expense>())) == ["1 Ada→Ada", "2 Ada→Ada"])
        let before = try packageDocument(missing)
        #expect {
            _ = try Self.container(missing)
        } throws: { error in
            "\(error)".contains("Expense") && "\(error)".contains("payee")
        }
        #expect(try packageDocument(missing) == before, "a refused migration changes nothing")
    }

    @Test("a package saved with the relationships required opens with them optional")
    func migrationToOptional() throws {
        let folder = try TemporaryFolder()
        let url = folder.storeURL("Expenses.store")
        do {
            let context = ModelContext(try Self.container(url))
            context.insert(Expense(amount: 7, payer: Payer(name: "Ada"), payee: Payer(name: "Bob")))
            try context.save()
        }
        let container = try ModelContainer(contentsOf: url)
        #expect(container.schema.entity(named: "Expense")?.relationship(named: "payer")?.minimumModelCount == 1)
        let loosened = try Schema(
            container.schema.entities.map { entity in
                var entity = entity
                entity.relationships = entity.relationships.map {
                    var relationship = $0; relationship.minimumModelCount = 0; return relationship
                }
                return entity
            })
        _ = consume container
        let context = ModelContext(try ModelContainer(for: loosened, configurations: ModelConfiguration(url: url)))
        let expense = try #require(try context.fetchIdentifiers(DynamicFetchDescriptor(entity: "Expense")).first)
        try context.setRelated([], for: "payee", of: expense)
        try context.save()
    }
}
