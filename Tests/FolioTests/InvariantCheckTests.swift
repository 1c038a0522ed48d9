import Foundation
import Synchronization
import Testing
import Folio
@testable import FolioCore
import FolioTestSupport

#if DEBUG
/// Debug builds check the graph's and the undo stack's invariants after every
/// public mutation (`InvariantCheck`); these tests break one on purpose,
/// through the module's internals, and see the next public mutation catch it.
@Suite struct InvariantCheckTests {
    /// What the checks reported while ``catching(_:)`` ran.
    final class Reports: Sendable {
        let list = Mutex<[(type: String, problems: [String])]>([])
        var all: [(type: String, problems: [String])] { list.withLock { $0 } }
    }

    /// Runs `body` with the checks' reports collected instead of stopping the test process.
    static func catching(_ body: () throws -> Void) rethrows -> Reports {
        let reports = Reports()
        try InvariantCheck.$handler.withValue({ type, problems in reports.list.withLock { $0.append((type, problems)) } }) {
            try body()
        }
        return reports
    }

    @Test("a graph whose link lost its inverse is caught by the next public edit of the graph")
    func brokenInverse() throws {
        let graph = ObjectGraph(schema: try zooSchema())
        let category = try graph.insert("AnimalCategory", ["name": .string("Birds")])
        let animal = try graph.insert("Animal", ["name": .string("Tweety")])
        try graph.link(animal, "category", to: category)
        let ref = try graph.ref(for: animal)
        let slot = try graph.linkSlot("category", entity: Int(ref.entity))
        // One side only: the category still lists the animal, the animal has no category.
        graph.tables[Int(ref.entity)].links[slot].one[Int(ref.row)] = -1

        let reports = try Self.catching { try graph.setValue(.int(3), for: "age", of: animal) }
        let report = try #require(reports.all.first)
        #expect(report.type == "ObjectGraph")
        #expect(report.problems.contains { $0.contains("has no inverse") }, "\(report.problems)")
    }

    @Test("a context's graph with an identifier at or above nextID is caught by the context's next edit")
    func brokenNextID() throws {
        let context = try makeContext(try zooSchema())
        let animal = try context.insert("Animal", ["name": .string("Rex")])
        context.graph.nextID = 1

        let reports = try Self.catching { try context.setValue(.int(4), for: "age", of: animal) }
        #expect(
            reports.all.contains { $0.type == "ObjectGraph" && $0.problems.contains { $0.contains("is not below nextID") } },
            "\(reports.all)")
    }

    @Test("a sound graph and undo stack report nothing through a run of edits, undos and redos")
    func soundReportsNothing() throws {
        let reports = try Self.catching {
            let context = try makeContext(try zooSchema())
            _ = try context.insertZoo(categories: 3, perCategory: 5)
            let animals = try context.fetchIdentifiers(DynamicFetchDescriptor(entity: "Animal"))
            for animal in animals.prefix(5) { try context.delete(animal) }
            context.processPendingChanges()
            context.undoManager?.undo()
            context.undoManager?.redo()
            context.rollback()
        }
        #expect(reports.all.isEmpty, "\(reports.all)")
    }

    @Test("a large graph is checked whole at least once every rows ÷ 16 mutations, not after each one")
    func largeGraphsAreSampled() throws {
        let graph = ObjectGraph(schema: try zooSchema())
        let animals = try (0..<1_600).map { try graph.insert("Animal", ["name": .string("A\($0)")]) }
        graph.nextID = 1
        var caughtAfter: Int?
        for (index, animal) in animals.enumerated() where caughtAfter == nil {
            let reports = try Self.catching { try graph.setValue(.int(Int64(index)), for: "age", of: animal) }
            if !reports.all.isEmpty { caughtAfter = index + 1 }
        }
        let after = try #require(caughtAfter, "never caught")
        #expect(after <= 1_600 / InvariantCheck.rowsCheckedPerMutation)
    }

    #if !canImport(Darwin)
    @Test("an undo manager undoing and redoing at once is caught by its next public call")
    func brokenUndoManager() {
        let undoManager = UndoManager()
        undoManager.isUndoing = true
        undoManager.isRedoing = true
        let reports = Self.catching { undoManager.beginUndoGrouping() }
        #expect(reports.all.first?.type == "UndoManager")
        #expect(reports.all.first?.problems.contains("undoing and redoing at once") == true, "\(reports.all)")
    }

    @Test("the undo manager's own invariants hold through nesting, levelsOfUndo and new registrations")
    func soundUndoManager() {
        final class Target {}
        let target = Target()
        let reports = Self.catching {
            let undoManager = UndoManager()
            undoManager.levelsOfUndo = 2
            for _ in 0..<4 {
                undoManager.beginUndoGrouping()
                undoManager.beginUndoGrouping()
                undoManager.registerUndo(withTarget: target) { _ in }
                undoManager.endUndoGrouping()
                undoManager.endUndoGrouping()
            }
            undoManager.undo()
            undoManager.registerUndo(withTarget: target) { _ in }
            undoManager.closeAutomaticGroup()
            #expect(undoManager.undoCount == 2 && !undoManager.canRedo)
        }
        #expect(reports.all.isEmpty, "\(reports.all)")
    }
    #endif
}
#endif
