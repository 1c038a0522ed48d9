import Testing
import Folio
@testable import FolioCore

@Suite struct UndoManagerTests {
    final class Counter { var value = 0 }

    func increment(_ counter: Counter, by amount: Int, _ manager: UndoManager) {
        Self.increment(counter, by: amount, manager)
    }

    static func increment(_ counter: Counter, by amount: Int, _ manager: UndoManager) {
        counter.value += amount
        manager.registerUndo(withTarget: counter) { target in
            increment(target, by: -amount, manager)
        }
    }

    @Test("undo and redo replay registered actions in reverse, as one group")
    func undoRedo() {
        let manager = UndoManager()
        let counter = Counter()
        increment(counter, by: 1, manager)
        increment(counter, by: 10, manager)
        manager.setActionName("Add")
        #expect(manager.canUndo && manager.undoActionName == "Add")
        manager.undo()
        #expect(counter.value == 0)
        #expect(manager.canRedo && !manager.canUndo && manager.redoActionName == "Add")
        manager.redo()
        #expect(counter.value == 11)
        #expect(manager.canUndo && !manager.canRedo)
    }

    @Test("explicit groups nest and make one step; a new registration clears redo")
    func grouping() {
        let manager = UndoManager()
        let counter = Counter()
        manager.beginUndoGrouping()
        increment(counter, by: 1, manager)
        manager.beginUndoGrouping()
        increment(counter, by: 2, manager)
        manager.endUndoGrouping()
        manager.endUndoGrouping()
        increment(counter, by: 4, manager)
        manager.closeAutomaticGroup()
        #expect(manager.undoCount == 2)
        manager.undo()
        #expect(counter.value == 3)
        manager.undo()
        #expect(counter.value == 0)
        manager.redo()
        increment(counter, by: 8, manager)
        #expect(!manager.canRedo)
    }

    @Test("levelsOfUndo drops the oldest steps; disabling registration records nothing")
    func levelsAndDisable() {
        let manager = UndoManager()
        manager.levelsOfUndo = 2
        let counter = Counter()
        for amount in [1, 2, 3] {
            increment(counter, by: amount, manager)
            manager.closeAutomaticGroup()
        }
        #expect(manager.undoCount == 2)
        manager.disableUndoRegistration()
        increment(counter, by: 100, manager)
        manager.enableUndoRegistration()
        manager.closeAutomaticGroup()
        #expect(manager.undoCount == 2)
        manager.undo(); manager.undo(); manager.undo()
        #expect(counter.value == 101)
        manager.removeAllActions()
        #expect(!manager.canUndo && !manager.canRedo)
    }

    @Test("levelsOfUndo bounds what an endless run of steps keeps: the oldest go first, and 0 keeps everything")
    func levelsBoundSteps() {
        let manager = UndoManager()
        manager.levelsOfUndo = 5
        let counter = Counter()
        for _ in 0..<10_000 {
            manager.beginUndoGrouping()
            increment(counter, by: 1, manager)
            manager.endUndoGrouping()
            #expect(manager.undoCount <= 5)
        }
        #expect(manager.undoCount == 5)
        while manager.canUndo { manager.undo() }
        #expect(counter.value == 10_000 - 5)
        #expect(manager.redoCount == 5)
        manager.levelsOfUndo = 0
        for _ in 0..<100 {
            increment(counter, by: 1, manager)
            manager.closeAutomaticGroup()
        }
        #expect(manager.undoCount == 100)
    }
}
