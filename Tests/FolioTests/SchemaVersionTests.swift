import Folio
import Foundation
import Testing
import FolioTestSupport

struct SchemaVersionTests {
    @Test func `versions order by major, then minor, then patch`() {
        let ordered = [
            Schema.Version(0, 9, 9), Schema.Version(1, 0, 0), Schema.Version(1, 0, 1),
            Schema.Version(1, 2, 0), Schema.Version(2, 0, 0), Schema.Version(10, 0, 0),
        ]
        #expect(ordered.shuffled().sorted() == ordered)
        #expect(Schema.Version(1, 2, 3).description == "1.2.3")
    }

    @Test func `a version round-trips through Codable`() throws {
        let version = Schema.Version(3, 1, 4)
        let data = try JSONEncoder().encode(version)
        #expect(try JSONDecoder().decode(Schema.Version.self, from: data) == version)
    }

    @Test func `a schema made without a version is 1.0.0, and equality ignores versions`() throws {
        let entity = Schema.Entity("Note", attributes: [.init("title", .string)])
        let schema = try Schema([entity])
        #expect(schema.version == Schema.Version(1, 0, 0))
        let versioned = try Schema([entity], version: Schema.Version(2, 0, 0))
        #expect(versioned.version == Schema.Version(2, 0, 0))
        #expect(versioned == schema && versioned.hashValue == schema.hashValue)
    }

    @Test func `a package records the version only of a schema declared with one`() throws {
        try expectRecorded(nil)
        try expectRecorded(Schema.Version(2, 1, 0))
    }

    func expectRecorded(_ version: Schema.Version?) throws {
        let folder = try temporaryFolderURL("version")
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("Plain.folio")
        let schema = try Schema([Schema.Entity("Note", attributes: [.init("title", .string)])], version: version)
        do {
            let context = ModelContext(try ModelContainer(for: schema, configurations: ModelConfiguration(url: url)))
            _ = try context.insert("Note", ["title": .string("a")])
            try context.save()
        }
        let document = try packageText(url)
        #expect(document.contains(version.map { "<schema version=\"\($0)\">" } ?? "<schema>"))
        let reopened = try ModelContainer(contentsOf: url)
        #expect(reopened.schema.version == version ?? Schema.Version(1, 0, 0))
    }

    @Test(arguments: ["1.0", "1.0.0.0", "a.b.c", "1..0", "+1.0.0", "1.-.0", "1.0.0 ", "99999999999999999999.0.0"])
    func `a package whose schema version is not major.minor.patch is refused with its place`(text: String) throws {
        let folder = try temporaryFolderURL("version")
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("Bad.folio")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <folio format="1">
              <schema version="\(text)">
                <entity name="Note">
                  <attribute name="title" type="string"/>
                </entity>
              </schema>
              <objects>
              </objects>
            </folio>

            """
        try Data(xml.utf8).write(to: url.appendingPathComponent("document.xml"))
        let error = #expect(throws: ModelError.self) { _ = try ModelContainer(contentsOf: url) }
        guard case .package(.invalidSchemaDeclaration(let location, let message))? = error else {
            Issue.record("expected an invalid schema declaration, got \(String(describing: error))")
            return
        }
        #expect(location.line == 3)
        #expect(message.contains("not major.minor.patch"))
    }

    @Test(arguments: [Schema.Version(1_000_000_000, 0, 0), Schema.Version(1, -1, 0)])
    func `a package saved with any schema version opens again`(version: Schema.Version) throws {
        let folder = try temporaryFolderURL("version")
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("Notes.folio")
        let schema = try Schema([Schema.Entity("Note", attributes: [.init("title", .string)])], version: version)
        do {
            let context = ModelContext(try ModelContainer(for: schema, configurations: ModelConfiguration(url: url)))
            try context.insert("Note", ["title": .string("Ideas")])
            try context.save()
        }
        // Either the save refuses the version, or the package reopens: never a package nothing can open.
        let reopened = Result { () throws(ModelError) in try ModelContainer(for: schema, configurations: ModelConfiguration(url: url)) }
        if case .failure(let error) = reopened { Issue.record("saved, then refused on open: \(error)") }
    }
}
