import Foundation
import FolioTestSupport
import Folio
import Testing

// A survey app keeps answers that may be missing as arrays of optionals, as
// SwiftData stores them (issue 32, item 1: Folio used to drop such a model at
// insert, with only a log line, and `save()` succeeded having kept nothing).

@Model
final class SurveyResponse {
    var respondent: String
    var answers: [String?]
    var scores: [Int?]
    var extras: [String: Double?]

    init(respondent: String, answers: [String?], scores: [Int?], extras: [String: Double?] = [:]) {
        self.respondent = respondent
        self.answers = answers
        self.scores = scores
        self.extras = extras
    }
}

@Model
final class SensorLog {
    var name: String
    var readings: [Double?]
    var flags: [Bool?]
    var times: [Date?]
    var ids: [UUID?]
    var blobs: [Data?]
    var amounts: [Decimal?]
    var links: [URL?]
    var codes: Set<Int?>

    init(
        name: String, readings: [Double?], flags: [Bool?], times: [Date?], ids: [UUID?], blobs: [Data?],
        amounts: [Decimal?], links: [URL?], codes: Set<Int?>
    ) {
        self.name = name
        self.readings = readings
        self.flags = flags
        self.times = times
        self.ids = ids
        self.blobs = blobs
        self.amounts = amounts
        self.links = links
        self.codes = codes
    }
}

@Suite @MainActor struct OptionalElementsTests {
    let directory: TemporaryFolder

    init() throws {
        directory = try TemporaryFolder()
    }

    func makeContainer() throws -> ModelContainer {
        try ModelContainer(for: SurveyResponse.self, configurations: ModelConfiguration(url: directory.storeURL()))
    }

