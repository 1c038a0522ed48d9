/// The three-way merge of an ordered list of distinct elements (a to-many
/// relationship's identifiers), as Automerge's RGA merges a list: never a
/// conflict, and one result whatever the order of the two sides.
///
/// - Members: the base elements both sides kept, and every element either
///   side added. A removal on either side is honoured.
/// - Moves: a side's base elements that keep their base order are those of
///   the longest increasing run of their base positions (of the longest, the
///   one taking the earliest elements of the side's list); any other base
///   element the side holds was moved by it, which counts as removing it and
///   inserting it where the side put it.
/// - Order: the *stable* elements (base elements neither side removed or
///   moved) keep their base order. Each side's other elements form runs
///   between stable ones; a run is placed after the stable element before it
///   (its anchor), or first. Runs of the two sides at one anchor are ordered
///   by their first element, ascending (then by their next ones), and an
///   element in both sides' runs stays where it comes first.
///
/// A side that left the list as the base had it gives the other side's list.
///
/// - Complexity: O(n log n) in the three lists' lengths.
enum ListMerge {
    /// The merged list.
    static func merge(base: [UInt64], ours: [UInt64], theirs: [UInt64]) -> [UInt64] {
        if ours == theirs || theirs == base { return ours }
        if ours == base { return theirs }
        var basePosition: [UInt64: Int] = [:]
        basePosition.reserveCapacity(base.count)
        for (position, element) in base.enumerated() { basePosition[element] = position }
        let (oursSet, theirsSet) = (Set(ours), Set(theirs))
        func isMember(_ element: UInt64) -> Bool {
            basePosition[element] == nil || (oursSet.contains(element) && theirsSet.contains(element))
        }
        let keptByOurs = kept(ours, basePosition: basePosition)
        let keptByTheirs = kept(theirs, basePosition: basePosition)
        let stable = Set(base.filter { keptByOurs.contains($0) && keptByTheirs.contains($0) })
        // Runs by anchor (nil: the list's start).
        var runs: [UInt64?: [[UInt64]]] = [:]
        for (side, keptBySide) in [(ours, keptByOurs), (theirs, keptByTheirs)] {
            var anchor: UInt64?
            var run: [UInt64] = []
            for element in side {
                if stable.contains(element) {
                    if !run.isEmpty { runs[anchor, default: []].append(run) }
                    (anchor, run) = (element, [])
                } else if isMember(element), basePosition[element] == nil || !keptBySide.contains(element) {
                    run.append(element)
                }
            }
            if !run.isEmpty { runs[anchor, default: []].append(run) }
        }
        var result: [UInt64] = []
        result.reserveCapacity(max(ours.count, theirs.count))
        var placed = Set<UInt64>()
        func emitRuns(at anchor: UInt64?) {
            guard let atAnchor = runs[anchor] else { return }
            for run in atAnchor.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
                for element in run where placed.insert(element).inserted { result.append(element) }
            }
        }
        emitRuns(at: nil)
        for element in base where stable.contains(element) {
            result.append(element)
            placed.insert(element)
            emitRuns(at: element)
        }
        return result
    }

    /// The base elements a side keeps in their base order: of the longest
    /// increasing runs of their base positions, the one that takes the
    /// earliest elements of the side's list. O(n log n).
    static func kept(_ side: [UInt64], basePosition: [UInt64: Int]) -> Set<UInt64> {
        let elements = side.filter { basePosition[$0] != nil }
        let positions = elements.map { basePosition[$0]! }
        let count = positions.count
        guard count > 0 else { return [] }
        // longest[i]: the longest increasing run starting at i, found from the end as the
        // longest decreasing run ending there (patience sorting on the negated positions).
        var longest = [Int](repeating: 0, count: count)
        var tails: [Int] = []  // tails[k]: the smallest -position ending an increasing run of length k + 1
        for index in stride(from: count - 1, through: 0, by: -1) {
            let value = -positions[index]
            var (low, high) = (0, tails.count)
            while low < high {
                let middle = (low + high) / 2
                if tails[middle] < value { low = middle + 1 } else { high = middle }
            }
            if low == tails.count { tails.append(value) } else { tails[low] = value }
            longest[index] = low + 1
        }
        var need = tails.count
        var last = -1
        var result = Set<UInt64>()
        for index in 0..<count where need > 0 && longest[index] == need && positions[index] > last {
            result.insert(elements[index])
            last = positions[index]
            need -= 1
        }
        return result
    }
}
