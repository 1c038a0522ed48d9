/// What a batch removal changed, exactly enough to put it back, in
/// O(what was removed): the removed objects, their own lists (taken whole, as
/// the removal empties them, so keeping them costs no copy), and what was cut
/// from survivors' lists as ``LinkChange``s — never a survivor's whole list,
/// so deleting one member of a large to-many keeps a few bytes.
struct DeletionRecord {
    struct SavedLinks {
        var ref: ObjectRef
        var slot: Int32
        var one: Int32
        var many: [Int32]
        /// Whether an optional to-many held no collection (its list then empty).
        var absent = false
    }

    /// The removed objects, in the order they were found.
    var removed: [ObjectRef] = []
    /// The removed objects' lists, as they were.
    var links: [SavedLinks] = []
    /// What the removal took from survivors' lists: removals from to-manys
    /// (highest index first) and to-ones cleared, undone by ``ObjectGraph/revert(_:)``.
    var cuts: [LinkChange] = []

    var isEmpty: Bool { removed.isEmpty }
}
