import Foundation
import PropertyBased
import Testing
import Folio
@testable import FolioCore
import FolioTestSupport

/// ``DocumentLimits``: every document Folio writes, Folio reopens. A value the
/// loader would refuse is refused when it is set; the loader enforces the same
/// table on what it reads.
@Suite struct DocumentLimitsTests {
    /// Small limits, so random values reach every one of them quickly.
    static let small = DocumentLimits(
        maximumValueBytes: 96, maximumNesting: 4, maximumBlobBytes: 16, maximumObjects: 12,
        maximumAttributesPerElement: 10_000, maximumNameBytes: 1_024, maximumMarkupBytes: 1 << 16)

    static let pool: [Unicode.Scalar] = [
        "a", "Z", " ", "&", "<", ">", "\"", "'", "\n", "\t", "\r", "\u{0}", "\u{1F}",
        "\u{7F}", "é", "\u{301}", "\u{FFFE}", "\u{FFFF}", "🦊", "\\", "[", "{", ":",
    ]

    /// A random string whose written size is near `target`: scalars are added
    /// until it reaches `target` plus a random overshoot of 0–3 bytes.
    static func string(near target: Int, as type: ValueType = .string, _ rng: inout SeededGenerator) -> String {
        var scalars = String.UnicodeScalarView()
        let plain = Bool.random(using: &rng)
        let stop = target + Int.random(in: -2...3, using: &rng)
        while DocumentLimits.writtenSize(of: .string(String(scalars)), as: type) < stop {
            scalars.append(plain ? "x" : pool.randomElement(using: &rng)!)
        }
        return String(scalars)
    }

    /// A random composite value of about `target` written bytes, nested up to `depth`.
    static func composite(near target: Int, depth: Int, _ rng: inout SeededGenerator) -> Value {
        var elements: [Value] = []
        while DocumentLimits.writtenSize(of: .array(elements), as: .codable) < target {
            switch Int.random(in: 0..<5, using: &rng) {
            case 0 where depth > 1: elements.append(composite(near: 8, depth: depth - 1, &rng))
            case 1: elements.append(.string(String(pool.randomElement(using: &rng)!)))
            case 2: elements.append(.double(Double(Int.random(in: -99...99, using: &rng)) / 4))
            default: elements.append(.int(Int64.random(in: -999...999, using: &rng)))
            }
        }
        return .array(elements)
    }

    /// A value for an attribute, sized at or just around the small limits.
    static func value(for attribute: Schema.Attribute, _ rng: inout SeededGenerator) -> Value {
        let target = small.maximumValueBytes + Int.random(in: -4...2, using: &rng)
        switch attribute.type {
        case .string: return .string(string(near: target, &rng))
        case .any: return .string(string(near: target - 7, &rng))
        case .data where attribute.isExternal:
            return .data(Data(repeating: 7, count: small.maximumBlobBytes + Int.random(in: -1...1, using: &rng)))
        case .data: return .data(Data(repeating: 7, count: target / 4 * 3))
        case .array(.string): return .array((0..<Int.random(in: 1...4, using: &rng)).map { _ in .string(string(near: target / 3, &rng)) })
        case .dictionary(.int):
            var entries: [String: Value] = [:]
            for index in 0..<Int.random(in: 1...12, using: &rng) { entries["k\(index)"] = .int(Int64(index) * 1_000_003) }
            return .dictionary(entries)
        case .codable: return composite(near: target, depth: small.maximumNesting + Int.random(in: -1...1, using: &rng), &rng)
        default: return RandomGraphs.value(for: attribute, &rng)
        }
    }

    static let schema: Schema = {
        let attributes = [
            Schema.Attribute("text", .string), Schema.Attribute("anything", .any),
            Schema.Attribute("bytes", .data, isOptional: true),
            Schema.Attribute("photo", .data, isOptional: true, options: [.externalStorage]),
            Schema.Attribute("words", .array(.string)), Schema.Attribute("counts", .dictionary(.int)),
            Schema.Attribute("tree", .codable), Schema.Attribute("when", .date, isOptional: true),
        ]
        return (try? Schema([Schema.Entity("Note", attributes: attributes)])) ?? (try! Schema([Schema.Entity]()))
    }()

