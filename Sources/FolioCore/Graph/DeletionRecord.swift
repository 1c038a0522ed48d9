/// What a batch removal changed, exactly enough to put it back, in
/// O(what was removed): the removed objects, their own lists (taken whole, as
/// the removal empties them, so keeping them costs no copy), and what was cut
/// from survivors' lists as ``LinkChange``s — never a survivor's whole list,
/// so deleting one member of a large to-many keeps a few bytes.
struct DeletionRecord {
    /// The removed objects, in the order they were found.
    var removed: [ObjectRef] = []
    /// The removed objects' lists, as they were.
    var links: [LinkListSnapshot] = []
    /// What the removal took from survivors' lists: removals from to-manys
    /// (highest index first) and to-ones cleared, undone by ``ObjectGraph/revert(_:)``.
    var cuts: [LinkChange] = []

    var isEmpty: Bool { removed.isEmpty }
}
