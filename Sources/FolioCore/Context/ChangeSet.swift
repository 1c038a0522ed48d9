/// What one save changed, by identifier, so other contexts on the same
/// container can bring their scratchpads up to date without losing their own edits.
struct ChangeSet {
    struct ObjectState {
        var id: UInt64
        var entity: Int
        /// Every attribute's cell, in declaration order (a blob still on disk stays unread).
        var values: [StoredValue]
        /// Every declared relationship's destinations, by identifier, in order;
        /// `nil` for an optional to-many that holds no collection.
        var links: [[UInt64]?]
    }

    var generation: Int
    /// Objects inserted or changed, in their saved state.
    var upserts: [ObjectState] = []
    /// Objects deleted.
    var deletions: [UInt64] = []
    /// The document's conflict records after the save, when the saving
    /// context changed them (resolved one, or undid a resolution); `nil` when it did not.
    var conflicts: [MergeConflict]?
    /// Whether this is `deleteAllData()`, which contexts record as an undoable step.
    var isDeleteAll = false
}
