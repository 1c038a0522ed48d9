import Foundation
import Testing
import Folio
@testable import FolioCore
import FolioTestSupport

/// The zoo: categories cascade to animals; animals nullify their category.
func zooSchema() throws -> Schema {
    try Schema([
        .init(
            "AnimalCategory", attributes: [.init("name", .string, options: [.unique])],
            relationships: [.init("animals", to: "Animal", toMany: true, inverse: "category", deleteRule: .cascade)]),
        .init(
            "Animal",
            attributes: [
                .init("name", .string), .init("age", .int), .init("weight", .double),
                .init("born", .date), .init("notes", .string, isOptional: true),
            ],
            relationships: [.init("category", to: "AnimalCategory", inverse: "animals")]),
    ])
}

/// One attribute of every type, optional and not, plus every relationship shape.
func kitchenSinkSchema() throws -> Schema {
    let scalars: [ValueType] = [
        .string, .bool, .int, .int8, .int16, .int32, .int64, .uint, .uint8, .uint16, .uint32,
        .uint64, .double, .float, .date, .data, .uuid, .url, .decimal,
    ]
    var attributes: [Schema.Attribute] = []
    for type in scalars {
        attributes.append(.init("v_\(type)", type))
        attributes.append(.init("o_\(type)", type, isOptional: true))
    }
    attributes += [
        .init("tags", .set(.string)), .init("scores", .array(.double)), .init("dates", .array(.date)),
        .init("counts", .dictionary(.int)), .init("nested", .dictionary(.array(.string)), isOptional: true),
        .init("composite", .codable), .init("anything", .any),
        .init("photo", .data, isOptional: true, options: [.externalStorage]),
        .init("scratch", .string, options: [.transient]),
        .init("withDefault", .string, defaultValue: .string("tab\there")),
    ]
    return try Schema([
        .init(
            "Thing", attributes: attributes,
            relationships: [
                .init("owner", to: "Person", inverse: "things"),
                .init("friends", to: "Thing", toMany: true),  // no inverse: a hidden one is kept in memory
                .init("twin", to: "Thing", inverse: "twinOf"),
                .init("twinOf", to: "Thing", inverse: "twin"),
            ]),
        .init(
            "Person", attributes: [.init("name", .string)],
            relationships: [
                .init("things", to: "Thing", toMany: true, inverse: "owner", deleteRule: .cascade),
                .init("clubs", to: "Club", toMany: true, inverse: "members"),
            ]),
        .init(
            "Club", attributes: [.init("title", .string)],
            relationships: [
                .init("members", to: "Person", toMany: true, inverse: "clubs", deleteRule: .deny)
            ]),
    ])
}

/// Edge values of each scalar type: extremes, signed zeros, infinities, NaN
/// payloads, and strings with every character class XML finds awkward.
enum EdgeValues {
    static let strings: [String] = [
        "", " ", "  leading and trailing  ", "plain", "a&b<c>d\"e'f", "&amp; literally", "&#38;",
        "line\nbreak\r\nand\ttab", "\u{0}", "nul\u{0}inside", "\u{1}\u{2}\u{8}\u{B}\u{C}\u{1F}", "\u{FFFE}\u{FFFF}",
        "\u{7F}\u{80}\u{9F}", "e\u{301} vs \u{E9}", "emoji 🦊👩‍👩‍👧", "𝄞 astral", "\u{10FFFF}", "]]>", "\\u0000 backslash",
    ]
    static let doubles: [Double] = [
        0, -0.0, 1, -1, 0.1, 1.0 / 3.0, .pi, 1e-300, .leastNonzeroMagnitude, .leastNormalMagnitude, .greatestFiniteMagnitude,
        -.greatestFiniteMagnitude, .infinity, -.infinity, .nan, Double(bitPattern: 0x7FF0_0000_0000_0001),
        Double(bitPattern: 0xFFF8_0000_0000_0000), 123_456_789.123_456_78, Double(1 << 53) + 2, 1e22, 1e23,
    ]
    static let floats: [Float] = [
        0, -0.0, 1.5, .pi, .leastNonzeroMagnitude, .greatestFiniteMagnitude, .infinity,
        -.infinity, .nan, Float(bitPattern: 0x7FC0_0001), 0.1,
    ]
    static let dates: [Date] = [
        Date(timeIntervalSinceReferenceDate: 0), Date(timeIntervalSinceReferenceDate: -0.0),
        Date(timeIntervalSinceReferenceDate: 0.1), Date(timeIntervalSinceReferenceDate: -0.1),
        Date(timeIntervalSinceReferenceDate: -1e-20), Date(timeIntervalSinceReferenceDate: 1e-9),
        Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: -86_400 * 365.25 * 1000),
        Date(timeIntervalSinceReferenceDate: 773_000_000.123_456_789), .distantPast, .distantFuture,
        Date(timeIntervalSinceReferenceDate: 1e15), Date(timeIntervalSinceReferenceDate: .infinity),
        Date(timeIntervalSinceReferenceDate: .nan), Date(timeIntervalSinceReferenceDate: 951_782_400),  // 2031 leap day
    ]
}

/// Packages of format 1 (one `document.xml`), as Folio wrote the sample
/// documents before format 2: what an older package looks like on disk.
enum Format1Packages {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Format1Packages")
}

/// A bare graph whose inserts are numbered 1, 2, 3 … in lane 0, as packages of
/// formats 1 and 2 were numbered (new writers draw a random lane instead): for
/// tests of what such packages hold — parts cut by identifier ranges, blobs
/// named by identifier — which name objects by those numbers.
func legacyNumberedGraph(_ schema: Schema) -> ObjectGraph {
    let graph = ObjectGraph(schema: schema)
    graph.allocator = .format2Counter
    return graph
}

/// Makes the saves of a suite's or test's packages write format 2, the layout
/// packages saved before format 3 hold (they still open, and migrate): for
/// tests of format 2's own files.
struct Format2Trait: SuiteTrait, TestTrait, TestScoping {
    var isRecursive: Bool { true }

    func provideScope(
        for test: Test, testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        try await DocumentPackage.$writesFormat2OnThisTask.withValue(true) { try await function() }
    }
}

extension Trait where Self == Format2Trait {
    /// Saves write format 2 (``Format2Trait``).
    static var format2: Self { Self() }
}
