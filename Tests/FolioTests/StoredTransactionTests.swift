import Foundation
import PropertyBased
import Testing
import Folio
@testable import FolioCore
import FolioTestSupport

/// A transaction's XML: identifiers as runs, escaped text, typed tombstone values, read back exactly.
@Suite struct StoredTransactionTests {
    /// Writes `transactions` as a segment file and reads it back with the loader.
    static func roundTrip(_ transactions: [StoredTransaction]) throws -> [StoredTransaction] {
        let folder = try temporaryFolderURL("history")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("1-0000000000000000.xml").path
        try Data(HistoryLog.encode(transactions)).write(to: URL(fileURLWithPath: path))
        let loader = DocumentLoader(file: path, mode: .history)
        try loader.parse(path: path)
        return loader.historyTransactions
    }

    @Test("random transactions with awkward names, authors and tombstone values read back exactly", .tags(.long))
    func roundTripRandom() async {
        // One seed per transaction: a failure shrinks to the fewest transactions that still fail.
        await checkProperty(count: TestEffort.cases(40), input: Gen.uint64(in: 0...UInt64.max).array(of: 1...4)) { seeds in
            var transactions: [StoredTransaction] = []
            let strings = EdgeValues.strings
            for (index, seed) in seeds.enumerated() {
                var rng = SeededGenerator(seed: seed)
                let number = Int64(index + 1)
                var transaction = StoredTransaction(
                    number: number,
                    timestamp: StoredTransaction.recordedTimestamp(Date(timeIntervalSinceReferenceDate: Double.random(in: -1e9...1e9, using: &rng))),
                    author: Bool.random(using: &rng) ? strings.randomElement(using: &rng) : nil,
                    bundleIdentifier: strings.randomElement(using: &rng)!, processIdentifier: "42")
                var next: UInt64 = 1
                func ids() -> [UInt64] {
                    (0..<Int.random(in: 1...3_000, using: &rng)).map { _ in
                        next += UInt64.random(in: 1...3, using: &rng)
                        return next
                    }
                }
                transaction.inserted = [.init(entity: "Animal", ids: ids()), .init(entity: "Category", ids: ids())]
                transaction.updated = [.init(entity: "Animal", properties: ["age", "name"], ids: ids())]
                let deleted = ids()
                transaction.deleted = [.init(entity: "Animal", ids: deleted)]
                transaction.tombstones = deleted.prefix(3).map { id in
                    .init(
                        entity: "Animal", id: id,
                        values: [
                            ("name", .string, .string(strings.randomElement(using: &rng)!)),
                            ("tags", .set(.string), .set([.string("a"), .string("b\u{1}")])),
                            ("born", .date, .date(Date(timeIntervalSinceReferenceDate: 0.1))),
                            ("extra", .any, .int(-7)),
                        ])
                }
                transactions.append(transaction)
            }
            let back = try Self.roundTrip(transactions)
            #expect(back == transactions, "transaction seeds \(seeds)")
        }
    }

    @Test("a long list of scattered identifiers is cut into elements of at most 1,000 runs, and joined again on reading")
    func longLists() throws {
        var transaction = StoredTransaction(
            number: 1, timestamp: StoredTransaction.recordedTimestamp(Date()), author: nil,
            bundleIdentifier: "b", processIdentifier: "1")
        let ids = (1...2_500).map { UInt64($0) * 2 }
        transaction.deleted = [.init(entity: "Animal", ids: ids)]
        transaction.updated = [.init(entity: "Animal", properties: ["age"], ids: ids)]
        let text = String(decoding: HistoryLog.encode([transaction]), as: UTF8.self)
        #expect(text.components(separatedBy: "<delete ").count - 1 == 3)
        #expect(text.components(separatedBy: "<update ").count - 1 == 3)
        #expect(text.split(separator: "\n").allSatisfy { $0.utf8.count < 64 * 1024 })
        #expect(try Self.roundTrip([transaction]) == [transaction])
    }

