import Folio
import Foundation
import PropertyBased
import Testing
import FolioTestSupport
@testable import FolioREPL

/// `changes [since TOKEN]`: the document's saved history.
@Suite struct ChangesTests {
    /// The numbers of the `transaction N  …` lines of `changes`.
    static func transactionNumbers(_ lines: [String]) -> [Int64] {
        lines.filter { $0.hasPrefix("transaction ") }.compactMap { Int64($0.dropFirst(12).prefix { $0 != " " }) }
    }

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
        // Transactions are numbered by time (docs/FORMAT.md, "History"), ascending.
        let numbers = Self.transactionNumbers(lines)
        try #require(numbers.count == 2 && numbers[0] < numbers[1], "\(lines)")
        #expect(lines[0].hasPrefix("transaction \(numbers[0])  20") && lines[0].hasSuffix(", process \(ProcessInfo.processInfo.processIdentifier))"))
        #expect(lines[1] == "  insert Animal #\(olm)")
        #expect(lines[2] == "  update Animal #2: name, diet")
        #expect(lines[3].hasPrefix("transaction \(numbers[1])  "))
        #expect(lines[4] == "  delete AnimalCategory #1")
        #expect(lines[5] == "  delete Animal #2-5")
        #expect(try session.run("changes since \(numbers[0])").hasPrefix("transaction \(numbers[1])  "))
        #expect(try session.run("changes since \(numbers[1])") == "no changes saved since \(numbers[1])\n")
    }

    @Test("unsaved edits are not changes; undone and saved again they are")
    func onlySavedChanges() throws {
        let session = try Session("Animals")
        try session.run("set 2 name=Eft")
        #expect(try session.run("changes") == "no changes saved yet\n")
        try session.run("save")
        try session.run("undo")
        try session.run("save")
        let first = try #require(Self.transactionNumbers(try session.run("changes").split(separator: "\n").map(String.init)).first)
        let second = try session.run("changes since \(first)")
        #expect(
            second.hasPrefix("transaction ") && second.split(separator: "\n").count == 2
                && second.hasSuffix("\n  update Animal #2: name\n"), "\(second)")
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
        let tokens = transactions.compactMap { ($0["token"] as? String).flatMap { Int64($0) } }
        #expect(tokens.count == 2 && tokens[0] < tokens[1], "\(transactions)")
        let object = transactions[0]
        #expect((object["updated"] as? [[String: Any]])?.first?["properties"] as? [String] == ["name"])
        #expect((object["updated"] as? [[String: Any]])?.first?["ranges"] as? [[Int]] == [[2, 2]])
        #expect((object["updated"] as? [[String: Any]])?.first?["count"] as? Int == 1)
    }

    @Test("a transaction naming a hundred million objects as one run is one line, and one range in JSON: no id is expanded")
    func hugeRun() throws {
        var session: Session? = try Session("Animals", options: .init(assumeYes: true))
        let url = try #require(session?.url)
        let olm = try firstNumber(in: try #require(session).run("insert Animal name=Olm diet=carnivorous"))
        let last = olm + 99_999_999
        try session?.run("save")
        // Closed, so the edit below is read from the package, as another program would find it.
        session = nil
        // The one history file this session's save wrote (format 3: one per writer).
        let history = url.appendingPathComponent("history")
        let file = try #require(
            try FileManager.default.contentsOfDirectory(atPath: history.path)
                .first { !$0.hasPrefix("00000000-") && !$0.hasPrefix(".") })
        let text = try String(contentsOf: history.appendingPathComponent(file), encoding: .utf8)
        let edited = text.replacingOccurrences(of: #"ids="\#(olm)""#, with: #"ids="\#(olm)-\#(last)""#)
        #expect(edited != text)
        try edited.write(to: history.appendingPathComponent(file), atomically: true, encoding: .utf8)
        let reopened = try Session(url: url)
        let lines = try reopened.run("changes").split(separator: "\n").map(String.init)
        #expect(lines.count == 2 && lines[1] == "  insert Animal #\(olm)-\(last)", "\(lines)")
        let json = try Session(url: url, options: .init(json: true))
        let result = try #require(try JSONSerialization.jsonObject(with: Data(json.run("changes").utf8)) as? [String: Any])
        let inserted = try #require((result["transactions"] as? [[String: Any]])?.first?["inserted"] as? [[String: Any]])
        #expect(inserted.first?["ranges"] as? [[Int]] == [[Int(olm), Int(last)]])
        #expect(inserted.first?["count"] as? Int == 100_000_000)
    }
}
