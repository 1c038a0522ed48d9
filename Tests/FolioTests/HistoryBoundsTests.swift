import Foundation
import FolioTestSupport
import Testing
import Folio
@testable import FolioCore

/// A history names objects as runs of identifiers (`ids="1-100000000"`): a
/// few bytes may stand for any number of objects. What a run may name is
/// bounded by what the document can hold, and runs are never expanded unless
/// a caller asks for one change per object.
@Suite(.format2) struct HistoryBoundsTests {
    /// A package whose manifest's one transaction inserted one Animal, with `edit`
    /// applied to the manifest's text and given the Animal's identifier.
    static func package(_ edit: (String, UInt64) -> String) throws -> URL {
        let url = temporaryPackageURL()
        let id: UInt64
        do {
            let context = try makeContext(try ModelContextHistoryTests.schema(), url: url)
            id = try context.insert("Animal", ["name": .string("Rex")]).id
            try context.save()
        }
        let manifest = url.appendingPathComponent("manifest.xml")
        let text = try String(contentsOf: manifest, encoding: .utf8)
        let edited = edit(text, id)
        #expect(edited != text)
        try edited.write(to: manifest, atomically: true, encoding: .utf8)
        return url
    }

    static func replacing(_ pairs: @escaping (UInt64) -> [(String, String)]) -> (String, UInt64) -> String {
        { text, id in pairs(id).reduce(text) { $0.replacingOccurrences(of: $1.0, with: $1.1) } }
    }

    /// The error opening a package throws, as a `PackageError` (and, with
    /// `readingHistory`, reading its whole history: a format-3 history file is
    /// read only then).
    static func refusal(_ url: URL, readingHistory: Bool = false) -> PackageError? {
        do {
            let context = try makeContext(try ModelContextHistoryTests.schema(), url: url)
            if readingHistory { _ = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()) }
            return nil
        } catch let ModelError.package(error) {
            return error
        } catch {
            Issue.record("unexpected \(error)")
            return nil
        }
    }

    @Test func `a run naming identifiers at or above the document's next-id is refused on open, naming the manifest, line and column`() throws {
        var rex: UInt64 = 0
        let url = try Self.package(
            Self.replacing { id in
                rex = id
                return [(#"ids="\#(id)""#, #"ids="\#(id)-\#(id + 99_999_999)""#)]
            })
        let error = try #require(Self.refusal(url))
        guard case .invalidValue(let location, _, "ids", let text, let expected) = error, text == "\(rex)-\(rex + 99_999_999)" else {
            Issue.record("got \(error)")
            return
        }
        #expect(location.file.hasSuffix("manifest.xml") && location.line > 1 && location.column > 1)
        #expect(expected.contains("next-id (\(rex + 1))"), "\(expected)")
    }

    @Test func `a run the counter allows is kept as one range: fetching the history makes no change per object, and its groups name the range`() throws {
        var rex: UInt64 = 0
        let url = try Self.package(
            Self.replacing { id in
                rex = id
                return [
                    (#"ids="\#(id)""#, #"ids="\#(id)-\#(id + 99_999_999)""#),
                    (#"next-id="\#(id + 1)""#, #"next-id="\#(id + 100_000_000)""#),
                ]
            })
        let context = try makeContext(try ModelContextHistoryTests.schema(), url: url)
        let transaction = try #require(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).first)
        #expect(
            transaction.changeGroups == [
                HistoryChangeGroup(
                    kind: .insert, entityName: "Animal", updatedAttributeNames: [],
                    identifierRanges: [rex...(rex + 99_999_999)], count: 100_000_000)
            ])
        #expect(!transaction.changeList.isMade)
    }

    @Test func `one transaction naming more objects than a document holds, over several entities, is refused`() throws {
        let limit = DocumentLimits.standard.maximumObjects
        // The runs name identifiers below the Animal's (a lane's): its next-id allows them.
        let url = try Self.package(
            Self.replacing { id in
                [
                    (
                        #"<insert entity="Animal" ids="\#(id)"/>"#,
                        #"<insert entity="AnimalCategory" ids="1-\#(limit / 2)"/><insert entity="Animal" ids="\#(limit / 2 + 1)-\#(limit + 1)"/>"#
                    )
                ]
            })
        let error = try #require(Self.refusal(url))
        guard case .invalidValue(_, "Animal", "ids", _, let expected) = error else {
            Issue.record("got \(error)")
            return
        }
        #expect(expected.contains("at most \(limit) inserts in one transaction"), "\(expected)")
    }

    @Test func `a history segment read after the open is bounded by the same counter, naming its file`() throws {
        let url = try ModelContextHistoryTests.packageWithOneSave()
        let folder = url.appendingPathComponent("history")
        let file = try #require(try FileManager.default.contentsOfDirectory(atPath: folder.path).first)
        let segment = folder.appendingPathComponent(file)
        let text = try String(contentsOf: segment, encoding: .utf8)
        // The one object the save inserted: its identifier is in the writer's lane.
        let match = try #require(text.firstMatch(of: /ids="(\d+)"/))
        let rex = try #require(UInt64(match.1))
        let edited = text.replacingOccurrences(of: #"ids="\#(rex)""#, with: #"ids="\#(rex)-\#(rex + 99_999_999)""#)
        #expect(edited != text)
        try edited.write(to: segment, atomically: true, encoding: .utf8)
        let context = try makeContext(try ModelContextHistoryTests.schema(), url: url)
        do {
            _ = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
            Issue.record("a run past next-id was read")
        } catch let ModelError.package(error) {
            #expect("\(error)".contains(file) && "\(error)".contains("next-id (\(rex + 1))"), "\(error)")
        }
    }

    @Test func `a segment closed by this session's saves reads back once dropped from memory: the counter rises with each transaction`() throws {
        let url = temporaryPackageURL()
        let context = try makeContext(try ModelContextHistoryTests.schema(), url: url)
        try context.insert("Animal", ["name": .string("Rex")])
        try context.save()
        let reopened = try makeContext(try ModelContextHistoryTests.schema(), url: url)
        reopened.author = String(repeating: "a", count: HistoryLog.segmentBytes)
        for index in 0..<3 {
            try reopened.insert("Animal", ["name": .string("a\(index)")])
            try reopened.save()
        }
        #expect(try reopened.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).count == 4)
    }
}
