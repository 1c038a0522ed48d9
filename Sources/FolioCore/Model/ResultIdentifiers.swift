/// The object numbers of a fetch's result, in its order, as a batched fetch
/// keeps them (``FetchResultsCollection``): runs of consecutive numbers while
/// the result has few, else a number per result.
///
/// An unsorted fetch lists an entity's objects in the document's order, whose
/// numbers are consecutive over each run of inserts: a million objects
/// inserted together are one run, 24 bytes instead of 8 MB. A sorted or
/// filtered result whose numbers do not run falls back to the list.
struct ResultIdentifiers {
    private enum Storage {
        /// Ascending runs of consecutive numbers, and each run's first position.
        case runs([ClosedRange<UInt64>], starts: [Int])
        case list([UInt64])
    }

    private let storage: Storage
    /// How many results.
    let count: Int

    /// The numbers of `refs`' objects in `graph`, in that order.
    init(_ refs: [ObjectRef], in graph: ObjectGraph) {
        self.init(refs.lazy.map { graph.tables[Int($0.entity)].ids[Int($0.row)] }, count: refs.count)
    }

    /// `count` numbers, in order.
    init(_ numbers: some Sequence<UInt64>, count: Int) {
        var builder = Builder(count: count)
        for number in numbers { builder.append(number) }
        self = builder.result
    }

    private init(storage: Storage, count: Int) {
        self.storage = storage
        self.count = count
    }

    /// Collects the numbers one at a time, as runs until they are too many.
    struct Builder {
        private let expected: Int
        /// Past a run per 32 results the list costs little more, and finds a
        /// position without a search.
        private let most: Int
        /// The runs before the current one, and where each starts.
        private var runs: [ClosedRange<UInt64>] = []
        private var starts: [Int] = []
        /// The current run, kept apart so that extending it writes no array.
        private var first: UInt64 = 0
        private var last: UInt64 = 0
        private var list: [UInt64]?
        private var position = 0

        /// For `count` numbers.
        init(count: Int) {
            expected = count
            most = max(16, count / 32)
        }

        mutating func append(_ number: UInt64) {
            defer { position += 1 }
            if position > 0, list == nil, last != .max, number == last + 1 {
                last = number
            } else if list != nil {
                list?.append(number)
            } else if runs.count + 1 < most || position == 0 {
                if position > 0 { runs.append(first...last) }
                starts.append(position)
                first = number
                last = number
            } else {
                var numbers: [UInt64] = []
                numbers.reserveCapacity(expected)
                for run in runs { numbers.append(contentsOf: run) }
                numbers.append(contentsOf: first...last)
                numbers.append(number)
                list = numbers
                runs = []
                starts = []
            }
        }

        /// The numbers appended.
        var result: ResultIdentifiers {
            if let list { return ResultIdentifiers(storage: .list(list), count: position) }
            return ResultIdentifiers(storage: .runs(position > 0 ? runs + [first...last] : [], starts: starts), count: position)
        }
    }

    /// The number at each position of `range`, in order.
    ///
    /// - Complexity: O(`range.count`), plus O(log runs) to find the first.
    func forEach(in range: Range<Int>, _ body: (_ position: Int, _ number: UInt64) -> Void) {
        switch storage {
        case .list(let list):
            for position in range { body(position, list[position]) }
        case .runs(let runs, let starts):
            guard !range.isEmpty else { return }
            // The last run starting at or before the range's first position.
            var low = 0
            var high = starts.count - 1
            while low < high {
                let middle = (low + high + 1) / 2
                if starts[middle] <= range.lowerBound { low = middle } else { high = middle - 1 }
            }
            var run = low
            for position in range {
                while run + 1 < starts.count, starts[run + 1] <= position { run += 1 }
                body(position, runs[run].lowerBound + UInt64(position - starts[run]))
            }
        }
    }

    /// The numbers at the positions of `range`, in order.
    func numbers(in range: Range<Int>) -> [UInt64] {
        var result: [UInt64] = []
        result.reserveCapacity(range.count)
        forEach(in: range) { result.append($1) }
        return result
    }

    /// Whether the numbers are kept as runs (what tests check).
    var isRuns: Bool {
        if case .runs = storage { return true }
        return false
    }
}
