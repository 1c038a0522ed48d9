import Foundation
import PropertyBased
import FolioTestSupport
import Testing
import Folio
@testable import FolioCore

/// Ascending identifiers as runs: what history keeps in memory and writes.
@Suite struct IdentifierRunsTests {
    @Test("runs hold exactly the identifiers given, as few runs as there are gaps, and read back from their text")
    func roundTrip() async {
        await checkProperty(input: Gen.uint64(in: 1...40).array(of: 0...60)) { steps in
            var ids: [UInt64] = []
            for step in steps { ids.append((ids.last ?? 0) + (step % 3 == 0 ? 1 : step)) }
            let runs = IdentifierRuns(ids)
            #expect(Array(runs) == ids && runs.count == ids.count)
            let gaps = zip(ids, ids.dropFirst()).filter { $1 != $0 + 1 }.count
            #expect(runs.runs.count == (ids.isEmpty ? 0 : gaps + 1))
            var buffer = ByteBuffer()
            runs.append(0..<runs.runs.count, to: &buffer)
            let text = String(decoding: buffer.bytes, as: UTF8.self)
            #expect(IdentifierRuns(text: text, limit: 1 << 20) == runs, "\(text)")
        }
    }

    @Test("a union holds exactly the identifiers of both, as runs, whatever their overlap")
    func union() async {
        await checkProperty(input: Gen.uint64(in: 1...60).array(of: 0...40).array(of: 2)) { lists in
            let a = IdentifierRuns(Set(lists[0]).sorted()), b = IdentifierRuns(Set(lists[1]).sorted())
            let union = a.union(b)
            #expect(Array(union) == Set(lists[0] + lists[1]).sorted())
            #expect(union == IdentifierRuns(Set(lists[0] + lists[1]).sorted()), "runs joined where they touch")
        }
        #expect(IdentifierRuns(1...1_000_000).union(IdentifierRuns(500_000...2_000_000)).runs == [1...2_000_000])
    }

    @Test("a million consecutive identifiers are one run")
    func bulk() {
        let runs = IdentifierRuns(1...1_000_000)
        #expect(runs.runs == [1...1_000_000] && runs.count == 1_000_000)
    }

    @Test("appending refuses what does not ascend, and joins what touches")
    func appending() {
        var runs = IdentifierRuns([3, 4])
        let repeated = runs.append(4), lower = runs.append(2)
        #expect(!repeated && !lower)
        let touching = runs.append(5)
        #expect(touching && runs.runs == [3...5])
        let further = runs.append(contentsOf: IdentifierRuns([6, 9]))
        #expect(further && runs.runs == [3...6, 9...9])
        let overlapping = runs.append(contentsOf: IdentifierRuns([9, 10]))
        #expect(!overlapping)
        #expect(runs.count == 5)
    }

    @Test("text that does not ascend, starts at 0, is not numbers or holds more than the limit is refused")
    func badText() {
        #expect(IdentifierRuns(text: "1-3 3", limit: 100) == nil)
        #expect(IdentifierRuns(text: "5-2", limit: 100) == nil)
        #expect(IdentifierRuns(text: "0", limit: 100) == nil)
        #expect(IdentifierRuns(text: "1-99999999999", limit: 1000) == nil)
        #expect(IdentifierRuns(text: "1-10 20-30", limit: 15) == nil)
        #expect(IdentifierRuns(text: "1 x", limit: 100) == nil)
        #expect(IdentifierRuns(text: "2-4 9", limit: 100).map(Array.init) == [2, 3, 4, 9])
    }
}
