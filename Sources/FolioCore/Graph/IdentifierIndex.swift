/// Object number → where the object lives, for every object a graph has held.
///
/// An identifier is `lane << 32 | seq` (``IdentifierAllocator``): legacy
/// documents use lane 0 only, and each writer since adds a lane of its own
/// whose sequence numbers are dense in practice (handed out one after
/// another). So each lane's sequence numbers index an array of their own: 8
/// bytes per identifier and one memory access per lookup (plus finding the
/// lane among a handful), where a dictionary costs several times that in space
/// and cache misses, and an open records every object in it. Sequence
/// numbers far beyond a lane's count (a hand-edited or
/// hostile file) go to a dictionary instead, so memory stays proportional to
/// the number of objects.
struct IdentifierIndex {
    private static let absent = ObjectRef(entity: -1, row: -1)
    /// Lane 0 (legacy identifiers, below 2³²), by identifier.
    private var dense: [ObjectRef] = []
    /// The other lanes, ascending, and each one's slots by sequence number.
    private var laneKeys: [UInt64] = []
    private var laneSlots: [[ObjectRef]] = []
    /// How many identifiers each lane of ``laneKeys`` holds in its slots.
    private var laneCounts: [Int] = []
    private var sparse: [UInt64: ObjectRef] = [:]
    /// Every lane an identifier was ever recorded in (lane 0 included), never forgotten.
    private(set) var lanes: Set<UInt64> = []
    /// The largest identifier recorded, 0 when empty.
    private(set) var maxID: UInt64 = 0
    /// How many identifiers are recorded.
    private(set) var count = 0

    /// The position of `lane` in ``laneKeys``, if present: a short scan (a
    /// document has a few lanes), a binary search past a few.
    @inline(__always)
    private func lanePosition(_ lane: UInt64) -> Int? {
        let count = laneKeys.count
        if count <= 8 {
            var position = 0
            while position < count {
                if laneKeys[position] == lane { return position }
                position += 1
            }
            return nil
        }
        var low = 0, high = count
        while low < high {
            let middle = (low + high) / 2
            if laneKeys[middle] < lane { low = middle + 1 } else { high = middle }
        }
        return low < count && laneKeys[low] == lane ? low : nil
    }

    subscript(id: UInt64) -> ObjectRef? {
        get {
            let lane = id >> 32
            if lane == 0 {
                if id < UInt64(dense.count) {
                    let ref = dense[Int(id)]
                    if ref.entity >= 0 { return ref }
                }
            } else if let position = lanePosition(lane) {
                let sequence = id & 0xFFFF_FFFF
                if sequence < UInt64(laneSlots[position].count) {
                    let ref = laneSlots[position][Int(sequence)]
                    if ref.entity >= 0 { return ref }
                }
            }
            // An identifier stored while it was far beyond the count stays in the
            // dictionary even after the array grows past it.
            return sparse.isEmpty ? nil : sparse[id]
        }
        set {
            let wasPresent = self[id] != nil
            let lane = id >> 32
            let sequence = id & 0xFFFF_FFFF
            if lane == 0, id < UInt64(dense.count) || fitsDense(id, count: count) {
                if id >= UInt64(dense.count) {
                    dense.append(contentsOf: repeatElement(Self.absent, count: Int(id) + 1 - dense.count))
                }
                dense[Int(id)] = newValue ?? Self.absent
                if !sparse.isEmpty { sparse[id] = nil }
            } else if lane != 0, let position = lanePositionMaking(lane, for: sequence, adding: newValue != nil),
                sequence < UInt64(laneSlots[position].count) || fitsDense(sequence, count: laneCounts[position])
            {
                if sequence >= UInt64(laneSlots[position].count) {
                    laneSlots[position].append(
                        contentsOf: repeatElement(
                            Self.absent,
                            count: Int(sequence) + 1 - laneSlots[position].count))
                }
                let had = laneSlots[position][Int(sequence)].entity >= 0
                laneSlots[position][Int(sequence)] = newValue ?? Self.absent
                laneCounts[position] += (newValue != nil ? 1 : 0) - (had ? 1 : 0)
                if !sparse.isEmpty { sparse[id] = nil }
            } else {
                sparse[id] = newValue
            }
            count += (newValue != nil ? 1 : 0) - (wasPresent ? 1 : 0)
            if newValue != nil {
                maxID = max(maxID, id)
                if !lanes.contains(lane) { lanes.insert(lane) }
            }
        }
    }

