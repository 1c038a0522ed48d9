import Foundation
import Testing
import Folio
@testable import FolioCore
import FolioTestSupport

/// The history log: the open tail the manifest holds, the closed segments, removing, naming.
@Suite(.format2) struct HistoryLogTests {
    static func transaction(_ ids: [UInt64], note: String = "") -> StoredTransaction {
        var transaction = StoredTransaction(
            number: 0, timestamp: StoredTransaction.recordedTimestamp(Date()), author: note.isEmpty ? nil : note,
            bundleIdentifier: "tests", processIdentifier: "1")
        transaction.inserted = [.init(entity: "Animal", ids: ids)]
        return transaction
    }

    @Test("appending numbers transactions from the log's next number into the tail, which closes into a segment once full")
    func appending() throws {
        var log = HistoryLog(nextNumber: 7)
        #expect(log.append(Self.transaction([1])) == 7)
        #expect(log.append(Self.transaction([2])) == 8)
        #expect(log.segments.isEmpty && log.tail.map(\.number) == [7, 8], "no file until the tail is full")
        // The tail's elements are kept as transactions come, as the manifest writes them.
        var expected = ByteBuffer()
        for transaction in log.tail { transaction.append(to: &expected, nested: true) }
        #expect(log.tailElements == expected.bytes)
        let big = String(repeating: "x", count: HistoryLog.segmentBytes)
        log.append(Self.transaction([3], note: big))
        log.append(Self.transaction([4]))
        #expect(log.segments.map(\.count) == [3], "the tail past the size became a closed segment")
        #expect(log.segments.first?.first == 7 && log.segments.first?.last == 9)
        #expect(log.tail.map(\.number) == [10])
        #expect(try log.transactions(in: nil, limits: .standard, schema: nil).map(\.number) == [7, 8, 9, 10])
        // Names are content-addressed and well-formed.
        #expect(log.segments.allSatisfy { HistoryLog.isSegmentFileName($0.file) && $0.file.hasPrefix("\($0.first)-") })
    }

    @Test("removing rewrites only the segments that held what went, drops empty ones, trims the tail, and keeps numbering")
    func removing() throws {
        var log = HistoryLog()
        let big = String(repeating: "x", count: HistoryLog.segmentBytes)
        for index in 1...7 { log.append(Self.transaction([UInt64(index)], note: index == 2 || index == 5 ? big : "")) }
        let before = log.segments.map(\.file)
        #expect(log.segments.map(\.count) == [2, 3] && log.tail.map(\.number) == [6, 7])
        #expect(try log.remove(where: { $0.number <= 2 }, in: nil, limits: .standard, schema: nil) == 2)
        #expect(log.segments.count == 1 && log.segments[0].file == before[1], "the untouched segment keeps its file")
        #expect(try log.remove(where: { $0.number == 4 || $0.number == 6 }, in: nil, limits: .standard, schema: nil) == 2)
        #expect(try log.transactions(in: nil, limits: .standard, schema: nil).map(\.number) == [3, 5, 7])
        #expect(log.segments[0].file != before[1])
        var expected = ByteBuffer()
        for transaction in log.tail { transaction.append(to: &expected, nested: true) }
        #expect(log.tailElements == expected.bytes, "the tail's elements follow the removal")
        #expect(log.append(Self.transaction([9])) == 8)
    }

    @Test("a manifest holds the open tail: written after the segments, read back equal")
    func tailRoundTrip() throws {
        var log = HistoryLog(nextNumber: 3)
        log.append(Self.transaction([1, 2, 3, 9], note: "me & \"you\"\n"))
        log.append(Self.transaction([4]))
        let schema = try zooSchema()
        let folder = try temporaryFolderURL("tail")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("manifest.xml").path
        try Data(PackageManifest.bytes(schema: schema, parts: [], nextID: 10, history: log)).write(to: URL(fileURLWithPath: path))
        let loader = DocumentLoader(file: path, mode: .manifest)
        try loader.parse(path: path)
        let read = try #require(loader.historyLog)
        #expect(read.nextNumber == 5 && read.segments.isEmpty)
        #expect(read.tail == log.tail)
        #expect(read.tailElements == log.tailElements)
    }

