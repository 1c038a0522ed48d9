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

    /// Records a loader's rows all at once: each run is the identifiers of rows
    /// `firstRow...` of `entity`, ascending. Only into an empty index, for runs
    /// whose identifier ranges do not overlap (so none comes twice) and that all
    /// fit the array; returns false, recording nothing, otherwise, and the caller
    /// records them one by one.
    ///
    /// - Complexity: O(runs log runs + largest identifier): one store per row,
    ///   where recording one by one looked each identifier up twice.
    mutating func recordDisjointRuns(_ runs: [(ids: UnsafeBufferPointer<UInt64>, entity: Int, firstRow: Int)]) -> Bool {
        guard count == 0, sparse.isEmpty else { return false }
        let ordered = runs.filter { !$0.ids.isEmpty }.sorted { ($0.ids.first ?? 0) < ($1.ids.first ?? 0) }
        var last: UInt64 = 0
        var total = 0
        for run in ordered {
            guard let first = run.ids.first, let end = run.ids.last, first > last, end >= first else { return false }
            last = end
            total += run.ids.count
        }
        guard total > 0, last <= UInt64(max(1 << 16, 4 * (total + 1))), last < UInt64(Int32.max) else { return false }
        var slots = Array(repeating: Self.absent, count: Int(last) + 1)
        slots.withUnsafeMutableBufferPointer { slots in
            for run in ordered {
                for (offset, id) in run.ids.enumerated() {
                    slots[Int(id)] = ObjectRef(entity: run.entity, row: run.firstRow + offset)
                }
            }
        }
        dense = slots
        count = total
        maxID = last
        return true
    }

    /// Grows the array ahead of `count` identifiers, as a loader that knows the size does.
    mutating func reserveCapacity(_ count: Int) { dense.reserveCapacity(count + 1) }

    private func fitsDense(_ id: UInt64) -> Bool {
        id <= UInt64(max(1 << 16, 4 * (count + 1))) && id < UInt64(Int32.max)
    }
}
