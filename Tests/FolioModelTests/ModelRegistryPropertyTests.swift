// Internal: the registry itself, its count of entries and of slots allocated.
import Folio
@testable import FolioCore
import PropertyBased
import Testing
import FolioTestSupport

/// The registry against a dictionary of the models registered: the same
/// look-ups through any sequence of registrations and removals, and memory
/// that follows the entries set (a page per 16 numbers holding one), not the
/// largest number ever registered.
@Suite struct ModelRegistryPropertyTests {
    /// Numbers the registry always keeps in pages (below 2^16), and far ones
    /// it keeps in its dictionary (a temporary number is 2^63 and up).
    static let near: ClosedRange<UInt64> = 0...3_000
    static let far: [UInt64] = [1 << 40, (1 << 63) + 1, (1 << 63) + 2, UInt64.max]

    static func model(_ number: Int, weakly: Bool) -> any PersistentModel {
        weakly ? RegistryDiary(entry: "d\(number)") : RegistryKeeper(name: "k\(number)")
    }

    /// What a step does to the registry, and to the dictionary it must match.
    enum Operation {
        case register(weakly: Bool)
        case remove
        /// Another instance's removal (a replaced model's deinit): it leaves the entry.
        case removeAnother
        /// The removal of the model registered, if any.
        case removeHeld
    }

    static func apply(
        _ operation: Operation, id: UInt64, step: Int, to registry: inout ModelRegistry,
        _ expected: inout [UInt64: any PersistentModel]
    ) {
        switch operation {
        case .register(let weakly):
            let model = Self.model(step, weakly: weakly)
            registry.register(model, id: id)
            expected[id] = model
        case .remove:
            registry.remove(id)
            expected[id] = nil
        case .removeAnother:
            registry.remove(id, ifHolding: ObjectIdentifier(Self.model(step, weakly: false)))
        case .removeHeld:
            guard let held = expected[id] else { return }
            registry.remove(id, ifHolding: ObjectIdentifier(held))
            expected[id] = nil
        }
    }

