import Folio
import Foundation
import PropertyBased
import Testing
import FolioTestSupport

/// The scalars the old JSON detour lost or rounded, inside a Codable struct so they
/// are stored as a composite value rather than as attributes of their own.
struct CVScalars: Codable, Sendable {
    var unsigned: UInt64 = 0
    var small: UInt8 = 0
    var signed: Int64 = 0
    var nan: Double = 0
    var infinity: Double = 0
    var negativeZero: Double = 0
    var single: Float = 0
    var amount: Decimal = 0
    var when: Date = Date(timeIntervalSinceReferenceDate: 0)
    var bytes: Data = Data()
    var link: URL = URL(fileURLWithPath: "/")
    var id: UUID = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
    var maybe: String?
    var maybeNot: Int?
    var any: Value = .null  // a type with a hand-written Codable conformance
}

/// Enums with associated values encode through nested keyed containers.
indirect enum CVShape: Codable, Equatable, Sendable {
    case circle(radius: Double)
    case polygon(sides: Int, label: String?)
    case colored(CVColor, CVShape)
    case group([CVShape])
    case empty
}

enum CVColor: Codable, Equatable, Sendable {
    case plain
    case rgb(r: UInt8, g: UInt8, b: UInt8)
}

/// A Codable class hierarchy: the subclass writes its superclass under the key "super".
class CVBase: Codable, @unchecked Sendable {
    var serial: Int
    init(serial: Int) { self.serial = serial }
}

final class CVDerived: CVBase, @unchecked Sendable {
    var note: String
    enum CodingKeys: String, CodingKey { case note }

    init(serial: Int, note: String) {
        self.note = note
        super.init(serial: serial)
    }

    required init(from decoder: any Decoder) throws {
        note = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .note)
        try super.init(from: try decoder.container(keyedBy: CodingKeys.self).superDecoder())
    }

    override func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(note, forKey: .note)
        try super.encode(to: container.superEncoder())
    }
}

@Model
final class CVRecord {
    var scalars: CVScalars = CVScalars()
    var byNumber: [Int: String] = [:]
    var shape: CVShape = CVShape.empty
    var shapes: [CVShape] = []
    var maybeShape: CVShape?
    var noShape: CVShape?
    var derived: CVDerived = CVDerived(serial: 0, note: "")
    var tree: CVTree = CVTree.flag(nil)
}

/// A random Codable tree, for the property test: every container kind, special type and number form.
indirect enum CVTree: Codable, Equatable, Sendable {
    case int(Int64)
    case uint(UInt64)
    case double(CVBits)
    case text(String)
    case flag(Bool?)
    case amount(Decimal)
    case stamp(CVBits)
    case list([CVTree])
    case map([String: CVTree])
    case numbered([Int: CVTree])
}

/// A Double compared bit for bit, through a single-value container.
struct CVBits: Codable, Equatable, Sendable {
    var value: Double
    init(_ value: Double) { self.value = value }
    init(from decoder: any Decoder) throws { value = try decoder.singleValueContainer().decode(Double.self) }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
    static func == (lhs: CVBits, rhs: CVBits) -> Bool { lhs.value.bitPattern == rhs.value.bitPattern }
}

/// The same entity ("CVDoc") before and after its Codable attribute's type gained fields.
enum CVv1 {
    struct Info: Codable, Sendable {
        var name: String
        var count: Int
    }

    @Model final class CVDoc {
        var info: Info = Info(name: "", count: 0)
    }
}

enum CVv2 {
    struct Info: Codable, Sendable {
        struct Extra: Codable, Sendable { var level: Int }
        var name: String
        var count: Int
        var rating: Double
        var tags: [String]
        var extra: Extra
        var id: UUID
        var maybe: Int?
    }

    @Model final class CVDoc {
        var info: Info = Info(
            name: "", count: 0, rating: 0, tags: [], extra: .init(level: 0),
            id: UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)), maybe: nil)
    }
}

@Suite struct CodableValueTests {
    static let when = Date(timeIntervalSinceReferenceDate: 123_456_789.123_456_7)
    static let id = UUID()
    static let allShapes: [CVShape] = [
        .circle(radius: 1.5), .polygon(sides: 6, label: nil), .polygon(sides: 3, label: "tri"),
        .colored(.rgb(r: 255, g: 0, b: 7), .group([.empty, .colored(.plain, .circle(radius: -0.0))])),
    ]

