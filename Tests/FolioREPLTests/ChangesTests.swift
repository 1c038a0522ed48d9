import Folio
import Foundation
import PropertyBased
import Testing
import FolioTestSupport
@testable import FolioREPL

/// `changes [since TOKEN]`: the document's saved history.
@Suite struct ChangesTests {
    @Test("changes lists each save's inserts, updates with their properties, and deletes with cascades, as runs of ids")
    func listsTransactions() throws {
        let session = try Session("Animals", options: .init(assumeYes: true))
        #expect(try session.run("changes") == "no changes saved yet\n")
        try session.run("set 2 name=Eft diet=herbivorous")
        let olm = try firstNumber(in: try session.run("insert Animal name=Olm diet=carnivorous"))
        try session.run("save")
        try session.run("delete 1")
        try session.run("save")
        let lines = try session.run("changes").split(separator: "\n").map(String.init)
        try #require(lines.count == 6, "\(lines)")
        #expect(lines[0].hasPrefix("transaction 1  20") && lines[0].hasSuffix(", process \(ProcessInfo.processInfo.processIdentifier))"))
        #expect(lines[1] == "  insert Animal #\(olm)")
        #expect(lines[2] == "  update Animal #2: name, diet")
        #expect(lines[3].hasPrefix("transaction 2  "))
        #expect(lines[4] == "  delete AnimalCategory #1")
        #expect(lines[5] == "  delete Animal #2-5")
        #expect(try session.run("changes since 1").hasPrefix("transaction 2  "))
        #expect(try session.run("changes since 2") == "no changes saved since 2\n")
    }

    @Test("unsaved edits are not changes; undone and saved again they are")
    func onlySavedChanges() throws {
        let session = try Session("Animals")
        try session.run("set 2 name=Eft")
        #expect(try session.run("changes") == "no changes saved yet\n")
        try session.run("save")
        try session.run("undo")
        try session.run("save")
        let second = try session.run("changes since 1")
        #expect(second.hasPrefix("transaction 2  ") && second.hasSuffix("\n  update Animal #2: name\n"), "\(second)")
    }

    @Test("a transaction's time is shown at the millisecond history recorded, never one early")
    func timestampsAreTheRecordedMillisecond() async {
        // A recorded time reads back as the double nearest to it, often just below the millisecond.
        await checkProperty(count: 500, input: Gen.int64(in: -63_000_000_000_000...250_000_000_000_000)) { milliseconds in
            let date = Date(timeIntervalSinceReferenceDate: Double(milliseconds) / 1000)
            let whole = Int64((Double(milliseconds) / 1000).rounded(.down))
            let fraction = milliseconds - whole * 1000
            let seconds = Date.ISO8601FormatStyle().format(Date(timeIntervalSinceReferenceDate: Double(whole)))
            let expected = seconds.dropLast() + "." + String(format: "%03d", Int(fraction)) + "Z"
            #expect(Interpreter.timestamp(date) == expected, "\(milliseconds) ms")
        }
        #expect(Interpreter.timestamp(Date(timeIntervalSinceReferenceDate: 817_174_923.12)) == "2026-11-24T01:02:03.120Z")
    }

    @Test("a bad token or word is refused at its column")
    func errors() throws {
        let session = try Session("Animals")
        #expect(session.error("changes since x") == CommandError("'x' is not a token: a transaction number, as 'changes' shows", column: 15))
        #expect(session.error("changes since") == CommandError("a token (a transaction number) after 'since'", column: 14))
        #expect(session.error("changes after 3") == CommandError("unexpected 'after'; did you mean 'changes since TOKEN'?", column: 9))
        #expect(session.error("changes since 3 now") == CommandError("unexpected 'now'", column: 17))
    }

    @Test("with --json changes is one JSON object on one line, its transactions in order")
    func json() throws {
        let session = try Session("Animals", options: .init(json: true))
        let none = try #require(try JSONSerialization.jsonObject(with: Data(session.run("changes").utf8)) as? [String: Any])
        #expect(none["command"] as? String == "changes")
        #expect((none["transactions"] as? [Any])?.isEmpty == true)
        try session.run("set 2 name=Eft")
        try session.run("save")
        try session.run("set 3 name=Olm")
        try session.run("save")
        let line = try session.run("changes")
        #expect(line.split(separator: "\n").count == 1)
        let result = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let transactions = try #require(result["transactions"] as? [[String: Any]])
        #expect(transactions.map { $0["token"] as? String } == ["1", "2"])
        let object = transactions[0]
        #expect(object["token"] as? String == "1")
        #expect((object["updated"] as? [[String: Any]])?.first?["properties"] as? [String] == ["name"])
        #expect((object["updated"] as? [[String: Any]])?.first?["ranges"] as? [[Int]] == [[2, 2]])
        #expect((object["updated"] as? [[String: Any]])?.first?["count"] as? Int == 1)
    }

    @Test("a transaction naming a hundred million objects as one run is one line, and one range in JSON: no id is expanded")
    func hugeRun() throws {
        let session = try Session("Animals", options: .init(assumeYes: true))
        let olm = try firstNumber(in: try session.run("insert Animal name=Olm diet=carnivorous"))
        let last = olm + 99_999_999
        try session.run("save")
        let manifest = session.url.appendingPathComponent("manifest.xml")
        let text = try String(contentsOf: manifest, encoding: .utf8)
        let edited = text.replacingOccurrences(of: #"ids="\#(olm)""#, with: #"ids="\#(olm)-\#(last)""#)
            .replacingOccurrences(of: #"next-id="\#(olm + 1)""#, with: #"next-id="\#(last + 1)""#)
        #expect(edited != text)
        try edited.write(to: manifest, atomically: true, encoding: .utf8)
        let reopened = try Session(url: session.url)
        let lines = try reopened.run("changes").split(separator: "\n").map(String.init)
        #expect(lines.count == 2 && lines[1] == "  insert Animal #\(olm)-\(last)", "\(lines)")
        let json = try Session(url: session.url, options: .init(json: true))
        let result = try #require(try JSONSerialization.jsonObject(with: Data(json.run("changes").utf8)) as? [String: Any])
        let inserted = try #require((result["transactions"] as? [[String: Any]])?.first?["inserted"] as? [[String: Any]])
        #expect(inserted.first?["ranges"] as? [[Int]] == [[Int(olm), Int(last)]])
        #expect(inserted.first?["count"] as? Int == 100_000_000)
    }
}
