import Foundation
import Testing
import Folio
@testable import FolioCore
import FolioTestSupport

/// New identifiers are `lane << 32 | seq`, one random lane per writer, so two
/// copies of a document edited apart never hand out one identifier twice
/// (issue 30, item 1; docs/FORMAT.md, "Identifiers").
@Suite struct LaneIdentifierTests {
    static func lane(_ id: PersistentIdentifier) -> UInt64 { IdentifierAllocator.lane(of: id.id) }
    static func sequence(_ id: PersistentIdentifier) -> UInt64 { IdentifierAllocator.sequence(of: id.id) }

    @Test("a bare graph draws one lane in 1..<2^31 at its first insert and numbers its objects 1, 2, 3 in it")
    func bareGraphLane() throws {
        let graph = ObjectGraph(schema: try zooSchema())
        let ids = try (0..<3).map { _ in try graph.insert("Animal") }
        let lane = Self.lane(ids[0])
        #expect(IdentifierAllocator.lanes.contains(lane))
        #expect(ids.map(Self.lane) == [lane, lane, lane])
        #expect(ids.map(Self.sequence) == [1, 2, 3])
        // Ids fit an Int64 (exports, JSON, SQL).
        #expect(ids.allSatisfy { $0.id <= UInt64(Int64.max) })
    }

    @Test("the lane drawn is never one the document uses: every draw avoids the lanes a predicate calls used")
    func drawAvoidsUsedLanes() {
        for _ in 0..<200 {
            var allocator = IdentifierAllocator()
            let id = allocator.next { $0 % 2 == 1 }
            let lane = IdentifierAllocator.lane(of: try! #require(id))
            #expect(lane % 2 == 0 && IdentifierAllocator.lanes.contains(lane))
        }
        // Every lane used: none is drawn, and the insert fails rather than reuse one.
        var full = IdentifierAllocator()
        #expect(full.next { _ in true } == nil)
    }

    @Test("a writer whose lane is used up draws another and never returns to the first")
    func exhaustion() throws {
        var allocator = IdentifierAllocator(lane: 7, nextSequence: IdentifierAllocator.maximumSequence)
        let last = try #require(allocator.next { _ in false })
        #expect(last == 7 << 32 | IdentifierAllocator.maximumSequence)
        let next = try #require(allocator.next { _ in false })
        #expect(IdentifierAllocator.lane(of: next) != 7)
        #expect(IdentifierAllocator.sequence(of: next) == 1)
        #expect(allocator.reservedLanes.contains(7))
    }

    @Test("contexts of one container share the store's lane; an undone insert's number is not handed out again")
    func contextsShareLaneAndNeverReuse() throws {
        let container = try ModelContainer(for: try zooSchema(), configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let a = ModelContext(container), b = ModelContext(container)
        a.undoManager = UndoManager()
        let first = try a.insert("Animal")
        a.undoManager?.undo()
        let second = try a.insert("Animal")
        let third = try b.insert("Animal")
        #expect(Self.lane(first) == Self.lane(second) && Self.lane(second) == Self.lane(third))
        #expect(Self.sequence(second) == Self.sequence(first) + 1)
        #expect(Set([first.id, second.id, third.id]).count == 3)
    }

    @Test("a package reopened by another writer gets a new lane, never one its saved objects use")
    func reopenDrawsNewLane() throws {
        let url = temporaryPackageURL()
        var lanes: [UInt64] = []
        for round in 0..<3 {
            let container = try ModelContainer(for: try zooSchema(), configurations: ModelConfiguration(url: url))
            let context = ModelContext(container)
            let id = try context.insert("Animal", ["name": .string("A\(round)")])
            try context.save()
            lanes.append(Self.lane(id))
        }
        #expect(Set(lanes).count == 3)
        let graph = try DocumentPackage(url: url).read()
        let id = try graph.insert("Animal")
        #expect(!lanes.contains(Self.lane(id)))
    }

    @Test("two copies of one saved package, edited apart, never give one identifier twice; legacy ids are kept")
    func copiesNeverCollide() throws {
        let base = temporaryPackageURL("Base")
        let legacy = ObjectGraph(schema: try zooSchema())
        // A format-2 style graph: small identifiers in lane 0, as older packages hold.
        for id in 1...3 as ClosedRange<UInt64> {
            legacy.insertObject(
                entity: try #require(legacy.layout.entityIndex["Animal"]),
                values: legacy.layout.entities[legacy.layout.entityIndex["Animal"]!].attributes.map(\.initialValue), id: id)
        }
        try DocumentPackage(url: base).write(legacy)
        let ours = temporaryPackageURL("Ours"), theirs = temporaryPackageURL("Theirs")
        try FileManager.default.copyItem(at: base, to: ours)
        try FileManager.default.copyItem(at: base, to: theirs)
        var made: [Set<UInt64>] = []
        for url in [ours, theirs] {
            let container = try ModelContainer(for: try zooSchema(), configurations: ModelConfiguration(url: url))
            let context = ModelContext(container)
            var ids = Set<UInt64>()
            for _ in 0..<50 { ids.insert(try context.insert("Animal").id) }
            try context.save()
            made.append(ids)
            let kept = try context.fetchIdentifiers(DynamicFetchDescriptor(entity: "Animal")).map(\.id).filter { $0 < 1 << 32 }
            #expect(Set(kept) == [1, 2, 3])
        }
        #expect(made[0].isDisjoint(with: made[1]))
        #expect(made.allSatisfy { $0.allSatisfy { $0 >> 32 != 0 } })
    }

    @Test("the identifier index finds objects of many lanes, sparse sequence numbers and legacy ids alike")
    func indexAcrossLanes() {
        var index = IdentifierIndex()
        var expected: [UInt64: ObjectRef] = [:]
        var rng = SeededGenerator(seed: 30)
        for step in 0..<5_000 {
            let lane = UInt64.random(in: 0..<12, using: &rng)
            let sequence =
                lane == 0
                ? UInt64.random(in: 1..<3_000, using: &rng)
                : step % 97 == 0 ? UInt64.random(in: 1..<(1 << 32), using: &rng) : UInt64.random(in: 1..<3_000, using: &rng)
            let id = lane << 32 | sequence
            let ref = ObjectRef(entity: Int(lane % 3), row: step)
            index[id] = ref
            expected[id] = ref
        }
        for (id, ref) in expected { #expect(index[id] == ref) }
        #expect(index.count == expected.count)
        #expect(index[5 << 32 | 4_000_000_000] == nil || expected[5 << 32 | 4_000_000_000] != nil)
        #expect(index.lanes == Set(expected.keys.map { $0 >> 32 }))
    }
}
