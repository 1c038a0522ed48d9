import FolioCore
import Foundation

/// `history`: the undo steps, each naming the objects it changed, with the
/// save point marked; and how the REPL names its steps.
extension Interpreter {
    func history(_ text: CommandLineText) throws(CommandError) {
        try expectEnd(text, after: 1)
        context.processPendingChanges()
        let undoNames = context.undoManager?.undoStepNames ?? []
        let redoNames = context.undoManager?.redoStepNames ?? []
        if options.json {
            emit(
                Self.result(
                    "history",
                    [
                        ("undo", .array(undoNames.map(JSONText.string))),
                        ("redo", .array(redoNames.map(JSONText.string))),
                        ("savePoint", savePoint.map(JSONText.int) ?? .null),
                    ]))
            return
        }
        guard !undoNames.isEmpty || !redoNames.isEmpty else {
            emit("no history")
            return
        }
        let width = Self.number(undoNames.count + redoNames.count).count
        func number(_ n: Int) -> String {
            let text = Self.number(n)
            return String(repeating: " ", count: width - text.count) + text
        }
        /// The save point sits after step `savePoint` (0: before the first).
        func markSavePoint(after step: Int) {
            if savePoint == step, step != undoNames.count { emit("  -- saved") }
        }
        // Steps from an earlier session (the undo journal's) say when they were made.
        let undoDates = context.undoManager?.undoStepDates ?? []
        let redoDates = context.undoManager?.redoStepDates ?? []
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        func made(_ dates: [Date], _ index: Int) -> String {
            guard index < dates.count, dates[index] < sessionStart else { return "" }
            return "  (last session, \(formatter.string(from: dates[index])))"
        }
        markSavePoint(after: 0)
        for (index, name) in undoNames.enumerated() {
            emit("  \(number(index + 1))  \(name)\(made(undoDates, index))")
            markSavePoint(after: index + 1)
        }
        emit(savePoint == undoNames.count ? "> you are here (saved)" : "> you are here")
        for (index, name) in redoNames.enumerated() {
            emit("  \(number(undoNames.count + index + 1))  \(name)  (undone; redo)\(made(redoDates, index))")
            markSavePoint(after: undoNames.count + index + 1)
        }
    }

    /// Keeps ``savePoint`` on the step the package holds: set by a `save` (or
    /// `revert`, `save as`) that leaves nothing unsaved, and dropped when a new
    /// step replaces the undone steps it was among.
    func trackSavePoint(after command: String, stepsBefore: (undo: Int, redo: Int)?) {
        guard let undoManager = context.undoManager else { return }
        if !hasUnsavedChanges, command == "save" || command == "revert" || savePoint == nil {
            savePoint = undoManager.undoSteps
            return
        }
        guard let before = stepsBefore, command != "undo", command != "redo",
            undoManager.undoSteps > before.undo, let point = savePoint
        else { return }
        // A new step discards the redoable ones: a save point among them is gone.
        if point > before.undo { savePoint = nil }
    }

    /// The undo step of a delete: the object asked for when there is one
    /// (`Delete Animal#5`, `Delete AnimalCategory#24 (8 objects)`), else the count.
    static func deletionStepName(_ preview: DeletionPreview) -> String {
        let count = "\(number(preview.deleted.count)) object\(preview.deleted.count == 1 ? "" : "s")"
        guard preview.requested.count == 1, let id = preview.requested.first else { return "Delete \(count)" }
        return preview.deleted.count == 1 ? "Delete \(id)" : "Delete \(id) (\(count))"
    }
}
