import Foundation
import Testing
import FolioTestSupport

/// `export` and `import` through the built `folio`, and the paths it is given.
@Suite struct TransferTests {
    @Test("a script exports rows to CSV and imports them into another document, then saves")
    func exportThenImport() throws {
        let folder = try TemporaryFolder()
        let animals = try folder.copySample("Animals.folio")
        let export = try runFolio(
            [animals.path], input: "export list Animal name, diet where category.name == 'Fish' to fish.csv\n",
            in: folder.url)
        #expect(export.status == 0, "\(export.stderr)")
        #expect(export.stdout == "exported 4 Animal to fish.csv\n")
        let other = folder.appending("Other.folio")
        try FileManager.default.copyItem(at: animals, to: other)
        let run = try runFolio([other.path, "--json"], input: "import Animal from fish.csv\nsave\n", in: folder.url)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.lines.first?.contains("\"inserted\":4") == true)
        let count = try runFolio([other.path], input: "count Animal where category == null\n", in: folder.url)
        #expect(count.stdout == "4\n")
    }

    @Test("a failing import stops the script at its line, names the file's line and column, and inserts nothing")
    func failingImport() throws {
        let folder = try TemporaryFolder()
        let animals = try folder.copySample("Animals.folio")
        _ = try folder.write("name,diet\nA,herbivorous\nB\n", to: "bad.csv")
        let run = try runFolio([animals.path, "--save-at-end"], input: "import Animal from bad.csv\n", in: folder.url)
        #expect(run.status == 1)
        #expect(run.stderr.hasPrefix("error: 1: column 20: bad.csv line 3, column 2: expected 2 fields as the header names, found 1\n"))
        let count = try runFolio([animals.path], input: "count Animal\n", in: folder.url)
        #expect(count.stdout == "30\n")
    }

    @Test("a document path that does not exist says so")
    func missingDocument() throws {
        let folder = try TemporaryFolder()
        let run = try runFolio(["Missing.folio"], in: folder.url)
        #expect(run.status == 1)
        #expect(run.stderr == "error: Missing.folio does not exist (folio new PATH --schema FILE creates a document)\n")
    }
}
