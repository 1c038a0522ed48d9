import Foundation
// Internal only for `ResultBatches.madeCount` and `keptBatches`: the count of
// models made, which shows that they are made lazily, batch by batch.
import Folio
@testable import FolioCore
import PropertyBased
import Testing
import FolioTestSupport

/// Batched fetches (`fetch(_:batchSize:)`, `fetchIdentifiers(_:batchSize:)`):
/// the same result as `fetch(_:)`, made a batch at a time and let go.
@Suite struct FetchResultsCollectionTests {
    /// A package of `count` sightings named "s0", "s1", … with age = their number, saved and closed.
    static func savedPackage(count: Int, in folder: TemporaryFolder) throws -> URL {
        let url = folder.url.appendingPathComponent("sightings.folio")
        let context = ModelContext(try ModelContainer(for: Sighting.self, configurations: ModelConfiguration(url: url)))
        for number in 0..<count { context.insert(sighting(number)) }
        try context.save()
        return url
    }

    static func sighting(_ number: Int) -> Sighting {
        Sighting(
            name: "s\(number)", nickname: nil, age: number, small: nil, score: 0, rating: 0, born: .distantPast,
            code: UUID(), amount: 0, flag: number.isMultiple(of: 2), tags: [])
    }

    /// A context over a reopened package: no model made yet.
    static func reopened(_ url: URL) throws -> ModelContext {
        ModelContext(try ModelContainer(for: Sighting.self, configurations: ModelConfiguration(url: url)))
    }

    static var byAge: FetchDescriptor<Sighting> { FetchDescriptor(sortBy: [SortDescriptor(\.age)]) }

    // MARK: The same result as fetch(_:)

    /// One of the edge cases around `count`, or any `Int` at all; `nil` for none.
    static func number(_ kind: Int, _ raw: Int, count: Int) -> Int? {
        let edges = [Int.min, Int.min + 1, -1, 0, 1, count - 1, count, count + 1, Int.max - 1, Int.max, raw]
        return kind < edges.count ? edges[kind] : nil
    }

    @Test func `any offset, limit and batch size a caller passes select the slice the standard library would, without trapping`() async throws {
        let context = ModelContext(try TypedFetchTests.container())
        for number in 0..<9 { context.insert(Self.sighting(number)) }
        let all = try context.fetch(Self.byAge).map(\.persistentModelID)
        let number = zip(Gen.int(in: 0...11), Gen.int(in: Int.min...Int.max))
        await checkProperty(count: 300, input: number, number, number) { offset, limit, batch in
            var descriptor = Self.byAge
            descriptor.fetchOffset = Self.number(offset.0, offset.1, count: all.count)
            descriptor.fetchLimit = Self.number(limit.0, limit.1, count: all.count)
            let batchSize = Self.number(batch.0, batch.1, count: all.count) ?? 0
            let rest = all.dropFirst(max(descriptor.fetchOffset ?? 0, 0))
            let expected = Array(descriptor.fetchLimit.map { rest.prefix(max($0, 0)) } ?? rest)
            let label = "offset \(descriptor.fetchOffset as Any), limit \(descriptor.fetchLimit as Any), batch \(batchSize)"
            #expect(try context.fetch(descriptor).map(\.persistentModelID) == expected, "\(label)")
            #expect(try context.fetchIdentifiers(descriptor) == expected, "\(label)")
            #expect(try context.fetchCount(descriptor) == all.count, "\(label)")
            #expect(try context.fetch(descriptor, batchSize: batchSize).map(\.persistentModelID) == expected, "\(label)")
            #expect(Array(try context.fetchIdentifiers(descriptor, batchSize: batchSize)) == expected, "\(label)")
            var enumerated: [PersistentIdentifier] = []
            try context.enumerate(descriptor, batchSize: batchSize) { enumerated.append($0.persistentModelID) }
            #expect(enumerated == expected, "\(label)")
        }
    }