    @Test func arraysOfOptionalsHoldingNilAreStoredAndReadBackExactly() throws {
        do {
            let container = try makeContainer()
            let context = container.mainContext
            let ada = SurveyResponse(
                respondent: "Ada", answers: [nil, "yes"], scores: [3, nil, nil, 5],
                extras: ["weight": nil, "height": 1.7])
            context.insert(ada)
            context.insert(SurveyResponse(respondent: "Grace", answers: [], scores: [nil]))
            #expect(ada.answers == [nil, "yes"], "read back in memory, before the save")
            #expect(ada.scores == [3, nil, nil, 5])
            try context.save()
            #expect(try context.fetchCount(FetchDescriptor<SurveyResponse>()) == 2)
            let fetched = try context.fetch(FetchDescriptor<SurveyResponse>(predicate: #Predicate { $0.respondent == "Ada" }))
            #expect(fetched.map(\.answers) == [[nil, "yes"]], "read back in memory, after the save")
        }
        let container = try makeContainer()
        let responses = try container.mainContext.fetch(FetchDescriptor<SurveyResponse>(sortBy: [SortDescriptor(\.respondent)]))
        try #require(responses.count == 2, "a response was not stored")
        #expect(responses[0].answers == [nil, "yes"])
        #expect(responses[0].scores == [3, nil, nil, 5])
        #expect(responses[0].extras == ["weight": nil, "height": 1.7])
        #expect(responses[1].answers == [])
        #expect(responses[1].scores == [nil])
    }

    @Test func arraysOfEveryOptionalScalarHoldingNilAreStoredAndReadBackExactly() throws {
        let id = UUID()
        let link = URL(string: "https://example.com/a")
        let configuration = ModelConfiguration(url: directory.storeURL("Sensors.store"))
        do {
            let context = try ModelContainer(for: SensorLog.self, configurations: configuration).mainContext
            context.insert(
                SensorLog(
                    name: "roof", readings: [nil, 1.5], flags: [true, nil], times: [nil, .day(3)],
                    ids: [id, nil], blobs: [nil, Data([1, 2])], amounts: [Decimal(string: "2.50"), nil],
                    links: [nil, link], codes: [nil, 7]))
            try context.save()
        }
        let context = try ModelContainer(for: SensorLog.self, configurations: configuration).mainContext
        let log = try #require(try context.fetch(FetchDescriptor<SensorLog>()).first, "the log was not stored")
        #expect(log.readings == [nil, 1.5])
        #expect(log.flags == [true, nil])
        #expect(log.times == [nil, .day(3)])
        #expect(log.ids == [id, nil])
        #expect(log.blobs == [nil, Data([1, 2])])
        #expect(log.amounts == [Decimal(string: "2.50"), nil])
        #expect(log.links == [nil, link])
        #expect(log.codes == [nil, 7])
    }

    @Test func anEditToAnArrayOfOptionalsIsSavedAndUndoable() throws {
        let container = try makeContainer()
        let context = container.mainContext
        context.undoManager = UndoManager()
        let response = SurveyResponse(respondent: "Ada", answers: ["no"], scores: [])
        context.insert(response)
        try context.save()
        response.answers.append(nil)
        #expect(response.answers == ["no", nil])
        context.undoManager?.undo()
        #expect(response.answers == ["no"])
        context.undoManager?.redo()
        try context.save()
        let reopened = try makeContainer()
        #expect(try reopened.mainContext.fetch(FetchDescriptor<SurveyResponse>()).first?.answers == ["no", nil])
    }

    @Test func theSchemaRecordsOptionalElements() throws {
        let schema = Schema([SurveyResponse.self])
        let entity = try #require(schema.entities.first { $0.name == "SurveyResponse" })
        #expect(entity.attributes.first { $0.name == "answers" }?.type == .array(.optional(.string)))
        #expect(entity.attributes.first { $0.name == "scores" }?.type == .array(.optional(.int)))
        #expect(entity.attributes.first { $0.name == "extras" }?.type == .dictionary(.optional(.double)))
        #expect(ValueType("array(string?)") == .array(.optional(.string)))
        #expect(ValueType.array(.optional(.string)).description == "array(string?)")
    }
}

// A value the document cannot hold, given through SwiftData's `insert(_:)`
// (which cannot throw): the model is refused and reported, and the next
// `save()` throws it, so a save never succeeds as if the model had been
// stored (issue 32, item 1). A property's setter refuses the value at the
// edit: the model keeps its old value, reported.

@Model
final class LedgerEntry {
    var memo: String
    var amount: Decimal

    init(memo: String, amount: Decimal) {
        self.memo = memo
        self.amount = amount
    }
}

@Suite @MainActor struct RefusedInsertTests {
    let directory: TemporaryFolder

    init() throws {
        directory = try TemporaryFolder()
    }

    func makeContainer() throws -> ModelContainer {
        try ModelContainer(for: LedgerEntry.self, configurations: ModelConfiguration(url: directory.storeURL()))
    }

    @Test func aSaveAfterARefusedInsertThrowsItOnceAndWritesNothing() throws {
        let container = try makeContainer()
        let context = container.mainContext
        var reported: [ModelError] = []
        context.autosaveErrorHandler = { reported.append($0) }
        context.insert(LedgerEntry(memo: "good", amount: 12))
        context.insert(LedgerEntry(memo: "not a number", amount: .nan))  // no text the format can read back
        #expect(reported.count == 1, "the refusal is reported when it happens")
        do {
            try context.save()
            Issue.record("the save succeeded as if the refused model had been stored")
        } catch {
            guard case .refusedInserts(let edits) = error else { Issue.record("\(error)"); return }
            #expect(edits.count == 1)
            #expect(error.description.contains("save refused"))
        }
        #expect(try makeContainer().mainContext.fetchCount(FetchDescriptor<LedgerEntry>()) == 0, "nothing was written")
        // Told once: the next save writes what was kept.
        try context.save()
        let reopened = try makeContainer()
        #expect(try reopened.mainContext.fetch(FetchDescriptor<LedgerEntry>()).map(\.memo) == ["good"])
    }

    @Test func aRefusedPropertyEditKeepsTheModelAndItsValueAndTheSaveWritesIt() throws {
        let container = try makeContainer()
        let context = container.mainContext
        var reported = 0
        context.autosaveErrorHandler = { _ in reported += 1 }
        let entry = LedgerEntry(memo: "rent", amount: 900)
        context.insert(entry)
        try context.save()
        entry.amount = .nan
        #expect(reported == 1)
        #expect(entry.amount == 900, "the property keeps its value")
        entry.memo = "rent, March"
        try context.save()
        let reopened = try makeContainer().mainContext.fetch(FetchDescriptor<LedgerEntry>())
        #expect(reopened.map(\.memo) == ["rent, March"])
        #expect(reopened.map(\.amount) == [900])
    }

    @Test func aModelOfAnotherContextNotSavedThereIsARefusedInsertHere() throws {
        let container = try makeContainer()
        let drafts = ModelContext(container)
        let entry = LedgerEntry(memo: "draft", amount: 5)
        drafts.insert(entry)
        let context = container.mainContext
        context.autosaveErrorHandler = { _ in }
        context.insert(entry)
        #expect(throws: ModelError.self, "the main context never had the draft's object") {
            try context.save()
        }
        try drafts.save()
        #expect(try makeContainer().mainContext.fetch(FetchDescriptor<LedgerEntry>()).map(\.memo) == ["draft"])
    }

    @Test func rollbackForgetsARefusedInsert() throws {
        let container = try makeContainer()
        let context = container.mainContext
        context.autosaveErrorHandler = { _ in }
        context.insert(LedgerEntry(memo: "bad", amount: .nan))
        context.rollback()
        try context.save()
    }
}
