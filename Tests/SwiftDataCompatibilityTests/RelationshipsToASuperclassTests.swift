// Relationships to a `@Model` class with subclasses (SwiftData, iOS 26), written
// as an app writes them: a to-many with its inverse declared on the base class,
// a to-one, and a relationship to a subclass; saved, the container dropped and
// opened again, fetched through the relationships, deleted by cascade, undone.
import Foundation
import FolioTestSupport
import Folio
import Testing

@Model
class Voyage {
    var name: String
    /// The inverse of `Voyager.voyages`, declared on the base class and inherited.
    var traveler: Voyager?
    init(name: String) { self.name = name }
}

@Model
final class BusinessVoyage: Voyage {
    var perdiem: Double = 0
    init(name: String, perdiem: Double) {
        self.perdiem = perdiem
        super.init(name: name)
    }
}

@Model
final class PersonalVoyage: Voyage {
    var reason: String
    init(name: String, reason: String) {
        self.reason = reason
        super.init(name: name)
    }
}

@Model
final class Voyager {
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \Voyage.traveler) var voyages: [Voyage] = []
    @Relationship(deleteRule: .nullify) var favourite: Voyage?
    /// To a subclass: holds business voyages only.
    @Relationship(deleteRule: .nullify) var claims: [BusinessVoyage] = []
    init(name: String) { self.name = name }
}

/// SwiftData's example shape: a garage of any vehicles, the inverse inferred.
@Model
class Vehicle {
    var wheels: Int = 4
    var garage: Garage?
    init(wheels: Int) { self.wheels = wheels }
}

@Model
final class Bicycle: Vehicle {
    var gears: Int = 21
    init(gears: Int) {
        self.gears = gears
        super.init(wheels: 2)
    }
}

@Model
final class Garage {
    var vehicles: [Vehicle] = []
    init() {}
}

@Suite @MainActor struct RelationshipsToASuperclassTests {
    static func container(_ url: URL) throws -> ModelContainer {
        try ModelContainer(
            for: Voyager.self, Voyage.self, BusinessVoyage.self, PersonalVoyage.self,
            configurations: ModelConfiguration(url: url))
    }

    static func describe(_ voyages: [Voyage]) -> [String] {
        voyages.map { "\(type(of: $0)) \($0.name)" }
    }

    /// Ada with three voyages, one of each class, her favourite a personal one, one claim.
    static func saveAda(_ url: URL) throws {
        let container = try container(url)
        let context = container.mainContext
        let ada = Voyager(name: "Ada")
        context.insert(ada)
        let summit = BusinessVoyage(name: "Summit", perdiem: 120)
        let holiday = PersonalVoyage(name: "Holiday", reason: "sun")
        ada.voyages = [summit, Voyage(name: "Commute"), holiday]
        ada.favourite = holiday
        ada.claims = [summit]
        try context.save()
    }