    @Test("a history segment's errors name its file, line and what was expected")
    func errors() throws {
        let folder = try temporaryFolderURL("history")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("1-0000000000000000.xml").path
        func parse(_ text: String) -> PackageError? {
            try? Data(text.utf8).write(to: URL(fileURLWithPath: path))
            do {
                try DocumentLoader(file: path, mode: .history).parse(path: path)
                return nil
            } catch { return error }
        }
        let head = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<history>\n"
        let transaction = "  <transaction id=\"3\" timestamp=\"2026-01-01T00:00:00.000Z\" bundle=\"b\" process=\"1\">\n"
        #expect(
            "\(parse(head + transaction + "    <insert entity=\"A\" ids=\"3-1\"/>\n  </transaction>\n</history>\n") as Any)".contains(
                "1-0000000000000000.xml:4:"))
        #expect(
            parse(head + transaction + "  </transaction>\n" + transaction + "  </transaction>\n</history>\n") != nil,
            "numbers must ascend")
        #expect(parse(head + transaction + "    <frobnicate/>\n  </transaction>\n</history>\n") != nil)
        #expect(parse(head + "  <transaction id=\"1\" timestamp=\"yesterday\" bundle=\"b\" process=\"1\"/>\n</history>\n") != nil)
        #expect(parse("<?xml version=\"1.0\"?>\n<!DOCTYPE history [<!ENTITY x \"y\">]>\n<history/>\n") != nil)
        #expect(parse(head + transaction + "  </transaction>\n</history>\n") == nil)
    }

    @Test("renamed after a migration: entities and properties take their new names, what was dropped goes, and updates that now name the same properties join")
    func renamed() throws {
        var transaction = StoredTransaction(
            number: 1, timestamp: StoredTransaction.recordedTimestamp(Date()), author: nil,
            bundleIdentifier: "b", processIdentifier: "1")
        transaction.inserted = [.init(entity: "Animal", ids: [1, 2]), .init(entity: "Category", ids: [3])]
        transaction.updated = [
            .init(entity: "Animal", properties: ["age", "notes"], ids: [4, 5]),
            .init(entity: "Animal", properties: ["age"], ids: [2, 6]),
            .init(entity: "Animal", properties: ["notes"], ids: [7]),
            .init(entity: "Category", properties: ["name"], ids: [3]),
        ]
        transaction.deleted = [.init(entity: "Animal", ids: [8])]
        transaction.tombstones = [
            .init(entity: "Animal", id: 8, values: [("name", .string, .string("Tom")), ("notes", .string, .string("cat"))]),
            .init(entity: "Category", id: 9, values: [("name", .string, .string("Fish"))]),
        ]
        // Animal is Creature, age is years; notes and Category are dropped.
        let renamed = transaction.renamed(
            entity: { $0 == "Animal" ? "Creature" : nil },
            property: { name, entity in
                guard entity == "Animal" else { return nil }
                return ["age": "years", "name": "name"][name]
            })
        #expect(renamed.inserted == [.init(entity: "Creature", ids: [1, 2])])
        #expect(renamed.updated == [.init(entity: "Creature", properties: ["years"], ids: [2, 4, 5, 6])])
        #expect(renamed.deleted == [.init(entity: "Creature", ids: [8])])
        #expect(renamed.tombstones == [.init(entity: "Creature", id: 8, values: [("name", .string, .string("Tom"))])])
        #expect(renamed.number == transaction.number && renamed.timestamp == transaction.timestamp)
        #expect(try Self.roundTrip([renamed]) == [renamed], "what a rename makes, the loader reads")
    }

    @Test("a history file read against a schema refuses an entity, a property or a tombstone type the schema does not declare")
    func checkedAgainstSchema() throws {
        let schema = try Schema([.init("Animal", attributes: [.init("name", .string), .init("age", .int)])])
        let folder = try temporaryFolderURL("history")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("1-0000000000000000.xml").path
        func parse(_ body: String) -> PackageError? {
            let text =
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<history>\n"
                + "  <transaction id=\"3\" timestamp=\"2026-01-01T00:00:00.000Z\" bundle=\"b\" process=\"1\">\n"
                + body + "  </transaction>\n</history>\n"
            try? Data(text.utf8).write(to: URL(fileURLWithPath: path))
            let loader = DocumentLoader(file: path, mode: .history)
            loader.historySchema = schema
            do {
                try loader.parse(path: path)
                return nil
            } catch { return error }
        }
        #expect(
            parse(
                "    <insert entity=\"Animal\" ids=\"1\"/>\n    <update entity=\"Animal\" properties=\"name age\" ids=\"2\"/>\n"
                    + "    <delete entity=\"Animal\" ids=\"4\"/>\n    <tombstone entity=\"Animal\" id=\"4\">\n"
                    + "      <value name=\"age\" type=\"int\" text=\"3\"/>\n    </tombstone>\n") == nil)
        #expect("\(parse("    <insert entity=\"Plant\" ids=\"1\"/>\n") as Any)".contains("1-0000000000000000.xml:4:"))
        #expect("\(parse("    <update entity=\"Animal\" properties=\"name weight\" ids=\"2\"/>\n") as Any)".contains("weight"))
        #expect(parse("    <delete entity=\"Animal\" ids=\"4\"/>\n    <tombstone entity=\"Plant\" id=\"4\">\n    </tombstone>\n") != nil)
        let retyped = parse(
            "    <delete entity=\"Animal\" ids=\"4\"/>\n    <tombstone entity=\"Animal\" id=\"4\">\n"
                + "      <value name=\"age\" type=\"string\" text=\"3\"/>\n    </tombstone>\n")
        #expect("\(retyped as Any)".contains("type int"))
        #expect(
            parse(
                "    <delete entity=\"Animal\" ids=\"4\"/>\n    <tombstone entity=\"Animal\" id=\"4\">\n"
                    + "      <value name=\"color\" type=\"string\" text=\"red\"/>\n    </tombstone>\n") != nil)
    }

    @Test("a history a migration left under the old names (before migrations renamed histories) reads under the names the schema renamed them to")
    func oldNamesRead() throws {
        let schema = try Schema([
            .init(
                "Creature", attributes: [.init("name", .string), .init("years", .int, originalName: "age")],
                originalName: "Animal")
        ])
        let folder = try temporaryFolderURL("history")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("1-0000000000000000.xml").path
        let text =
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<history>\n"
            + "  <transaction id=\"3\" timestamp=\"2026-01-01T00:00:00.000Z\" bundle=\"b\" process=\"1\">\n"
            + "    <update entity=\"Animal\" properties=\"name age\" ids=\"2\"/>\n    <delete entity=\"Animal\" ids=\"4\"/>\n"
            + "    <tombstone entity=\"Animal\" id=\"4\">\n      <value name=\"age\" type=\"int\" text=\"3\"/>\n    </tombstone>\n"
            + "  </transaction>\n</history>\n"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        let loader = DocumentLoader(file: path, mode: .history)
        loader.historySchema = schema
        try loader.parse(path: path)
        let transaction = try #require(loader.historyTransactions.first)
        #expect(transaction.updated == [.init(entity: "Creature", properties: ["name", "years"], ids: [2])])
        #expect(transaction.deleted == [.init(entity: "Creature", ids: [4])])
        #expect(transaction.tombstones == [.init(entity: "Creature", id: 4, values: [("years", .int, .int(3))])])
    }
}
