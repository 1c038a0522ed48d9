import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
import Folio
@testable import FolioCore

/// A conflict record's line in a part file reads back as the same record:
/// every kind of content, nil, escapes, dictionary keys and whole objects.
@Suite struct ConflictRecordXMLTests {
    static func makeSchema() throws -> Schema {
        try Schema([
            Schema.Entity(
                "Category", attributes: [Schema.Attribute("name", .string)],
                relationships: [
                    Schema.Relationship(
                        "animals", to: "Animal", toMany: true, inverse: "category",
                        deleteRule: .cascade)
                ]),
            Schema.Entity(
                "Animal",
                attributes: [
                    Schema.Attribute("name", .string),
                    Schema.Attribute("diet", .string, isOptional: true),
                    Schema.Attribute("age", .int),
                    Schema.Attribute("notes", .dictionary(.string)),
                ], relationships: [Schema.Relationship("category", to: "Category", inverse: "animals")]),
        ])
    }

    /// The XML attributes of the one element `line` holds.
    static func attributes(of line: String) throws -> [String: String] {
        final class Reader: NSObject, XMLParserDelegate {
            var found: [String: String]?
            func parser(
                _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]
            ) {
                if name == ConflictRecordXML.elementName { found = attributes }
            }
        }
        let reader = Reader()
        let parser = XMLParser(data: Data(("<objects>\n" + line + "</objects>\n").utf8))
        parser.delegate = reader
        #expect(parser.parse(), "\(parser.parserError.map { "\($0)" } ?? "")")
        return try #require(reader.found)
    }

    static func roundTrip(_ conflict: MergeConflict) throws -> MergeConflict? {
        let schema = try makeSchema()
        var buffer = ByteBuffer()
        ConflictRecordXML.append(conflict, schema: schema, to: &buffer)
        let line = buffer.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
        #expect(line.hasPrefix("  <f.conflict f.id=\"\(conflict.id.id)\""))
        #expect(line.hasSuffix("/>\n") && line.filter { $0 == "\n" }.count == 1, "one line: \(line)")
        return ConflictRecordXML.read(try attributes(of: line), entity: conflict.entityName, schema: schema)
    }

    static let animal = PersistentIdentifier(entityName: "Animal", id: 0x1a2b_3c4d_0000_0007)
    static let mammals = PersistentIdentifier(entityName: "Category", id: 24)
    static let birds = PersistentIdentifier(entityName: "Category", id: 25)

    @Test("a value both sides changed reads back with its three versions, nil and escapes included")
    func valueConflict() throws {
        let conflict = MergeConflict(
            kind: .value, id: Self.animal, property: "diet", base: .value(.null),
            ours: .value(.string("meat & \"fish\"")), theirs: .value(.string("bell\u{7}")))
        #expect(try Self.roundTrip(conflict) == conflict)
        let missingBase = MergeConflict(
            kind: .value, id: Self.animal, property: "age", ours: .value(.int(3)),
            theirs: .value(.int(-4)))
        #expect(try Self.roundTrip(missingBase) == missingBase)
    }

    @Test("a dictionary key removed on one side and changed on the other reads back with its key")
    func keyConflict() throws {
        let conflict = MergeConflict(
            kind: .value, id: Self.animal, property: "notes", key: "vet <2024>",
            base: .value(.string("ok")), ours: nil, theirs: .value(.string("limps")))
        #expect(try Self.roundTrip(conflict) == conflict)
    }

    @Test("a relationship's versions are identifiers, an empty one included")
    func relationshipConflict() throws {
        let conflict = MergeConflict(
            kind: .value, id: Self.animal, property: "category", base: .related([]),
            ours: .related([Self.mammals]), theirs: .related([Self.birds]))
        #expect(try Self.roundTrip(conflict) == conflict)
    }

    @Test("a whole object a merge removed reads back with every value and link")
    func objectConflict() throws {
        let object: MergeConflict.Content = .object([
            "name": .value(.string("Lion")), "diet": .value(.null),
            "age": .value(.int(4)), "notes": .value(.dictionary(["a": .string("b")])),
            "category": .related([Self.mammals]),
        ])
        let conflict = MergeConflict(kind: .deletedAndEdited, id: Self.animal, base: nil, ours: nil, theirs: object)
        #expect(try Self.roundTrip(conflict) == conflict)
    }

    @Test("a cascade's record names the link that removed the object and holds the whole object: both read back")
    func cascadeRecordKeepsItsObject() throws {
        let removed: MergeConflict.Content = .object([
            "name": .value(.string("Lion")), "diet": .value(.null),
            "age": .value(.int(4)), "category": .related([Self.mammals]),
        ])
        let conflict = MergeConflict(kind: .cascade, id: Self.animal, property: "category", ours: removed, theirs: removed)
        #expect(try Self.roundTrip(conflict) == conflict)
    }

    @Test("a record of an unknown kind or entity, or with a value that does not read, is refused")
    func refusesMalformed() throws {
        let schema = try Self.makeSchema()
        #expect(ConflictRecordXML.read(["f.id": "7", "kind": "sideways"], entity: "Animal", schema: schema) == nil)
        #expect(ConflictRecordXML.read(["f.id": "7", "kind": "value"], entity: "Plant", schema: schema) == nil)
        #expect(
            ConflictRecordXML.read(
                ["f.id": "7", "kind": "value", "property": "age", "ours": "three"],
                entity: "Animal", schema: schema) == nil)
        #expect(ConflictRecordXML.read(["f.id": "x", "kind": "value"], entity: "Animal", schema: schema) == nil)
    }
}
