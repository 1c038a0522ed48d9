/// Ascending identifiers kept as runs of consecutive ones: `1-1000000` is one
/// run, so the history of a bulk insert costs a few bytes in memory and on
/// disk, however many objects it inserted.
struct IdentifierRuns: Equatable, Sendable, Sequence {
    /// The runs, ascending and apart (never adjacent: adjacent runs are joined).
    private(set) var runs: [ClosedRange<UInt64>] = []
    /// How many identifiers the runs hold.
    private(set) var count = 0

    init() {}

    /// Runs of `ids`, which must ascend strictly.
    init(_ ids: some Sequence<UInt64>) {
        for id in ids { _ = append(id) }
    }

    var isEmpty: Bool { runs.isEmpty }
    var last: UInt64? { runs.last?.upperBound }

    /// Adds an identifier above every one held; `false` (and nothing added) otherwise.
    @discardableResult
    mutating func append(_ id: UInt64) -> Bool {
        append(id...id)
    }

    /// Adds a run above every identifier held; `false` (and nothing added) otherwise.
    @discardableResult
    mutating func append(_ run: ClosedRange<UInt64>) -> Bool {
        if let last = runs.last {
            guard run.lowerBound > last.upperBound else { return false }
            if run.lowerBound == last.upperBound + 1 {
                runs[runs.count - 1] = last.lowerBound...run.upperBound
                count += Int(run.upperBound - run.lowerBound) + 1
                return true
            }
        }
        runs.append(run)
        count += Int(run.upperBound - run.lowerBound) + 1
        return true
    }

    /// Adds runs above every identifier held; `false` (and nothing added) otherwise.
    @discardableResult
    mutating func append(contentsOf other: IdentifierRuns) -> Bool {
        guard let first = other.runs.first?.lowerBound, last.map({ first > $0 }) ?? true else { return other.isEmpty }
        for run in other.runs { append(run) }
        return true
    }

    /// The identifiers of both, as runs: O(runs of both), never one step per identifier.
    func union(_ other: IdentifierRuns) -> IdentifierRuns {
        var result = IdentifierRuns()
        for run in (runs + other.runs).sorted(by: { $0.lowerBound < $1.lowerBound }) {
            guard let last = result.runs.last, run.lowerBound <= last.upperBound else {
                result.append(run)
                continue
            }
            // Overlapping: only the part above what is held is new.
            if run.upperBound > last.upperBound { result.append(last.upperBound + 1...run.upperBound) }
        }
        return result
    }

    /// The identifiers both hold, as runs: O(runs of both).
    func intersection(_ other: IdentifierRuns) -> IdentifierRuns {
        var result = IdentifierRuns()
        var (i, j) = (0, 0)
        while i < runs.count, j < other.runs.count {
            let a = runs[i], b = other.runs[j]
            let low = Swift.max(a.lowerBound, b.lowerBound), high = Swift.min(a.upperBound, b.upperBound)
            if low <= high { result.append(low...high) }
            if a.upperBound < b.upperBound { i += 1 } else { j += 1 }
        }
        return result
    }

    /// The identifiers this holds and `other` does not, as runs: O(runs of both).
    func subtracting(_ other: IdentifierRuns) -> IdentifierRuns {
        var result = IdentifierRuns()
        var j = 0
        for run in runs {
            var low = run.lowerBound
            var remaining = true
            while j < other.runs.count, other.runs[j].upperBound < low { j += 1 }
            var k = j
            while remaining, k < other.runs.count, other.runs[k].lowerBound <= run.upperBound {
                let cut = other.runs[k]
                if cut.lowerBound > low { result.append(low...(cut.lowerBound - 1)) }
                if cut.upperBound >= run.upperBound { remaining = false } else { low = cut.upperBound + 1 }
                k += 1
            }
            if remaining { result.append(low...run.upperBound) }
        }
        return result
    }

    /// The identifiers, ascending.
    func makeIterator() -> FlattenSequence<[ClosedRange<UInt64>]>.Iterator { runs.joined().makeIterator() }

    // MARK: Text

    /// The runs as history writes them: `1-4 7 9-10`, from run `range`.
    func append(_ range: Range<Int>, to buffer: inout ByteBuffer) {
        for index in range {
            let run = runs[index]
            if index > range.lowerBound { buffer.append(UInt8(ascii: " ")) }
            buffer.append(uint: run.lowerBound)
            if run.upperBound != run.lowerBound {
                buffer.append(UInt8(ascii: "-"))
                buffer.append(uint: run.upperBound)
            }
        }
    }

    /// Reads runs written by ``append(_:to:)``; `nil` unless they ascend strictly,
    /// start above 0, stay below `ceiling` and hold at most `limit` identifiers in all.
    ///
    /// - Complexity: O(the text's length): runs are checked and kept, never expanded.
    init?(text: String, limit: Int, below ceiling: UInt64 = .max) {
        for word in text.split(separator: " ", omittingEmptySubsequences: true) {
            let bounds = word.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
            guard let first = UInt64(bounds[0]), first > 0 else { return nil }
            guard let last = bounds.count == 2 ? UInt64(bounds[1]) : first, last >= first, last < ceiling,
                last - first < UInt64(Swift.max(0, limit - count)), append(first...last)
            else { return nil }
        }
    }
}
