/// One change a link edit made to one relationship list: what undo, redo and
/// the rebase after merges keep instead of the lists themselves.
///
/// A change is O(1) in size (except ``replaced(_:slot:old:new:)``, which a
/// whole-list assignment records and which is as large as the lists it
/// assigned), so linking into a list of any size records a few bytes and the
/// live list's storage is never shared with an undo record: appending to it
/// never copies it.
enum LinkChange {
    /// `target` was inserted into a to-many list at `index` (the list's end
    /// for a link).
    case inserted(ObjectRef, slot: Int32, target: Int32, at: Int)
    /// `target` was removed from a to-many list, where it stood at `index`.
    case removed(ObjectRef, slot: Int32, target: Int32, at: Int)
    /// A to-one went from `old` to `new` (-1: none).
    case toOne(ObjectRef, slot: Int32, old: Int32, new: Int32)
    /// An optional to-many went from holding no collection (`wasAbsent`) to
    /// holding one, or the reverse.
    case absent(ObjectRef, slot: Int32, wasAbsent: Bool)
    /// A to-many list was assigned whole: a reordering, or what the rebase
    /// after a merge put back.
    case replaced(ObjectRef, slot: Int32, old: [Int32], new: [Int32])

    /// The object and slot of the list changed.
    var list: (ref: ObjectRef, slot: Int) {
        switch self {
        case .inserted(let ref, let slot, _, _), .removed(let ref, let slot, _, _), .toOne(let ref, let slot, _, _),
            .absent(let ref, let slot, _), .replaced(let ref, let slot, _, _):
            return (ref, Int(slot))
        }
    }
}
