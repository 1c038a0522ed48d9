import Folio
import Foundation
import Testing
@testable import FolioREPL
import FolioTestSupport

/// `export list … to FILE` and `import ENTITY from FILE.csv`.
@Suite struct ExportImportTests {
    @Test("export writes what list selects, every row, as CSV with a header; import reads it back into another document")
    func roundTrip() throws {
        let folder = try TemporaryFolder("export")
        let source = try Session(url: try folder.copySample("Animals.folio"))
        let file = folder.appending("birds.csv")
        #expect(
            try source.run("export list Animal name, diet, category where category.name == 'Bird' sort name to \(file.path)")
                == "exported 6 Animal to \(file.path)\n")
        let csv = try String(contentsOf: file, encoding: .utf8)
        #expect(csv.hasPrefix("name,diet,category\nBald Eagle,carnivorous,6\nBarn Owl,carnivorous,6\n"))
        let target = try Session("Animals")
        #expect(try target.run("import Animal from \(file.path)") == "imported 6 Animal from \(file.path)\n")
        #expect(try target.count("Animal", "category.name == 'Bird'") == 12)
        #expect(target.interpreter.context.undoManager?.undoActionNames == ["Import 6 Animal"])
        try target.run("undo")
        #expect(try target.count("Animal") == 30)
    }

    @Test("CSV quotes what needs it and tells null (empty) from the empty string (\"\"); import reads both back")
    func quoting() throws {
        let folder = try TemporaryFolder("export")
        let session = try Session(url: try folder.copySample("Dogs.folio"))
        try session.run("insert DogToy name=\"a, \\\"b\\\"\nc\"")
        let file = folder.appending("toys.csv")
        try session.run("export list DogToy name where name beginswith 'a' to \(file.path)")
        #expect(try String(contentsOf: file, encoding: .utf8) == "name\n\"a, \"\"b\"\"\nc\"\n")
        #expect(CSVText.line([nil, "", " x", "y"]) == ",\"\",\" x\",y\n")
        let rows = try CSVText.rows("a,b\r\n,\"\"\n\"x\ny\",z")
        #expect(rows.map { $0.fields.map(\.text) } == [["a", "b"], ["", ""], ["x\ny", "z"]])
        #expect(rows[1].fields.map(\.quoted) == [false, true])
        #expect(rows[2].line == 3)
    }

    @Test("export --format json, or a .json file, writes an array of objects keyed by column")
    func json() throws {
        let folder = try TemporaryFolder("export")
        let session = try Session(url: try folder.copySample("Animals.folio"))
        let file = folder.appending("categories.json")
        try session.run("export list AnimalCategory name, animals.@count limit 2 to \(file.path)")
        #expect(
            try String(contentsOf: file, encoding: .utf8)
                == "[\n{\"name\":\"Amphibian\",\"animals.@count\":4},\n{\"name\":\"Bird\",\"animals.@count\":6}\n]\n")
        let other = folder.appending("categories.txt")
        try session.run("export list AnimalCategory name where name == 'none' to \(other.path) --format json")
        #expect(try String(contentsOf: other, encoding: .utf8) == "[]\n")
    }

    @Test("export refuses an existing file unless --force, and any path at or inside a package, links followed")
    func exportRefusals() throws {
        let folder = try TemporaryFolder("export")
        let package = try folder.copySample("Animals.folio")
        let session = try Session(url: package)
        let file = try folder.write("keep", to: "out.csv")
        let line = "export list Animal to \(file.path)"
        #expect(session.error(line) == CommandError("\(file.path) exists; add --force to replace it", column: 23))
        #expect(try String(contentsOf: file, encoding: .utf8) == "keep")
        try session.run(line + " --force")
        #expect(try String(contentsOf: file, encoding: .utf8).hasPrefix("id,name,diet,category\n"))
        for target in [package.path, package.appendingPathComponent("x.csv").path, folder.appending("Other.folio").path] {
            #expect(session.error("export list Animal to \(target)")?.message.contains("is a document package") == true, "\(target)")
        }
        let link = folder.appending("link")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: package.appendingPathComponent("parts"))
        #expect(session.error("export list Animal to \(link.path)/x.csv")?.message.contains("is a document package") == true)
        let fileLink = folder.appending("file-link.csv")
        try FileManager.default.createSymbolicLink(at: fileLink, withDestinationURL: file)
        #expect(session.error("export list Animal to \(fileLink.path) --force")?.message.contains("is a symbolic link") == true)
        #expect(session.error("export list Animal to \(folder.appending("none").path)/x.csv")?.message.contains("does not exist") == true)
        #expect(session.error("export list Animal") == CommandError("export needs 'to PATH' at the end: " + Interpreter.exportUsage, column: 19))
    }

    @Test("an import error names the file's line and column, and nothing of the file is inserted")
    func importErrors() throws {
        let folder = try TemporaryFolder("import")
        let session = try Session(url: try folder.copySample("Animals.folio"))
        func error(_ csv: String) throws -> String? {
            let file = try folder.write(csv, to: "in.csv")
            return session.error("import Animal from \(file.path)")?.message
                .replacingOccurrences(of: file.path, with: "in.csv")
        }
        #expect(
            try error("name,diet,category\nA,herbivorous,6\nB,herbivorous,abc\n")
                == "in.csv line 3, column 15: 'abc' is not an object id (write 42 or Animal#42)")
        #expect(try error("name,diet,category\nA,herbivorous,6\nB,herbivorous,\"99\"\n") == "in.csv line 3, column 16: no object #99")
        #expect(
            try error("name,diet,category\n\"A\nB\",herbivorous,6\nC,herbivorous\n")
                == "in.csv line 4, column 14: expected 3 fields as the header names, found 2")
        #expect(try error("name,dyet\n") == "in.csv line 1, column 6: Animal has no attribute or relationship 'dyet'; did you mean 'diet'?")
        #expect(try error("id,name\n1,x\n")?.hasPrefix("in.csv line 1, column 1: ids are given by the document") == true)
        #expect(try error("name,diet\n\"A,herbivorous\n") == "in.csv line 2, column 1: the quoted field is not closed")
        #expect(try error("name\nA\n") == "in.csv line 2, column 1: Animal needs a value for diet (not optional, no default)")
        #expect(try error("") == "in.csv is empty: its first line names the columns")
        #expect(session.error("import Animal from \(folder.appending("none.csv").path)")?.message == "\(folder.appending("none.csv").path) does not exist")
        #expect(try session.count("Animal") == 30)
        #expect(session.interpreter.context.undoManager?.undoActionNames == [])
        #expect(!session.interpreter.hasUnsavedChanges)
    }

    @Test("import reads values as insert does; a row matching a unique value updates that object")
    func importValues() throws {
        let folder = try TemporaryFolder("import")
        let session = try Session(url: try folder.copySample("Trips.folio"))
        let file = try folder.write(
            "name,destination,startDate,endDate\nRome,Italy,2025-07-01,2025-07-10\n"
                + "Spring Break,Mexico,2025-03-01,2025-03-08\n", to: "trips.csv")
        #expect(
            try session.run("import Trip from \(file.path)")
                == "imported 1 Trip from \(file.path) (1 updated existing objects)\n")
        #expect(try session.count("Trip", "name == 'Rome' and startDate == 2025-07-01") == 1)
        #expect(try session.count("Trip", "name == 'Spring Break' and destination == 'Mexico'") == 1)
    }
}
