import Foundation
import PropertyBased
import Folio
@testable import FolioCore
import FolioTestSupport

/// Random schemas, graphs and values for property tests.
enum RandomGraphs {
    static let scalarTypes: [ValueType] = [
        .string, .bool, .int, .int8, .int16, .int32, .int64, .uint, .uint8, .uint16,
        .uint32, .uint64, .double, .float, .date, .data, .uuid, .url, .decimal,
    ]

    static func type(_ rng: inout SeededGenerator) -> ValueType {
        switch Int.random(in: 0..<10, using: &rng) {
        case 0: return .array(scalarTypes.randomElement(using: &rng)!)
        case 1: return .set([ValueType.string, .int, .uuid, .date].randomElement(using: &rng)!)
        case 2: return .dictionary(scalarTypes.randomElement(using: &rng)!)
        case 3: return [ValueType.codable, .any].randomElement(using: &rng)!
        default: return scalarTypes.randomElement(using: &rng)!
        }
    }

    static func schema(_ rng: inout SeededGenerator) -> Schema {
        let entityCount = Int.random(in: 1...4, using: &rng)
        var entities = (0..<entityCount).map { index -> Schema.Entity in
            let attributes = (0..<Int.random(in: 0...6, using: &rng)).map { attribute in
                Schema.Attribute(
                    "a\(attribute)", type(&rng), isOptional: Bool.random(using: &rng),
                    options: [[.transient], [.externalStorage], [], [], [], [], [], []].randomElement(using: &rng)!)
            }
            return Schema.Entity("E\(index)", attributes: attributes)
        }
        var counter = 0
        for _ in 0..<Int.random(in: 0...5, using: &rng) {
            let source = Int.random(in: 0..<entityCount, using: &rng)
            let destination = Int.random(in: 0..<entityCount, using: &rng)
            let name = "r\(counter)"
            let inverseName = "r\(counter + 1)"
            counter += 2
            let rules = Schema.Relationship.DeleteRule.allCases
            // A to-many is optional (`[T]?`, nil apart from empty) one time in two.
            func shape() -> (toMany: Bool, optional: Bool) {
                let toMany = Bool.random(using: &rng)
                return (toMany, toMany && Bool.random(using: &rng))
            }
            if Bool.random(using: &rng) {
                let (forward, backward) = (shape(), shape())
                entities[source].relationships.append(
                    .init(
                        name, to: "E\(destination)", toMany: forward.toMany,
                        isOptional: forward.optional, inverse: inverseName,
                        deleteRule: rules.randomElement(using: &rng)!))
                entities[destination].relationships.append(
                    .init(
                        inverseName, to: "E\(source)", toMany: backward.toMany,
                        isOptional: backward.optional, inverse: name,
                        deleteRule: rules.randomElement(using: &rng)!))
            } else {
                let forward = shape()
                entities[source].relationships.append(
                    .init(
                        name, to: "E\(destination)", toMany: forward.toMany,
                        isOptional: forward.optional))
            }
        }
        // Generated names are unique and inverses point back, so this cannot fail.
        return (try? Schema(entities)) ?? (try! Schema([Schema.Entity]()))
    }

    static func string(_ rng: inout SeededGenerator) -> String {
        let pool: [Unicode.Scalar] = [
            "a", "Z", " ", "&", "<", ">", "\"", "'", "\n", "\t", "\r", "\u{0}", "\u{1F}",
            "\u{7F}", "é", "\u{301}", "\u{FFFE}", "\u{FFFF}", "🦊", "\\", "[", "{", ":",
        ]
        var scalars = String.UnicodeScalarView()
        for _ in 0..<Int.random(in: 0...12, using: &rng) { scalars.append(pool.randomElement(using: &rng)!) }
        return String(scalars)
    }

    static func double(_ rng: inout SeededGenerator) -> Double {
        switch Int.random(in: 0..<6, using: &rng) {
        case 0: return EdgeValues.doubles.randomElement(using: &rng)!
        case 1: return Double(bitPattern: rng.next())
        case 2: return Double(Int.random(in: -1000...1000, using: &rng)) / 8
        default: return Double.random(in: -1e6...1e6, using: &rng)
        }
    }

