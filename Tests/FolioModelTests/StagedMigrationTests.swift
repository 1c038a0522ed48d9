// How a migration plan meets the rest of a program: stores shared in the
// process, version labels kept across plan-less opens, model checks before
// the rewrite, stages that open other packages.
import Folio
import Foundation
import Testing
import FolioTestSupport

/// Two versions with the same models (NotebookV1's): the stage only rewrites
/// data, so running it twice corrupts the titles.
enum SameModelsV1: VersionedSchema {
    static let versionIdentifier = Schema.Version(1, 0, 0)
    static var models: [any PersistentModel.Type] { [NotebookV1.Note.self] }
}

enum SameModelsV2: VersionedSchema {
    static let versionIdentifier = Schema.Version(1, 1, 0)
    static var models: [any PersistentModel.Type] { [NotebookV1.Note.self] }
}

enum ExclaimPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [SameModelsV1.self, SameModelsV2.self] }
    static var stages: [MigrationStage] {
        [
            .custom(
                fromVersion: SameModelsV1.self, toVersion: SameModelsV2.self, willMigrate: nil,
                didMigrate: { context in
                    for note in try context.fetch(FetchDescriptor<NotebookV1.Note>()) { note.title += "!" }
                })
        ]
    }
}

/// Two versions whose entities are equal but whose `Codable` enum lost a case.
enum PayloadV1: VersionedSchema {
    static let versionIdentifier = Schema.Version(1, 0, 0)
    static var models: [any PersistentModel.Type] { [Box.self] }

    @Model
    final class Box {
        enum Kind: String, Codable { case small, large, retired }
        var kind: Kind
        init(kind: Kind) { self.kind = kind }
    }
}

enum PayloadV2: VersionedSchema {
    static let versionIdentifier = Schema.Version(2, 0, 0)
    static var models: [any PersistentModel.Type] { [Box.self] }

    @Model
    final class Box {
        enum Kind: String, Codable { case small, large }
        var kind: Kind
        init(kind: Kind) { self.kind = kind }
    }
}

enum PayloadPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [PayloadV1.self, PayloadV2.self] }
    static var stages: [MigrationStage] { [] }
}

/// A stage that opens another package (to export a backup, say) while it runs.
enum ReentrantPlan: SchemaMigrationPlan {
    static let backupURL = temporaryPackageURL("stage-backup")
    static var schemas: [any VersionedSchema.Type] { [NotebookV1.self, NotebookV2.self] }
    static var stages: [MigrationStage] {
        [
            .custom(
                fromVersion: NotebookV1.self, toVersion: NotebookV2.self,
                willMigrate: { _ in
                    let backup = ModelContext(
                        try ModelContainer(
                            for: NotebookV1.Note.self,
                            configurations: ModelConfiguration(url: backupURL)))
                    backup.insert(NotebookV1.Note(title: "backup"))
                    try backup.save()
                },
                didMigrate: nil)
        ]
    }
}

/// Three versions of a memo whose text is renamed twice: `text`, then `body`, then `content`.
enum MemoV1: VersionedSchema {
    static let versionIdentifier = Schema.Version(1, 0, 0)
    static var models: [any PersistentModel.Type] { [Memo.self] }

    @Model
    final class Memo {
        var text: String
        init(text: String) { self.text = text }
    }
}

enum MemoV2: VersionedSchema {
    static let versionIdentifier = Schema.Version(2, 0, 0)
    static var models: [any PersistentModel.Type] { [Memo.self] }

    @Model
    final class Memo {
        @Attribute(originalName: "text") var body: String
        init(body: String) { self.body = body }
    }
}

enum MemoV3: VersionedSchema {
    static let versionIdentifier = Schema.Version(3, 0, 0)
    static var models: [any PersistentModel.Type] { [Memo.self] }

    @Model
    final class Memo {
        @Attribute(originalName: "body") var content: String
        init(content: String) { self.content = content }
    }
}

enum MemoPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [MemoV1.self, MemoV2.self, MemoV3.self] }
    static var stages: [MigrationStage] { [.lightweight(fromVersion: MemoV1.self, toVersion: MemoV2.self)] }
}

@Suite(.serialized)
struct StagedMigrationTests {
    static func document(of package: URL) throws -> String {
        try packageText(package)
    }

