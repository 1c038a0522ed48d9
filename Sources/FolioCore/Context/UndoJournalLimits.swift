/// How much of a document's undo the undo journal keeps between sessions
/// (``ModelConfiguration/undoJournal``); the oldest steps are dropped first.
///
/// ```swift
/// var configuration = ModelConfiguration(url: url)
/// configuration.undoJournal = UndoJournalLimits(maximumSteps: 100, maximumBytes: 1 << 20)
/// ```
public struct UndoJournalLimits: Hashable, Sendable {
    /// The most undo and redo steps kept (each one `undo()`), together.
    public var maximumSteps: Int
    /// The most bytes the journal file may take.
    public var maximumBytes: Int

    /// Limits of `maximumSteps` steps and `maximumBytes` bytes.
    public init(maximumSteps: Int = 200, maximumBytes: Int = 8 << 20) {
        self.maximumSteps = max(0, maximumSteps)
        self.maximumBytes = max(0, min(maximumBytes, UndoJournal.maximumFileSize))
    }

    /// 200 steps, 8 MiB.
    public static let standard = UndoJournalLimits()
}