    static func scalar(_ type: ValueType, _ rng: inout SeededGenerator) -> Value {
        switch type {
        case .string: return .string(string(&rng))
        case .bool: return .bool(Bool.random(using: &rng))
        case .int, .int64: return .int(Int64(bitPattern: rng.next()))
        case .int8, .int16, .int32:
            return .int(Int64.random(in: type.integerRange!, using: &rng))
        case .uint, .uint64: return .uint(rng.next())
        case .uint8, .uint16, .uint32: return .uint(UInt64.random(in: 0...type.unsignedMax!, using: &rng))
        case .double: return .double(double(&rng))
        case .float:
            return .float(
                Bool.random(using: &rng)
                    ? Float(bitPattern: UInt32(truncatingIfNeeded: rng.next()))
                    : Float(double(&rng)))
        case .date:
            return .date(
                Date(
                    timeIntervalSinceReferenceDate: Bool.random(using: &rng)
                        ? double(&rng) : Double(Int.random(in: -2_000_000_000...2_000_000_000, using: &rng))))
        case .data: return .data(Data((0..<Int.random(in: 0...8, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }))
        case .uuid: return .uuid(UUID(uuid: withUnsafeBytes(of: (rng.next(), rng.next())) { $0.load(as: uuid_t.self) }))
        case .url: return .url(URL(string: "https://example.com/\(Int.random(in: 0...999, using: &rng))?x=\(Int.random(in: 0...9, using: &rng))")!)
        case .decimal: return .decimal(Decimal(Int.random(in: -1_000_000...1_000_000, using: &rng)) / 100)
        default: return .null
        }
    }

    static func composite(_ rng: inout SeededGenerator, depth: Int = 0) -> Value {
        switch Int.random(in: 0..<(depth > 2 ? 5 : 7), using: &rng) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &rng))
        case 2: return .int(Int64(bitPattern: rng.next()))
        case 3: return .double(double(&rng))
        case 4: return .string(string(&rng))
        case 5: return .array((0..<Int.random(in: 0...3, using: &rng)).map { _ in composite(&rng, depth: depth + 1) })
        default:
            var entries: [String: Value] = [:]
            for _ in 0..<Int.random(in: 0...3, using: &rng) { entries[string(&rng)] = composite(&rng, depth: depth + 1) }
            return .dictionary(entries)
        }
    }

    static func value(for attribute: Schema.Attribute, _ rng: inout SeededGenerator) -> Value {
        if attribute.isOptional, Int.random(in: 0..<4, using: &rng) == 0 { return .null }
        switch attribute.type {
        case .array(let element):
            return .array((0..<Int.random(in: 0...4, using: &rng)).map { _ in scalar(element, &rng) })
        case .set(let element):
            var seen = Set<Value>()
            for _ in 0..<Int.random(in: 0...4, using: &rng) { seen.insert(scalar(element, &rng)) }
            return .set(Array(seen))
        case .dictionary(let element):
            var entries: [String: Value] = [:]
            for _ in 0..<Int.random(in: 0...3, using: &rng) { entries[string(&rng)] = scalar(element, &rng) }
            return .dictionary(entries)
        case .codable:
            // `null` at the top is no value, which only an optional attribute may hold
            // (it got its chance above): a required one draws again.
            var value = composite(&rng)
            while case .null = value { value = composite(&rng) }
            return value
        case .any:
            return Int.random(in: 0..<4, using: &rng) == 0 ? .null : scalar(scalarTypes.randomElement(using: &rng)!, &rng)
        default: return scalar(attribute.type, &rng)
        }
    }

    /// The choices a random graph is built from, one seed per object, link edit
    /// and removal: drawn by a property test's generator (``generator``), a
    /// failing graph shrinks to fewer objects and edits.
    struct GraphPlan: Sendable, CustomStringConvertible {
        var objects: [UInt64]
        var links: [UInt64]
        var removals: [UInt64]

        var description: String { "\(objects.count) objects \(objects), links \(links), removals \(removals)" }

        /// Up to 25 objects, 40 link edits and 3 removals, as ``RandomGraphs/graph(_:_:)`` draws.
        static let generator = zip(
            Gen.uint64(in: 0...UInt64.max).array(of: 0...25),
            Gen.uint64(in: 0...UInt64.max).array(of: 0...40),
            Gen.uint64(in: 0...UInt64.max).array(of: 0...3)
        )
        .map { GraphPlan(objects: $0.0, links: $0.1, removals: $0.2) }

        /// A plan drawn from `rng` alone, for tests that take a seed.
        static func random(_ rng: inout SeededGenerator) -> GraphPlan {
            GraphPlan(
                objects: (0..<Int.random(in: 0...25, using: &rng)).map { _ in rng.next() },
                links: (0..<Int.random(in: 0...40, using: &rng)).map { _ in rng.next() },
                removals: (0..<Int.random(in: 0...3, using: &rng)).map { _ in rng.next() })
        }
    }

    /// A random graph over the schema: objects with random values, random links, some removals.
    static func graph(_ schema: Schema, _ rng: inout SeededGenerator) throws -> ObjectGraph {
        try graph(schema, GraphPlan.random(&rng))
    }

    /// The graph a plan describes: each object, link edit and removal made from its own seed.
    static func graph(_ schema: Schema, _ plan: GraphPlan) throws -> ObjectGraph {
        let graph = ObjectGraph(schema: schema)
        var ids: [PersistentIdentifier] = []
        for seed in plan.objects {
            var rng = SeededGenerator(seed: seed)
            let entity = schema.entities.randomElement(using: &rng)!
            var values: [String: Value] = [:]
            for attribute in entity.attributes where Bool.random(using: &rng) || !attribute.isTransient {
                values[attribute.name] = value(for: attribute, &rng)
            }
            ids.append(try graph.insert(entity.name, values))
        }
        guard !ids.isEmpty else { return graph }
        for seed in plan.links {
            var rng = SeededGenerator(seed: seed)
            let source = ids.randomElement(using: &rng)!
            guard let relationship = schema.entity(named: source.entityName)!.relationships.randomElement(using: &rng) else { continue }
            let candidates = ids.filter { $0.entityName == relationship.destination }
            guard let target = candidates.randomElement(using: &rng) else { continue }
            if Int.random(in: 0..<5, using: &rng) == 0 {
                try graph.unlink(source, relationship.name, from: target)
            } else {
                try graph.link(source, relationship.name, to: target)
            }
        }
        for seed in plan.removals {
            var rng = SeededGenerator(seed: seed)
            let victim = ids.randomElement(using: &rng)!
            if graph.contains(victim) { try graph.remove(victim) }
        }
        return graph
    }
}