    @Test(.tags(.long)) func `look-ups, counts and pages match a dictionary of the models registered, through any registrations and removals`() async {
        // Each step's roll picks the operation (by tens), its seed the number; a
        // failure shrinks to fewer steps, each toward registering near `base`.
        // 40 sessions as long as before (up to 1,200 steps, so the directory grows
        // and empties as it did): about 24,000 steps, each operation thousands of
        // times. It ran 100, each step checking every page, for no more cases.
        await checkProperty(count: TestEffort.cases(40), input: Gen.uint64(in: Self.near), SessionStep.generator.array(of: 1...1_200)) { base, plan in
            var registry = ModelRegistry()
            var expected: [UInt64: any PersistentModel] = [:]
            // Clustered numbers (near `base`), as a fetch's, and scattered ones, as a sorted batch's.
            for (step, planned) in plan.enumerated() {
                var rng = planned.choices
                let id: UInt64 =
                    switch Int.random(in: 0..<10, using: &rng) {
                    case 0: Self.far.randomElement(using: &rng) ?? 0
                    case 1...5: min(base + UInt64.random(in: 0...40, using: &rng), Self.near.upperBound)
                    default: UInt64.random(in: Self.near, using: &rng)
                    }
                let operation: Operation =
                    switch planned.roll / 10 {
                    case 0...4: .register(weakly: Int.random(in: 0..<4, using: &rng) == 0)
                    case 5...6: .remove
                    case 7: .removeAnother
                    default: .removeHeld
                    }
                Self.apply(operation, id: id, step: step, to: &registry, &expected)
                let label = "step \(step), id \(id)"
                #expect(registry[id].map { ObjectIdentifier($0) } == expected[id].map { ObjectIdentifier($0) }, "\(label)")
                #expect(registry.count == expected.count, "\(label)")
                // A page for every 16 near numbers holding an unretained entry, a
                // dictionary entry for each far one and each weakly held one.
                let unretained = expected.filter { type(of: $0.value)._$unregistersOnDeinit }.keys
                let pages = Set(unretained.filter { Self.near.contains($0) }.map { $0 >> ModelRegistry.pageShift })
                let farCount = unretained.filter { !Self.near.contains($0) }.count
                let weakCount = expected.count - unretained.count
                #expect(registry.slotCount == pages.count * ModelRegistry.pageSize + farCount + weakCount, "\(label)")
            }
            for id in Self.near.lowerBound...(Self.near.upperBound + 16) {
                #expect(registry[id].map { ObjectIdentifier($0) } == expected[id].map { ObjectIdentifier($0) }, "id \(id)")
            }
            for id in Self.far { #expect(registry[id].map { ObjectIdentifier($0) } == expected[id].map { ObjectIdentifier($0) }) }
            #expect(registry.entries.map(\.id).sorted() == expected.keys.sorted())
            for (id, model) in registry.entries { #expect(ObjectIdentifier(model) == expected[id].map { ObjectIdentifier($0) }) }
            if let keeper = expected.values.first(where: { $0 is RegistryKeeper }), let id = expected.first(where: { $0.value === keeper })?.key {
                let typed: RegistryKeeper? = registry.model(id, as: RegistryKeeper.self)
                #expect(typed === keeper)
                #expect(registry.model(id, as: RegistryDiary.self) == nil)
            }
            // Emptied, it holds no page.
            for id in expected.keys { registry.remove(id) }
            #expect(registry.count == 0 && registry.slotCount == 0 && registry.isEmpty)
            // Its pages' slabs are unmapped but one, kept for the next page.
            #expect(registry.slabCount <= 1)
        }
    }

    @Test func `pages come from slabs of their own, unmapped when none of their pages is in use but one kept`() {
        var registry = ModelRegistry()
        let perSlab = UInt64(PagePool.slabEntries)
        // Three slabs' worth of pages, each page holding one model.
        let models = (0..<3 * PagePool.pagesPerSlab).map { RegistryKeeper(name: "\($0)") }
        for (index, model) in models.enumerated() { registry.register(model, id: UInt64(index * ModelRegistry.pageSize)) }
        #expect(registry.slabCount == 3)
        #expect(registry.slotCount == 3 * Int(perSlab))
        // Dropping the last two slabs' models: one is kept empty, the other unmapped.
        let firstSlab = PagePool.pagesPerSlab
        for index in firstSlab..<models.count { registry.remove(UInt64(index * ModelRegistry.pageSize)) }
        #expect(registry.slabCount == 2)
        #expect(registry.slotCount == Int(perSlab))
        #expect(registry[0] === models[0])
        // A model made and dropped again and again on a new page, while the
        // first slab is full: the kept slab serves it, none is mapped or unmapped.
        for round in 0..<100 {
            let id = UInt64(20_000 + round % 2)
            registry.register(models[1], id: id)
            #expect(registry.slabCount == 2)
            registry.remove(id)
            #expect(registry.slabCount == 2)
        }
        #expect(registry.count == firstSlab)
        // All dropped: one slab left, empty.
        for index in 0..<firstSlab { registry.remove(UInt64(index * ModelRegistry.pageSize)) }
        #expect(registry.slabCount == 1 && registry.slotCount == 0)
    }

    @Test func `a weakly held model that died is cleared by the sweep, and its entry freed`() {
        var registry = ModelRegistry()
        let kept = RegistryKeeper(name: "kept")
        registry.register(kept, id: 5_000)
        do {
            for id in UInt64(0)..<100 { registry.register(RegistryDiary(entry: "\(id)"), id: id) }
        }
        // Dead, but their weak references are still set: counted until cleared.
        #expect(registry[3] == nil)
        #expect(registry.count == 101)
        // Enough weak registrations to sweep (its threshold is at least 1,024).
        var alive: [RegistryDiary] = []
        for round in 0..<1_100 {
            let diary = RegistryDiary(entry: "alive \(round)")
            alive.append(diary)
            registry.register(diary, id: 2_000)
        }
        #expect(registry.count == 2, "the dead diaries were cleared: the kept keeper and the last diary")
        // The keeper's page, and the live diary's entry: the weakly held take no page.
        #expect(registry.slotCount == ModelRegistry.pageSize + 1)
        #expect(registry[5_000] === kept)
        #expect(registry[2_000] === alive.last)
    }

    @Test(.tags(.long)) func `numbers beyond the directory's reach stay found as it grows over them, whichever kind of entry replaces them`() async {
        // Numbers the directory does not reach at first (a dictionary entry), and
        // reaches once it has grown by doubling: each growth moves them into pages.
        let bands: [ClosedRange<UInt64>] = [0...64, 65_000...70_000, 131_000...140_000, 270_000...600_000, 1_100_000...1_200_000]
        // 40 sessions of up to 400 steps (it ran 100): about 8,000 steps, every
        // band about 1,600 times, the steps and their checks unchanged.
        await checkProperty(count: TestEffort.cases(40), input: SessionStep.generator.array(of: 1...400)) { plan in
            var registry = ModelRegistry()
            var expected: [UInt64: any PersistentModel] = [:]
            for (step, planned) in plan.enumerated() {
                var rng = planned.choices
                let band = bands[Int.random(in: 0..<bands.count, using: &rng)]
                let id = UInt64.random(in: band, using: &rng)
                let operation: Operation =
                    switch planned.roll / 10 {
                    case 0...5: .register(weakly: Int.random(in: 0..<3, using: &rng) == 0)
                    case 6...7: .remove
                    default: .removeHeld
                    }
                Self.apply(operation, id: id, step: step, to: &registry, &expected)
                #expect(registry.count == expected.count, "step \(step), id \(id)")
                for (number, model) in expected {
                    #expect(registry[number] === model, "step \(step): \(number) after registering or removing \(id)")
                }
            }
            #expect(registry.entries.map(\.id).sorted() == expected.keys.sorted())
            for id in expected.keys { registry.remove(id) }
            #expect(registry.isEmpty && registry.slotCount == 0)
        }
    }
}
