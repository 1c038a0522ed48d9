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

    @Test("random transactions with awkward names, authors and tombstone values read back exactly")
    func roundTripRandom() async {
        // One seed per transaction: a failure shrinks to the fewest transactions that still fail.
        await checkProperty(count: 40, input: Gen.uint64(in: 0...UInt64.max).array(of: 1...4)) { seeds in
            var transactions: [StoredTransaction] = []
            let strings = EdgeValues.strings
            for (index, seed) in seeds.enumerated() {
                var rng = SeededGenerator(seed: seed)
                let number = Int64(index + 1)
                var transaction = StoredTransaction(
                    number: number, timestamp: StoredTransaction.recordedTimestamp(Date(timeIntervalSinceReferenceDate: Double.random(in: -1e9...1e9, using: &rng))),
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
                    .init(entity: "Animal", id: id, values: [
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
        var transaction = StoredTransaction(number: 1, timestamp: StoredTransaction.recordedTimestamp(Date()), author: nil,
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
        #expect("\(parse(head + transaction + "    <insert entity=\"A\" ids=\"3-1\"/>\n  </transaction>\n</history>\n") as Any)".contains("1-0000000000000000.xml:4:"))
        #expect(parse(head + transaction + "  </transaction>\n" + transaction + "  </transaction>\n</history>\n") != nil,
                "numbers must ascend")
        #expect(parse(head + transaction + "    <frobnicate/>\n  </transaction>\n</history>\n") != nil)
        #expect(parse(head + "  <transaction id=\"1\" timestamp=\"yesterday\" bundle=\"b\" process=\"1\"/>\n</history>\n") != nil)
        #expect(parse("<?xml version=\"1.0\"?>\n<!DOCTYPE history [<!ENTITY x \"y\">]>\n<history/>\n") != nil)
        #expect(parse(head + transaction + "  </transaction>\n</history>\n") == nil)
    }
}
