import FolioCore
import Foundation

/// What `history`, `status`, `undo N` and failed commands read from the undo
/// manager. Folio's own undo manager (Linux) lists its steps; Foundation's
/// (Apple platforms) only names the next one, so there the history is that.
extension FolioCore.UndoManager {
    #if canImport(Darwin)
    /// Names of the undoable steps, oldest first.
    var undoStepNames: [String] { canUndo ? [undoActionName] : [] }
    /// Names of the redoable steps, next redo first.
    var redoStepNames: [String] { canRedo ? [redoActionName] : [] }
    /// How many steps can be undone (on Apple platforms: whether any can, as 0 or 1).
    var undoSteps: Int { canUndo ? 1 : 0 }
    /// How many steps can be redone (on Apple platforms: 0 or 1).
    var redoSteps: Int { canRedo ? 1 : 0 }
    /// When the undoable steps were recorded, oldest first (unknown on Apple platforms).
    var undoStepDates: [Date] { [] }
    /// When the redoable steps were recorded, next redo first.
    var redoStepDates: [Date] { [] }
    #else
    /// Names of the undoable steps, oldest first.
    var undoStepNames: [String] { undoActionNames }
    /// Names of the redoable steps, next redo first.
    var redoStepNames: [String] { redoActionNames.reversed() }
    /// How many steps can be undone.
    var undoSteps: Int { undoCount }
    /// How many steps can be redone.
    var redoSteps: Int { redoCount }
    /// When the undoable steps were recorded, oldest first.
    var undoStepDates: [Date] { undoActionDates }
    /// When the redoable steps were recorded, next redo first.
    var redoStepDates: [Date] { redoActionDates.reversed() }
    #endif
}
