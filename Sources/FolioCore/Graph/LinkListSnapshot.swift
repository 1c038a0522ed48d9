/// One object's links in one relationship slot as they were: the target of a
/// to-one (-1 for none) or the list of a to-many (taken whole: an array shares
/// its storage, so keeping it copies nothing), and whether an optional to-many
/// held no collection. What a removal keeps of the removed objects' lists, what
/// ``ObjectGraph/putLinks(_:)`` puts back, and what a rebase compares.
struct LinkListSnapshot {
    var ref: ObjectRef
    var slot: Int32
    var one: Int32
    var many: [Int32]
    /// Whether an optional to-many held no collection (its list then empty).
    var absent = false
}
