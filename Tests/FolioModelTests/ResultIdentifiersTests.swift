// Internal: the numbers a batched fetch keeps.
import Folio
@testable import FolioCore
import PropertyBased
import Testing
import FolioTestSupport

/// A batched fetch's numbers, as runs or as a list: the same numbers at
/// every position either way, and runs when the numbers run.
@Suite struct ResultIdentifiersTests {
    @Test func `every range of positions gives the numbers in order, kept as runs or as a list`() async {
        // Runs as (first, length) and ranges as two fractions of the count: a failure shrinks
        // to the fewest, shortest runs starting at 0, and the fewest ranges.
        let runs = zip(Gen.uint64(in: 0...5_000), Gen.uint64(in: 1...60)).array(of: 0...40)
        let ranges = zip(Gen.double(in: 0...1), Gen.double(in: 0...1)).array(of: 1...20)
        await checkProperty(count: 200, input: runs, ranges) { runs, ranges in
            let numbers = runs.flatMap { first, length in Array(first..<first + length) }
            let kept = ResultIdentifiers(numbers, count: numbers.count)
            #expect(kept.count == numbers.count)
            for (a, b) in ranges {
                let start = Int((Double(numbers.count) * a).rounded(.down))
                let end = start + Int((Double(numbers.count - start) * b).rounded(.down))
                #expect(kept.numbers(in: start..<end) == Array(numbers[start..<end]), "\(start)..<\(end)")
                var positions: [Int] = []
                kept.forEach(in: start..<end) { position, _ in positions.append(position) }
                #expect(positions == Array(start..<end))
            }
            #expect(kept.numbers(in: 0..<numbers.count) == numbers)
        }
    }

    @Test func `consecutive numbers are kept as runs, and numbers that rarely run as a list`() {
        let million = ResultIdentifiers(UInt64(101)...1_000_100, count: 1_000_000)
        #expect(million.isRuns)
        #expect(million.numbers(in: 999_998..<1_000_000) == [1_000_099, 1_000_100])
        // Twenty runs of a hundred: few enough.
        var blocks: [UInt64] = []
        for block in UInt64(0)..<20 { blocks.append(contentsOf: block * 1_000..<block * 1_000 + 100) }
        #expect(ResultIdentifiers(blocks, count: blocks.count).isRuns)
        // Every other number, descending: a run per result.
        let scattered: [UInt64] = (0..<2_000).map { (index: Int) -> UInt64 in UInt64(10_000 - 2 * index) }
        let list = ResultIdentifiers(scattered, count: scattered.count)
        #expect(!list.isRuns)
        #expect(list.numbers(in: 0..<scattered.count) == scattered)
        #expect(ResultIdentifiers([UInt64.max, 0], count: 2).numbers(in: 0..<2) == [.max, 0])
    }
}