    @Test("random values at and just over every limit either save and reopen equal, or are refused at the edit", .tags(.long))
    func valuesAtTheLimitsRoundTripOrAreRefused() async throws {
        // One seed per edit: a failure shrinks to the fewest edits that still fail.
        await checkProperty(count: TestEffort.cases(100), input: Gen.uint64(in: 0...UInt64.max).array(of: 1...20)) { edits in
            let graph = ObjectGraph(schema: Self.schema)
            graph.limits = Self.small
            let attributes = Self.schema.entities[0].attributes
            var refusals = 0
            for seed in edits {
                var rng = SeededGenerator(seed: seed)
                let attribute = attributes.randomElement(using: &rng)!
                let value = Self.value(for: attribute, &rng)
                do throws(GraphError) {
                    let existing = try graph.identifiers(of: "Note")
                    if let target = existing.randomElement(using: &rng), Bool.random(using: &rng) {
                        try graph.setValue(value, for: attribute.name, of: target)
                    } else {
                        try graph.insert("Note", [attribute.name: value])
                    }
                } catch {
                    guard case .limitExceeded(let entity, let name, let limit, let size, let maximum) = error else {
                        Issue.record("edit seed \(seed): \(error)")
                        continue
                    }
                    refusals += 1
                    #expect(entity == "Note" && size > maximum && maximum == Self.small.maximum(limit))
                    if limit != .objects { #expect(name == attribute.name) }
                }
            }
            let package = DocumentPackage(url: temporaryPackageURL())
            defer { try? FileManager.default.removeItem(at: package.url.deletingLastPathComponent()) }
            try package.write(graph)
            let back = try package.read(limits: Self.small)
            #expect(back.snapshot() == graph.snapshot(), "\(refusals) refused")
        }
    }

    @Test("the size counted at the edit is exactly the bytes the writer puts between the quotes, for any string")
    func writtenSizeOfAStringIsExact() async throws {
        let schema = try Schema([
            Schema.Entity(
                "T",
                attributes: [
                    Schema.Attribute("s", .string),
                    Schema.Attribute("a", .any, isOptional: true),
                ])
        ])
        // Scalars drawn from the pool by index: a failure shrinks to the fewest, each toward the first.
        await checkProperty(count: 200, input: Gen.int(in: 0...(Self.pool.count - 1)).array(of: 0...40)) { picks in
            var scalars = String.UnicodeScalarView()
            for pick in picks { scalars.append(Self.pool[pick]) }
            let text = String(scalars)
            let graph = ObjectGraph(schema: schema)
            try graph.insert("T", ["s": .string(text), "a": .string(text)])
            var buffer = ByteBuffer()
            var writer = DocumentWriter(graph: graph)
            _ = try writer.layOutParts(previous: nil, changed: []) { (_, bytes: [UInt8]) throws(PackageError) in
                buffer.append(bytes: bytes)
            }
            let line = String(decoding: buffer.bytes, as: UTF8.self).split(separator: "\n").first { $0.contains("<T ") } ?? ""
            // The values are the two quoted runs after ` s=`/` s.esc=` and ` a=`/` a.esc=`.
            let written = Self.quotedValues(in: Array(line.utf8))
            #expect(written.count == 3)  // f.id, s, a
            guard written.count == 3 else { return }
            #expect(written[1] == DocumentLimits.writtenSize(of: .string(text), as: .string), "\(line)")
            #expect(written[2] == DocumentLimits.writtenSize(of: .string(text), as: .any), "\(line)")
        }
    }

    /// The lengths of the quoted values of one element, as the loader's scanner measures them.
    static func quotedValues(in bytes: [UInt8]) -> [Int] {
        var lengths: [Int] = []
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                var end = index + 1
                while end < bytes.count, bytes[end] != byte { end += 1 }
                lengths.append(end - index - 1)
                index = end + 1
            } else {
                index += 1
            }
        }
        return lengths
    }

    @Test("a value of exactly the limit loads; one byte more is refused, naming the element's line and column")
    func theLoaderEnforcesTheValueLimit() throws {
        let limit = Self.small.maximumValueBytes
        for extra in [0, 1] {
            let name = String(repeating: "n", count: limit + extra)
            let document = LoaderFixtures.document(objects: "    <AnimalCategory f.id=\"1\" name=\"\(name)\"/>")
            try LoaderFixtures.withPackage(document) { package in
                do throws(PackageError) {
                    let graph = try package.read(limits: Self.small)
                    #expect(extra == 0)
                    #expect(graph.count == 1)
                } catch {
                    #expect(extra == 1)
                    guard case .limitExceeded(let location, .valueBytes, let size, limit) = error else {
                        Issue.record("expected .limitExceeded, got \(error)")
                        return
                    }
                    #expect(size == limit + 1)
                    LoaderFixtures.expectLocation(location, isIn: package, line: LoaderFixtures.line(of: "<AnimalCategory f.id", in: document))
                    #expect(location.column == 5)
                }
            }
        }
    }

    @Test("a string of 10,000,001 bytes saves and reopens (libxml2's 10 MB cap is lifted)")
    func aTenMegabyteStringRoundTrips() throws {
        let url = temporaryPackageURL()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let context = try makeContext(try zooSchema(), url: url)
        let text = String(repeating: "x", count: 10_000_001)
        let id = try context.insert("Animal", ["name": .string(text)])
        try context.save()
        let reopened = try DocumentPackage(url: url).read()
        #expect(try reopened.value("name", of: id) == .string(text))
    }

    @Test("a composite value nested one level deeper than the limit is refused at the edit; at the limit it round-trips")
    func nestingIsCheckedAtTheEdit() throws {
        let schema = try Schema([Schema.Entity("T", attributes: [Schema.Attribute("tree", .codable)])])
        let url = temporaryPackageURL()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let context = try makeContext(schema, url: url)
        func nested(_ depth: Int) -> Value { (0..<depth).reduce(Value.int(1)) { inner, _ in .array([inner]) } }
        let limit = DocumentLimits.standard.maximumNesting
        let id = try context.insert("T", ["tree": nested(limit)])
        #expect(throws: ModelError.graph(.limitExceeded(entity: "T", attribute: "tree", limit: .nesting, size: limit + 1, maximum: limit))) {
            try context.setValue(nested(limit + 1), for: "tree", of: id)
        }
        try context.save()
        #expect(try DocumentPackage(url: url).read().value("tree", of: id) == nested(limit))
    }

    @Test("an insert past the document's object limit is refused with the entity named")
    func theObjectCountIsCheckedAtInsert() throws {
        let graph = ObjectGraph(schema: try zooSchema())
        graph.limits = Self.small
        for index in 0..<Self.small.maximumObjects { try graph.insert("Animal", ["name": .string("a\(index)")]) }
        #expect(throws: GraphError.limitExceeded(entity: "Animal", attribute: "", limit: .objects, size: 13, maximum: 12)) {
            try graph.insert("Animal", ["name": .string("one too many")])
        }
    }

    @Test("a file with more objects than the limit is refused at the first one too many")
    func theLoaderCountsObjects() throws {
        let graph = ObjectGraph(schema: try zooSchema())
        for index in 0...Self.small.maximumObjects { try graph.insert("Animal", ["name": .string("a\(index)")]) }
        let package = DocumentPackage(url: temporaryPackageURL())
        defer { try? FileManager.default.removeItem(at: package.url.deletingLastPathComponent()) }
        try package.write(graph)
        #expect(throws: PackageError.self) { try package.read(limits: Self.small) }
        do throws(PackageError) { _ = try package.read(limits: Self.small) } catch {
            guard case .limitExceeded(_, .objects, 13, 12) = error else { Issue.record("got \(error)"); return }
        }
    }

    @Test("an externally stored value over the blob limit is refused at the edit, and a blob file over it at open")
    func blobsAreBounded() throws {
        let schema = try Schema([
            Schema.Entity(
                "T",
                attributes: [
                    Schema.Attribute("photo", .data, isOptional: true, options: [.externalStorage])
                ])
        ])
        let graph = ObjectGraph(schema: schema)
        graph.limits = Self.small
        #expect(throws: GraphError.limitExceeded(entity: "T", attribute: "photo", limit: .blobBytes, size: 17, maximum: 16)) {
            try graph.insert("T", ["photo": .data(Data(count: 17))])
        }
        try graph.insert("T", ["photo": .data(Data(count: 16))])
        let big = ObjectGraph(schema: schema)
        try big.insert("T", ["photo": .data(Data(count: 17))])
        let package = DocumentPackage(url: temporaryPackageURL())
        defer { try? FileManager.default.removeItem(at: package.url.deletingLastPathComponent()) }
        try package.write(big)
        do throws(PackageError) {
            _ = try package.read(limits: Self.small)
            Issue.record("a 17-byte blob loaded under a 16-byte limit")
        } catch {
            guard case .limitExceeded(_, .blobBytes, 17, 16) = error else { Issue.record("got \(error)"); return }
        }
        try package.write(graph)
        #expect(try package.read(limits: Self.small).snapshot() == graph.snapshot())
    }

    @Test("a schema with more properties than an element may carry, or a name too long, is refused when made")
    func schemasAreBounded() throws {
        let limit = DocumentLimits.standard.maximumAttributesPerElement
        let wide = (0..<limit).map { Schema.Attribute("a\($0)", .int) }
        #expect(
            throws: SchemaError.limitExceeded(
                entity: "Wide", property: "", limit: .attributesPerElement,
                size: limit + 1, maximum: limit)
        ) {
            try Schema([Schema.Entity("Wide", attributes: wide)])
        }
        _ = try Schema([Schema.Entity("Wide", attributes: Array(wide.dropLast()))])
        let long = String(repeating: "n", count: DocumentLimits.standard.maximumNameBytes)
        #expect(throws: SchemaError.self) { try Schema([Schema.Entity("T", attributes: [Schema.Attribute(long, .int)])]) }
    }

    @Test("a to-many list too long to write refuses the save and writes nothing; the old document stays")
    func aTooLongLinkListRefusesTheSave() throws {
        // Numbered as format 2 did: the sizes below count the digits of ids 2…33.
        let graph = legacyNumberedGraph(try zooSchema())
        graph.limits = DocumentLimits(
            maximumValueBytes: 64, maximumNesting: 4, maximumBlobBytes: 16, maximumObjects: 100,
            maximumAttributesPerElement: 10_000, maximumNameBytes: 1_024, maximumMarkupBytes: 1 << 16)
        let category = try graph.insert("AnimalCategory", ["name": .string("Mammal")])
        let package = DocumentPackage(url: temporaryPackageURL())
        defer { try? FileManager.default.removeItem(at: package.url.deletingLastPathComponent()) }
        try package.write(graph)
        let saved = try packageDocument(package.url)
        // Ids 2…33: "2 3 … 33" is 8 × 2 + 24 × 3 − 1 = 87 bytes, over 64.
        for index in 0..<32 {
            try graph.link(try graph.insert("Animal", ["name": .string("a\(index)")]), "category", to: category)
        }
        #expect(
            throws: PackageError.unwritable(
                entity: "AnimalCategory", id: category.id, property: "animals", limit: .valueBytes,
                size: 87, maximum: 64)
        ) {
            try package.write(graph)
        }
        #expect(try packageDocument(package.url) == saved)
    }

    @Test("the error names entity, attribute, size and limit, and says what to do")
    func theErrorIsActionable() {
        let error = GraphError.limitExceeded(
            entity: "Animal", attribute: "name", limit: .valueBytes, size: 300_000_000,
            maximum: 268_435_456)
        #expect(error.description.contains("Animal.name"))
        #expect(error.description.contains("300000000"))
        #expect(error.description.contains("268435456"))
        #expect(error.description.contains("externalStorage"))
    }
}
