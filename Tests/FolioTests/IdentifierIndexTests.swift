import Foundation
import Testing
import Folio
@testable import FolioCore
import FolioTestSupport

@Suite struct IdentifierIndexTests {
    @Test("identifiers stored sparsely stay findable after the dense array grows past them")
    func sparseThenDense() {
        var index = IdentifierIndex()
        index[1_000_000] = ObjectRef(entity: 0, row: 0)  // far beyond the count: goes to the dictionary
        for id in 1...300_000 as ClosedRange<UInt64> { index[id] = ObjectRef(entity: 0, row: Int(id)) }
        index[1_000_001] = ObjectRef(entity: 0, row: 1)
        for id in 300_001...1_100_000 as ClosedRange<UInt64> where id != 1_000_000 && id != 1_000_001 {
            index[id] = ObjectRef(entity: 1, row: 0)
        }
        #expect(index[1_000_000] == ObjectRef(entity: 0, row: 0))
        #expect(index[1_000_001] == ObjectRef(entity: 0, row: 1))
        #expect(index.count == 1_100_000)
        index[1_000_000] = nil
        #expect(index[1_000_000] == nil && index.count == 1_099_999)
    }

    @Test("runs recorded at once are found as if recorded one by one; overlapping runs or a non-empty index are left to that")
    func disjointRunsRecordedAtOnce() {
        let cats: [UInt64] = [1, 2, 5, 9]
        let dogs: [UInt64] = [10, 11, 40]
        let birds: [UInt64] = [3, 4]
        var index = IdentifierIndex()
        let recorded = cats.withUnsafeBufferPointer { cats in
            dogs.withUnsafeBufferPointer { dogs in
                birds.withUnsafeBufferPointer { birds in
                    // Runs in any order; the second run of cats starts at row 2.
                    index.recordDisjointRuns([
                        (dogs, 1, 0), (UnsafeBufferPointer(rebasing: cats[2...]), 0, 2),
                        (birds, 2, 0), (UnsafeBufferPointer(rebasing: cats[..<2]), 0, 0),
                    ])
                }
            }
        }
        #expect(recorded)
        var oneByOne = IdentifierIndex()
        for (entity, ids) in [cats, dogs, birds].enumerated() {
            for (row, id) in ids.enumerated() { oneByOne[id] = ObjectRef(entity: entity, row: row) }
        }
        for id in UInt64(0)...45 { #expect(index[id] == oneByOne[id], "\(id)") }
        #expect(index.count == oneByOne.count && index.maxID == oneByOne.maxID)

        let overlapping: [UInt64] = [4, 6]
        var fresh = IdentifierIndex()
        let refused = cats.withUnsafeBufferPointer { cats in
            overlapping.withUnsafeBufferPointer { fresh.recordDisjointRuns([(cats, 0, 0), ($0, 1, 0)]) }
        }
        #expect(!refused && fresh.count == 0 && fresh[4] == nil)
        let again = birds.withUnsafeBufferPointer { index.recordDisjointRuns([($0, 2, 0)]) }
        #expect(!again && index.count == 9)
    }

    @Test("a package whose oldest objects were deleted reopens with every survivor", .tags(.long))
    func oldestDeletedReopens() throws {
        let graph = ObjectGraph(schema: try zooSchema())
        let count = TestEffort.cases(100_000)
        let ids = try (0..<count).map { _ in try graph.insert("Animal") }
        for id in ids.prefix(count * 7 / 10) { try graph.remove(id) }
        let package = DocumentPackage(url: temporaryPackageURL())
        try package.write(graph)
        let back = try package.read()
        #expect(back.count == count - count * 7 / 10)
        #expect(ids.suffix(count - count * 7 / 10).allSatisfy(back.contains))
    }
}