    /// A version 1 package with two notes of distinct titles.
    static func savedByVersion1(at url: URL) throws {
        let context = ModelContext(
            try ModelContainer(
                for: Schema([NotebookV1.Note.self]),
                configurations: ModelConfiguration(url: url)))
        context.insert(NotebookV1.Note(title: "Groceries", body: "milk eggs bread"))
        context.insert(NotebookV1.Note(title: "Ideas", body: "a REPL for documents"))
        try context.save()
    }

    // MARK: A plan meets a store already open in the process

    @Test func `a container with a plan is refused while the package is open in the process at an earlier version, and runs its stages once it is closed`()
        throws
    {
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("Notes.folio")
        try Self.savedByVersion1(at: url)
        do {
            // Another part of the program (a widget, a background importer) opens it first, without the plan:
            // a lightweight migration in memory, and the store is now shared.
            let plain = try ModelContainer(for: NotebookV3.Note.self, configurations: ModelConfiguration(url: url))
            let before = try SchemaMigrationPlanTests.files(of: url)
            // The plan cannot run on a store other contexts already use: the container is refused.
            let error = #expect(throws: ModelError.self) {
                _ = try ModelContainer(
                    for: Schema(versionedSchema: NotebookV3.self), migrationPlan: NotebookMigrationPlan.self,
                    configurations: ModelConfiguration(url: url))
            }
            guard case .configuration(let message)? = error else {
                Issue.record("expected a configuration error, got \(String(describing: error))")
                return
            }
            #expect(message.contains("without the migration plan"))
            #expect(try SchemaMigrationPlanTests.files(of: url) == before)
            _ = plain
        }
        // Once the other container is gone, the plan runs.
        let context = ModelContext(
            try ModelContainer(
                for: Schema(versionedSchema: NotebookV3.self),
                migrationPlan: NotebookMigrationPlan.self,
                configurations: ModelConfiguration(url: url)))
        let notes = try context.fetch(FetchDescriptor<NotebookV3.Note>(sortBy: [SortDescriptor(\.title)]))
        #expect(notes.map(\.wordCount) == [3, 4])
    }

    // MARK: A new package records the plan's version

    @Test func `a new package made with a plan and model classes records the plan's version, so its stages never rerun`() throws {
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("Notes.folio")
        func open() throws -> ModelContext {
            ModelContext(
                try ModelContainer(
                    for: NotebookV1.Note.self, migrationPlan: ExclaimPlan.self,
                    configurations: ModelConfiguration(url: url)))
        }
        do {
            let context = try open()
            context.insert(NotebookV1.Note(title: "Ideas"))
            try context.save()
        }
        #expect(try Self.document(of: url).contains("<schema version=\"1.1.0\">"))
        // Reopened by the same program: the package matches version 1 first, so 1 → 1.1 runs on 1.1 data.
        let titles = try open().fetch(FetchDescriptor<NotebookV1.Note>()).map(\.title)
        #expect(titles == ["Ideas"])
    }

    // MARK: A container without a plan keeps the recorded version

    @Test func `a container without a plan whose schema differs only in defaults keeps the version the package records`() throws {
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("Notes.folio")
        // Saved by the app with its plan: the stage ran once, the package records 1.1.0.
        do {
            let context = ModelContext(
                try ModelContainer(
                    for: Schema(versionedSchema: SameModelsV2.self),
                    migrationPlan: ExclaimPlan.self,
                    configurations: ModelConfiguration(url: url)))
            context.insert(NotebookV1.Note(title: "Ideas"))
            try context.save()
        }
        #expect(try Self.document(of: url).contains("<schema version=\"1.1.0\">"))
        // Another program (or the same classes with a `Date.now` default, in another process) opens it
        // without a plan: its schema differs from the stored one only in a default.
        do {
            let tool = try Schema([
                Schema.Entity(
                    "Note",
                    attributes: [
                        .init("title", .string), .init("body", .string, defaultValue: .string("(empty)")),
                    ])
            ])
            let context = ModelContext(try ModelContainer(for: tool, configurations: ModelConfiguration(url: url)))
            try context.insert("Note", ["title": .string("Plans")])
            try context.save()
        }
        #expect(try Self.document(of: url).contains("<schema version=\"1.1.0\">"), "the recorded version was dropped")
        // And the app, with its plan, now starts again from 1.0.0.
        let context = ModelContext(
            try ModelContainer(
                for: Schema(versionedSchema: SameModelsV2.self),
                migrationPlan: ExclaimPlan.self,
                configurations: ModelConfiguration(url: url)))
        let titles = try context.fetch(FetchDescriptor<NotebookV1.Note>()).map(\.title).sorted()
        #expect(titles == ["Ideas", "Plans"])
    }

    // MARK: The container's model checks run before the rewrite

    @Test func `a container that refuses the migrated objects leaves the package byte for byte`() throws {
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("Boxes.folio")
        do {
            let context = ModelContext(
                try ModelContainer(
                    for: Schema(versionedSchema: PayloadV1.self),
                    configurations: ModelConfiguration(url: url)))
            context.insert(PayloadV1.Box(kind: .retired))
            try context.save()
        }
        let before = try Self.document(of: url)
        #expect(throws: ModelError.self) {
            _ = try ModelContainer(
                for: Schema(versionedSchema: PayloadV2.self), migrationPlan: PayloadPlan.self,
                configurations: ModelConfiguration(url: url))
        }
        #expect(try Self.document(of: url) == before, "the package was rewritten (version 2.0.0) by a container that failed to open")
    }

    // MARK: A reopened context's schema is the classes'

    @Test func `a reopened package's context schema reads defaults as the classes' Swift types`() throws {
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("Gadgets.folio")
        do {
            let context = ModelContext(try ModelContainer(for: Gadget.self, configurations: ModelConfiguration(url: url)))
            context.insert(Gadget())
            try context.save()
        }
        let container = try ModelContainer(for: Gadget.self, configurations: ModelConfiguration(url: url))
        #expect(container.schema.entity(named: "Gadget")?.attribute(named: "mood")?.defaultValue as? Gadget.Mood == .busy)
        let context = ModelContext(container)
        let mood = context.schema.entity(named: "Gadget")?.attribute(named: "mood")?.defaultValue
        #expect(mood as? Gadget.Mood == .busy, "read \(String(describing: mood)): the package's schema, not the classes'")
    }

    // MARK: A stage may open other packages

    /// Used to stop the process on Swift's exclusivity check: the registry of
    /// stores lent out its table for the whole open.
    @Test func `a stage may open another package`() throws {
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("Notes.folio")
        try Self.savedByVersion1(at: url)
        defer { try? FileManager.default.removeItem(at: ReentrantPlan.backupURL) }
        let context = ModelContext(
            try ModelContainer(
                for: Schema(versionedSchema: NotebookV2.self),
                migrationPlan: ReentrantPlan.self,
                configurations: ModelConfiguration(url: url)))
        #expect(try context.fetchCount(FetchDescriptor<NotebookV2.Note>()) == 2)
        #expect(FileManager.default.fileExists(atPath: ReentrantPlan.backupURL.path))
    }

    @Test func `a plan renaming an attribute twice renames the history through both steps; the rewritten package reopens with it`() throws {
        let url = temporaryPackageURL("memo")
        do {
            let context = ModelContext(
                try ModelContainer(
                    for: Schema(versionedSchema: MemoV1.self),
                    configurations: ModelConfiguration(url: url)))
            let memo = MemoV1.Memo(text: "first")
            context.insert(memo)
            try context.save()
            memo.text = "second"
            try context.save()
        }
        for _ in 0..<2 {
            let container = try ModelContainer(
                for: Schema(versionedSchema: MemoV3.self), migrationPlan: MemoPlan.self,
                configurations: ModelConfiguration(url: url))
            let context = ModelContext(container)
            #expect(try context.fetch(FetchDescriptor<MemoV3.Memo>()).map(\.content) == ["second"])
            let history = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
            #expect(history.count == 2)
            #expect(history.last?.changeGroups.map(\.updatedAttributeNames) == [["content"]])
        }
        let bytes = String(decoding: try allPackageBytes(url), as: UTF8.self)
        #expect(!bytes.contains(#"properties="text""#) && bytes.contains(#"properties="content""#), "the package's history was rewritten")
    }
}
