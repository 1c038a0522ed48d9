import Foundation
import Testing
import FolioTestSupport

/// `folio PATH < script` and `folio PATH --script FILE`: only the commands'
/// output on stdout, the first error as `error: LINE: message` and status 1.
@Suite struct ScriptModeTests {
    @Test("the first error stops the script: error: LINE: message on stderr, status 1")
    func firstErrorStops() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let animals = try folder.copySample("Animals.folio")
        let run = try runFolio([animals.path], input: "help\nfrobnicate Animal\nhelp\n", in: folder.url)
        #expect(run.status == 1)
        #expect(run.stdout.hasPrefix("commands:"))
        #expect(run.helpCount == 1, "only the first help ran: \(run.stdout)")
        #expect(run.stderr.hasPrefix("error: 2: "))
        #expect(run.stderr.contains("column 1"))
        #expect(run.stderr.contains("frobnicate"))
        // The error line, the line echoed, the caret under column 1.
        #expect(
            run.stderr.split(separator: "\n") == [
                "error: 2: column 1: unknown command 'frobnicate'; try 'help'",
                "  frobnicate Animal", "  ^",
            ])
    }

    @Test("a script error shows the line with a caret under the offending word, and suggests close names")
    func caretUnderError() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let animals = try folder.copySample("Animals.folio")
        let run = try runFolio([animals.path], input: "count Animal\nlist Animal sort nam\n", in: folder.url)
        #expect(run.status == 1)
        #expect(
            run.stderr.split(separator: "\n") == [
                "error: 2: column 18: cannot sort by 'nam': Animal has no property 'nam'; did you mean 'name'?",
                "  list Animal sort nam",
                "                   ^",
            ])
    }

    @Test("a 1 MB line in a script is read and run, and an error in it points into a window of the line")
    func megabyteLine() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let animals = try folder.copySample("Animals.folio")
        let name = String(repeating: "a", count: 1_000_000)
        let run = try runFolio(
            [animals.path], input: "count Animal where name != '\(name)'\ncount Animal where nme == '\(name)'\n",
            in: folder.url)
        #expect(run.stdout == "30\n", "the 30 named animals")
        let lines = run.stderr.split(separator: "\n")
        #expect(lines.first == "error: 2: column 20: Animal has no property 'nme'; did you mean 'name'?")
        #expect(lines.count == 3)
        #expect(lines.dropFirst().allSatisfy { $0.count < 80 }, "the echo is a window, not the whole line")
        #expect(lines.last.map(String.init) == String(repeating: " ", count: 2 + 19) + "^")
    }

    @Test("a line over the maximum length is refused with an error naming the limit, and nothing of it runs")
    func overlongLine() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let animals = try folder.copySample("Animals.folio")
        let name = String(repeating: "a", count: 1_500_000)
        let line = "insert Animal name='\(name)'"
        let run = try runFolio([animals.path], input: "count Animal\n\(line)\nsave\n", in: folder.url)
        #expect(run.status == 1)
        #expect(run.stdout == "30\n")
        #expect(
            run.stderr.hasPrefix("error: 2: the line is \(line.utf8.count) bytes long, over the limit of 1048576 bytes"),
            "\(run.stderr.prefix(200))")
        #expect(run.stderr.utf8.count < 1_000)
    }

    @Test("line numbers count blank and comment lines")
    func lineNumbers() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let animals = try folder.copySample("Animals.folio")
        let run = try runFolio([animals.path], input: "# a comment\n\nhelp\r\n  bogus\n", in: folder.url)
        #expect(run.status == 1)
        #expect(run.stderr.hasPrefix("error: 4: column 3: "), "\(run.stderr)")
        #expect(run.stderr.contains("bogus"))
    }

    @Test("no banner and no prompt in a script; a clean script exits 0")
    func quietOutput() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let animals = try folder.copySample("Animals.folio")
        let run = try runFolio([animals.path], input: "help\n\nhelp", in: folder.url)
        #expect(run.status == 0)
        #expect(run.stdout.hasPrefix("commands:"))
        #expect(run.helpCount == 2)
        #expect(!run.stdout.contains("Animals>"))
        #expect(!run.stdout.contains("folio —"))
        #expect(run.stderr == "")
    }

    @Test("--script FILE runs the file, not stdin, and reports its line numbers")
    func scriptFile() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let animals = try folder.copySample("Animals.folio")
        let script = try folder.write("help\nhelp\nnonsense\n", to: "edits.folio-script")
        let run = try runFolio([animals.path, "--script", script.path], input: "bogus\n", in: folder.url)
        #expect(run.status == 1)
        #expect(run.helpCount == 2)
        #expect(run.stderr.hasPrefix("error: 3: "))
        #expect(run.stderr.contains("nonsense"))
    }

    @Test("--script with a missing file fails before running anything")
    func missingScript() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let animals = try folder.copySample("Animals.folio")
        let run = try runFolio([animals.path, "--script", "absent.txt"], in: folder.url)
        #expect(run.status == 1)
        #expect(run.stdout == "")
        #expect(run.stderr.hasPrefix("error: absent.txt: "))
    }

    @Test("quit! ends the script: later lines are not read")
    func quitEndsScript() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let animals = try folder.copySample("Animals.folio")
        let run = try runFolio([animals.path], input: "help\nquit!\nbogus\n", in: folder.url)
        #expect(run.status == 0)
        #expect(run.helpCount == 1)
        #expect(run.stderr == "")
    }

    @Test("count prints the number alone")
    func count() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let animals = try folder.copySample("Animals.folio")
        let run = try runFolio([animals.path], input: "count AnimalCategory\ncount Animal\n", in: folder.url)
        #expect(run.status == 0)
        #expect(run.lines == ["6", "30"])
        #expect(run.stderr == "")
    }

    @Test("insert and save: the new object is in the saved package")
    func insertAndSave() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let animals = try folder.copySample("Animals.folio")
        let run = try runFolio(
            [animals.path],
            input: """
                insert AnimalCategory name=Cryptid
                save
                count AnimalCategory
                """, in: folder.url)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr == "")
        #expect(
            run.lines.first?.range(of: #"^(AnimalCategory)?#?\d+$"#, options: .regularExpression) != nil,
            "insert prints the new id alone: \(run.stdout)")
        #expect(run.lines.last == "7")
        let document = try documentText(animals)
        #expect(document.contains(#"name="Cryptid""#))
        #expect(document.components(separatedBy: "\n  <AnimalCategory ").count - 1 == 7, "seven categories: \(document)")
        // The checked-in sample is untouched.
        #expect(!(try documentText(SampleDocuments.folder.appendingPathComponent("Animals.folio"))).contains("Cryptid"))
    }

    @Test("end of script with unsaved changes: exit 1, an error saying what was discarded and how to keep it, the package unchanged")
    func unsavedAtEnd() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let animals = try folder.copySample("Animals.folio")
        let before = try documentText(animals)
        let script = (1...50).map { "insert AnimalCategory name=Cryptid\($0)\n" }.joined()
        let run = try runFolio([animals.path], input: script, in: folder.url)
        #expect(run.status == 1)
        #expect(run.lines.count == 50, "the ids are still printed")
        #expect(
            run.stderr == "error: the script ended without save: its unsaved changes (50 inserted, 0 changed, 0 deleted) "
                + "were discarded; end it with save, or run folio with --save-at-end (--discard-at-end to discard them on purpose)\n")
        #expect(try documentText(animals) == before)
    }

    @Test("--save-at-end saves what the script left unsaved; --discard-at-end discards it with a note and exits 0")
    func unsavedAtEndOnPurpose() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let animals = try folder.copySample("Animals.folio")
        let before = try documentText(animals)
        let discarded = try runFolio([animals.path, "--discard-at-end"], input: "insert AnimalCategory name=Cryptid\n", in: folder.url)
        #expect(discarded.status == 0)
        #expect(discarded.stderr == "note: unsaved changes discarded at the end of the script (1 inserted, 0 changed, 0 deleted)\n")
        #expect(try documentText(animals) == before)
        let saved = try runFolio([animals.path, "--save-at-end"], input: "insert AnimalCategory name=Cryptid\n", in: folder.url)
        #expect(saved.status == 0, "\(saved.stderr)")
        #expect(try runFolio([animals.path], input: "count AnimalCategory where name == \"Cryptid\"\n", in: folder.url).stdout == "1\n")
        // Nothing unsaved: nothing to say, whatever was asked.
        let clean = try runFolio([animals.path], input: "count Animal\n", in: folder.url)
        #expect(clean.status == 0 && clean.stderr.isEmpty)
        let both = try runFolio([animals.path, "--save-at-end", "--discard-at-end"], input: "", in: folder.url)
        #expect(both.status != 0 && both.stderr.contains("exclude each other"), "\(both.stderr)")
    }

    @Test("a destructive command without --yes fails the script and changes nothing")
    func destructiveNeedsYes() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let animals = try folder.copySample("Animals.folio")
        let before = try documentText(animals)
        let run = try runFolio([animals.path], input: "help\ndelete all Animal\nsave\n", in: folder.url)
        #expect(run.status == 1)
        #expect(run.stderr.hasPrefix("error: 2: "), "\(run.stderr)")
        #expect(run.stderr.contains("--yes"))
        #expect(try documentText(animals) == before)
    }

    @Test("--yes answers the confirmation: the deletion is saved")
    func destructiveWithYes() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let animals = try folder.copySample("Animals.folio")
        let run = try runFolio([animals.path, "--yes"], input: "delete all Animal\nsave\ncount Animal\n", in: folder.url)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.lines.last == "0")
        let document = try documentText(animals)
        #expect(!document.contains("<Animal "))
        #expect(document.contains("<AnimalCategory "))
    }

    @Test("quit with unsaved changes asks, so a script needs --yes or quit!")
    func quitWithUnsavedChanges() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let animals = try folder.copySample("Animals.folio")
        let refused = try runFolio([animals.path], input: "insert AnimalCategory name=Cryptid\nquit\n", in: folder.url)
        #expect(refused.status == 1)
        #expect(refused.stderr.hasPrefix("error: 2: "), "\(refused.stderr)")
        let forced = try runFolio([animals.path], input: "insert AnimalCategory name=Cryptid\nquit!\n", in: folder.url)
        #expect(forced.status == 0)
        #expect(forced.stderr == "")
    }

    @Test("--json: every line on stdout and on stderr is a JSON object; one result per command, the error with its line and column")
    func json() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let animals = try folder.copySample("Animals.folio")
        let commands = [
            "help", "help list", "schema", "list AnimalCategory sort name", "count Animal", "show 2",
            "insert AnimalCategory name=Cryptid as cryptid", "set 2 name=Eft", "link 2 category $cryptid", "unlink $cryptid animals 2",
            "delete 24", "undo", "redo", "history", "status", "save", "changes", "revert", "delete all Animal",
            "revert", "save as Copy.folio", "# a comment", "", "list Animal where nme == 'x'",
        ]
        let run = try runFolio([animals.path, "--json", "--yes"], input: commands.joined(separator: "\n") + "\n", in: folder.url)
        #expect(run.status == 1)
        func objects(_ text: String) throws -> [[String: Any]] {
            try text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map { line in
                try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not a JSON object: \(line)")
            }
        }
        let results = try objects(run.stdout)
        let ran = commands.dropLast().filter { !$0.isEmpty && !$0.hasPrefix("#") }
        #expect(results.map { $0["command"] as? String } == ran.map { $0.hasPrefix("save as") ? "save as" : String($0.split(separator: " ")[0]) })
        #expect(results[3]["total"] as? Int == 6)
        let diagnostics = try objects(run.stderr)
        #expect(diagnostics.dropLast().allSatisfy { $0["level"] as? String == "note" && $0["kind"] as? String == "preview" })
        let error = try #require(diagnostics.last)
        #expect(error["level"] as? String == "error")
        #expect(error["kind"] as? String == "predicate")
        #expect(error["line"] as? Int == commands.count)
        #expect(error["column"] as? Int == 19)
        #expect((error["message"] as? String)?.contains("nme") == true)
    }

    @Test("--json: a refused confirmation, unsaved changes at the end and a package that cannot be opened are JSON objects on stderr")
    func jsonDiagnostics() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let animals = try folder.copySample("Animals.folio")
        func object(_ line: Substring) throws -> [String: Any] {
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
        }
        let refused = try runFolio([animals.path, "--json"], input: "delete 24\n", in: folder.url)
        #expect(refused.status == 1)
        let lines = try refused.stderr.split(separator: "\n").map(object)
        #expect(lines.last?["kind"] as? String == "confirmation")
        #expect(lines.last?["line"] as? Int == 1)
        #expect(lines.last?["column"] == nil)
        #expect(try refused.stdout.split(separator: "\n").map(object).map { $0["cancelled"] as? Bool } == [true])

        let unsaved = try runFolio([animals.path, "--json"], input: "insert AnimalCategory name=X\n", in: folder.url)
        #expect(unsaved.status == 1)
        let discarded = try object(try #require(unsaved.stderr.split(separator: "\n").first))
        #expect(discarded["level"] as? String == "error")
        #expect(discarded["kind"] as? String == "unsavedChanges")
        let noted = try runFolio([animals.path, "--json", "--discard-at-end"], input: "insert AnimalCategory name=X\n", in: folder.url)
        #expect(noted.status == 0)
        let note = try object(try #require(noted.stderr.split(separator: "\n").first))
        #expect(note["level"] as? String == "note")
        #expect(note["kind"] as? String == "unsavedChanges")

        let missing = try runFolio(["Nowhere.folio", "--json"], input: "help\n", in: folder.url)
        #expect(missing.status == 1)
        #expect(missing.stdout == "")
        let open = try object(try #require(missing.stderr.split(separator: "\n").first))
        #expect(open["kind"] as? String == "open")
        #expect((open["message"] as? String)?.contains("Nowhere.folio") == true)
    }

    @Test("--yes: stdout holds results only; the delete and revert previews go to stderr")
    func yesPrintsResultsOnly() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let animals = try folder.copySample("Animals.folio")
        let run = try runFolio(
            [animals.path, "--yes"], input: "delete 24\ncount Animal\ninsert AnimalCategory name=X\nrevert\n",
            in: folder.url)
        #expect(run.status == 0, "\(run.stderr)")
        // The new category's id is in its writer's lane.
        #expect(
            run.lines.count == 4 && run.lines[2].hasPrefix("AnimalCategory#") && UInt64(run.lines[2].dropFirst("AnimalCategory#".count)) != nil,
            "\(run.lines)")
        #expect(
            run.lines.enumerated().filter { $0.offset != 2 }.map(\.element)
                == ["deleted 8 objects", "23", "reverted to Animals.folio as last saved (undo history cleared)"])
        #expect(run.stderr == "deletes 1 AnimalCategory, also deletes 7 Animal\ndiscards 1 inserted, 0 changed, 8 deleted\n")
    }

    @Test("--json: a usage error (no path, an unknown option) is one JSON object on stderr, exit status 64")
    func jsonUsageError() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        for arguments in [["--json"], ["--json", "--bogus", "x"]] {
            let run = try runFolio(arguments, in: folder.url)
            #expect(run.status == 64)
            #expect(run.stdout == "")
            let lines = run.stderr.split(separator: "\n")
            #expect(lines.count == 1, "\(run.stderr)")
            let object = try JSONSerialization.jsonObject(with: Data(run.stderr.utf8)) as? [String: Any]
            #expect(object?["level"] as? String == "error" && object?["kind"] as? String == "usage", "\(run.stderr)")
        }
        // Without --json, swift-argument-parser's own text.
        let plain = try runFolio(["--bogus"], in: folder.url)
        #expect(plain.status == 64 && plain.stderr.hasPrefix("Error: "), "\(plain.stderr)")
    }
}
