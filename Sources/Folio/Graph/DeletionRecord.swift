/// What a batch removal changed, exactly enough to put it back.
///
/// Link lists are captured as the arrays themselves: removal replaces them with
/// new arrays instead of mutating in place, so capturing costs no copy.
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
    /// Every list the removal changed, removed objects' and survivors', as before.
    var links: [SavedLinks] = []

    var isEmpty: Bool { removed.isEmpty }
}
