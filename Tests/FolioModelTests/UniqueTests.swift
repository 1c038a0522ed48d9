import Foundation
import Folio
import Testing
import FolioTestSupport

/// A walking tour: one per city a day, and each code used once.
@Model
final class Tour {
    #Unique<Tour>([\.city, \.day], [\.code])
    var city: String
    var day: Int
    var code: String
    var note = ""
    var guide: TourGuide?

    init(city: String, day: Int, code: String, note: String = "") {
        self.city = city
        self.day = day
        self.code = code
        self.note = note
    }
}

@Model
final class TourGuide {
    var name: String
    var tours: [Tour] = []
    init(name: String) { self.name = name }
}

/// Tours as they were before `#Unique`: the same entity, no constraints.
@Model
final class LooseTour {
    var city: String
    var day: Int
    init(city: String, day: Int) { self.city = city; self.day = day }
}

/// A constraint on a to-many relationship, which holds no one object to compare.
@Model
final class GuidedTour {
    #Unique<GuidedTour>([\.city, \.guides])
    var city: String
    var guides: [TourGuide] = []
    init(city: String) { self.city = city }
}

/// A screen flow of an app snapshot: one per label in each snapshot (the
/// shape of issue 14, a constraint over a to-one relationship and an attribute).
@Model
final class Flow {
    #Unique<Flow>([\.snapshot, \.label])
    var label: String
    var note: String
    var snapshot: Snapshot?

    init(label: String, snapshot: Snapshot?, note: String = "") {
        self.label = label
        self.snapshot = snapshot
        self.note = note
    }
}

@Model
final class Snapshot {
    var name: String
    var flows: [Flow] = []
    init(name: String) { self.name = name }
}

/// `#Unique` on model classes, as SwiftData has it: compound constraints that
/// turn a matching insert into an update, and refuse a save that would repeat.
@Model
final class AccessBadge {
    var number: Int
    /// No two badges for one holder: a uniqueness constraint of one relationship.
    @Relationship(.unique) var holder: Holder?

    init(number: Int, holder: Holder? = nil) {
        self.number = number
        self.holder = holder
    }
}

@Model
final class Holder {
    var name: String
    var badge: AccessBadge?

    init(name: String) { self.name = name }
}

