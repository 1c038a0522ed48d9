import Foundation
import Folio
import Testing
import FolioTestSupport

/// A model whose every attribute has a default, to read back through the schema.
@Model
final class Gadget {
    enum Mood: String, Codable { case calm, busy }
    struct Spot: Codable, Equatable {
        var x: Int
        var y: Int
    }

    @Attribute(.unique) var name: String = "gadget"
    var serial: UUID = Gadget.serialDefault
    var count: Int = 3
    var small: Int16 = -7
    var big: UInt64 = 9
    var made: Date = Date(timeIntervalSinceReferenceDate: 1000)
    var bytes: Data = Data([1, 2])
    var ratio: Double = 0.5
    var tags: [String] = ["a", "b"]
    var sizes: Set<Int8> = [1, 2]
    var mood: Mood = .busy
    var spot: Spot = Spot(x: 1, y: 2)
    var nickname: String? = "G"
    var link: URL?

    static let serialDefault = UUID(uuid: (0xE6, 0x21, 0xE1, 0xF8, 0xC3, 0x6C, 0x49, 0x5A, 0x93, 0xFC, 0x0C, 0x24, 0x7A, 0x3E, 0x6E, 0x5F))

    init() {}
}

/// Reading a schema as SwiftData's reflection does: `defaultValue` as Swift
/// values, `uniquenessConstraints` with the `.unique` attributes in it.
@Suite struct SchemaReflectionTests {
    static func gadget() throws -> Schema.Entity {
        try #require(Schema([Gadget.self]).entity(named: "Gadget"))
    }

    @Test func `a model's defaults read back as the Swift values and types the class declares`() throws {
        let gadget = try Self.gadget()
        func value(_ name: String) -> Any? { gadget.attribute(named: name)?.defaultValue }
        #expect(value("name") as? String == "gadget")
        #expect(value("serial") as? UUID == Gadget.serialDefault)
        #expect(value("count") as? Int == 3)
        #expect(value("small") as? Int16 == -7)
        #expect(value("small") as? Int == nil)  // the declared width, not another
        #expect(value("big") as? UInt64 == 9)
        #expect(value("made") as? Date == Date(timeIntervalSinceReferenceDate: 1000))
        #expect(value("bytes") as? Data == Data([1, 2]))
        #expect(value("ratio") as? Double == 0.5)
        #expect(value("tags") as? [String] == ["a", "b"])
        #expect(value("sizes") as? Set<Int8> == [1, 2])
        #expect(value("mood") as? Gadget.Mood == .busy)
        #expect(value("spot") as? Gadget.Spot == Gadget.Spot(x: 1, y: 2))
        #expect(value("nickname") as? String == "G")
        #expect(value("link") == nil)
        // Folio's own form stays at hand.
        #expect(gadget.attribute(named: "serial")?.defaultStoredValue == .uuid(Gadget.serialDefault))
        #expect(gadget.attribute(named: "small")?.defaultStoredValue == .int(-7))
    }

    @Test func `a hand-made or stored schema's defaults read as each type's natural Swift value`() throws {
        let serial = UUID()
        let when = Date(timeIntervalSinceReferenceDate: 86_400)
        let cases: [(Schema.Attribute, (Any?) -> Bool)] = [
            (.init("a", .uuid, defaultValue: .uuid(serial)), { $0 as? UUID == serial }),
            (.init("b", .string, defaultValue: .string("x")), { $0 as? String == "x" }),
            (.init("c", .int, defaultValue: .int(5)), { $0 as? Int == 5 }),
            (.init("d", .int8, defaultValue: .int(-5)), { $0 as? Int8 == -5 }),
            (.init("e", .int32, defaultValue: .int(5)), { $0 as? Int32 == 5 }),
            (.init("f", .int64, defaultValue: .int(5)), { $0 as? Int64 == 5 }),
            (.init("g", .uint16, defaultValue: .uint(5)), { $0 as? UInt16 == 5 }),
            (.init("h", .uint, defaultValue: .uint(5)), { $0 as? UInt == 5 }),
            (.init("i", .date, defaultValue: .date(when)), { $0 as? Date == when }),
            (.init("j", .data, defaultValue: .data(Data([7]))), { $0 as? Data == Data([7]) }),
            (.init("k", .float, defaultValue: .float(1.5)), { $0 as? Float == 1.5 }),
            (.init("l", .decimal, defaultValue: .decimal(2)), { $0 as? Decimal == 2 }),
            (.init("m", .bool, defaultValue: .bool(true)), { $0 as? Bool == true }),
            (.init("n", .array(.string), defaultValue: .array([.string("p"), .string("q")])), { $0 as? [String] == ["p", "q"] }),
            (.init("o", .set(.int), defaultValue: .set([.int(1), .int(2)])), { $0 as? Set<Int> == [1, 2] }),
            (.init("p", .dictionary(.double), defaultValue: .dictionary(["r": .double(1)])), { $0 as? [String: Double] == ["r": 1] }),
            // Without its class a composite has no Swift type but Folio's; an any-value is a `Value` in a model too.
            (.init("q", .codable, defaultValue: .dictionary(["x": .int(1)])), { $0 as? Value == .dictionary(["x": .int(1)]) }),
            (.init("r", .any, defaultValue: .string("s")), { $0 as? Value == .string("s") }),
            (.init("s", .string, isOptional: true), { $0 == nil }),
            (.init("t", .string, isOptional: true, defaultValue: .null), { $0 == nil }),
        ]
        for (attribute, check) in cases {
            #expect(check(attribute.defaultValue), "\(attribute.name): \(attribute.type) read \(String(describing: attribute.defaultValue))")
        }
    }