    /// The position of `lane`'s slots, made (empty) when an identifier is added to a
    /// lane not seen yet whose sequence number fits an array.
    private mutating func lanePositionMaking(_ lane: UInt64, for sequence: UInt64, adding: Bool) -> Int? {
        if let position = lanePosition(lane) { return position }
        guard adding, fitsDense(sequence, count: 0) else { return nil }
        var low = 0
        while low < laneKeys.count, laneKeys[low] < lane { low += 1 }
        laneKeys.insert(lane, at: low)
        laneSlots.insert([], at: low)
        laneCounts.insert(0, at: low)
        return low
    }

    /// Gives every recorded object the entity number `map[old]`, for a graph
    /// whose entities were reordered. O(identifiers).
    mutating func renumberEntities(_ map: [Int32]) {
        for position in dense.indices where dense[position].entity >= 0 {
            dense[position].entity = map[Int(dense[position].entity)]
        }
        for lane in laneSlots.indices {
            for position in laneSlots[lane].indices where laneSlots[lane][position].entity >= 0 {
                laneSlots[lane][position].entity = map[Int(laneSlots[lane][position].entity)]
            }
        }
        for (id, ref) in sparse { sparse[id] = ObjectRef(entity: Int(map[Int(ref.entity)]), row: Int(ref.row)) }
    }

    /// Records a loader's rows all at once: each run is the identifiers of rows
    /// `firstRow...` of `entity`, ascending, all in one lane. Only into an empty
    /// index, for runs whose identifier ranges do not overlap (so none comes
    /// twice) and that all fit their lanes' arrays; returns false, recording
    /// nothing, otherwise, and the caller records them one by one.
    ///
    /// - Complexity: O(runs log runs + largest sequence number of each lane): one
    ///   store per row, where recording one by one looked each identifier up twice.
    mutating func recordDisjointRuns(_ runs: [(ids: UnsafeBufferPointer<UInt64>, entity: Int, firstRow: Int)]) -> Bool {
        guard count == 0, sparse.isEmpty, laneKeys.isEmpty, dense.isEmpty else { return false }
        let ordered = runs.filter { !$0.ids.isEmpty }.sorted { ($0.ids.first ?? 0) < ($1.ids.first ?? 0) }
        // Per lane: its runs, the largest sequence number and how many identifiers.
        var byLane: [(lane: UInt64, runs: [Int], last: UInt64, total: Int)] = []
        var last: UInt64 = 0
        var total = 0
        for (position, run) in ordered.enumerated() {
            guard let first = run.ids.first, let end = run.ids.last, first > last,
                end >= first, first >> 32 == end >> 32
            else { return false }
            last = end
            total += run.ids.count
            let lane = first >> 32
            if byLane.last?.lane != lane { byLane.append((lane, [], 0, 0)) }
            byLane[byLane.count - 1].runs.append(position)
            byLane[byLane.count - 1].last = end & 0xFFFF_FFFF
            byLane[byLane.count - 1].total += run.ids.count
        }
        guard total > 0 else { return false }
        for lane in byLane {
            guard lane.last <= UInt64(max(1 << 16, 4 * (lane.total + 1))), lane.last < UInt64(Int32.max) else { return false }
        }
        for lane in byLane {
            var slots = Array(repeating: Self.absent, count: Int(lane.last) + 1)
            slots.withUnsafeMutableBufferPointer { slots in
                for position in lane.runs {
                    let run = ordered[position]
                    for (offset, id) in run.ids.enumerated() {
                        slots[Int(id & 0xFFFF_FFFF)] = ObjectRef(entity: run.entity, row: run.firstRow + offset)
                    }
                }
            }
            if lane.lane == 0 {
                dense = slots
            } else {
                laneKeys.append(lane.lane)
                laneSlots.append(slots)
                laneCounts.append(lane.total)
            }
            lanes.insert(lane.lane)
        }
        count = total
        maxID = last
        return true
    }

    /// Grows the array ahead of `count` identifiers, as a loader that knows the size does.
    mutating func reserveCapacity(_ count: Int) { dense.reserveCapacity(count + 1) }

    /// Whether sequence number (or legacy identifier) `value` may be stored in an
    /// array holding `count` identifiers without wasting more than a few slots per one.
    private func fitsDense(_ value: UInt64, count: Int) -> Bool {
        value <= UInt64(max(1 << 16, 4 * (count + 1))) && value < UInt64(Int32.max)
    }
}
