// Model inheritance (SwiftData, iOS 26: "Adopting inheritance in SwiftData"),
// written as an app writes it: `@Model` subclasses of a `@Model` class, saved
// on disk, the container dropped and reopened, fetched through the superclass
// and the subclasses, filtered by class, deleted with and without subclasses,
// undone.
import Foundation
import FolioTestSupport
import Folio
import Testing

@Model
class Journey {
    var name: String
    var destination: String
    /// Out of the hierarchy, with no inverse: inherited by the subclasses.
    @Relationship(deleteRule: .cascade) var stamps: [Stamp] = []

    init(name: String, destination: String) {
        self.name = name
        self.destination = destination
    }
}

@Model
final class BusinessJourney: Journey {
    var perdiem: Double = 0
    /// Into a class without subclasses, with its inverse (`Receipt.journey`).
    @Relationship(deleteRule: .cascade) var receipts: [Receipt] = []

    init(name: String, destination: String, perdiem: Double) {
        self.perdiem = perdiem
        super.init(name: name, destination: destination)
    }
}

@Model
final class LeisureJourney: Journey {
    var reason: String

    init(name: String, destination: String, reason: String) {
        self.reason = reason
        super.init(name: name, destination: destination)
    }
}

@Model
final class Stamp {
    var country: String
    init(country: String) { self.country = country }
}

@Model
final class Receipt {
    var amount: Int
    var journey: BusinessJourney?
    init(amount: Int) { self.amount = amount }
}

/// A base class with a unique attribute, which its subclasses share.
@Model
class Badge {
    @Attribute(.unique) var code: String
    init(code: String) { self.code = code }
}

@Model
class GoldBadge: Badge {
    var karat: Int
    init(code: String, karat: Int) {
        self.karat = karat
        super.init(code: code)
    }
}

/// A third level: a subclass of a subclass.
@Model
final class PlatinumBadge: GoldBadge {
    var shine: String
    var note: String = "polished"
    init(code: String, karat: Int, shine: String) {
        self.shine = shine
        super.init(code: code, karat: karat)
    }
}

@Model
final class SilverBadge: Badge {
    var purity: Int
    init(code: String, purity: Int) {
        self.purity = purity
        super.init(code: code)
    }
}

/// A class whose relationship holds any journey.
@Model
final class Itinerary {
    var title: String
    var first: Journey?
    init(title: String) { self.title = title }
}

@Suite @MainActor struct ModelInheritanceTests {
    static func container(_ url: URL) throws -> ModelContainer {
        try ModelContainer(
            for: Journey.self, BusinessJourney.self, LeisureJourney.self,
            configurations: ModelConfiguration(url: url))
    }

    /// Three journeys, one of each class, saved in a new store.
    static func saveThreeJourneys(_ url: URL) throws {
        let container = try container(url)
        let context = container.mainContext
        context.insert(Journey(name: "Commute", destination: "Lyon"))
        let summit = BusinessJourney(name: "Summit", destination: "Oslo", perdiem: 120)
        summit.stamps = [Stamp(country: "NO")]
        summit.receipts = [Receipt(amount: 30), Receipt(amount: 12)]
        context.insert(summit)
        context.insert(LeisureJourney(name: "Holiday", destination: "Rome", reason: "sun"))
        try context.save()
    }

    static func names(_ journeys: [Journey]) -> [String] {
        journeys.map { "\(type(of: $0)) \($0.name)" }.sorted()
    }

    @Test("a subclass persists its inherited and its own properties, read back after the container is dropped and reopened")
    func subclassesPersistInheritedAndOwnProperties() throws {
        let folder = try TemporaryFolder()
        let url = folder.storeURL("Journeys.store")
        try Self.saveThreeJourneys(url)
        let context = try Self.container(url).mainContext
        let business = try context.fetch(FetchDescriptor<BusinessJourney>())
        #expect(business.map { "\($0.name) \($0.destination) \($0.perdiem)" } == ["Summit Oslo 120.0"])
        #expect(business.first?.stamps.map(\.country) == ["NO"])
        #expect(business.first?.receipts.map(\.amount).sorted() == [12, 30])
        #expect(business.first?.receipts.first?.journey === business.first)
        let leisure = try context.fetch(FetchDescriptor<LeisureJourney>())
        #expect(leisure.map { "\($0.name) \($0.destination) \($0.reason)" } == ["Holiday Rome sun"])
        #expect(business.first?.persistentModelID.entityName == "BusinessJourney")
    }

