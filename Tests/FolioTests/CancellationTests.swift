import Foundation
import Testing
import Folio
@testable import FolioCore
import FolioTestSupport

/// `ModelContext.cancellationCheck`: long fetches, counts, deletion previews
/// and deletes stop when it says so, and a stopped delete changes nothing.
/// Work is counted (how often the check was asked), never timed.
@Suite struct CancellationTests {
    /// Objects in the large cases: enough for several checks (one every
    /// ``CancellationPoll/interval`` rows); more in a long run.
    private static let large = TestEffort.isLong ? 40_000 : 20_000

    /// An owner holding `count` items (cascade), saved, with an undo manager.
    private func owned(_ count: Int) throws -> (ModelContext, PersistentIdentifier) {
        let context = try makeContext(try ruleSchema(ownerRule: .cascade, itemRule: .nullify))
        let owner = try context.insert("Owner", ["name": .string("box")])
        var items: [PersistentIdentifier] = []
        for index in 0..<count { items.append(try context.insert("Item", ["name": .string("item \(index)")])) }
        try context.setRelated(items, for: "items", of: owner)
        try context.save()
        return (context, owner)
    }

    @Test("a fetch over tens of thousands of objects asks the check every 4,096 rows and stops when told, throwing cancelled")
    func fetchStops() throws {
        let (context, _) = try owned(Self.large)
        let counting = CancellationStopper(after: .max)
        context.cancellationCheck = counting.check
        #expect(try context.fetchIdentifiers(DynamicFetchDescriptor(entity: "Item")).count == Self.large)
        #expect(counting.calls == Self.large / CancellationPoll.interval, "asked every \(CancellationPoll.interval) rows, no more")

        let stopper = CancellationStopper(after: 2)
        context.cancellationCheck = stopper.check
        #expect(throws: ModelError.cancelled) {
            try context.fetchIdentifiers(DynamicFetchDescriptor(entity: "Item", predicate: try ObjectPredicate("name != 'x'")))
        }
        #expect(stopper.calls == 3, "stopped at the third check, a few thousand rows in")
        #expect(throws: ModelError.cancelled) { try context.fetchCount(DynamicFetchDescriptor(entity: "Item", predicate: try ObjectPredicate("name != 'x'"))) }
    }

    @Test("a sorted fetch is asked before and after its sort")
    func sortAsks() throws {
        let (context, _) = try owned(10)
        let stopper = CancellationStopper(after: 0)
        context.cancellationCheck = stopper.check
        #expect(throws: ModelError.cancelled) {
            try context.fetchIdentifiers(DynamicFetchDescriptor(entity: "Item", sortBy: [.init("name")]))
        }
        #expect(stopper.calls == 1)
    }

    @Test("a deletion preview of a cascade of tens of thousands of objects stops when told")
    func previewStops() throws {
        let (context, owner) = try owned(Self.large)
        let stopper = CancellationStopper(after: 3)
        context.cancellationCheck = stopper.check
        #expect(throws: ModelError.cancelled) { try context.deletionPreview(for: [owner]) }
        #expect(stopper.calls == 4)
        #expect(throws: ModelError.cancelled) { try context.deletionPreview(entity: "Owner") }
        context.cancellationCheck = nil
        #expect(try context.deletionPreview(for: [owner]).deleted.count == Self.large + 1)
    }

    @Test("a delete stopped while it plans its cascade deletes nothing, leaves no undo step and no unsaved change")
    func deleteStopsBeforeChanging() throws {
        let (context, owner) = try owned(Self.large)
        let stepsBefore = context.undoManager?.undoCount
        // A check every 4,096 objects: the last stop comes a check or a few before the cascade's end.
        for stopAfter in TestEffort.isLong ? [0, 3, 6] : [0, 2, 3] {
            let stopper = CancellationStopper(after: stopAfter)
            context.cancellationCheck = stopper.check
            #expect(throws: ModelError.cancelled) { try context.delete(owner) }
            #expect(throws: ModelError.cancelled) { try context.delete(entity: "Owner") }
            #expect(throws: ModelError.cancelled) { try context.delete(entity: "Item", where: try ObjectPredicate("name != 'x'")) }
            #expect(context.contains(owner) && !context.isDeleted(owner))
            #expect(try context.fetchCount(DynamicFetchDescriptor(entity: "Item")) == Self.large)
            #expect(!context.hasChanges)
            context.processPendingChanges()
            #expect(context.undoManager?.undoCount == stepsBefore)
            #expect(context.graph.invariantViolations().isEmpty)
        }
        // Not stopped: the same delete deletes the whole cascade as one step.
        context.cancellationCheck = { false }
        try context.delete(owner)
        #expect(try context.fetchCount(DynamicFetchDescriptor(entity: "Item")) == 0)
    }

    @Test("without a check nothing is asked and nothing stops; deleteEverything is never stopped")
    func noCheck() throws {
        let (context, _) = try owned(5_000)
        #expect(try context.fetchIdentifiers(DynamicFetchDescriptor(entity: "Item")).count == 5_000)
        context.cancellationCheck = { true }
        context.deleteEverything()
        #expect(try context.fetchCount(DynamicFetchDescriptor(entity: "Owner")) == 0)
        #expect(ModelError.cancelled.description == "cancelled")
    }
}