    @Test("only names the log makes count as its own files")
    func names() {
        #expect(HistoryLog.isSegmentFileName("12-0123456789abcdef.xml"))
        #expect(HistoryLog.isOwnEntry(".12-0123456789abcdef.xml.tmp"))
        for name in [
            "12-0123456789ABCDEF.xml", "x-0123456789abcdef.xml", "12-0123.xml", "../1-0123456789abcdef.xml",
            "12-0123456789abcdef.txt", "notes.xml", "-0123456789abcdef.xml",
        ] {
            #expect(!HistoryLog.isSegmentFileName(name), "\(name)")
        }
    }

    @Test("a manifest's history list is checked: numbers ascend, files are the log's, next is above them")
    func manifestList() throws {
        let folder = try temporaryFolderURL("manifest")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("manifest.xml").path
        func read(_ history: String) throws -> HistoryLog? {
            let text =
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<folio format=\"2\">\n  <schema>\n    <entity name=\"A\">\n"
                + "      <attribute name=\"n\" type=\"int\"/>\n    </entity>\n  </schema>\n  <parts>\n  </parts>\n" + history + "</folio>\n"
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            let loader = DocumentLoader(file: path, mode: .manifest)
            try loader.parse(path: path)
            return loader.historyLog
        }
        #expect(try read("") == nil)
        let good = try read(
            "  <history next=\"9\">\n    <segment first=\"1\" last=\"4\" count=\"3\" file=\"1-0123456789abcdef.xml\"/>\n"
                + "    <segment first=\"6\" last=\"8\" count=\"3\" file=\"6-0123456789abcdef.xml\"/>\n  </history>\n")
        #expect(good?.nextNumber == 9 && good?.segments.map(\.first) == [1, 6])
        let transaction =
            "    <transaction id=\"%d\" timestamp=\"2026-01-01T00:00:00.000Z\" bundle=\"b\" process=\"1\">\n"
            + "      <insert entity=\"A\" ids=\"1\"/>\n    </transaction>\n"
        func tail(_ numbers: Int...) -> String { numbers.map { String(format: transaction, $0) }.joined() }
        let withTail = try read(
            "  <history next=\"12\">\n    <segment first=\"1\" last=\"4\" count=\"3\" file=\"1-0123456789abcdef.xml\"/>\n"
                + tail(9, 11) + "  </history>\n")
        #expect(withTail?.segments.count == 1 && withTail?.tail.map(\.number) == [9, 11])
        for bad in [
            "  <history next=\"5\">\n    <segment first=\"1\" last=\"8\" count=\"3\" file=\"1-0123456789abcdef.xml\"/>\n  </history>\n",
            "  <history next=\"9\">\n    <segment first=\"1\" last=\"4\" count=\"3\" file=\"../0123456789abcdef.xml\"/>\n  </history>\n",
            "  <history next=\"9\">\n    <segment first=\"4\" last=\"4\" count=\"1\" file=\"4-0123456789abcdef.xml\"/>\n"
                + "    <segment first=\"1\" last=\"2\" count=\"1\" file=\"1-0123456789abcdef.xml\"/>\n  </history>\n",
            "  <history next=\"9\">\n    <segment first=\"1\" last=\"2\" count=\"5\" file=\"1-0123456789abcdef.xml\"/>\n  </history>\n",
            "  <history>\n  </history>\n",
            "  <history next=\"2\">\n  </history>\n  <history next=\"3\">\n  </history>\n",
            // The tail comes after the segments, above their numbers, below next.
            "  <history next=\"12\">\n" + tail(9) + "    <segment first=\"1\" last=\"4\" count=\"3\" file=\"1-0123456789abcdef.xml\"/>\n  </history>\n",
            "  <history next=\"12\">\n    <segment first=\"1\" last=\"4\" count=\"3\" file=\"1-0123456789abcdef.xml\"/>\n"
                + tail(3) + "  </history>\n",
            "  <history next=\"9\">\n" + tail(9) + "  </history>\n",
            "  <history next=\"12\">\n" + tail(9, 7) + "  </history>\n",
        ] {
            #expect(throws: PackageError.self, "\(bad)") { try read(bad) }
        }
    }
}
