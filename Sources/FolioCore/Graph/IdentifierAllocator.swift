/// Hands out a writer's new identifiers: `lane << 32 | seq` (docs/FORMAT.md, "Identifiers").
///
/// A writer — a ``SharedDocument`` for every context of a container, or a bare
/// ``ObjectGraph`` — draws its `lane` at random in `1 ..< 2^31` the first
/// time it inserts, avoiding every lane the document already uses (its
/// objects' identifiers, live or deleted, and those its history names), then
/// numbers its objects `seq = 1, 2, 3 …` in that lane. Sequence numbers only
/// grow, so an undone insert's number is never handed out again; at `2^32 − 1`
/// the writer draws another lane. Two copies of one document edited apart
/// (two Git branches, two machines) thus never give one identifier to two
/// objects, unless they draw the same lane (a chance of 2⁻³¹ per pair of
/// writers), and nothing ever needs renumbering. Lane 0 holds the small
/// identifiers of packages written before lanes (formats 1 and 2); nothing
/// new is ever given lane 0. The top bit stays clear, so every identifier fits
/// an `Int64` (exports, JSON, SQL).
///
/// ```swift
/// var allocator = IdentifierAllocator()
/// let id = allocator.next { lane in graph.index.lanes.contains(lane) }  // 0x1a2b3c4d_00000001
/// ```
struct IdentifierAllocator: Equatable, Sendable {
    /// The lanes a writer may draw.
    static let lanes: Range<UInt64> = 1..<(1 << 31)
    /// The largest sequence number in a lane.
    static let maximumSequence: UInt64 = (1 << 32) - 1

    /// The writer's lane; 0 until its first insert.
    private(set) var lane: UInt64 = 0
    /// The sequence number the next identifier gets in ``lane``.
    private(set) var nextSequence: UInt64 = 1
    /// Lanes not to draw beyond those of the document's objects: lanes the
    /// document's history names, and lanes this writer used up.
    var reservedLanes: Set<UInt64> = []

    /// Whether this writer numbers in lane 0 with the graph's counter, as Folio
    /// before lanes did: only for building documents in the shape formats 1 and
    /// 2 hold (test fixtures of the legacy readers); nothing else sets it.
    private(set) var numbersLikeFormat2 = false

    /// A writer with no lane yet, or (tests) one at a given point of its lane.
    init(lane: UInt64 = 0, nextSequence: UInt64 = 1) {
        self.lane = lane
        self.nextSequence = nextSequence
    }

    /// A writer numbering 1, 2, 3 … in lane 0 (the graph's counter), as packages
    /// of formats 1 and 2 were numbered: for fixtures that build such documents.
    static var format2Counter: IdentifierAllocator {
        var allocator = IdentifierAllocator()
        allocator.numbersLikeFormat2 = true
        return allocator
    }

    /// The allocator of a copy of the document (``ObjectGraph/copy()``): a
    /// writer of its own, so two copies edited apart — two branches made in
    /// memory — never hand out one identifier; it never draws this writer's
    /// lanes. A lane-0 counter (legacy fixtures) carries on as it is.
    func forCopy() -> IdentifierAllocator {
        guard !numbersLikeFormat2 else { return self }
        var copy = IdentifierAllocator()
        copy.reservedLanes = reservedLanes
        if lane != 0 { copy.reservedLanes.insert(lane) }
        return copy
    }

    /// The lane of an identifier.
    static func lane(of id: UInt64) -> UInt64 { id >> 32 }
    /// The sequence number of an identifier within its lane.
    static func sequence(of id: UInt64) -> UInt64 { id & 0xFFFF_FFFF }

    /// The next identifier, drawing a lane first when the writer has none or
    /// its lane is used up; `nil` when no free lane is found (a document using
    /// nearly every lane).
    ///
    /// - Parameter isUsed: whether the document already uses a lane.
    /// - Complexity: O(1), plus the draws of a new lane (a few tests of `isUsed`).
    mutating func next(avoiding isUsed: (UInt64) -> Bool) -> UInt64? {
        if lane == 0 || nextSequence > Self.maximumSequence {
            if lane != 0 { reservedLanes.insert(lane) }
            guard let drawn = drawLane(avoiding: isUsed) else { return nil }
            lane = drawn
            nextSequence = 1
        }
        let id = lane << 32 | nextSequence
        nextSequence += 1
        return id
    }

    /// A lane neither the document nor ``reservedLanes`` uses, drawn at random.
    private func drawLane(avoiding isUsed: (UInt64) -> Bool) -> UInt64? {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<4_096 {
            let candidate = UInt64.random(in: Self.lanes, using: &generator)
            if !isUsed(candidate), !reservedLanes.contains(candidate) { return candidate }
        }
        return nil
    }
}
