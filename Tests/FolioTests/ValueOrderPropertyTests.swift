import Foundation
import PropertyBased
import Testing
import Folio
@testable import FolioCore
import FolioTestSupport

/// `Value`'s total order, which `<` and every sort by an any-value use: random
/// values of every scalar kind are ordered totally and transitively, and a
/// fetch sorted descending is the one sorted ascending, reversed.
@Suite struct ValueOrderPropertyTests {
    static let strings = ["", "Wolfie", "a cat named Tom", "caf\u{E9}", "cafe\u{301}", "Z", "z", "10", "9"]

    /// A value of any kind an any-value can hold, with the edge cases of each:
    /// integers around 2^53 and at the ends of their types, NaN, ±0 and ±∞,
    /// decimals equal to doubles, strings equal as Swift compares them but not
    /// by scalars.
    static func randomValue(_ rng: inout SeededGenerator) -> Value {
        let twoTo53 = Int64(1) << 53
        switch Int.random(in: 0..<12, using: &rng) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &rng))
        case 2:
            return .int(
                [0, 3, -3, twoTo53, twoTo53 + 1, -twoTo53 - 1, .max, .min, Int64.random(in: -5...5, using: &rng)]
                    .randomElement(using: &rng)!)
        case 3: return .uint([0, 3, UInt64(Int64.max), UInt64(Int64.max) + 1, .max].randomElement(using: &rng)!)
        case 4:
            return .double(
                [
                    2.5, 3, -0.0, 0, .nan, .infinity, -.infinity, 9_007_199_254_740_992, 9_223_372_036_854_775_808,
                    18_446_744_073_709_551_616, Double(Int.random(in: -8...8, using: &rng)) / 4,
                ]
                .randomElement(using: &rng)!)
        case 5: return .float([2.5, 3, .nan, -1.25, 16_777_216].randomElement(using: &rng)!)
        case 6: return .decimal(Decimal(Int.random(in: -8...8, using: &rng)) / 4)
        case 7: return .string(strings.randomElement(using: &rng)!)
        case 8: return .date(Date(timeIntervalSinceReferenceDate: [0, 1.5, -3, .nan].randomElement(using: &rng)!))
        case 9: return .data(Data((0..<Int.random(in: 0...2, using: &rng)).map { _ in UInt8.random(in: 0...2, using: &rng) }))
        case 10: return .uuid(UUID(uuid: (UInt8.random(in: 0...2, using: &rng), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
        default: return .url(URL(string: ["https://a.example", "https://b.example", "file:///tmp"].randomElement(using: &rng)!)!)
        }
    }

    static func flipped(_ order: ComparisonResult) -> ComparisonResult {
        order == .orderedAscending ? .orderedDescending : (order == .orderedDescending ? .orderedAscending : .orderedSame)
    }

    @Test("the order is total: antisymmetric, reflexive, and transitive for orderings and for ties")
    func totalAndTransitive() async {
        // One seed per value: a failure shrinks to the fewest values that still break the order.
        await checkProperty(count: 400, input: Gen.uint64(in: 0...UInt64.max).array(of: 1...32)) { seeds in
            let values = seeds.map { seed in
                var rng = SeededGenerator(seed: seed)
                return Self.randomValue(&rng)
            }
            for a in values {
                #expect(a.totalOrder(a) == .orderedSame, "\(a) is not equal to itself")
                for b in values {
                    let ab = a.totalOrder(b)
                    #expect(ab == Self.flipped(b.totalOrder(a)), "\(a) vs \(b) disagrees with \(b) vs \(a)")
                    #expect((a < b) == (ab == .orderedAscending))
                    for c in values where ab != .orderedDescending {
                        let bc = b.totalOrder(c)
                        guard bc != .orderedDescending else { continue }
                        let ac = a.totalOrder(c)
                        // a ≤ b ≤ c gives a ≤ c, and a = b = c gives a = c.
                        #expect(ac != .orderedDescending, "\(a) ≤ \(b) ≤ \(c) but \(a) > \(c)")
                        if ab == .orderedSame, bc == .orderedSame { #expect(ac == .orderedSame, "\(a) = \(b) = \(c) but not \(a) = \(c)") }
                    }
                }
            }
        }
    }

    @Test("numbers compare by value across types: 3 after 2.5, integers past 2^53 exactly, nil first, then kinds in order")
    func numbersAndKinds() {
        let twoTo53 = Int64(1) << 53
        #expect(Value.double(2.5) < .int(3))
        #expect(Value.int(2) < .double(2.5))
        #expect(Value.decimal(Decimal(5) / 2) < .uint(3))
        #expect(Value.double(Double(twoTo53)) < .int(twoTo53 + 1))
        #expect(Value.int(.max) < .double(9_223_372_036_854_775_808))
        #expect(Value.double(18_446_744_073_709_551_616) > .uint(.max))
        #expect(Value.int(3).totalOrder(.double(3)) == .orderedSame)
        #expect(Value.double(.nan) < .double(-.infinity))
        #expect(Value.null < .bool(false))
        #expect(Value.bool(true) < .int(-100))
        #expect(Value.int(100) < .string(""))
        #expect(Value.string("Wolfie") < .string("a cat named Tom"))
        #expect(Value.string("zzz") < .date(Date(timeIntervalSinceReferenceDate: 0)))
    }

    @Test("a fetch sorted by an any-value descending is the ascending fetch reversed, and ascending follows the order")
    func fetchSortMirrors() async throws {
        let schema = try Schema([.init("Box", attributes: [.init("content", .any), .init("label", .int)])])
        // One seed per box: a failure shrinks to the fewest boxes that still sort wrong.
        await checkProperty(count: 60, input: Gen.uint64(in: 0...UInt64.max).array(of: 0...30)) { seeds in
            let context = try makeContext(schema)
            for (label, seed) in seeds.enumerated() {
                var rng = SeededGenerator(seed: seed)
                try context.insert("Box", ["content": Self.randomValue(&rng), "label": .int(Int64(label))])
            }
            func contents(ascending: Bool) throws -> [Value] {
                let descriptor = DynamicFetchDescriptor(entity: "Box", sortBy: [.init("content", ascending: ascending)])
                return try context.fetchIdentifiers(descriptor).map { try context.value("content", of: $0) }
            }
            let ascending = try contents(ascending: true)
            let descending = try contents(ascending: false)
            #expect(
                zip(ascending, ascending.dropFirst()).allSatisfy { $0.totalOrder($1) != .orderedDescending },
                "not in order: \(ascending)")
            #expect(ascending.count == descending.count)
            #expect(
                zip(ascending, descending.reversed()).allSatisfy { $0.totalOrder($1) == .orderedSame },
                "descending \(descending) is not ascending \(ascending) reversed")
        }
    }
}