    static func fill(_ record: CVRecord) {
        record.scalars = CVScalars(
            unsigned: .max, small: 200, signed: .min, nan: .nan, infinity: .infinity, negativeZero: -0.0, single: .pi,
            amount: Decimal(string: "12345678901234567890.123") ?? 0, when: when, bytes: Data([0, 1, 254, 255]),
            link: URL(string: "https://example.com/a%20b?q=1&r=%C3%A9#frag") ?? URL(fileURLWithPath: "/"), id: id,
            maybe: "here", maybeNot: nil, any: .array([.date(when), .uint(.max), .decimal(Decimal(string: "0.1") ?? 0)]))
        record.byNumber = [-1: "minus one", 0: "zero", 42: "answer"]
        record.shape = allShapes[3]
        record.shapes = allShapes
        record.maybeShape = .group([])
        record.noShape = .empty
        record.noShape = nil
        record.derived = CVDerived(serial: 7, note: "subclass")
    }

    static func expectFilled(_ record: CVRecord) {
        let scalars = record.scalars
        #expect(scalars.unsigned == .max)
        #expect(scalars.small == 200)
        #expect(scalars.signed == .min)
        #expect(scalars.nan.bitPattern == Double.nan.bitPattern)
        #expect(scalars.infinity == .infinity)
        #expect(scalars.negativeZero.bitPattern == (-0.0 as Double).bitPattern)
        #expect(scalars.single.bitPattern == Float.pi.bitPattern)
        #expect(scalars.amount.description == "12345678901234567890.123")
        #expect(scalars.when.timeIntervalSinceReferenceDate.bitPattern == when.timeIntervalSinceReferenceDate.bitPattern)
        #expect(scalars.bytes == Data([0, 1, 254, 255]))
        #expect(scalars.link.absoluteString == "https://example.com/a%20b?q=1&r=%C3%A9#frag")
        #expect(scalars.id == id)
        #expect(scalars.maybe == "here")
        #expect(scalars.maybeNot == nil)
        #expect(scalars.any == .array([.date(when), .uint(.max), .decimal(Decimal(string: "0.1") ?? 0)]))
        #expect(record.byNumber == [-1: "minus one", 0: "zero", 42: "answer"])
        #expect(record.shape == allShapes[3])
        #expect(record.shapes == allShapes)
        #expect(record.maybeShape == .group([]))
        #expect(record.noShape == nil)
        #expect(record.derived.serial == 7)
        #expect(record.derived.note == "subclass")
    }

    @Test func `codable values keep exact numbers, special types, enums and optionals through save and reopen`() throws {
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("Records.folio")
        let context = ModelContext(try ModelContainer(for: CVRecord.self, configurations: ModelConfiguration(url: url)))
        let record = CVRecord()
        Self.fill(record)
        context.insert(record)
        try context.save()
        Self.expectFilled(record)

        let reopened = ModelContext(try ModelContainer(for: CVRecord.self, configurations: ModelConfiguration(url: url, allowsSave: false)))
        let again = try #require(try reopened.fetch(FetchDescriptor<CVRecord>()).first)
        Self.expectFilled(again)
        #expect(again.maybeShape != nil)
    }

    @Test func `a model fetched in another context reads the same codable values`() throws {
        let container = try ModelContainer(for: CVRecord.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let writer = ModelContext(container)
        let record = CVRecord()
        Self.fill(record)
        writer.insert(record)
        try writer.save()
        let reader = ModelContext(container)
        let fetched = try #require(try reader.fetch(FetchDescriptor<CVRecord>()).first)
        #expect(fetched !== record)
        Self.expectFilled(fetched)
    }

    @Test func `the stored form is plain composite nodes: big unsigned as uint, small as int, decimal and data as text`() throws {
        let context = ModelContext(try ModelContainer(for: CVRecord.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true)))
        let record = CVRecord()
        Self.fill(record)
        context.insert(record)
        let id = record.persistentModelID
        let stored = try context.value("scalars", of: id)
        #expect(stored.conforms(to: .codable))
        guard case .dictionary(let fields) = stored else { Issue.record("not a dictionary: \(stored)"); return }
        #expect(fields["unsigned"] == .uint(.max))
        #expect(fields["small"] == .int(200))
        #expect(fields["signed"] == .int(.min))
        #expect(fields["single"] == .double(Double(Float.pi)))
        #expect(fields["amount"] == .string("12345678901234567890.123"))
        #expect(fields["when"] == .double(Self.when.timeIntervalSinceReferenceDate))
        #expect(fields["bytes"] == .string(Data([0, 1, 254, 255]).base64EncodedString()))
        #expect(fields["id"] == .string(Self.id.uuidString))
        #expect(fields["maybeNot"] == nil || fields["maybeNot"] == .null)
        #expect(try context.value("noShape", of: id) == .null)
        for name in ["byNumber", "shape", "shapes", "maybeShape", "derived"] {
            #expect(try context.value(name, of: id).conforms(to: .codable), "\(name)")
        }
        #expect(try context.value("byNumber", of: id) == .dictionary(["-1": .string("minus one"), "0": .string("zero"), "42": .string("answer")]))
        #expect(try context.value("derived", of: id) == .dictionary(["note": .string("subclass"), "super": .dictionary(["serial": .int(7)])]))
    }

