// #Unique over a to-one relationship and an attribute, as
// SwiftData allows.
import Foundation
import FolioTestSupport
import Folio
import Testing

@Model
final class Snapshot {
    @Attribute(.unique) var name: String
    var takenAt: Date
    @Relationship(deleteRule: .cascade, inverse: \Flow.snapshot)
    var flows: [Flow] = []

    init(name: String, takenAt: Date) {
        self.name = name
        self.takenAt = takenAt
    }
}

@Model
final class Flow {
    #Unique<Flow>([\.snapshot, \.label])

    var label: String
    var rate: Double
    var snapshot: Snapshot?

    init(label: String, rate: Double, snapshot: Snapshot? = nil) {
        self.label = label
        self.rate = rate
        self.snapshot = snapshot
    }
}

@Suite @MainActor struct UniqueRelationshipTests {
    @Test func theConstraintNamesTheRelationshipAndTheAttribute() {
        let schema = Schema([Flow.self])
        let flow = schema.entities.first { $0.name == "Flow" }
        #expect(flow?.uniquenessConstraints.contains(["snapshot", "label"]) == true)
    }

    @Test func aFlowWithTheSameSnapshotAndLabelUpdatesTheStoredOne() throws {
        let container = try ModelContainer(
            for: Snapshot.self, Flow.self,
            configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = container.mainContext
        let monday = Snapshot(name: "Monday", takenAt: .day(2))
        let tuesday = Snapshot(name: "Tuesday", takenAt: .day(3))
        context.insert(monday)
        context.insert(tuesday)
        context.insert(Flow(label: "inlet", rate: 1.5, snapshot: monday))
        context.insert(Flow(label: "inlet", rate: 2.5, snapshot: tuesday))
        context.insert(Flow(label: "outlet", rate: 0.5, snapshot: monday))
        try context.save()

        context.insert(Flow(label: "inlet", rate: 9.0, snapshot: monday))
        try context.save()

        let flows = try context.fetch(FetchDescriptor<Flow>(sortBy: [SortDescriptor(\.label), SortDescriptor(\.rate)]))
        #expect(flows.count == 3)
        #expect(flows.map(\.rate) == [2.5, 9.0, 0.5])
        #expect(monday.flows.count == 2)
    }

    // Two new flows keyed by the same new snapshot and label, saved together,
    // are one flow holding the later values, as one new trip whose unique name
    // another new trip has is (issue 32, item 4: this save threw).
    @Test func twoNewFlowsOfOneNewSnapshotAreOneFlowWithTheLaterValues() throws {
        let container = try ModelContainer(
            for: Snapshot.self, Flow.self,
            configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = container.mainContext
        let monday = Snapshot(name: "Monday", takenAt: .day(2))
        context.insert(Flow(label: "inlet", rate: 1, snapshot: monday))
        context.insert(Flow(label: "inlet", rate: 2, snapshot: monday))
        try context.save()
        let flows = try context.fetch(FetchDescriptor<Flow>())
        #expect(flows.map(\.rate) == [2])
        #expect(monday.flows.map(\.rate) == [2])
    }

    @Test func flowsOfTwoNewSnapshotsWithOneUniqueNameAreOneFlowWithTheLaterValues() throws {
        let directory = try TemporaryFolder()
        let configuration = ModelConfiguration(url: directory.storeURL("Flows.store"))
        do {
            let container = try ModelContainer(for: Snapshot.self, Flow.self, configurations: configuration)
            let context = container.mainContext
            context.insert(Flow(label: "inlet", rate: 1, snapshot: Snapshot(name: "Monday", takenAt: .day(2))))
            context.insert(Flow(label: "outlet", rate: 5, snapshot: Snapshot(name: "Monday", takenAt: .day(2))))
            // The snapshot's name is unique: this one updates Monday's, and the
            // flow, keyed by Monday and "inlet", updates the first flow.
            context.insert(Flow(label: "inlet", rate: 2, snapshot: Snapshot(name: "Monday", takenAt: .day(3))))
            try context.save()
        }
        let context = try ModelContainer(for: Snapshot.self, Flow.self, configurations: configuration).mainContext
        let snapshots = try context.fetch(FetchDescriptor<Snapshot>())
        #expect(snapshots.map(\.name) == ["Monday"])
        #expect(snapshots.map(\.takenAt) == [.day(3)])
        let flows = try context.fetch(FetchDescriptor<Flow>(sortBy: [SortDescriptor(\.label)]))
        #expect(flows.map(\.label) == ["inlet", "outlet"])
        #expect(flows.map(\.rate) == [2, 5])
        #expect(flows.allSatisfy { $0.snapshot?.name == "Monday" })
    }

    @Test func newFlowsListedInANewSnapshotWithOneLabelAreOneFlowWithTheLaterValues() throws {
        let container = try ModelContainer(
            for: Snapshot.self, Flow.self,
            configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = container.mainContext
        let monday = Snapshot(name: "Monday", takenAt: .day(2))
        monday.flows = [Flow(label: "inlet", rate: 1), Flow(label: "inlet", rate: 2), Flow(label: "outlet", rate: 3)]
        context.insert(monday)
        try context.save()
        let flows = try context.fetch(FetchDescriptor<Flow>(sortBy: [SortDescriptor(\.label)]))
        #expect(flows.map(\.rate) == [2, 3])
        #expect(monday.flows.count == 2)
    }

    // SwiftData documents only that an insert is included in the next save;
    // Folio resolves the key when the model is inserted, so a fetch before the
    // save already finds one object, holding the later values.
    @Test func anInsertOverAnExistingKeyUpdatesItAtOnce() throws {
        let container = try ModelContainer(
            for: Snapshot.self, Flow.self,
            configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = container.mainContext
        let monday = Snapshot(name: "Monday", takenAt: .day(2))
        let first = Flow(label: "inlet", rate: 1, snapshot: monday)
        context.insert(first)
        context.insert(Flow(label: "inlet", rate: 2, snapshot: monday))
        #expect(try context.fetchCount(FetchDescriptor<Flow>()) == 1)
        #expect(first.rate == 2)
        try context.save()
        #expect(try context.fetch(FetchDescriptor<Flow>()).map(\.rate) == [2])
    }

    @Test func flowsWithoutASnapshotDoNotClash() throws {
        let container = try ModelContainer(for: Flow.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = container.mainContext
        context.insert(Flow(label: "inlet", rate: 1))
        context.insert(Flow(label: "inlet", rate: 2))
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Flow>()) == 2)
    }

    @Test func movingAFlowOntoAnotherWithTheSameLabelIsRefusedAtSave() throws {
        let container = try ModelContainer(for: Flow.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = container.mainContext
        context.autosaveEnabled = false
        let monday = Snapshot(name: "Monday", takenAt: .day(2))
        let tuesday = Snapshot(name: "Tuesday", takenAt: .day(3))
        let moving = Flow(label: "inlet", rate: 2, snapshot: tuesday)
        context.insert(Flow(label: "inlet", rate: 1, snapshot: monday))
        context.insert(moving)
        try context.save()

        moving.snapshot = monday
        #expect(throws: (any Error).self) {
            try context.save()
        }
    }

    @Test func theConstraintHoldsAfterReopening() throws {
        let directory = try TemporaryFolder()
        let configuration = ModelConfiguration(url: directory.storeURL("Flows.store"))
        do {
            let context = ModelContext(try ModelContainer(for: Flow.self, configurations: configuration))
            let monday = Snapshot(name: "Monday", takenAt: .day(2))
            context.insert(Flow(label: "inlet", rate: 1, snapshot: monday))
            try context.save()
        }

        let context = ModelContext(try ModelContainer(for: Flow.self, configurations: configuration))
        let monday = try #require(try context.fetch(FetchDescriptor<Snapshot>()).first)
        context.insert(Flow(label: "inlet", rate: 3, snapshot: monday))
        try context.save()
        let flows = try context.fetch(FetchDescriptor<Flow>())
        #expect(flows.map(\.rate) == [3])
    }
}

/// `@Relationship(.unique)`: one passport per traveller.
@Model
final class Passport {
    var number: String
    @Relationship(.unique) var owner: PassportOwner?

    init(number: String, owner: PassportOwner? = nil) {
        self.number = number
        self.owner = owner
    }
}

@Model
final class PassportOwner {
    var name: String
    var passport: Passport?

    init(name: String) { self.name = name }
}

@Suite @MainActor struct UniqueRelationshipOptionTests {
    @Test func aUniqueToOneHoldsOneModelPerRelatedModel() throws {
        let container = try ModelContainer(for: Passport.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = container.mainContext
        let owner = PassportOwner(name: "Ada")
        context.insert(owner)
        context.insert(Passport(number: "X1", owner: owner))
        try context.save()
        context.insert(Passport(number: "X2", owner: owner))
        try context.save()
        let passports = try context.fetch(FetchDescriptor<Passport>())
        #expect(passports.map(\.number) == ["X2"])
        #expect(container.schema.entity(named: "Passport")?.uniquenessConstraints == [["owner"]])
    }

    @Test func aNewPassportGivenToAnOwnerReplacesTheOldOneWhichKeepsNoOwner() throws {
        let container = try ModelContainer(for: Passport.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = container.mainContext
        let owner = PassportOwner(name: "Ada")
        context.insert(owner)
        let old = Passport(number: "X1", owner: owner)
        context.insert(old)
        try context.save()
        owner.passport = Passport(number: "X2")
        try context.save()
        let passports = try context.fetch(FetchDescriptor<Passport>(sortBy: [SortDescriptor(\.number)]))
        #expect(passports.map(\.number) == ["X1", "X2"])
        #expect(old.owner == nil, "a one-to-one moves: the old passport is released")
        #expect(owner.passport?.number == "X2")
    }
}
