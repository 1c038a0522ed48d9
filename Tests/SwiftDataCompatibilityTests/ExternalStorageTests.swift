// @Attribute(.externalStorage) on String? and on any type,
// not only Data.
import Foundation
import FolioTestSupport
import Folio
import Testing

struct Attachment: Codable, Hashable {
    var fileName: String
    var bytes: Data
}

@Model
final class JournalEntry {
    var title: String
    @Attribute(.externalStorage) var notes: String?
    @Attribute(.externalStorage) var photo: Data?
    @Attribute(.externalStorage) var attachments: [Attachment] = []

    init(title: String, notes: String? = nil) {
        self.title = title
        self.notes = notes
    }
}

@Suite @MainActor struct ExternalStorageTests {
    let directory: TemporaryFolder
    let configuration: ModelConfiguration

    init() throws {
        directory = try TemporaryFolder()
        configuration = ModelConfiguration(url: directory.storeURL("Journal.store"))
    }

    @Test func externallyStoredNotesRoundTrip() throws {
        let notes = String(repeating: "A long day in the hills. ", count: 40_000)
        do {
            let context = ModelContext(try ModelContainer(for: JournalEntry.self, configurations: configuration))
            let entry = JournalEntry(title: "Hike", notes: notes)
            entry.photo = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0) })
            entry.attachments = [Attachment(fileName: "map.gpx", bytes: Data("<gpx/>".utf8))]
            context.insert(entry)
            context.insert(JournalEntry(title: "Rest day"))
            try context.save()
        }

        let context = ModelContext(try ModelContainer(for: JournalEntry.self, configurations: configuration))
        let entries = try context.fetch(FetchDescriptor<JournalEntry>(sortBy: [SortDescriptor(\.title)]))
        #expect(entries.map(\.title) == ["Hike", "Rest day"])
        #expect(entries[0].notes == notes)
        #expect(entries[0].photo?.count == 100_000)
        #expect(entries[0].attachments == [Attachment(fileName: "map.gpx", bytes: Data("<gpx/>".utf8))])
        #expect(entries[1].notes == nil)
        #expect(entries[1].photo == nil)
        #expect(entries[1].attachments.isEmpty)
    }

    @Test func notesSetToNilStayNil() throws {
        do {
            let context = ModelContext(try ModelContainer(for: JournalEntry.self, configurations: configuration))
            let entry = JournalEntry(title: "Hike", notes: "Windy")
            context.insert(entry)
            try context.save()
            entry.notes = nil
            try context.save()
        }

        let context = ModelContext(try ModelContainer(for: JournalEntry.self, configurations: configuration))
        let entry = try #require(try context.fetch(FetchDescriptor<JournalEntry>()).first)
        #expect(entry.notes == nil)
    }

    @Test func theSchemaMarksTheNotesExternal() {
        let entity = Schema([JournalEntry.self]).entities.first { $0.name == "JournalEntry" }
        let notes = entity?.attributes.first { $0.name == "notes" }
        #expect(notes?.options.contains(.externalStorage) == true)
        #expect(notes?.isOptional == true)
    }
}
