import Testing
@testable import FolioCore

@Suite struct ListMergeTests {
    func merge(_ base: [UInt64], _ ours: [UInt64], _ theirs: [UInt64]) -> [UInt64] {
        let result = ListMerge.merge(base: base, ours: ours, theirs: theirs)
        #expect(ListMerge.merge(base: base, ours: theirs, theirs: ours) == result, "either argument order gives one list")
        return result
    }

    @Test("a side that left the list unchanged gives the other side's list")
    func unchangedSide() {
        #expect(merge([1, 2, 3], [3, 1, 4], [1, 2, 3]) == [3, 1, 4])
        #expect(merge([1, 2, 3], [1, 2, 3], [2]) == [2])
    }

    @Test("removals on either side are honoured")
    func removals() {
        #expect(merge([1, 2, 3, 4], [1, 3, 4], [1, 2, 3]) == [1, 3])
    }

    @Test("concurrent inserts are all kept, runs at one anchor ordered by their first element")
    func concurrentInserts() {
        #expect(merge([1, 2], [1, 30, 31, 2], [1, 20, 2]) == [1, 20, 30, 31, 2])
        #expect(merge([1, 2], [1, 2, 9], [1, 2, 8]) == [1, 2, 8, 9])
        #expect(merge([], [5], [4]) == [4, 5])
    }

    @Test("an element inserted on both sides appears once")
    func insertedOnBoth() {
        #expect(merge([1], [1, 7], [1, 7]) == [1, 7])
        #expect(merge([1, 2], [1, 7, 2], [1, 2, 7]) == [1, 7, 2])
    }

    @Test("an insert after an element the other side removed anchors on the nearest surviving element before it")
    func insertAfterRemoved() {
        #expect(merge([1, 2, 3], [1, 2, 9, 3], [1, 3]) == [1, 9, 3])
    }

    @Test("a move on one side is kept while the other side inserts")
    func moveAndInsert() {
        #expect(merge([1, 2, 3, 4], [4, 1, 2, 3], [1, 2, 3, 4, 5]) == [4, 1, 2, 3, 5])
        #expect(merge([1, 2, 3], [2, 3, 1], [1, 2, 8, 3]) == [2, 8, 3, 1])
    }

    @Test("a side's kept elements are the earliest longest increasing run of base positions")
    func keptElements() {
        let positions: [UInt64: Int] = [1: 0, 2: 1, 3: 2, 4: 3]
        #expect(ListMerge.kept([4, 1, 2, 3], basePosition: positions) == [1, 2, 3])
        #expect(ListMerge.kept([2, 1], basePosition: positions) == [2])
        #expect(ListMerge.kept([9, 3, 1, 2], basePosition: positions) == [1, 2])
    }
}
