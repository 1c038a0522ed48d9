import Foundation
import Testing
import Folio
@testable import FolioCore
import FolioTestSupport

/// Declared indexes in the schema: what validation accepts, how the schema's
/// XML writes and reads them, and that adding one needs no migration.
@Suite struct SchemaIndexTests {
    typealias F = LoaderFixtures

    static func herdSchema(indexes: [[String]]) throws -> Schema {
        try Schema([
            .init(
                "Cow",
                attributes: [
                    .init("name", .string), .init("age", .int), .init("weight", .double, isOptional: true),
                    .init("tags", .array(.string)), .init("photo", .data, options: [.externalStorage]),
                ],
                relationships: [.init("herd", to: "Herd", inverse: "cows")],
                indexes: indexes),
            .init(
                "Herd", attributes: [.init("name", .string)],
                relationships: [.init("cows", to: "Cow", toMany: true, inverse: "herd")]),
        ])
    }

    @Test("an entity lists its indexes, single and compound, in the order declared")
    func declared() throws {
        let schema = try Self.herdSchema(indexes: [["name"], ["age", "weight"]])
        #expect(schema.entity(named: "Cow")?.indexes == [["name"], ["age", "weight"]])
        #expect(schema.entity(named: "Herd")?.indexes == [])
    }

    @Test("an index naming no attribute, a relationship, a collection, an external attribute, nothing or a name twice is refused")
    func invalid() throws {
        let cases: [([String], String)] = [
            (["nope"], "has no attribute 'nope'"),
            (["herd"], "'herd' is a relationship"),
            (["tags"], "type array(string)"),
            (["photo"], "stored externally"),
            ([], "names no attributes"),
            (["age", "age"], "names an attribute twice"),
        ]
        for (index, reason) in cases {
            #expect {
                try Self.herdSchema(indexes: [index])
            } throws: { error in
                guard case .invalidIndex(let entity, let attributes, let why) = error as? SchemaError else { return false }
                return entity == "Cow" && attributes == index && why.contains(reason)
            }
        }
    }

    @Test("a schema file's <index> elements round-trip through its XML text")
    func schemaFile() throws {
        let schema = try Self.herdSchema(indexes: [["name"], ["age", "weight"]])
        #expect(schema.xmlText.contains("<index attributes=\"age weight\"/>"))
        let url = temporaryPackageURL().deletingLastPathComponent().appendingPathComponent("schema.xml")
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try schema.xmlText.write(to: url, atomically: true, encoding: .utf8)
        #expect(try Schema(contentsOf: url) == schema)
    }

    @Test("a package keeps its indexes: reopened without a schema, the document's schema has them")
    func package() throws {
        let url = temporaryPackageURL()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let schema = try Self.herdSchema(indexes: [["age", "weight"]])
        do {
            let context = ModelContext(try ModelContainer(for: schema, configurations: ModelConfiguration(url: url)))
            try context.insert("Cow", ["name": .string("Daisy"), "age": .int(3)])
            try context.save()
        }
        let reopened = ModelContext(try ModelContainer(contentsOf: url))
        #expect(reopened.container.schema.entity(named: "Cow")?.indexes == [["age", "weight"]])
        let found = try reopened.fetchIdentifiers(DynamicFetchDescriptor(entity: "Cow", predicate: try ObjectPredicate("age == 3")))
        #expect(found.count == 1)
    }

    @Test("an index naming an unknown attribute or a relationship in a document is an invalid schema, with its location")
    func invalidInDocument() throws {
        for (name, reason) in [("nope", "has no attribute 'nope'"), ("herd", "is a relationship")] {
            let schema = """
                  <schema>
                    <entity name="Cow">
                      <attribute name="age" type="int"/>
                      <relationship name="herd" destination="Herd" inverse="cows" delete-rule="nullify"/>
                      <index attributes="age \(name)"/>
                    </entity>
                    <entity name="Herd">
                      <relationship name="cows" destination="Cow" to-many="true" inverse="herd" delete-rule="nullify"/>
                    </entity>
                  </schema>
                """
            let document = F.document(schema: schema, objects: "")
            try F.withPackage(document) { package in
                guard case .invalidSchema(let location, let error)? = F.readFailure(package) else {
                    Issue.record("expected .invalidSchema")
                    return
                }
                F.expectLocation(location, isIn: package)
                #expect(location.line >= F.line(of: "<schema>", in: document))
                #expect(location.line <= F.line(of: "</schema>", in: document))
                guard case .invalidIndex(let entity, let attributes, let why) = error else {
                    Issue.record("expected .invalidIndex, got \(error)")
                    return
                }
                #expect(entity == "Cow" && attributes == ["age", name] && why.contains(reason))
            }
        }
    }

    @Test("an <index> with an unknown XML attribute or none is a schema declaration error at its line")
    func malformedInDocument() throws {
        for element in ["<index columns=\"age\"/>", "<index/>"] {
            let schema = """
                  <schema>
                    <entity name="Cow">
                      <attribute name="age" type="int"/>
                      \(element)
                    </entity>
                  </schema>
                """
            let document = F.document(schema: schema, objects: "")
            try F.withPackage(document) { package in
                guard case .invalidSchemaDeclaration(let location, let message)? = F.readFailure(package) else {
                    Issue.record("expected .invalidSchemaDeclaration")
                    return
                }
                #expect(location.line == F.line(of: "<index", in: document))
                #expect(message.contains("index"))
            }
        }
    }

    @Test("a package written before indexes opens unchanged; a schema that adds or drops an index needs no migration")
    func addingAnIndexIsLightweight() throws {
        let url = temporaryPackageURL()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let plain = try Self.herdSchema(indexes: [])
        var cows: [UInt64] = []
        do {
            let context = ModelContext(try ModelContainer(for: plain, configurations: ModelConfiguration(url: url)))
            for age in 0..<10 { cows.append(try context.insert("Cow", ["name": .string("cow\(age)"), "age": .int(Int64(age % 4))]).id) }
            try context.save()
        }
        let before = try Self.files(of: url)
        #expect(!before.values.contains { String(decoding: $0, as: UTF8.self).contains("<index") })
        let indexed = try Self.herdSchema(indexes: [["age"]])
        #expect(plain.differsOnlyInDefaultsOrIndexes(from: indexed))
        do {
            let context = ModelContext(try ModelContainer(for: indexed, configurations: ModelConfiguration(url: url)))
            let found = try context.fetchIdentifiers(DynamicFetchDescriptor(entity: "Cow", predicate: try ObjectPredicate("age == 2")))
            #expect(found.map(\.id) == [cows[2], cows[6]])
            #expect(context.graph.rowsVisited == 2)
        }
        // Opening changed nothing on disk.
        #expect(try Self.files(of: url) == before)
    }

    /// Every file of a package folder, by name.
    static func files(of url: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: url.path) {
            var isDirectory: ObjCBool = false
            let path = url.appendingPathComponent(name)
            guard FileManager.default.fileExists(atPath: path.path, isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
            files[name] = try Data(contentsOf: path)
        }
        return files
    }
}
