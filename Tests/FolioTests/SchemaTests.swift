import Foundation
import Testing
import Folio
@testable import FolioCore
import FolioTestSupport

@Suite struct SchemaTests {
    @Test("a valid schema with every shape validates")
    func validSchema() throws {
        _ = try kitchenSinkSchema()
        _ = try zooSchema()
    }

    @Test("an inverse that does not point back is refused")
    func inverseMismatch() {
        #expect(throws: SchemaError.inverseMismatch(entity: "A", relationship: "bs", inverse: "a")) {
            try Schema([
                .init("A", relationships: [.init("bs", to: "B", toMany: true, inverse: "a"), .init("other", to: "B")]),
                .init("B", relationships: [.init("a", to: "A", inverse: "other")]),
            ])
        }
    }

    @Test("a relationship to an unknown entity is refused")
    func unknownDestination() {
        #expect(throws: SchemaError.unknownDestination(entity: "A", relationship: "b", destination: "Nope")) {
            try Schema([.init("A", relationships: [.init("b", to: "Nope")])])
        }
    }

    @Test("an inverse the destination lacks is refused")
    func unknownInverse() {
        #expect(throws: SchemaError.unknownInverse(entity: "A", relationship: "b", inverse: "a")) {
            try Schema([.init("A", relationships: [.init("b", to: "B", inverse: "a")]), .init("B")])
        }
    }

    @Test("duplicate entity and property names are refused")
    func duplicates() {
        #expect(throws: SchemaError.duplicateEntity("A")) { try Schema([.init("A"), .init("A")]) }
        #expect(throws: SchemaError.duplicateProperty(entity: "A", property: "x")) {
            try Schema([.init("A", attributes: [.init("x", .int)], relationships: [.init("x", to: "A")])])
        }
    }

    @Test("names must be identifiers that XML accepts")
    func names() {
        for bad in ["", "1abc", "a-b", "a b", "xmlThing", "XMLish", "é"] {
            #expect(throws: SchemaError.invalidName(bad)) { try Schema([.init(bad)]) }
        }
        #expect(throws: Never.self) { try Schema([.init("_id", attributes: [.init("_id", .uuid)])]) }
    }

    @Test("options and defaults must fit the attribute's type")
    func optionsAndDefaults() {
        // externalStorage is a storage hint, as in SwiftData: any type may have it.
        #expect(throws: Never.self) {
            try Schema([
                .init(
                    "A",
                    attributes: [
                        .init("x", .string, isOptional: true, options: [.externalStorage]),
                        .init("y", .array(.string), options: [.externalStorage]),
                    ])
            ])
        }
        #expect(throws: SchemaError.invalidDefault(entity: "A", attribute: "x")) {
            try Schema([.init("A", attributes: [.init("x", .int8, defaultValue: .int(1000))])])
        }
        // Packages with such an attribute exist: it stays valid (the uniqueness rule skips it).
        #expect(throws: Never.self) {
            try Schema([.init("A", attributes: [.init("x", .data, options: [.unique, .externalStorage])])])
        }
        #expect(throws: SchemaError.selfInverse(entity: "A", relationship: "peer")) {
            try Schema([.init("A", relationships: [.init("peer", to: "A", inverse: "peer")])])
        }
        #expect(throws: SchemaError.invalidCount(entity: "A", relationship: "b")) {
            try Schema([.init("A", relationships: [.init("b", to: "A", toMany: true, minimumModelCount: 3, maximumModelCount: 2)])])
        }
    }

    @Test("type spellings parse back to the same type")
    func typeSpellings() {
        let types: [ValueType] = [.string, .uint16, .array(.date), .set(.uuid), .dictionary(.array(.int)), .codable, .any]
        for type in types { #expect(ValueType(type.description) == type) }
        #expect(ValueType("array(") == nil)
        #expect(ValueType("list(int)") == nil)
    }

    @Test("a schema file round-trips through its XML text")
    func schemaFile() throws {
        let schema = try kitchenSinkSchema()
        let url = temporaryPackageURL().deletingLastPathComponent().appendingPathComponent("schema.xml")
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try schema.xmlText.write(to: url, atomically: true, encoding: .utf8)
        #expect(try Schema(contentsOf: url) == schema)
    }

    @Test("a schema file with a type spelled as another language spells it is refused with the name to use; string? only as an element")
    func schemaFileTypeHints() throws {
        let folder = temporaryPackageURL().deletingLastPathComponent()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        func refusal(_ type: String) throws -> String {
            let url = folder.appendingPathComponent("schema-\(UUID().uuidString).xml")
            try """
            <schema>
              <entity name="Book">
                <attribute name="pages" type="\(type)"/>
              </entity>
            </schema>
            """.write(to: url, atomically: true, encoding: .utf8)
            do { _ = try Schema(contentsOf: url); return "" } catch { return "\(error)" }
        }
        #expect(try refusal("integer").contains("unknown type 'integer'; did you mean 'int'?"))
        #expect(try refusal("string?").contains("optional=\"true\""))
        #expect(try refusal("array(string?)").isEmpty)
    }
}