    @Test("a to-many and a to-one to the base class hold models of every subclass, in order, after the container is dropped and reopened")
    func holdsEverySubclassAcrossReopening() throws {
        let folder = try TemporaryFolder()
        let url = folder.appending("Voyages.store")
        try Self.saveAda(url)
        let context = try Self.container(url).mainContext
        let ada = try #require(try context.fetch(FetchDescriptor<Voyager>()).first)
        #expect(Self.describe(ada.voyages) == ["BusinessVoyage Summit", "Voyage Commute", "PersonalVoyage Holiday"])
        #expect((ada.favourite as? PersonalVoyage)?.reason == "sun")
        #expect(ada.claims.map(\.perdiem) == [120])
        // The inverse, inherited by each subclass, holds Ada back.
        for voyage in ada.voyages { #expect(voyage.traveler === ada) }
        #expect(try context.fetch(FetchDescriptor<BusinessVoyage>()).first?.traveler === ada)
    }

    @Test("a fetch predicate follows a relationship of the base class from every subclass")
    func predicateThroughTheRelationship() throws {
        let folder = try TemporaryFolder()
        let url = folder.appending("Voyages.store")
        try Self.saveAda(url)
        let context = try Self.container(url).mainContext
        let bob = Voyager(name: "Bob")
        context.insert(bob)
        bob.voyages = [PersonalVoyage(name: "Hike", reason: "air")]
        let adas = try context.fetch(FetchDescriptor<Voyage>(predicate: #Predicate { $0.traveler?.name == "Ada" }))
        #expect(Self.describe(adas).sorted() == ["BusinessVoyage Summit", "PersonalVoyage Holiday", "Voyage Commute"])
        let bobs = try context.fetch(FetchDescriptor<Voyage>(predicate: #Predicate { $0.traveler?.name == "Bob" }))
        #expect(Self.describe(bobs) == ["PersonalVoyage Hike"])
    }

    @Test(
        "a cascade through the base class deletes every subclass's models; undo brings back the same identifiers, order and inverses; redo deletes them again")
    func cascadeUndoRedoIsExact() throws {
        let folder = try TemporaryFolder()
        let url = folder.appending("Voyages.store")
        try Self.saveAda(url)
        let container = try Self.container(url)
        let context = container.mainContext
        context.undoManager = UndoManager()
        let ada = try #require(try context.fetch(FetchDescriptor<Voyager>()).first)
        let bob = Voyager(name: "Bob")
        context.insert(bob)
        bob.favourite = ada.voyages[0]
        context.processPendingChanges()
        let ids = ada.voyages.map(\.persistentModelID)
        context.delete(ada)
        context.processPendingChanges()
        #expect(try context.fetchCount(FetchDescriptor<Voyage>()) == 0)
        #expect(bob.favourite == nil)  // nullified
        context.undoManager?.undo()
        let back = try #require(try context.fetch(FetchDescriptor<Voyager>(predicate: #Predicate { $0.name == "Ada" })).first)
        #expect(back.voyages.map(\.persistentModelID) == ids)
        #expect(Self.describe(back.voyages) == ["BusinessVoyage Summit", "Voyage Commute", "PersonalVoyage Holiday"])
        for voyage in back.voyages { #expect(voyage.traveler === back) }
        #expect(bob.favourite?.persistentModelID == ids[0])
        #expect(back.claims.map(\.persistentModelID) == [ids[0]])
        context.undoManager?.redo()
        #expect(try context.fetchCount(FetchDescriptor<Voyage>()) == 0)
        #expect(bob.favourite == nil)
        try context.save()
        let reopened = try Self.container(url).mainContext
        #expect(try reopened.fetchCount(FetchDescriptor<Voyage>()) == 0)
        #expect(try reopened.fetch(FetchDescriptor<Voyager>()).map(\.name) == ["Bob"])
    }

    @Test("the history names each subclass's model by its own entity, and a relationship edit through the base class as an update of both sides")
    func historyNamesEachClass() throws {
        let folder = try TemporaryFolder()
        let url = folder.appending("Voyages.store")
        try Self.saveAda(url)
        do {
            let context = try Self.container(url).mainContext
            let ada = try #require(try context.fetch(FetchDescriptor<Voyager>()).first)
            ada.voyages.removeFirst()
            try context.save()
        }
        let context = try Self.container(url).mainContext
        let transactions = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(transactions.count == 2)
        let inserted = transactions.first?.changes.compactMap { change -> String? in
            guard case .insert = change else { return nil }
            return change.changedPersistentIdentifier.entityName
        }
        #expect(inserted?.sorted() == ["BusinessVoyage", "PersonalVoyage", "Voyage", "Voyager"])
        let updated = transactions.last?.changes.compactMap { change -> String? in
            guard case .update = change else { return nil }
            return change.changedPersistentIdentifier.entityName
        }
        #expect(updated?.sorted() == ["BusinessVoyage", "Voyager"])
    }

    @Test("moving a subclass's model to another holder through the inherited inverse updates both lists")
    func movingThroughTheInheritedInverse() throws {
        let container = try ModelContainer(
            for: Voyager.self, Voyage.self, BusinessVoyage.self, PersonalVoyage.self,
            configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = container.mainContext
        let (ada, bob) = (Voyager(name: "Ada"), Voyager(name: "Bob"))
        context.insert(ada)
        context.insert(bob)
        let summit = BusinessVoyage(name: "Summit", perdiem: 1)
        ada.voyages = [summit, PersonalVoyage(name: "Holiday", reason: "sun")]
        summit.traveler = bob
        #expect(Self.describe(ada.voyages) == ["PersonalVoyage Holiday"])
        #expect(Self.describe(bob.voyages) == ["BusinessVoyage Summit"])
    }

    @Test("a garage of any vehicles, with its inverse inferred, holds a bicycle and a vehicle and survives reopening")
    func garageOfAnyVehicles() throws {
        let folder = try TemporaryFolder()
        let url = folder.appending("Garage.store")
        func container() throws -> ModelContainer {
            try ModelContainer(for: Garage.self, Vehicle.self, Bicycle.self, configurations: ModelConfiguration(url: url))
        }
        do {
            let context = try container().mainContext
            let garage = Garage()
            context.insert(garage)
            garage.vehicles = [Bicycle(gears: 7), Vehicle(wheels: 4)]
            #expect(garage.vehicles.allSatisfy { $0.garage === garage })
            try context.save()
        }
        let context = try container().mainContext
        let garage = try #require(try context.fetch(FetchDescriptor<Garage>()).first)
        #expect(garage.vehicles.map { "\(type(of: $0)) \($0.wheels)" } == ["Bicycle 2", "Vehicle 4"])
        #expect((garage.vehicles.first as? Bicycle)?.gears == 7)
        #expect(try context.fetch(FetchDescriptor<Bicycle>()).first?.garage === garage)
    }
}