    @Test("a fetch of the superclass returns the subclasses' models as their own classes; a fetch of a subclass returns only it")
    func fetchOfTheSuperclassReturnsSubclassModels() throws {
        let folder = try TemporaryFolder()
        let url = folder.storeURL("Journeys.store")
        try Self.saveThreeJourneys(url)
        let context = try Self.container(url).mainContext
        let all = try context.fetch(FetchDescriptor<Journey>())
        #expect(Self.names(all) == ["BusinessJourney Summit", "Journey Commute", "LeisureJourney Holiday"])
        #expect(try context.fetchCount(FetchDescriptor<Journey>()) == 3)
        let sorted = try context.fetch(FetchDescriptor<Journey>(sortBy: [SortDescriptor(\.destination)]))
        #expect(sorted.map(\.destination) == ["Lyon", "Oslo", "Rome"])
        let oslo = try context.fetch(FetchDescriptor<Journey>(predicate: #Predicate { $0.destination == "Oslo" }))
        #expect(oslo.count == 1 && oslo.first is BusinessJourney)
        #expect(try context.fetchCount(FetchDescriptor<BusinessJourney>()) == 1)
        #expect(try context.fetchCount(FetchDescriptor<LeisureJourney>()) == 1)
        let batched = try context.fetch(FetchDescriptor<Journey>(), batchSize: 2)
        #expect(Self.names(Array(batched)) == Self.names(all))
        // The same instance whichever class it is fetched through.
        let summit = try #require(try context.fetch(FetchDescriptor<BusinessJourney>()).first)
        #expect(all.contains { $0 === summit })
    }

    @Test("a predicate on the superclass tests a model's class (is) and casts it (as?)")
    func predicatesTestAndCastTheClass() throws {
        let folder = try TemporaryFolder()
        let url = folder.storeURL("Journeys.store")
        try Self.saveThreeJourneys(url)
        let context = try Self.container(url).mainContext
        let business = try context.fetch(FetchDescriptor<Journey>(predicate: #Predicate { $0 is BusinessJourney }))
        #expect(Self.names(business) == ["BusinessJourney Summit"])
        let generous = try context.fetch(
            FetchDescriptor<Journey>(
                predicate: #Predicate { ($0 as? BusinessJourney)?.perdiem ?? 0 > 100 }))
        #expect(Self.names(generous) == ["BusinessJourney Summit"])
        let stingy = try context.fetch(
            FetchDescriptor<Journey>(
                predicate: #Predicate { ($0 as? BusinessJourney)?.perdiem ?? 0 > 500 }))
        #expect(stingy.isEmpty)
        // On an inherited property, through a subclass's descriptor.
        let rome = try context.fetch(FetchDescriptor<LeisureJourney>(predicate: #Predicate { $0.destination == "Rome" }))
        #expect(rome.map(\.reason) == ["sun"])
    }

    @Test("delete(model:where:includeSubclasses:) deletes the subclasses' matches unless told not to; undo brings them back")
    func deleteWhereIncludesSubclassesUnlessAsked() throws {
        let folder = try TemporaryFolder()
        let url = folder.storeURL("Journeys.store")
        try Self.saveThreeJourneys(url)
        let context = try Self.container(url).mainContext
        context.undoManager = UndoManager()
        try context.delete(model: Journey.self, where: #Predicate { $0.name != "" }, includeSubclasses: false)
        context.processPendingChanges()  // one user action, one undo step
        #expect(Self.names(try context.fetch(FetchDescriptor<Journey>())) == ["BusinessJourney Summit", "LeisureJourney Holiday"])
        try context.delete(model: Journey.self, where: #Predicate { $0.destination == "Oslo" })
        context.processPendingChanges()
        #expect(Self.names(try context.fetch(FetchDescriptor<Journey>())) == ["LeisureJourney Holiday"])
        #expect(try context.fetchCount(FetchDescriptor<Receipt>()) == 0, "the cascade of the business journey's receipts")
        context.undoManager?.undo()
        #expect(Self.names(try context.fetch(FetchDescriptor<Journey>())) == ["BusinessJourney Summit", "LeisureJourney Holiday"])
        #expect(try context.fetchCount(FetchDescriptor<Receipt>()) == 2)
        try context.save()
        let reopened = try Self.container(url).mainContext
        #expect(Self.names(try reopened.fetch(FetchDescriptor<Journey>())) == ["BusinessJourney Summit", "LeisureJourney Holiday"])
        try reopened.delete(model: Journey.self)
        #expect(try reopened.fetchCount(FetchDescriptor<Journey>()) == 0)
    }

    @Test("editing, deleting and undoing a subclass's model works on its inherited and own properties and relationships")
    func editDeleteAndUndoAcrossTheHierarchy() throws {
        let folder = try TemporaryFolder()
        let url = folder.storeURL("Journeys.store")
        try Self.saveThreeJourneys(url)
        let context = try Self.container(url).mainContext
        context.autosaveEnabled = false  // saved at the end, as the test says
        context.undoManager = UndoManager()
        let summit = try #require(
            try context.fetch(FetchDescriptor<Journey>(predicate: #Predicate { $0.name == "Summit" })).first
                as? BusinessJourney)
        summit.name = "Board meeting"  // inherited
        context.processPendingChanges()
        summit.perdiem = 150  // its own
        context.processPendingChanges()
        #expect(context.hasChanges && summit.hasChanges)
        context.undoManager?.undo()
        #expect(summit.name == "Board meeting" && summit.perdiem == 120)
        context.undoManager?.undo()
        #expect(summit.name == "Summit")
        context.undoManager?.redo()
        #expect(summit.name == "Board meeting")
        let receipts = summit.receipts
        context.delete(summit)
        context.processPendingChanges()
        #expect(summit.isDeleted && receipts.allSatisfy(\.isDeleted))
        context.undoManager?.undo()
        #expect(!summit.isDeleted && summit.receipts.map(\.amount).sorted() == [12, 30] && summit.stamps.map(\.country) == ["NO"])
        context.undoManager?.redo()
        try context.save()
        let reopened = try Self.container(url).mainContext
        #expect(Self.names(try reopened.fetch(FetchDescriptor<Journey>())) == ["Journey Commute", "LeisureJourney Holiday"])
        #expect(try reopened.fetchCount(FetchDescriptor<Receipt>()) == 0)
        #expect(try reopened.fetchCount(FetchDescriptor<Stamp>()) == 0)
    }

    @Test("history records a subclass's changes under its own entity, its inherited and own attributes by its key paths")
    func historyNamesTheSubclass() throws {
        let folder = try TemporaryFolder()
        let url = folder.storeURL("Journeys.store")
        try Self.saveThreeJourneys(url)
        let context = try Self.container(url).mainContext
        context.autosaveEnabled = false
        let summit = try #require(try context.fetch(FetchDescriptor<BusinessJourney>()).first)
        summit.name = "Board meeting"
        summit.perdiem = 99
        try context.save()
        let transactions = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        let inserted =
            transactions.first?.changes.compactMap { change -> String? in
                guard case .insert(let insert) = change else { return nil }
                return insert.changedPersistentIdentifier.entityName
            } ?? []
        #expect(inserted.contains("BusinessJourney") && inserted.contains("LeisureJourney") && inserted.contains("Journey"))
        let update = try #require(
            transactions.last?.changes.compactMap { change -> DefaultHistoryUpdate<BusinessJourney>? in
                guard case .update(let update as DefaultHistoryUpdate<BusinessJourney>) = change else { return nil }
                return update
            }.first)
        #expect(update.changedPersistentIdentifier == summit.persistentModelID)
        #expect(update.updatedAttributes.contains(\BusinessJourney.name) && update.updatedAttributes.contains(\BusinessJourney.perdiem))
    }

    @Test("the schema records the hierarchy: superentity and subentities, inherited properties first, written in the package")
    func schemaRecordsTheHierarchy() throws {
        let folder = try TemporaryFolder()
        let url = folder.storeURL("Journeys.store")
        try Self.saveThreeJourneys(url)
        let container = try Self.container(url)
        let schema = container.schema
        let business = try #require(schema.entity(named: "BusinessJourney"))
        #expect(business.superentity == "Journey")
        #expect(business.attributes.map(\.name) == ["name", "destination", "perdiem"])
        #expect(business.relationships.map(\.name) == ["stamps", "receipts"])
        #expect(schema.entity(named: "Journey")?.superentity == nil)
        #expect(schema.subentities(of: "Journey").map(\.name).sorted() == ["BusinessJourney", "LeisureJourney"])
        let manifest = try String(contentsOf: url.appendingPathComponent("manifest.xml"), encoding: .utf8)
        #expect(manifest.contains(#"<entity name="BusinessJourney" superentity="Journey">"#))
        // The package's own schema, read with no classes, says the same.
        let stored = try DocumentPackage(url: url).read().schema
        #expect(stored.entity(named: "LeisureJourney")?.superentity == "Journey")
    }

    @Test("a store saved before the subclasses existed opens with them: lightweight, its objects kept")
    func addingASubclassMigratesLightweight() throws {
        let folder = try TemporaryFolder()
        let url = folder.storeURL("Journeys.store")
        do {
            let container = try ModelContainer(for: Journey.self, configurations: ModelConfiguration(url: url))
            container.mainContext.insert(Journey(name: "Commute", destination: "Lyon"))
            try container.mainContext.save()
        }
        let context = try Self.container(url).mainContext
        #expect(Self.names(try context.fetch(FetchDescriptor<Journey>())) == ["Journey Commute"])
        context.insert(BusinessJourney(name: "Summit", destination: "Oslo", perdiem: 120))
        try context.save()
        let reopened = try Self.container(url).mainContext
        #expect(Self.names(try reopened.fetch(FetchDescriptor<Journey>())) == ["BusinessJourney Summit", "Journey Commute"])
    }

    @Test("a unique attribute of the superclass holds across its subclasses: two subclasses' models sharing a value are refused at save")
    func uniquenessOnTheSuperclassHoldsAcrossSubclasses() throws {
        let folder = try TemporaryFolder()
        let url = folder.storeURL("Badges.store")
        let container = try ModelContainer(
            for: Badge.self, GoldBadge.self, SilverBadge.self, PlatinumBadge.self,
            configurations: ModelConfiguration(url: url))
        let context = container.mainContext
        context.autosaveEnabled = false
        context.insert(GoldBadge(code: "A", karat: 18))
        context.insert(SilverBadge(code: "A", purity: 925))
        let refusal = #expect(throws: ModelError.self) { try context.save() }
        guard case .validation(let issues)? = refusal else {
            Issue.record("got \(String(describing: refusal))")
            return
        }
        #expect(issues.contains { $0.kind == .unique && $0.relationship == "code" }, "\(issues)")
        let silver = try #require(try context.fetch(FetchDescriptor<SilverBadge>()).first)
        silver.code = "B"
        try context.save()
        let reopened = ModelContext(
            try ModelContainer(
                for: Badge.self, GoldBadge.self, SilverBadge.self, PlatinumBadge.self,
                configurations: ModelConfiguration(url: url)))
        #expect(try reopened.fetch(FetchDescriptor<Badge>(sortBy: [SortDescriptor(\.code)])).map(\.code) == ["A", "B"])
    }

    @Test("a subclass of a subclass keeps the properties of all three classes, before and after insertion, saved and fetched through each")
    func threeLevels() throws {
        let folder = try TemporaryFolder()
        let url = folder.storeURL("Badges.store")
        let types: [any PersistentModel.Type] = [Badge.self, GoldBadge.self, SilverBadge.self, PlatinumBadge.self]
        do {
            let context = try ModelContainer(for: Schema(types), configurations: ModelConfiguration(url: url)).mainContext
            context.autosaveEnabled = false
            let platinum = PlatinumBadge(code: "P", karat: 24, shine: "mirror")
            #expect(platinum.code == "P" && platinum.karat == 24 && platinum.shine == "mirror" && platinum.note == "polished")
            platinum.karat = 22
            platinum.note = "engraved"
            context.insert(platinum)
            context.insert(GoldBadge(code: "G", karat: 18))
            #expect(platinum.code == "P" && platinum.karat == 22 && platinum.shine == "mirror" && platinum.note == "engraved")
            platinum.shine = "satin"
            try context.save()
        }
        let context = try ModelContainer(for: Schema(types), configurations: ModelConfiguration(url: url)).mainContext
        let badges = try context.fetch(FetchDescriptor<Badge>(sortBy: [SortDescriptor(\.code)]))
        #expect(badges.map { "\(type(of: $0)) \($0.code)" } == ["GoldBadge G", "PlatinumBadge P"])
        let golds = try context.fetch(FetchDescriptor<GoldBadge>(predicate: #Predicate { $0.karat > 20 }))
        let platinum = try #require(golds.first as? PlatinumBadge)
        #expect(golds.count == 1 && platinum.karat == 22 && platinum.shine == "satin" && platinum.note == "engraved")
        #expect(context.container.schema.entity(named: "PlatinumBadge")?.superentity == "GoldBadge")
        #expect(context.container.schema.hierarchy(of: "Badge") == ["Badge", "GoldBadge", "PlatinumBadge", "SilverBadge"])
    }

    @Test("a to-one to a class with subclasses holds a model of a subclass, as its own class")
    func relationshipIntoAHierarchyHoldsASubclass() throws {
        let container = try ModelContainer(
            for: Itinerary.self, Journey.self, BusinessJourney.self,
            configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let itinerary = Itinerary(title: "Spring")
        container.mainContext.insert(itinerary)
        itinerary.first = BusinessJourney(name: "Summit", destination: "Oslo", perdiem: 120)
        #expect((itinerary.first as? BusinessJourney)?.perdiem == 120)
    }
}
