/// What one save changed, by identifier, so other contexts on the same
/// container can bring their scratchpads up to date without losing their own
/// edits. The objects' saved states are the shared document's saved graph: a context
/// merges that (``ModelContext/merge(_:baseline:)``), and the change set only
/// says which objects to look at.
struct ChangeSet {
    var generation: Int
    /// Objects inserted or changed.
    var upserts: [UInt64] = []
    /// Objects deleted.
    var deletions: [UInt64] = []
    /// The document's conflict records after the save, when the saving
    /// context changed them (resolved one, or undid a resolution); `nil` when it did not.
    var conflicts: [MergeConflict]?
    /// Whether this is `deleteAllData()`, which contexts record as an undoable step.
    var isDeleteAll = false
}
