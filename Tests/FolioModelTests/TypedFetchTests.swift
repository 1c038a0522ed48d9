import Foundation
import Folio
import PropertyBased
import Testing
import FolioTestSupport

@Model
final class Site {
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \Sighting.site) var sightings: [Sighting] = []

    init(name: String) { self.name = name }
}

@Model
final class Sighting {
    var name: String
    var nickname: String?
    var age: Int
    var small: Int8?
    var score: Double
    var rating: Float
    var born: Date
    var code: UUID
    var amount: Decimal
    var flag: Bool
    var tags: [String]
    var serial: UInt64 = 0
    var site: Site?
    @Transient var scratch = 0

    init(
        name: String, nickname: String?, age: Int, small: Int8?, score: Double, rating: Float, born: Date,
        code: UUID, amount: Decimal, flag: Bool, tags: [String]
    ) {
        self.name = name
        self.nickname = nickname
        self.age = age
        self.small = small
        self.score = score
        self.rating = rating
        self.born = born
        self.code = code
        self.amount = amount
        self.flag = flag
        self.tags = tags
    }

    /// Not persisted: only Foundation can evaluate it.
    var isAdult: Bool { age >= 18 }
}

/// Typed fetches evaluate `#Predicate` and `SortDescriptor` on the graph's
/// rows: these tests hold the compiled forms to exactly what Foundation gives
/// evaluating the same predicate and sort on the models.
@Suite struct TypedFetchTests {
    static let pieces = ["", "a", "A", "b", "é", "e\u{301}", "e", "ab", "Z", "🦊", "10", "9", " "]
    static let codes = (0..<4).map { UUID(uuidString: "0000000\($0)-0000-4000-8000-00000000000\($0)") ?? UUID() }

    static func randomText(_ rng: inout SeededGenerator) -> String {
        (0..<Int.random(in: 0...3, using: &rng)).map { _ in pieces.randomElement(using: &rng) ?? "" }.joined()
    }

    /// A zoo of sightings with the awkward values: NaN and signed zeros,
    /// canonically equal strings with different scalars, nils, duplicates.
    static func populate(_ context: ModelContext, seed: UInt64, count: Int) {
        var rng = SeededGenerator(seed: seed)
        populate(context, seeds: (0..<count).map { _ in rng.next() })
    }

    /// The same zoo, one sighting per seed: a property test draws the seeds,
    /// so a failure shrinks to the fewest sightings that still show it.
    static func populate(_ context: ModelContext, seeds: [UInt64]) {
        let sites = ["North", "South", "é"].map { Site(name: $0) }
        sites.forEach { context.insert($0) }
        let scores: [Double] = [0, -0.0, .nan, 1.5, -2, .infinity, 499.9, 500, 1e-300]
        for seed in seeds {
            var rng = SeededGenerator(seed: seed)
            let sighting = Sighting(
                name: randomText(&rng),
                nickname: Bool.random(using: &rng) ? nil : randomText(&rng),
                age: Int.random(in: -2...30, using: &rng),
                small: Bool.random(using: &rng) ? nil : Int8.random(in: -3...5, using: &rng),
                score: scores.randomElement(using: &rng) ?? 0,
                rating: Float(Int.random(in: 0...4, using: &rng)) / 4,
                born: Date(timeIntervalSinceReferenceDate: Double(Int.random(in: -3...3, using: &rng)) * 86_400),
                code: codes.randomElement(using: &rng) ?? UUID(),
                amount: Decimal(Int.random(in: -5...5, using: &rng)) / 2,
                flag: Bool.random(using: &rng),
                tags: (0..<Int.random(in: 0...2, using: &rng)).map { _ in ["x", "y", "é"].randomElement(using: &rng) ?? "x" })
            sighting.serial = [0, 1, UInt64(Int64.max), UInt64(Int64.max) + 1, UInt64.max].randomElement(using: &rng) ?? 0
            context.insert(sighting)
            if Int.random(in: 0...3, using: &rng) > 0 { sighting.site = sites.randomElement(using: &rng) }
        }
    }

    static let lower = 3, bound = 500.0, text = "é", needles = ["", "e", "é", "ab"], names = ["a", "b", "ab"]
    static let day = Date(timeIntervalSinceReferenceDate: 0), half = Decimal(1) / 2