@Suite struct UniqueTests {
    static func context() throws -> ModelContext {
        let context = ModelContext(try ModelContainer(for: Tour.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true)))
        context.undoManager = UndoManager()
        return context
    }

    @Test func `#Unique gives the entity its compound constraint, and a one-key-path constraint is that attribute's unique option`() throws {
        let tour = try #require(Schema([Tour.self]).entity(named: "Tour"))
        // As SwiftData reports them: the `.unique` attribute first, as a group of one.
        #expect(tour.uniquenessConstraints == [["code"], ["city", "day"]])
        #expect(tour.attribute(named: "code")?.isUnique == true)
        #expect(tour.attribute(named: "city")?.isUnique == false)
        #expect(Schema([TourGuide.self]).entity(named: "TourGuide")?.uniquenessConstraints == [])
    }

    @Test func `inserting a tour for a taken city and day updates the stored tour, and undo restores it`() throws {
        let context = try Self.context()
        let first = Tour(city: "Rome", day: 3, code: "R3", note: "first")
        context.insert(first)
        context.insert(Tour(city: "Rome", day: 4, code: "R4"))
        context.processPendingChanges()

        let second = Tour(city: "Rome", day: 3, code: "R3", note: "second")
        context.insert(second)
        #expect(second.persistentModelID == first.persistentModelID)
        #expect(first.note == "second")
        #expect(try context.fetchCount(FetchDescriptor<Tour>()) == 2)
        context.undoManager?.undo()
        #expect(first.note == "first")

        // The same city another day is another tour.
        context.insert(Tour(city: "Rome", day: 5, code: "R5"))
        #expect(try context.fetchCount(FetchDescriptor<Tour>()) == 3)
    }

    @Test func `moving a tour onto a taken city and day makes the save fail, naming both tours`() throws {
        let context = try Self.context()
        let monday = Tour(city: "Oslo", day: 1, code: "O1")
        let tuesday = Tour(city: "Oslo", day: 2, code: "O2")
        context.insert(monday)
        context.insert(tuesday)
        try context.save()
        tuesday.day = 1
        #expect {
            try context.save()
        } throws: { error in
            guard case .validation(let issues) = error as? ModelError, let issue = issues.first else { return false }
            return issues.count == 1 && issue.kind == .unique && issue.object == tuesday.persistentModelID
                && issue.relationship == "city, day" && issue.related == [monday.persistentModelID]
        }
        tuesday.city = "Bergen"
        try context.save()
    }

    @Test func `a package saved before #Unique migrates on open when its tours are distinct, and is left untouched when not`() throws {
        let folder = try temporaryFolderURL("UniqueTests")
        defer { try? FileManager.default.removeItem(at: folder) }
        for (name, days) in [("Distinct", [1, 2]), ("Repeated", [1, 1])] {
            let url = folder.appending(path: "\(name).folio")
            // The old models stored "LooseTour"; rename the entity in the schema the way a package keeps it.
            var schema = Schema([LooseTour.self])
            schema = try Schema(
                schema.entities.map { entity in
                    var entity = entity
                    entity.name = "Tour"
                    entity.attributes += [.init("code", .string, isOptional: true), .init("note", .string, defaultValue: .string(""))]
                    return entity
                } + [Schema.Entity("TourGuide", attributes: [.init("name", .string)])])
            do {  // the old container, and its lock on the package, end here
                let old = ModelContext(try ModelContainer(for: schema, configurations: ModelConfiguration(url: url)))
                for (index, day) in days.enumerated() {
                    try old.insert("Tour", ["city": .string("Rome"), "day": .int(Int64(day)), "code": .string("R\(index)")])
                }
                try old.save()
            }
            let before = try packageDocument(url)

            do {
                let container = try ModelContainer(for: Tour.self, configurations: ModelConfiguration(url: url))
                #expect(name == "Distinct")
                #expect(try ModelContext(container).fetchCount(FetchDescriptor<Tour>()) == 2)
            } catch let error as ModelError {
                #expect(name == "Repeated")
                guard case .migration(_, .duplicateUniqueValue(let entity, let attributes, _, _)) = error else {
                    Issue.record("expected a migration refusal, got \(error)")
                    continue
                }
                #expect(entity == "Tour" && attributes == "city, day")
                #expect(try packageDocument(url) == before)
            }
        }
    }

    @Test func `a constraint on a to-many relationship is refused when the container is made`() {
        #expect {
            try ModelContainer(for: GuidedTour.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        } throws: { error in
            guard case .schema(.invalidUniquenessConstraint(let entity, let attributes, let reason)) = error as? ModelError else { return false }
            return entity == "GuidedTour" && attributes == ["city", "guides"] && reason.contains("'guides' is a to-many relationship")
        }
    }

    // MARK: A to-one relationship in a constraint

    static func flowContext(url: URL? = nil) throws -> ModelContext {
        let configuration = url.map { ModelConfiguration(url: $0) } ?? ModelConfiguration(isStoredInMemoryOnly: true)
        let context = ModelContext(try ModelContainer(for: Flow.self, configurations: configuration))
        context.undoManager = UndoManager()
        return context
    }

    @Test func `#Unique over a to-one relationship and an attribute names both in the entity's constraint`() throws {
        let flow = try #require(Schema([Flow.self]).entity(named: "Flow"))
        #expect(flow.uniquenessConstraints == [["snapshot", "label"]])
        #expect(flow.relationship(named: "snapshot")?.inverse == "flows")
    }

    @Test func `inserting a flow with a stored flow's snapshot and label updates that flow; another snapshot is another flow`() throws {
        let context = try Self.flowContext()
        let release = Snapshot(name: "1.0")
        let beta = Snapshot(name: "1.1b")
        let login = Flow(label: "Login", snapshot: release, note: "first")
        context.insert(login)
        context.insert(beta)
        context.processPendingChanges()

        let again = Flow(label: "Login", snapshot: release, note: "second")
        context.insert(again)
        #expect(again.persistentModelID == login.persistentModelID)
        #expect(login.note == "second")
        #expect(release.flows.count == 1)
        context.processPendingChanges()

        context.insert(Flow(label: "Login", snapshot: beta))
        context.insert(Flow(label: "Login", snapshot: nil))
        context.insert(Flow(label: "Login", snapshot: nil))  // nil matches nothing, as in SQL
        #expect(try context.fetchCount(FetchDescriptor<Flow>()) == 4)
        try context.save()

        context.undoManager?.removeAllActions()
        context.insert(Flow(label: "Login", snapshot: release, note: "third"))
        #expect(login.note == "third")
        context.undoManager?.undo()
        #expect(login.note == "second")
        #expect(try context.fetchCount(FetchDescriptor<Flow>()) == 4)
    }

    @Test func `after the package is reopened, a flow with a stored snapshot and label still updates the stored flow`() throws {
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("Flows.folio")
        do {
            let context = try Self.flowContext(url: url)
            context.insert(Flow(label: "Login", snapshot: Snapshot(name: "1.0"), note: "saved"))
            try context.save()
        }
        let context = try Self.flowContext(url: url)
        let release = try #require(try context.fetch(FetchDescriptor<Snapshot>()).first)
        let stored = try #require(try context.fetch(FetchDescriptor<Flow>()).first)
        context.insert(Flow(label: "Login", snapshot: release, note: "reopened"))
        #expect(stored.note == "reopened")
        #expect(try context.fetchCount(FetchDescriptor<Flow>()) == 1)
        context.insert(Flow(label: "Signup", snapshot: release))
        try context.save()
        #expect(try Self.flowContext(url: url).fetchCount(FetchDescriptor<Flow>()) == 2)
    }

    @Test func `relinking a flow onto a snapshot that has its label makes the save fail, naming both flows`() throws {
        let context = try Self.flowContext()
        let release = Snapshot(name: "1.0")
        let beta = Snapshot(name: "1.1b")
        let first = Flow(label: "Login", snapshot: release)
        let second = Flow(label: "Login", snapshot: beta)
        context.insert(first)
        context.insert(second)
        try context.save()

        second.snapshot = release
        #expect {
            try context.save()
        } throws: { error in
            guard case .validation(let issues) = error as? ModelError, let issue = issues.first else { return false }
            return issues.count == 1 && issue.kind == .unique && issue.object == second.persistentModelID
                && issue.relationship == "snapshot, label" && issue.related == [first.persistentModelID]
        }
        // Unlinking from the other side ends the clash too.
        release.flows.removeAll { $0.persistentModelID == second.persistentModelID }
        #expect(second.snapshot == nil)
        try context.save()
    }

    @Test func `deleting a snapshot frees its flows' keys, and undoing the delete takes them back`() throws {
        let context = try Self.flowContext()
        let release = Snapshot(name: "1.0")
        let login = Flow(label: "Login", snapshot: release, note: "kept")
        context.insert(login)
        try context.save()

        context.delete(release)
        context.processPendingChanges()
        #expect(login.snapshot == nil)
        context.undoManager?.undo()
        #expect(login.snapshot?.name == "1.0")
        context.insert(Flow(label: "Login", snapshot: release, note: "upserted"))
        #expect(login.note == "upserted")
        #expect(try context.fetchCount(FetchDescriptor<Flow>()) == 1)
    }

    @Test func `a hand-written package whose flows share a snapshot and label is refused on open, naming both`() throws {
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("Clash.folio")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
        let document = """
            <?xml version="1.0" encoding="UTF-8"?>
            <folio format="1">
              <schema>
                <entity name="Flow">
                  <attribute name="label" type="string"/>
                  <attribute name="note" type="string"/>
                  <relationship name="snapshot" destination="Snapshot" inverse="flows" delete-rule="nullify"/>
                  <unique attributes="snapshot label"/>
                </entity>
                <entity name="Snapshot">
                  <attribute name="name" type="string"/>
                  <relationship name="flows" destination="Flow" to-many="true" inverse="snapshot" delete-rule="nullify"/>
                </entity>
              </schema>
              <objects>
                <Flow f.id="1" label="Login" note="" snapshot="3"/>
                <Flow f.id="2" label="Login" note="" snapshot="3"/>
                <Snapshot f.id="3" name="1.0" flows="1 2"/>
              </objects>
            </folio>

            """
        try Data(document.utf8).write(to: url.appendingPathComponent("document.xml"))
        #expect {
            try Self.flowContext(url: url)
        } throws: { error in
            guard case .package(.uniqueViolation(_, let entity, let attributes, let value, let ids)) = error as? ModelError else { return false }
            return entity == "Flow" && attributes == "snapshot, label" && value == "Snapshot#3, Login" && ids == [1, 2]
        }
    }

    @Test func `@Relationship(.unique) on a to-one makes it a constraint of its own: a second badge for a holder updates the first`() throws {
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("Badges.folio")
        #expect(Schema([AccessBadge.self]).entity(named: "AccessBadge")?.uniquenessConstraints == [["holder"]])
        do {
            let context = ModelContext(try ModelContainer(for: AccessBadge.self, configurations: ModelConfiguration(url: url)))
            let ada = Holder(name: "Ada")
            context.insert(ada)
            context.insert(AccessBadge(number: 1, holder: ada))
            try context.save()
            context.insert(AccessBadge(number: 2, holder: ada))  // the same holder: updates badge 1
            context.insert(AccessBadge(number: 3))  // no holder: never clashes
            context.insert(AccessBadge(number: 4))
            try context.save()
            #expect(try context.fetch(FetchDescriptor<AccessBadge>(sortBy: [SortDescriptor(\.number)])).map(\.number) == [2, 3, 4])
        }
        let context = ModelContext(try ModelContainer(for: AccessBadge.self, configurations: ModelConfiguration(url: url)))
        let ada = try #require(try context.fetch(FetchDescriptor<Holder>()).first)
        context.insert(AccessBadge(number: 5, holder: ada))
        try context.save()
        #expect(try context.fetch(FetchDescriptor<AccessBadge>(sortBy: [SortDescriptor(\.number)])).map(\.number) == [3, 4, 5])
        #expect(ada.badge?.number == 5)
    }
}
