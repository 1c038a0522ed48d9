import FolioTestSupport
import PropertyBased
import Testing
@testable import FolioCore

/// A set of objects as a bit per row: what deletes and change tracking keep.
@Suite struct ObjectRefSetTests {
    @Test("inserts and removals answer as a Set of the same objects does, and iterate in (entity, row) order")
    func matchesASet() async {
        // A step is one number: insert or remove, an entity of four, a row of 201 (every third
        // one spread far apart, so words grow and stay sparse).
        await checkProperty(input: Gen.int(in: 0...(2 * 4 * 201 - 1)).array(of: 0...120)) { codes in
            let steps = codes.map { code in
                (insert: code % 2 == 0, entity: code / 2 % 4, row: code / 8 % 3 == 0 ? code / 8 * 97 : code / 8)
            }
            var set = ObjectRefSet(), reference = Set<ObjectRef>()
            for step in steps {
                let ref = ObjectRef(entity: step.entity, row: step.row)
                if step.insert {
                    #expect(set.insert(ref) == reference.insert(ref).inserted)
                } else {
                    #expect(set.remove(ref) == (reference.remove(ref) != nil))
                }
                #expect(set.contains(ref) == reference.contains(ref))
            }
            #expect(set.count == reference.count && set.isEmpty == reference.isEmpty)
            let ordered = reference.sorted { ($0.entity, $0.row) < ($1.entity, $1.row) }
            #expect(Array(set) == ordered)
            for entity in 0...4 {
                var rows: [Int] = []
                set.forEachRow(of: entity) { rows.append($0) }
                #expect(rows == ordered.filter { $0.entity == entity }.map { Int($0.row) })
                #expect(set.count(of: entity) == rows.count)
            }
            #expect(set == ObjectRefSet(ordered.reversed()), "equal whatever the order of insertion")
            var emptied = set
            for ref in ordered { emptied.remove(ref) }
            #expect(emptied == ObjectRefSet() && emptied.isEmpty && Array(emptied).isEmpty)
        }
    }

    @Test("a hundred thousand rows of one entity take a bit each, and iterate once each")
    func large() {
        var set = ObjectRefSet()
        for row in stride(from: 0, to: 1_000_000, by: 10) { set.insert(ObjectRef(entity: 2, row: row)) }
        #expect(set.count == 100_000 && set.count(of: 2) == 100_000 && set.count(of: 0) == 0)
        var visited = 0, last = -1, ascending = true
        set.forEachRow(of: 2) { row in
            visited += 1
            ascending = ascending && row > last
            last = row
        }
        #expect(visited == 100_000 && ascending && last == 999_990)
        #expect(!set.contains(ObjectRef(entity: 2, row: 999_991)) && !set.contains(ObjectRef(entity: 7, row: 0)))
    }
}
