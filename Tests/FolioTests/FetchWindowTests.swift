import Folio
import Foundation
import PropertyBased
import Testing
import FolioTestSupport

/// A fetch's offset and limit, and a history fetch's limit, are numbers any
/// caller may pass: every `Int` — negative, zero, past the end, `Int.max` —
/// selects what dropping `offset` results and keeping `limit` of the rest
/// would, and never traps.
@Suite struct FetchWindowTests {
    /// A number of the edge cases around `count`, or any `Int` at all; `nil` for no offset or limit.
    static func number(_ kind: Int, _ raw: Int, count: Int) -> Int? {
        let edges = [Int.min, Int.min + 1, -1, 0, 1, count - 1, count, count + 1, Int.max - 1, Int.max, raw]
        return kind < edges.count ? edges[kind] : nil
    }

    static let numbers = zip(Gen.int(in: 0...11), Gen.int(in: Int.min...Int.max))

    /// What a window keeps, by the standard library's own saturating slices.
    static func expected<T>(_ all: [T], offset: Int?, limit: Int?) -> [T] {
        let rest = all.dropFirst(max(offset ?? 0, 0))
        return Array(limit.map { rest.prefix(max($0, 0)) } ?? rest)
    }

    @Test func `any offset and limit a caller passes to a dynamic fetch select the slice the standard library would, without trapping`() async throws {
        let context = ModelContext(try ModelContainer(for: try zooSchema(), configurations: ModelConfiguration(isStoredInMemoryOnly: true)))
        for index in 0..<7 { _ = try context.insert("Animal", ["name": .string("a\(6 - index)"), "age": .int(Int64(index))]) }
        let all = try context.fetchIdentifiers(DynamicFetchDescriptor(entity: "Animal"))
        let sorted = try context.fetchIdentifiers(DynamicFetchDescriptor(entity: "Animal", sortBy: [.init("name")]))
        let filtered = try context.fetchIdentifiers(DynamicFetchDescriptor(entity: "Animal", predicate: try ObjectPredicate("age >= 2")))
        await checkProperty(count: 300, input: Self.numbers, Self.numbers) { offset, limit in
            for (expectedAll, predicate, sort) in [
                (all, nil, []), (sorted, nil, [DynamicFetchDescriptor.SortKey("name")]),
                (filtered, try ObjectPredicate("age >= 2"), []),
            ] as [([PersistentIdentifier], ObjectPredicate?, [DynamicFetchDescriptor.SortKey])] {
                let offset = Self.number(offset.0, offset.1, count: expectedAll.count)
                let limit = Self.number(limit.0, limit.1, count: expectedAll.count)
                let descriptor = DynamicFetchDescriptor(
                    entity: "Animal", predicate: predicate, sortBy: sort,
                    fetchLimit: limit, fetchOffset: offset)
                #expect(
                    try context.fetchIdentifiers(descriptor) == Self.expected(expectedAll, offset: offset, limit: limit),
                    "offset \(String(describing: offset)), limit \(String(describing: limit))")
                #expect(try context.fetchCount(descriptor) == expectedAll.count)
            }
        }
    }

    @Test func `any limit a caller passes to a history fetch keeps that many transactions at most, without trapping`() async throws {
        let context = ModelContext(try ModelContainer(for: try zooSchema(), configurations: ModelConfiguration(isStoredInMemoryOnly: true)))
        for index in 0..<3 {
            _ = try context.insert("Animal", ["name": .string("a\(index)")])
            try context.save()
        }
        let all = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).map(\.transactionIdentifier)
        #expect(all.count == 3)
        await checkProperty(count: 100, input: Self.numbers) { limit in
            var descriptor = HistoryDescriptor<DefaultHistoryTransaction>()
            descriptor.fetchLimit = Self.number(limit.0, limit.1, count: all.count)
            let fetched = try context.fetchHistory(descriptor).map(\.transactionIdentifier)
            #expect(fetched == Self.expected(all, offset: nil, limit: descriptor.fetchLimit))
        }
    }
}
