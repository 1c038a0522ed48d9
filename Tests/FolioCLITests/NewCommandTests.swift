import Foundation
import Testing
import FolioTestSupport

/// `folio new PATH --schema FILE`: an empty package from a schema file, then
/// a session on it.
@Suite struct NewCommandTests {
    static let schema = """
        <?xml version="1.0" encoding="UTF-8"?>
        <schema>
          <entity name="Note">
            <attribute name="title" type="string"/>
            <attribute name="stars" type="int" optional="true"/>
          </entity>
        </schema>

        """

    @Test("creates an empty package with the schema, then runs the script on it")
    func createsAndEdits() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        _ = try folder.write(NewCommandTests.schema, to: "notes-schema.xml")
        let run = try runFolio(
            ["new", "Notes.folio", "--schema", "notes-schema.xml"],
            input: """
                count Note
                insert Note title=Hello stars=3
                save
                count Note
                """, in: folder.url)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr == "")
        #expect(run.lines.first == "0")
        #expect(run.lines.last == "1")
        let document = try documentText(folder.url.appendingPathComponent("Notes.folio"))
        #expect(document.contains(#"<entity name="Note">"#))
        #expect(document.contains(#"title="Hello""#))
    }

    @Test("an empty script leaves an empty, valid package that opens again")
    func emptyPackage() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        _ = try folder.write(NewCommandTests.schema, to: "notes-schema.xml")
        let created = try runFolio(["new", "Notes.folio", "--schema", "notes-schema.xml"], in: folder.url)
        #expect(created.status == 0, "\(created.stderr)")
        #expect(created.stdout == "")
        #expect(FileManager.default.fileExists(atPath: folder.url.appendingPathComponent("Notes.folio/manifest.xml").path))
        let reopened = try runFolio(["Notes.folio"], input: "help\n", in: folder.url)
        #expect(reopened.status == 0, "\(reopened.stderr)")
    }

    @Test("refuses a path that exists and leaves it alone")
    func refusesExistingPath() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        _ = try folder.write(NewCommandTests.schema, to: "notes-schema.xml")
        let animals = try folder.copySample("Animals.folio")
        let before = try documentText(animals)
        let run = try runFolio(["new", "Animals.folio", "--schema", "notes-schema.xml"], input: "help\n", in: folder.url)
        #expect(run.status == 1)
        #expect(run.stdout == "")
        #expect(run.stderr.contains("Animals.folio already exists"))
        #expect(try documentText(animals) == before)
    }

    @Test("a bad schema file: the error names file, line and column; nothing is created")
    func badSchema() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        _ = try folder.write("<?xml version=\"1.0\"?>\n<schema>\n  <entity title=\"Note\"/>\n</schema>\n", to: "bad.xml")
        let run = try runFolio(["new", "Notes.folio", "--schema", "bad.xml"], in: folder.url)
        #expect(run.status == 1)
        #expect(run.stderr.hasPrefix("error: "))
        #expect(run.stderr.range(of: #"bad\.xml:3:\d+: "#, options: .regularExpression) != nil, "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.url.appendingPathComponent("Notes.folio").path))
    }

    @Test("--schema is required")
    func schemaRequired() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let run = try runFolio(["new", "Notes.folio"], in: folder.url)
        #expect(run.status != 0)
        #expect(run.stderr.contains("--schema"))
        #expect(!FileManager.default.fileExists(atPath: folder.url.appendingPathComponent("Notes.folio").path))
    }
}
