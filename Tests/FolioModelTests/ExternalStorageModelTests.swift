import Foundation
import Folio
import Testing
import FolioTestSupport

/// A model as a real app writes it: a long, optional text kept beside the document.
@Model
final class Memo {
    var title: String
    @Attribute(.externalStorage) var notes: String?

    init(title: String, notes: String? = nil) {
        self.title = title
        self.notes = notes
    }
}

@Suite struct ExternalStorageModelTests {
    /// Lives as long as the test: external values are read from the package when first used.
    let folder: TemporaryFolder
    var url: URL { folder.url.appendingPathComponent("Memos.folio") }

    init() throws { folder = try TemporaryFolder() }

    func container(allowsSave: Bool = true) throws -> ModelContainer {
        try ModelContainer(for: Memo.self, configurations: ModelConfiguration(url: url, allowsSave: allowsSave))
    }

    /// Five megabytes of text, not all ASCII.
    static let large = String(repeating: "Lorem ipsum dolor sit amet, ✓ 🦊 ", count: 5_000_000 / 37 + 1)
    static let samples: [(title: String, notes: String?)] = [
        ("a-nil", nil), ("b-empty", ""), ("c-large", large), ("d-unicode", "é\u{301} 🦊 \u{0}\u{FFFF} ∑ 你好\n\t\"'<&>"),
    ]

    @Test("an externally stored String? keeps nil, empty, a 5 MB string and unicode through save, dropping the container and reopening")
    func roundTrip() throws {
        #expect(Self.large.utf8.count >= 5_000_000)
        do {
            let context = ModelContext(try container())
            for sample in Self.samples { context.insert(Memo(title: sample.title, notes: sample.notes)) }
            try context.save()
        }
        let blobs = try FileManager.default.contentsOfDirectory(atPath: url.appendingPathComponent("blobs").path)
        #expect(blobs.count == 3, "nil has no blob; the empty string has one")
        let document = try packageText(url)
        #expect(!document.contains("Lorem") && !document.contains("你好"), "the text is not in the XML")

        let reopened = ModelContext(try container(allowsSave: false))
        let memos = try reopened.fetch(FetchDescriptor<Memo>(sortBy: [SortDescriptor(\.title)]))
        #expect(memos.map(\.title) == Self.samples.map(\.title))
        for (memo, sample) in zip(memos, Self.samples) {
            #expect(memo.notes == sample.notes, "\(sample.title)")
            #expect(memo.notes?.utf8.count == sample.notes?.utf8.count)
        }
    }

    @Test("a #Predicate and a sort on an externally stored String read the values, still on disk when the fetch starts")
    func fetchWithPredicate() throws {
        do {
            let context = ModelContext(try container())
            for sample in Self.samples { context.insert(Memo(title: sample.title, notes: sample.notes)) }
            context.insert(Memo(title: "e-short", notes: "Lorem"))
            try context.save()
        }
        let context = ModelContext(try container(allowsSave: false))
        let exact = try context.fetch(FetchDescriptor<Memo>(predicate: #Predicate { $0.notes == "Lorem" }))
        #expect(exact.map(\.title) == ["e-short"])
        let prefixed = try context.fetch(
            FetchDescriptor<Memo>(
                predicate: #Predicate { $0.notes?.starts(with: "Lorem") == true }, sortBy: [SortDescriptor(\.title)]))
        #expect(prefixed.map(\.title) == ["c-large", "e-short"])
        let none = try context.fetch(FetchDescriptor<Memo>(predicate: #Predicate { $0.notes == nil }))
        #expect(none.map(\.title) == ["a-nil"])
        let sorted = try context.fetch(FetchDescriptor<Memo>(sortBy: [SortDescriptor(\.notes), SortDescriptor(\.title)]))
        #expect(sorted.map(\.title) == ["a-nil", "b-empty", "e-short", "c-large", "d-unicode"], "\"Lorem\" sorts before \"Lorem ipsum…\"")
        #expect(try context.fetchCount(FetchDescriptor<Memo>(predicate: #Predicate { $0.notes != nil })) == 4)
    }

    @Test("undo of an edit of an externally stored String brings the old text back, and redo the new one, through a save")
    func undoOfEdit() throws {
        do {
            let context = ModelContext(try container())
            context.insert(Memo(title: "m", notes: "first draft"))
            try context.save()
        }
        let context = ModelContext(try container())
        context.undoManager = UndoManager()
        let memo = try #require(try context.fetch(FetchDescriptor<Memo>()).first)
        memo.notes = "second draft"
        context.processPendingChanges()
        #expect(context.hasChanges)
        context.undoManager?.undo()
        #expect(memo.notes == "first draft")
        #expect(!context.hasChanges, "back to the saved text: nothing to save")
        context.undoManager?.redo()
        #expect(memo.notes == "second draft")
        try context.save()
        memo.notes = nil
        try context.save()
        context.undoManager?.undo()
        #expect(memo.notes == "second draft")
        try context.save()

        let reopened = ModelContext(try ModelContainer(for: Memo.self, configurations: ModelConfiguration(url: url, allowsSave: false)))
        #expect(try reopened.fetch(FetchDescriptor<Memo>()).first?.notes == "second draft")
    }
}