    /// Predicates Folio compiles, each with a name for failure messages.
    static let compiled: [(String, Predicate<Sighting>)] = {
        let (lower, bound, text, names, day, half) = (Self.lower, Self.bound, Self.text, Self.names, Self.day, Self.half)
        let code = codes[1]
        var list: [(String, Predicate<Sighting>)] = [
            ("age >= lower && score < bound", #Predicate { $0.age >= lower && $0.score < bound }),
            ("name == é", #Predicate { $0.name == text }),
            ("name != é", #Predicate { $0.name != text }),
            ("name < m", #Predicate { $0.name < "m" }),
            ("!flag", #Predicate { !$0.flag }),
            ("flag || age < 3", #Predicate { $0.flag || $0.age < 3 }),
            ("nickname == nil", #Predicate { $0.nickname == nil }),
            ("nickname ?? \"\" == \"\"", #Predicate { ($0.nickname ?? "") == "" }),
            ("small == nil || small ?? 0 > 2", #Predicate { $0.small == nil || ($0.small ?? 0) > 2 }),
            ("name starts with a", #Predicate { $0.name.starts(with: "a") }),
            ("names contains name", #Predicate { names.contains($0.name) }),
            ("tags contains é", #Predicate { $0.tags.contains("é") }),
            ("name.count > 1", #Predicate { $0.name.count > 1 }),
            ("name.isEmpty", #Predicate { $0.name.isEmpty }),
            ("born < day", #Predicate { $0.born < day }),
            ("amount >= half", #Predicate { $0.amount >= half }),
            ("code == codes[1]", #Predicate { $0.code == code }),
            ("rating <= 0.5", #Predicate { $0.rating <= 0.5 }),
            ("serial > Int64.max", #Predicate { $0.serial > 9_223_372_036_854_775_807 }),
            ("score == score (NaN)", #Predicate { $0.score == $0.score }),
            ("score > -0.0", #Predicate { $0.score > -0.0 }),
            ("true", #Predicate { _ in true }),
        ]
        for needle in Self.needles {
            list.append(("name contains \"\(needle)\"", #Predicate { $0.name.contains(needle) }))
        }
        return list
    }()

    /// Predicates left to Foundation: relationships, forced unwraps, computed properties.
    static let evaluatedOnModels: [(String, Predicate<Sighting>)] = [
        ("site?.name == é", #Predicate { $0.site?.name == "é" }),
        ("nickname! == a", #Predicate { $0.nickname != nil && $0.nickname! == "a" }),
        ("isAdult", #Predicate { $0.isAdult }),
        ("scratch == 0", #Predicate { $0.scratch == 0 }),
    ]

    /// Sort orders Folio compiles.
    static let compiledSorts: [(String, [SortDescriptor<Sighting>])] = [
        ("age, name reversed", [SortDescriptor(\.age), SortDescriptor(\.name, order: .reverse)]),
        ("name", [SortDescriptor(\.name)]),
        ("name lexical", [SortDescriptor(\.name, comparator: .lexical)]),
        ("nickname", [SortDescriptor(\.nickname)]),
        ("nickname lexical reversed", [SortDescriptor(\.nickname, comparator: .lexical, order: .reverse)]),
        ("small, born reversed", [SortDescriptor(\.small), SortDescriptor(\.born, order: .reverse)]),
        ("amount, code, rating", [SortDescriptor(\.amount), SortDescriptor(\.code), SortDescriptor(\.rating)]),
        ("serial reversed, age", [SortDescriptor(\.serial, order: .reverse), SortDescriptor(\.age)]),
    ]

    static func container() throws -> ModelContainer {
        try ModelContainer(for: Sighting.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
    }

    /// What Foundation gives on the models: every model in insertion order, filtered and sorted.
    static func expected(_ context: ModelContext, _ predicate: Predicate<Sighting>?, _ sort: [SortDescriptor<Sighting>]) throws
        -> [PersistentIdentifier]
    {
        var models = try context.fetch(FetchDescriptor<Sighting>())
        if let predicate { models = try models.filter { try predicate.evaluate($0) } }
        return models.sorted(using: sort).map(\.persistentModelID)
    }

    @Test(.tags(.long)) func `compiled predicates and sorts select and order exactly what Foundation does on the models`() async {
        await checkProperty(count: TestEffort.cases(40), input: Gen.uint64(in: 0...UInt64.max).array(of: 0...120)) { seeds in
            do {
                let context = ModelContext(try Self.container())
                Self.populate(context, seeds: seeds)
                for (name, predicate) in Self.compiled + Self.evaluatedOnModels {
                    let fetched = try context.fetchIdentifiers(FetchDescriptor(predicate: predicate))
                    #expect(fetched == (try Self.expected(context, predicate, [])), "\(name)")
                    #expect(try context.fetchCount(FetchDescriptor(predicate: predicate)) == fetched.count, "\(name)")
                }
                // The sorts leave out NaN and decomposed "e\u{301}": with them Swift's `<` is
                // no strict weak order ("e\u{301}" and "\u{e9}b" are unequal and neither is
                // less), so two correct sorts may differ.
                for model in try context.fetch(FetchDescriptor<Sighting>()) {
                    if model.score.isNaN { model.score = 0 }
                    model.name = model.name.replacingOccurrences(of: "e\u{301}", with: "é")
                    model.nickname = model.nickname?.replacingOccurrences(of: "e\u{301}", with: "é")
                }
                let predicate = Self.compiled[0].1
                for (name, sort) in Self.compiledSorts + [("site name", [SortDescriptor(\.site?.name)])] {
                    let all = try context.fetchIdentifiers(FetchDescriptor(sortBy: sort))
                    #expect(all == (try Self.expected(context, nil, sort)), "\(name)")
                    var windowed = FetchDescriptor(predicate: predicate, sortBy: sort)
                    windowed.fetchOffset = 2
                    windowed.fetchLimit = 5
                    let expected = try Self.expected(context, predicate, sort).dropFirst(2).prefix(5)
                    #expect(try context.fetchIdentifiers(windowed) == Array(expected), "\(name), filtered and windowed")
                }
            } catch {
                Issue.record("\(error)")
            }
        }
    }

    @Test func `a fetch returns the registered models, pending changes included`() throws {
        let context = ModelContext(try Self.container())
        Self.populate(context, seed: 7, count: 20)
        let held = try context.fetch(FetchDescriptor<Sighting>())
        held[0].age = 99
        let old = try context.fetch(FetchDescriptor<Sighting>(predicate: #Predicate { $0.age == 99 }, sortBy: [SortDescriptor(\.name)]))
        #expect(old.count == 1)
        #expect(old.first === held[0])
        context.delete(held[0])
        #expect(try context.fetchCount(FetchDescriptor<Sighting>(predicate: #Predicate { $0.age == 99 })) == 0)
    }
}