    @Test func `a batched fetch selects and orders exactly what fetch does, for random documents, descriptors and batch sizes`() async {
        // One seed per saved sighting, per pending one and per descriptor (and one for the
        // deletes): a failure shrinks to the fewest sightings and descriptors that still fail.
        let seeds = Gen.uint64(in: 0...UInt64.max)
        await checkProperty(count: 40, input: seeds.array(of: 0...50), seeds.array(of: 0...8), seeds, seeds.array(of: 1...23)) {
            saved, pending, deletes, queries in
            do {
                var rng = SeededGenerator(seed: deletes)
                let context = ModelContext(try TypedFetchTests.container())
                TypedFetchTests.populate(context, seeds: saved)
                try context.save()
                // Pending changes for includePendingChanges to include or leave out.
                TypedFetchTests.populate(context, seeds: pending)
                for model in try context.fetch(FetchDescriptor<Sighting>()) where Int.random(in: 0..<6, using: &rng) == 0 {
                    context.delete(model)
                }
                let predicates: [(String, Predicate<Sighting>?)] =
                    [("none", nil)]
                    + (TypedFetchTests.compiled + TypedFetchTests.evaluatedOnModels).map { ($0.0, $0.1) }
                let sorts: [(String, [SortDescriptor<Sighting>])] = [("none", [])] + TypedFetchTests.compiledSorts
                for query in queries {
                    var rng = SeededGenerator(seed: query)
                    let (predicateName, predicate) = predicates.randomElement(using: &rng) ?? ("none", nil)
                    let (sortName, sort) = sorts.randomElement(using: &rng) ?? ("none", [])
                    var descriptor = FetchDescriptor(predicate: predicate, sortBy: sort)
                    descriptor.fetchOffset = Bool.random(using: &rng) ? nil : Int.random(in: -1...20, using: &rng)
                    descriptor.fetchLimit = Bool.random(using: &rng) ? nil : Int.random(in: -1...30, using: &rng)
                    descriptor.includePendingChanges = Bool.random(using: &rng)
                    let batchSize = Int.random(in: -1...12, using: &rng)
                    let label =
                        "\(predicateName), sort \(sortName), offset \(descriptor.fetchOffset as Any), "
                        + "limit \(descriptor.fetchLimit as Any), pending \(descriptor.includePendingChanges), batch \(batchSize)"

                    let expected = try context.fetch(descriptor)
                    let batched = try context.fetch(descriptor, batchSize: batchSize)
                    #expect(batched.count == expected.count, "\(label)")
                    // The registered instances: fetch(_:) keeps them alive, so the collection finds them.
                    #expect(batched.elementsEqual(expected, by: ===), "\(label)")
                    // Random access, in a random order.
                    for index in batched.indices.shuffled(using: &rng) {
                        #expect(batched[index] === expected[index], "\(label), index \(index)")
                    }
                    let identifiers = try context.fetchIdentifiers(descriptor, batchSize: batchSize)
                    #expect(Array(identifiers) == expected.map(\.persistentModelID), "\(label), identifiers")
                }
            } catch {
                Issue.record("\(error)")
            }
        }
    }