    @Test func `uniquenessConstraints lists a unique attribute as a group of one, and the two spellings are one schema`() throws {
        #expect(try Self.gadget().uniquenessConstraints == [["name"]])
        let byOption = Schema.Entity("Tag", attributes: [.init("name", .string, options: [.unique]), .init("note", .string)])
        let byConstraint = Schema.Entity(
            "Tag", attributes: [.init("name", .string), .init("note", .string)],
            uniquenessConstraints: [["name"]])
        #expect(byOption == byConstraint)
        #expect(byConstraint.attribute(named: "name")?.isUnique == true)
        #expect(byOption.uniquenessConstraints == [["name"]])

        // Appending a constraint keeps the option; assigning replaces both.
        var entity = byOption
        entity.uniquenessConstraints.append(["name", "note"])
        #expect(entity.uniquenessConstraints == [["name"], ["name", "note"]])
        entity.uniquenessConstraints = [["note"]]
        #expect(entity.attribute(named: "name")?.isUnique == false)
        #expect(entity.attribute(named: "note")?.isUnique == true)
    }

    @Test func `a package saved from the classes reopens with a schema equal to the classes', and nothing migrates`() throws {
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("Gadgets.folio")
        do {
            let context = ModelContext(try ModelContainer(for: Gadget.self, configurations: ModelConfiguration(url: url)))
            context.insert(Gadget())
            try context.save()
        }
        let before = try packageDocument(url)
        #expect(!String(decoding: before, as: UTF8.self).contains("<unique"))
        // The schema the package stores, read with no classes, is the classes' schema.
        #expect(try ModelContainer(contentsOf: url, allowsSave: false).schema == Schema([Gadget.self]))
        let container = try ModelContainer(for: Gadget.self, configurations: ModelConfiguration(url: url))
        #expect(container.schema == Schema([Gadget.self]))
        let context = ModelContext(container)
        #expect(try context.fetch(FetchDescriptor<Gadget>()).first?.mood == .busy)
        try context.save()
        #expect(try packageDocument(url) == before)
    }

    @Test func `SwiftData's other attribute options are recorded in the package and read back, so its schema equals the classes'`() throws {
        let attributes: [Schema.Attribute] = Schema.Attribute.Option.allCases.map { option in
            // `.codable` stores a composite value: its attribute's type says so.
            Schema.Attribute(
                "field\(option.rawValue.prefix(1).uppercased() + option.rawValue.dropFirst())",
                option == .codable ? .codable : .string, isOptional: true, options: [option])
        }
        let schema = try Schema([Schema.Entity("Article", attributes: attributes)])
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("Options.folio")
        do {
            let context = ModelContext(try ModelContainer(for: schema, configurations: ModelConfiguration(url: url)))
            _ = try context.insert("Article", ["fieldEphemeral": .string("kept in memory"), "fieldSpotlight": .string("saved")])
            try context.save()
        }
        let document = try packageText(url)
        for option in ["spotlight", "allows-cloud-encryption", "preserve-value-on-deletion", "ephemeral", "codable"] {
            #expect(document.contains("\(option)=\"true\""), "\(option)")
        }
        #expect(!document.contains("kept in memory"), "an ephemeral value is not saved")
        let reopened = try ModelContainer(contentsOf: url, allowsSave: false)
        #expect(reopened.schema == schema)
        #expect(reopened.schema.entity(named: "Article")?.attribute(named: "fieldEphemeral")?.isTransient == true)
    }
}
