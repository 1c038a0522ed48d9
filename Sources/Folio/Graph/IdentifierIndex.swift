/// Object number → where the object lives, for every object a graph has held.
///
/// Identifiers are dense in practice (handed out one after another), so they
/// index an array: 8 bytes per identifier and one memory access per lookup,
/// where a dictionary costs several times that in space and cache misses —
/// the index was a fifth of the time of opening a million objects. Identifiers
/// far beyond the count (a hand-edited or hostile file) go to a dictionary
/// instead, so memory stays proportional to the number of objects.
struct IdentifierIndex {
    private static let absent = ObjectRef(entity: -1, row: -1)
    private var dense: [ObjectRef] = []
    private var sparse: [UInt64: ObjectRef] = [:]
    /// The largest identifier recorded, 0 when empty.
    private(set) var maxID: UInt64 = 0
    /// How many identifiers are recorded.
    private(set) var count = 0

    subscript(id: UInt64) -> ObjectRef? {
        get {
            if id < UInt64(dense.count) {
                let ref = dense[Int(id)]
                if ref.entity >= 0 { return ref }
            }
            // An identifier stored while it was far beyond the count stays in the
            // dictionary even after the array grows past it.
            return sparse.isEmpty ? nil : sparse[id]
        }
        set {
            let wasPresent = self[id] != nil
            if id < UInt64(dense.count) || fitsDense(id) {
                if id >= UInt64(dense.count) {
                    dense.append(contentsOf: repeatElement(Self.absent, count: Int(id) + 1 - dense.count))
                }
                dense[Int(id)] = newValue ?? Self.absent
                if !sparse.isEmpty { sparse[id] = nil }
            } else {
                sparse[id] = newValue
            }
            count += (newValue != nil ? 1 : 0) - (wasPresent ? 1 : 0)
            if newValue != nil { maxID = max(maxID, id) }
        }
    }

    /// Gives every recorded object the entity number `map[old]`, for a graph
    /// whose entities were reordered. O(identifiers).
    mutating func renumberEntities(_ map: [Int32]) {
        for position in dense.indices where dense[position].entity >= 0 {
            dense[position].entity = map[Int(dense[position].entity)]
        }
        for (id, ref) in sparse { sparse[id] = ObjectRef(entity: Int(map[Int(ref.entity)]), row: Int(ref.row)) }
    }

    /// Grows the array ahead of `count` identifiers, as a loader that knows the size does.
    mutating func reserveCapacity(_ count: Int) { dense.reserveCapacity(count + 1) }

    private func fitsDense(_ id: UInt64) -> Bool {
        id <= UInt64(max(1 << 16, 4 * (count + 1))) && id < UInt64(Int32.max)
    }
}