    @Test func `identifiers in batches are those fetchIdentifiers returns, for any batch size`() throws {
        let folder = try TemporaryFolder()
        let context = try Self.reopened(try Self.savedPackage(count: 23, in: folder))
        var descriptor = FetchDescriptor<Sighting>(predicate: #Predicate { $0.flag }, sortBy: [SortDescriptor(\.age, order: .reverse)])
        descriptor.fetchOffset = 1
        let expected = try context.fetchIdentifiers(descriptor)
        #expect(expected.count == 11)
        for batchSize in [-5, 0, 1, 2, 5, 11, 12, 100] {
            let identifiers = try context.fetchIdentifiers(descriptor, batchSize: batchSize)
            #expect(Array(identifiers) == expected, "batch size \(batchSize)")
            #expect(identifiers.reversed().elementsEqual(expected.reversed()), "batch size \(batchSize), backwards")
        }
    }

    @Test func `propertiesToFetch and relationshipKeyPathsForPrefetching are hints that change nothing`() throws {
        let folder = try TemporaryFolder()
        let context = try Self.reopened(try Self.savedPackage(count: 12, in: folder))
        var hinted = Self.byAge
        hinted.propertiesToFetch = [\.name]
        hinted.relationshipKeyPathsForPrefetching = [\.site]
        let plain = try context.fetch(Self.byAge)
        #expect(try context.fetch(hinted) == plain)
        let batched = try context.fetch(hinted, batchSize: 5)
        #expect(batched.elementsEqual(plain, by: ===))
        // A property left out of propertiesToFetch still reads its value.
        #expect(batched.map(\.age) == Array(0..<12))
    }

    @Test func `an empty result is an empty collection, whatever the batch size`() throws {
        let context = ModelContext(try TypedFetchTests.container())
        for batchSize in [-1, 0, 1, 5000] {
            let none = try context.fetch(FetchDescriptor<Sighting>(), batchSize: batchSize)
            #expect(none.isEmpty && none.count == 0 && none.startIndex == none.endIndex)
            #expect(Array(none).isEmpty)
            #expect(try context.fetchIdentifiers(FetchDescriptor<Sighting>(), batchSize: batchSize).isEmpty)
        }
    }

    // MARK: Made lazily, let go

    @Test func `models are made only when their batch is first accessed, one batch at a time, from anywhere`() throws {
        let folder = try TemporaryFolder()
        let context = try Self.reopened(try Self.savedPackage(count: 25, in: folder))
        let identifiers = try context.fetchIdentifiers(Self.byAge)
        let sightings = try context.fetch(Self.byAge, batchSize: 10)
        #expect(sightings.count == 25)
        #expect(sightings.batches.madeCount == 0)
        #expect(identifiers.allSatisfy { (context.registeredModel(for: $0) as Sighting?) == nil }, "the fetch made no model")

        // The last element first: only the last batch (20..<25) is made.
        #expect(sightings[24].name == "s24")
        #expect(sightings.batches.madeCount == 5)
        #expect(sightings.batches.keptBatches == [2])
        #expect((context.registeredModel(for: identifiers[20]) as Sighting?) != nil)
        #expect((context.registeredModel(for: identifiers[19]) as Sighting?) == nil)

        // Then the middle: the second batch, whole.
        #expect(sightings[13].age == 13)
        #expect(sightings.batches.madeCount == 15)
        #expect(sightings.batches.keptBatches == [1, 2])
        #expect((context.registeredModel(for: identifiers[9]) as Sighting?) == nil, "the first batch is still not made")

        // Back and forth between the two kept batches makes nothing more.
        for index in [24, 10, 21, 19, 20] { #expect(sightings[index].age == index) }
        #expect(sightings.batches.madeCount == 15)
    }

    @Test func `a batch size of zero or less makes the whole result one batch`() throws {
        let folder = try TemporaryFolder()
        let context = try Self.reopened(try Self.savedPackage(count: 9, in: folder))
        for batchSize in [0, -3] {
            let sightings = try context.fetch(Self.byAge, batchSize: batchSize)
            #expect(sightings.batches.batchSize == 9)
            #expect(sightings[4].age == 4)
            #expect(sightings.batches.madeCount == 9)
            #expect(sightings.map(\.age) == Array(0..<9))
            #expect(sightings.batches.madeCount == 9)
        }
    }

    /// Weak references to the models of a collection's first batch, made in a
    /// function of its own so that no strong reference outlives it.
    @inline(never)
    static func weaklyHeldFirstBatch(of sightings: FetchResultsCollection<Sighting>, size: Int) -> [WeakModel] {
        (0..<size).map { WeakModel(sightings[$0]) }
    }

    final class WeakModel {
        weak var model: Sighting?
        init(_ model: Sighting) { self.model = model }
    }

    @Test func `the models of a batch the collection moved on from are released, unless the program holds them`() throws {
        let folder = try TemporaryFolder()
        let context = try Self.reopened(try Self.savedPackage(count: 40, in: folder))
        let sightings = try context.fetch(Self.byAge, batchSize: 10)
        let first = Self.weaklyHeldFirstBatch(of: sightings, size: 10)
        let held = sightings[3]
        #expect(first.allSatisfy { $0.model != nil }, "the collection keeps the batch it is in")

        // The next batch: the first is still one of the two kept.
        #expect(sightings[15].age == 15)
        #expect(first.allSatisfy { $0.model != nil })
        // A third: the first batch is let go.
        #expect(sightings[25].age == 25)
        #expect(sightings.batches.keptBatches == [2, 1])
        for (index, weak) in first.enumerated() where index != 3 {
            #expect(weak.model == nil, "model \(index) of the first batch is released")
        }
        // A model the program kept stays valid, and is the one handed out again.
        #expect(first[3].model === held)
        #expect(held.name == "s3" && held.modelContext === context)
        #expect(sightings[3] === held)
        #expect(sightings[4].name == "s4", "the rest of the batch is made again")
    }

    /// A weak reference to the model at `position`, made in a function of its
    /// own so that no strong reference outlives the call.
    @inline(never)
    static func weaklyHeld(_ sightings: FetchResultsCollection<Sighting>, at position: Int) -> WeakModel {
        WeakModel(sightings[position])
    }

    @MainActor
    @Test func `iterating a batched fetch releases each batch's models, and the registry keeps entries for two batches only`() throws {
        let folder = try TemporaryFolder()
        let url = try Self.savedPackage(count: 2_000, in: folder)
        let context = try ModelContainer(for: Sighting.self, configurations: ModelConfiguration(url: url)).mainContext
        let batchSize = 100
        // In the document's order (numbers ascending: a batch's entries share pages),
        // then sorted by name ("s0", "s1", "s10", "s100", …: numbers spread out).
        for (label, descriptor) in [("unsorted", FetchDescriptor<Sighting>()), ("by name", FetchDescriptor(sortBy: [SortDescriptor(\.name)]))] {
            let sightings = try context.fetch(descriptor, batchSize: batchSize)
            var firstOfEachBatch: [WeakModel] = []
            var mostEntries = 0
            var mostSlots = 0
            for position in sightings.indices {
                if position.isMultiple(of: batchSize) {
                    firstOfEachBatch.append(Self.weaklyHeld(sightings, at: position))
                } else {
                    #expect(sightings[position].age >= 0)
                }
                mostEntries = max(mostEntries, context.typed.registry.count)
                mostSlots = max(mostSlots, context.typed.registry.slotCount)
            }
            #expect(sightings.count == 2_000, "\(label)")
            #expect(mostEntries <= 2 * batchSize, "\(label): at most the two batches kept are registered")
            #expect(context.typed.registry.count == 2 * batchSize, "\(label)")
            // Every batch but the last two was let go, its models freed.
            #expect(firstOfEachBatch.dropLast(2).allSatisfy { $0.model == nil }, "\(label)")
            #expect(firstOfEachBatch.suffix(2).allSatisfy { $0.model != nil }, "\(label)")
            if label == "unsorted" {
                // The registry's memory follows the models alive, not the largest
                // number seen: a page per 16 numbers of the two batches, and the
                // pages each batch shares with its neighbours.
                #expect(mostSlots <= 2 * batchSize + 4 * ModelRegistry.pageSize, "\(label): \(mostSlots) slots")
            }
        }
        // Dropping the collection lets its last two batches go: the registry empties, pages and all.
        #expect(context.typed.registry.count == 0)
        #expect(context.typed.registry.slotCount == 0)
        // A model the program keeps is still the one handed out by a later fetch.
        let kept = try #require(try context.fetch(FetchDescriptor<Sighting>(), batchSize: batchSize).first)
        let again = try context.fetch(FetchDescriptor<Sighting>(), batchSize: batchSize)
        for sighting in again { _ = sighting.age }
        #expect(again[0] === kept)
        #expect(try context.fetch(FetchDescriptor<Sighting>()).first === kept)
    }

    @Test func `iterating twice gives the same models in the same order, the second pass remaking released batches`() throws {
        let folder = try TemporaryFolder()
        let context = try Self.reopened(try Self.savedPackage(count: 30, in: folder))
        let sightings = try context.fetch(Self.byAge, batchSize: 7)
        var names: [String] = []
        for sighting in sightings { names.append(sighting.name) }
        #expect(names == (0..<30).map { "s\($0)" })
        #expect(sightings.batches.madeCount == 30)
        #expect(sightings.map(\.name) == names)
        // The second pass remade every batch: starting over lets go of the two the first pass kept.
        #expect(sightings.batches.madeCount == 60)
        #expect(sightings.map(\.persistentModelID) == (try context.fetchIdentifiers(Self.byAge)))
    }

    // MARK: A snapshot while the context changes

    @Test func `an object deleted while the collection is iterated is still handed out, as a deleted model`() throws {
        let folder = try TemporaryFolder()
        let context = try Self.reopened(try Self.savedPackage(count: 12, in: folder))
        let identifiers = try context.fetchIdentifiers(Self.byAge)
        let sightings = try context.fetch(Self.byAge, batchSize: 4)
        var seen: [(name: String, isDeleted: Bool, attached: Bool)] = []
        for (index, sighting) in sightings.enumerated() {
            seen.append((sighting.name, sighting.isDeleted, sighting.modelContext != nil))
            if index == 1 {
                // Delete objects ahead of the iteration: one unsaved, one saved.
                try context.delete(model: Sighting.self, where: #Predicate { $0.age == 6 })
                try context.save()
                try context.delete(model: Sighting.self, where: #Predicate { $0.age == 9 })
            }
        }
        #expect(seen.map(\.name) == (0..<12).map { "s\($0)" }, "the count and order are the fetch's")
        #expect(seen[9].isDeleted && seen[9].attached, "an unsaved delete: a deleted model, still in the context")
        #expect(!seen[6].isDeleted && !seen[6].attached, "a saved delete: detached, its values readable")
        #expect(seen.indices.filter { seen[$0].isDeleted || !seen[$0].attached } == [6, 9])
        #expect(sightings.map(\.persistentModelID) == identifiers)
        // A new fetch no longer selects them.
        #expect(try context.fetch(Self.byAge, batchSize: 4).map(\.age) == [0, 1, 2, 3, 4, 5, 7, 8, 10, 11])
    }

    @Test func `after a rollback, deleted objects come back live and rolled-back inserts are detached models`() throws {
        let folder = try TemporaryFolder()
        let context = try Self.reopened(try Self.savedPackage(count: 6, in: folder))
        for number in 6..<10 { context.insert(Self.sighting(number)) }
        let identifiers = try context.fetchIdentifiers(Self.byAge)
        let sightings = try context.fetch(Self.byAge, batchSize: 4)
        // Batch 1 (4..<8) made before the rollback: s6 and s7 are unsaved inserts in it.
        let beforeRollback = sightings[6]
        #expect(beforeRollback.name == "s6")
        try context.delete(model: Sighting.self, where: #Predicate { $0.age == 0 })
        #expect(sightings[0].isDeleted)
        context.rollback()
        // The insert whose model existed keeps its values, detached; its batch is
        // still kept, so it is the model handed out.
        #expect(sightings.batches.keptBatches == [0, 1])
        #expect(sightings[6] === beforeRollback)
        #expect(beforeRollback.modelContext == nil && beforeRollback.name == "s6" && beforeRollback.age == 6)

        #expect(sightings.count == 10, "the collection is a snapshot of the fetch")
        #expect(sightings.map(\.persistentModelID) == identifiers)
        #expect(!sightings[0].isDeleted && sightings[0].modelContext === context, "the delete rolled back: live again")
        #expect(sightings[0].name == "s0")
        // One in a batch made after the rollback has no values left to keep.
        let madeAfter = sightings[9]
        #expect(madeAfter.modelContext == nil && !madeAfter.isDeleted)
        #expect(madeAfter.persistentModelID == identifiers[9])
        #expect(madeAfter.name == "" && madeAfter.age == 0 && madeAfter.site == nil)
        // The saved objects read as saved.
        #expect(sightings.prefix(6).map(\.age) == Array(0..<6))
        #expect(sightings.prefix(6).allSatisfy { $0.modelContext === context })
        #expect(try context.fetchCount(FetchDescriptor<Sighting>()) == 6)
    }

    @Test func `objects inserted or edited after the fetch do not change the collection's members or order`() throws {
        let folder = try TemporaryFolder()
        let context = try Self.reopened(try Self.savedPackage(count: 8, in: folder))
        let sightings = try context.fetch(Self.byAge, batchSize: 3)
        context.insert(Self.sighting(-1))
        sightings[7].age = -5
        #expect(sightings.count == 8)
        #expect(sightings.map(\.name) == (0..<8).map { "s\($0)" })
        #expect(sightings.map(\.age) == [0, 1, 2, 3, 4, 5, 6, -5], "the models show the edit")
    }

    // MARK: As apps use it

    @MainActor
    @Test func `the main context with its defaults edits every model of a batched fetch, and the edits are saved`() throws {
        let folder = try TemporaryFolder()
        let url = try Self.savedPackage(count: 50, in: folder)
        do {
            let container = try ModelContainer(for: Sighting.self, configurations: ModelConfiguration(url: url))
            let context = container.mainContext
            let adults = try context.fetch(
                FetchDescriptor<Sighting>(
                    predicate: #Predicate { $0.age >= 18 },
                    sortBy: [SortDescriptor(\.name)]), batchSize: 8)
            #expect(adults.count == 32)
            for sighting in adults { sighting.nickname = "adult \(sighting.age)" }
            try context.save()
        }
        let reopened = try ModelContainer(for: Sighting.self, configurations: ModelConfiguration(url: url)).mainContext
        let nicknames = try reopened.fetch(Self.byAge, batchSize: 16).map(\.nickname)
        #expect(nicknames == (0..<50).map { $0 >= 18 ? "adult \($0)" : nil })
    }
}
