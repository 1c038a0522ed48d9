// an optional to-many relationship that was never assigned
// reads nil — before and after insert, and after reopening.
import Foundation
import FolioTestSupport
import Folio
import Testing

@Model
final class Tag {
    var name: String
    var notes: [Note]?

    init(name: String) {
        self.name = name
    }
}

@Model
final class Note {
    var title: String
    // A many-to-many: SwiftData infers no inverse for it, so the app names it.
    @Relationship(inverse: \Tag.notes) var tags: [Tag]?

    init(title: String) {
        self.title = title
    }
}

@Suite @MainActor struct OptionalToManyTests {
    @Test func aToManyNeverAssignedReadsNil() throws {
        let directory = try TemporaryFolder()
        let configuration = ModelConfiguration(url: directory.storeURL("Notes.store"))
        do {
            let context = ModelContext(try ModelContainer(for: Note.self, configurations: configuration))
            let note = Note(title: "Groceries")
            #expect(note.tags == nil)
            context.insert(note)
            #expect(note.tags == nil)
            try context.save()
            #expect(note.tags == nil)
        }

        let context = ModelContext(try ModelContainer(for: Note.self, configurations: configuration))
        let note = try #require(try context.fetch(FetchDescriptor<Note>()).first)
        #expect(note.tags == nil)
    }

    @Test func anAssignedToManyReadsItsModelsAfterReopening() throws {
        let directory = try TemporaryFolder()
        let configuration = ModelConfiguration(url: directory.storeURL("Notes.store"))
        do {
            let context = ModelContext(try ModelContainer(for: Note.self, configurations: configuration))
            let note = Note(title: "Groceries")
            note.tags = [Tag(name: "home")]
            context.insert(note)
            try context.save()
        }

        let context = ModelContext(try ModelContainer(for: Note.self, configurations: configuration))
        let note = try #require(try context.fetch(FetchDescriptor<Note>()).first)
        #expect(note.tags?.map(\.name) == ["home"])
        #expect(note.tags?.first?.notes?.first === note)
    }
}
