/// What ``ModelContext/restoreUndoJournal()`` brought back of the last
/// session's undo, and what it had to leave out.
public struct UndoJournalRestoration: Hashable, Sendable {
    /// The undo steps brought back.
    public var undoCount: Int
    /// The redo steps brought back.
    public var redoCount: Int
    /// The names of the steps left out because the document changed elsewhere
    /// (another program, a merge) in objects they concern, nearest first:
    /// undoing them would act on a state they were not made for. Older steps
    /// go with them, as they could only be undone after.
    public var dropped: [String]

    /// A sentence for people: how many steps came back, and which were dropped.
    public var summary: String {
        var text = "restored \(undoCount) undo and \(redoCount) redo steps from the last session"
        if !dropped.isEmpty {
            text += "; dropped \(dropped.count), changed elsewhere since: " + dropped.map { "\"\($0)\"" }.joined(separator: ", ")
        }
        return text
    }
}