    @Test func `values in the form the old JSON detour wrote still read back`() throws {
        let context = ModelContext(try ModelContainer(for: CVRecord.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true)))
        let reports = ReportLog()
        context.autosaveErrorHandler = { reports.add("\($0)") }
        let record = CVRecord()
        context.insert(record)
        // JSONEncoder wrote Decimals and Dates as JSON numbers, and the detour read back
        // every integral number as an int.
        try context.setValue(
            .dictionary([
                "unsigned": .int(7), "small": .double(3), "signed": .int(-5), "nan": .int(0), "infinity": .double(1e300),
                "negativeZero": .int(0), "single": .double(0.5), "amount": .double(12.5), "when": .int(5),
                "bytes": .string("AAH+/w=="), "link": .string("https://example.com/?a=b"), "id": .string(Self.id.uuidString),
            ]), for: "scalars", of: record.persistentModelID)
        let scalars = record.scalars
        #expect(scalars.unsigned == 7)
        #expect(scalars.small == 3)
        #expect(scalars.signed == -5)
        #expect(scalars.infinity == 1e300)
        #expect(scalars.single == 0.5)
        #expect(scalars.amount == Decimal(string: "12.5"))
        #expect(scalars.when == Date(timeIntervalSinceReferenceDate: 5))
        #expect(scalars.bytes == Data([0, 1, 254, 255]))
        #expect(scalars.link.absoluteString == "https://example.com/?a=b")
        #expect(scalars.id == Self.id)
        #expect(scalars.maybe == nil)
        // `any` came after the detour: its absence is reported, and read as its default.
        #expect(reports.count == 1)
        #expect(scalars.any == .null)
    }

    @Test func `a stored value that no longer decodes is reported and read leniently, not a crash`() throws {
        let context = ModelContext(try ModelContainer(for: CVRecord.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true)))
        let reports = ReportLog()
        context.autosaveErrorHandler = { reports.add("\($0)") }
        let record = CVRecord()
        context.insert(record)
        try context.setValue(
            .dictionary(["unsigned": .string("many"), "small": .int(300), "amount": .string("12abc")]),
            for: "scalars", of: record.persistentModelID)
        let scalars = record.scalars
        #expect(scalars.unsigned == 0)
        #expect(scalars.small == 0)
        #expect(scalars.amount == 0)
        #expect(scalars.maybe == nil)
        _ = record.scalars
        #expect(reports.count == 1)
    }

    @Test func `a dynamic edit a Codable property could not read back is refused, so reading never crashes`() throws {
        let context = ModelContext(try ModelContainer(for: CVRecord.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true)))
        let record = CVRecord()
        context.insert(record)
        #expect(throws: ModelError.self) {
            try context.setValue(.string("square"), for: "shape", of: record.persistentModelID)
        }
        #expect(throws: ModelError.self) {
            try context.insert("CVRecord", ["shape": .dictionary(["hexagon": .dictionary([:])])])
        }
        #expect(record.shape == .empty)
        try context.setValue(.dictionary(["circle": .dictionary(["radius": .double(2)])]), for: "shape", of: record.persistentModelID)
        #expect(record.shape == .circle(radius: 2))
    }

    @Test func `opening with the model classes a package holding a value they cannot read throws, naming the object`() throws {
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("Records.folio")
        var recordID: UInt64 = 0
        do {
            let context = ModelContext(try ModelContainer(for: CVRecord.self, configurations: ModelConfiguration(url: url)))
            context.insert(CVRecord())
            try context.save()
        }
        do {
            // A generic tool, with no model classes, can write anything the schema allows.
            let context = ModelContext(try ModelContainer(contentsOf: url))
            let id = try #require(try context.fetchIdentifiers(DynamicFetchDescriptor(entity: "CVRecord")).first)
            recordID = id.id
            try context.setValue(.string("square"), for: "shape", of: id)
            try context.save()
        }
        #expect {
            _ = try ModelContainer(for: CVRecord.self, configurations: ModelConfiguration(url: url))
        } throws: { error in
            guard case ModelError.graph(.typeMismatch(let entity, let attribute, _, let value)) = error else { return false }
            return entity == "CVRecord" && attribute == "shape" && value.contains("object \(recordID)")
        }
    }

    @Test func `a codable struct that gained fields reads its old fields back with the new ones zero`() throws {
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("Docs.folio")
        do {
            let context = ModelContext(try ModelContainer(for: CVv1.CVDoc.self, configurations: ModelConfiguration(url: url)))
            let doc = CVv1.CVDoc()
            doc.info = CVv1.Info(name: "first", count: 3)
            context.insert(doc)
            try context.save()
        }
        let context = ModelContext(try ModelContainer(for: CVv2.CVDoc.self, configurations: ModelConfiguration(url: url, allowsSave: false)))
        context.autosaveErrorHandler = { _ in }
        let doc = try #require(try context.fetch(FetchDescriptor<CVv2.CVDoc>()).first)
        #expect(doc.info.name == "first")
        #expect(doc.info.count == 3)
        #expect(doc.info.rating == 0)
        #expect(doc.info.tags == [])
        #expect(doc.info.extra.level == 0)
        #expect(doc.info.id == UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
        #expect(doc.info.maybe == nil)
    }

    // MARK: Random trees

    static func randomText(_ rng: inout SeededGenerator) -> String {
        let pieces = ["", "a", "é", "e\u{301}", "\u{0}", "\u{7}", "\"", "<&>", "'", "\\", " ", "\n", "🦊", "super", "Index 0", "\u{FFFF}"]
        return (0..<Int.random(in: 0...3, using: &rng)).map { _ in pieces.randomElement(using: &rng) ?? "" }.joined()
    }

    static func randomDouble(_ rng: inout SeededGenerator) -> Double {
        let specials: [Double] = [0, -0.0, .nan, -.nan, .infinity, -.infinity, .ulpOfOne, .leastNonzeroMagnitude, .greatestFiniteMagnitude, 1, 2.5]
        return Bool.random(using: &rng) ? specials.randomElement(using: &rng) ?? 0 : Double(bitPattern: rng.next())
    }

    static func randomTree(_ rng: inout SeededGenerator, depth: Int) -> CVTree {
        switch Int.random(in: 0..<(depth > 0 ? 13 : 7), using: &rng) {  // containers half the time while depth lasts
        case 0: return .int(Bool.random(using: &rng) ? Int64.random(in: -3...3, using: &rng) : Int64(bitPattern: rng.next()))
        case 1: return .uint(Bool.random(using: &rng) ? UInt64.max - UInt64.random(in: 0...2, using: &rng) : rng.next())
        case 2: return .double(CVBits(randomDouble(&rng)))
        case 3: return .text(randomText(&rng))
        case 4: return .flag([nil, true, false].randomElement(using: &rng) ?? nil)
        case 5:
            let text = "\(Int64.random(in: -999_999_999...999_999_999, using: &rng)).\(UInt32.random(in: 0...999_999, using: &rng))"
            return .amount(Decimal(string: text) ?? 0)
        case 6: return .stamp(CVBits(randomDouble(&rng)))
        case 7, 8: return .list((0..<Int.random(in: 0...3, using: &rng)).map { _ in randomTree(&rng, depth: depth - 1) })
        case 9, 10:
            var map: [String: CVTree] = [:]
            for _ in 0..<Int.random(in: 0...3, using: &rng) { map[randomText(&rng)] = randomTree(&rng, depth: depth - 1) }
            return .map(map)
        default:
            var map: [Int: CVTree] = [:]
            for _ in 0..<Int.random(in: 0...3, using: &rng) { map[Int.random(in: -5...5, using: &rng)] = randomTree(&rng, depth: depth - 1) }
            return .numbered(map)
        }
    }

    @Test(.tags(.long)) func `random nested codable trees round trip exactly through a saved document`() async {
        // One seed per tree: a failure shrinks to the fewest trees that still fail, and prints their seeds.
        await checkProperty(count: TestEffort.cases(60), input: Gen.uint64(in: 0...UInt64.max).array(of: 1...6)) { seeds in
            let trees = seeds.map { seed in
                var rng = SeededGenerator(seed: seed)
                return Self.randomTree(&rng, depth: 4)
            }
            do {
                let folder = try TemporaryFolder()
                let url = folder.url.appendingPathComponent("Trees.folio")
                let context = ModelContext(try ModelContainer(for: CVRecord.self, configurations: ModelConfiguration(url: url)))
                for tree in trees {
                    let record = CVRecord()
                    record.tree = tree
                    record.scalars.amount = Decimal(trees.count)
                    context.insert(record)
                    #expect(record.tree == tree)
                }
                try context.save()
                let reopened = ModelContext(try ModelContainer(for: CVRecord.self, configurations: ModelConfiguration(url: url, allowsSave: false)))
                let read = try reopened.fetch(FetchDescriptor<CVRecord>()).map(\.tree)
                #expect(read.count == trees.count)
                for tree in trees { #expect(read.contains(tree), "\(tree)") }
            } catch {
                Issue.record("\(error)")
            }
        }
    }
}

/// Collects what a context reports, from its error handler.
final class ReportLog: @unchecked Sendable {
    private let lock = NSLock()
    private var reports: [String] = []
    var count: Int { lock.withLock { reports.count } }
    func add(_ report: String) { lock.withLock { reports.append(report) } }
}
