import Foundation
import FolioTestSupport
import Folio
import Testing

// The next version of an app drops a model from its schema, and opens the
// store the previous version saved: SwiftData's lightweight migration drops
// the model's objects and the relationships to them, and the rest opens.

enum StickersV1 {
    @Model
    final class Novel {
        var title: String
        @Relationship(deleteRule: .cascade, inverse: \Sticker.novel) var stickers: [Sticker] = []
        var favourite: Sticker?

        init(title: String) { self.title = title }
    }

    @Model
    final class Sticker {
        var text: String
        var novel: Novel?

        init(text: String) { self.text = text }
    }
}

enum StickersV2 {
    @Model
    final class Novel {
        var title: String

        init(title: String) { self.title = title }
    }
}

@Suite @MainActor struct RemovedModelMigrationTests {
    @Test func aModelRemovedFromTheSchemaIsDroppedWithItsObjects() throws {
        let directory = try TemporaryFolder()
        let configuration = ModelConfiguration(url: directory.storeURL("Novels.store"))
        do {
            let context = ModelContext(try ModelContainer(for: StickersV1.Novel.self, configurations: configuration))
            for title in ["Emma", "Persuasion"] {
                let novel = StickersV1.Novel(title: title)
                context.insert(novel)
                novel.stickers = [StickersV1.Sticker(text: "\(title) 1"), StickersV1.Sticker(text: "\(title) 2")]
                novel.favourite = novel.stickers.first
            }
            try context.save()
            #expect(try context.fetchCount(FetchDescriptor<StickersV1.Sticker>()) == 4)
        }

        do {
            let container = try ModelContainer(for: StickersV2.Novel.self, configurations: configuration)
            #expect(container.schema.entities.map(\.name) == ["Novel"])
            let context = ModelContext(container)
            let novels = try context.fetch(FetchDescriptor<StickersV2.Novel>(sortBy: [SortDescriptor(\.title)]))
            #expect(novels.map(\.title) == ["Emma", "Persuasion"])
            context.insert(StickersV2.Novel(title: "Sanditon"))
            try context.save()
        }

        // Opened again by the new version: it is now that version's store.
        do {
            let context = ModelContext(try ModelContainer(for: StickersV2.Novel.self, configurations: configuration))
            #expect(try context.fetchCount(FetchDescriptor<StickersV2.Novel>()) == 3)
        }

        // The stickers are gone, not hidden: the old version finds none, and no links to them.
        let context = ModelContext(try ModelContainer(for: StickersV1.Novel.self, configurations: configuration))
        #expect(try context.fetchCount(FetchDescriptor<StickersV1.Sticker>()) == 0)
        let novels = try context.fetch(FetchDescriptor<StickersV1.Novel>())
        #expect(novels.count == 3)
        #expect(novels.allSatisfy { $0.stickers.isEmpty && $0.favourite == nil })
    }
}
