import Foundation
import Testing
@testable import Folio

/// The segment list: appending, filling up, removing, naming.
@Suite struct HistoryLogTests {
    static func transaction(_ ids: [UInt64], note: String = "") -> StoredTransaction {
        var transaction = StoredTransaction(number: 0, timestamp: StoredTransaction.recordedTimestamp(Date()), author: note.isEmpty ? nil : note,
                                            bundleIdentifier: "tests", processIdentifier: "1")
        transaction.inserted = [.init(entity: "Animal", ids: ids)]
        return transaction
    }

    @Test("appending numbers transactions from the log's next number and grows the last segment until it is full")
    func appending() throws {
        var log = HistoryLog(nextNumber: 7)
        #expect(log.append(Self.transaction([1]), folder: nil, limits: .standard) == 7)
        #expect(log.append(Self.transaction([2]), folder: nil, limits: .standard) == 8)
        #expect(log.segments.count == 1 && log.segments[0].first == 7 && log.segments[0].last == 8 && log.segments[0].count == 2)
        let big = String(repeating: "x", count: HistoryLog.segmentBytes)
        log.append(Self.transaction([3], note: big), folder: nil, limits: .standard)
        log.append(Self.transaction([4]), folder: nil, limits: .standard)
        #expect(log.segments.map(\.count) == [3, 1], "the segment past the size takes no more")
        #expect(try log.transactions(in: nil, limits: .standard).map(\.number) == [7, 8, 9, 10])
        // Names are content-addressed and well-formed.
        #expect(log.segments.allSatisfy { HistoryLog.isSegmentFileName($0.file) && $0.file.hasPrefix("\($0.first)-") })
    }

    @Test("removing rewrites only the segments that held what went, drops empty ones, and keeps numbering")
    func removing() throws {
        var log = HistoryLog()
        let big = String(repeating: "x", count: HistoryLog.segmentBytes)
        for index in 1...5 { log.append(Self.transaction([UInt64(index)], note: index == 2 ? big : ""), folder: nil, limits: .standard) }
        let before = log.segments.map(\.file)
        #expect(log.segments.map(\.count) == [2, 3])
        #expect(try log.remove(where: { $0.number <= 2 }, folder: nil, limits: .standard) == 2)
        #expect(log.segments.count == 1 && log.segments[0].file == before[1], "the untouched segment keeps its file")
        #expect(try log.remove(where: { $0.number == 4 }, folder: nil, limits: .standard) == 1)
        #expect(try log.transactions(in: nil, limits: .standard).map(\.number) == [3, 5])
        #expect(log.segments[0].file != before[1])
        #expect(log.append(Self.transaction([9]), folder: nil, limits: .standard) == 6)
    }

    @Test("only names the log makes count as its own files")
    func names() {
        #expect(HistoryLog.isSegmentFileName("12-0123456789abcdef.xml"))
        #expect(HistoryLog.isOwnEntry(".12-0123456789abcdef.xml.tmp"))
        for name in ["12-0123456789ABCDEF.xml", "x-0123456789abcdef.xml", "12-0123.xml", "../1-0123456789abcdef.xml",
                     "12-0123456789abcdef.txt", "notes.xml", "-0123456789abcdef.xml"] {
            #expect(!HistoryLog.isSegmentFileName(name), "\(name)")
        }
    }

    @Test("a manifest's history list is checked: numbers ascend, files are the log's, next is above them")
    func manifestList() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("folio-manifest-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("manifest.xml").path
        func read(_ history: String) throws -> HistoryLog? {
            let text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<folio format=\"2\">\n  <schema>\n    <entity name=\"A\">\n"
                + "      <attribute name=\"n\" type=\"int\"/>\n    </entity>\n  </schema>\n  <parts>\n  </parts>\n" + history + "</folio>\n"
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            let loader = DocumentLoader(file: path, mode: .manifest)
            try loader.parse(path: path)
            return loader.historyLog
        }
        #expect(try read("") == nil)
        let good = try read("  <history next=\"9\">\n    <segment first=\"1\" last=\"4\" count=\"3\" file=\"1-0123456789abcdef.xml\"/>\n"
                            + "    <segment first=\"6\" last=\"8\" count=\"3\" file=\"6-0123456789abcdef.xml\"/>\n  </history>\n")
        #expect(good?.nextNumber == 9 && good?.segments.map(\.first) == [1, 6])
        for bad in [
            "  <history next=\"5\">\n    <segment first=\"1\" last=\"8\" count=\"3\" file=\"1-0123456789abcdef.xml\"/>\n  </history>\n",
            "  <history next=\"9\">\n    <segment first=\"1\" last=\"4\" count=\"3\" file=\"../0123456789abcdef.xml\"/>\n  </history>\n",
            "  <history next=\"9\">\n    <segment first=\"4\" last=\"4\" count=\"1\" file=\"4-0123456789abcdef.xml\"/>\n"
                + "    <segment first=\"1\" last=\"2\" count=\"1\" file=\"1-0123456789abcdef.xml\"/>\n  </history>\n",
            "  <history next=\"9\">\n    <segment first=\"1\" last=\"2\" count=\"5\" file=\"1-0123456789abcdef.xml\"/>\n  </history>\n",
            "  <history>\n  </history>\n",
            "  <history next=\"2\">\n  </history>\n  <history next=\"3\">\n  </history>\n",
        ] {
            #expect(throws: PackageError.self, "\(bad)") { try read(bad) }
        }
    }
}
