import Folio
import Foundation
import Synchronization
import Testing
import FolioTestSupport

// Three versions of a notebook app's models, written as SwiftData apps write
// them: each version an enum listing its classes, the classes nested in it.

enum NotebookV1: VersionedSchema {
    static let versionIdentifier = Schema.Version(1, 0, 0)
    static var models: [any PersistentModel.Type] { [Note.self] }

    @Model
    final class Note {
        var title: String
        var body: String

        init(title: String, body: String = "") {
            self.title = title
            self.body = body
        }
    }
}

enum NotebookV2: VersionedSchema {
    static let versionIdentifier = Schema.Version(2, 0, 0)
    static var models: [any PersistentModel.Type] { [Note.self] }

    /// Adds `pinned`, with a default: a lightweight change.
    @Model
    final class Note {
        var title: String
        var body: String
        var pinned: Bool = false

        init(title: String, body: String = "") {
            self.title = title
            self.body = body
        }
    }
}

enum NotebookV3: VersionedSchema {
    static let versionIdentifier = Schema.Version(3, 0, 0)
    static var models: [any PersistentModel.Type] { [Note.self] }

    /// Makes `title` unique, which the duplicates of earlier versions break,
    /// and adds `wordCount`, which `didMigrate` fills.
    @Model
    final class Note {
        @Attribute(.unique) var title: String
        var body: String
        var pinned: Bool = false
        var wordCount: Int = 0

        init(title: String, body: String = "") {
            self.title = title
            self.body = body
        }
    }
}

/// How many times each stage's code ran, by the test that counts: other
/// suites run the same plan at the same time.
let notebookStageRuns = Mutex<[String: Int]>([:])

/// Which test's count a stage adds to: set by the counting test around its
/// migrations, which run in its task.
enum NotebookStageCounter {
    @TaskLocal static var name = ""

    /// The key of `step`'s count for the counter in effect.
    static func key(_ step: String) -> String { "\(step) \(name)" }
}

/// SwiftData's classic recipe: a custom stage removes duplicates before the version that makes them unique.
enum NotebookMigrationPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [NotebookV1.self, NotebookV2.self, NotebookV3.self] }
    static var stages: [MigrationStage] { [migrateV1toV2, migrateV2toV3] }

    static let migrateV1toV2 = MigrationStage.lightweight(fromVersion: NotebookV1.self, toVersion: NotebookV2.self)

    static let migrateV2toV3 = MigrationStage.custom(
        fromVersion: NotebookV2.self,
        toVersion: NotebookV3.self,
        willMigrate: { context in
            notebookStageRuns.withLock { $0[NotebookStageCounter.key("willMigrate"), default: 0] += 1 }
            var seen = Set<String>()
            for note in try context.fetch(FetchDescriptor<NotebookV2.Note>()) where !seen.insert(note.title).inserted {
                context.delete(note)
            }
            try context.save()
        },
        didMigrate: { context in
            notebookStageRuns.withLock { $0[NotebookStageCounter.key("didMigrate"), default: 0] += 1 }
            for note in try context.fetch(FetchDescriptor<NotebookV3.Note>()) {
                note.wordCount = note.body.split(separator: " ").count
            }
        }
    )
}

/// The same versions, with a `willMigrate` that gives up.
enum FailingNotebookPlan: SchemaMigrationPlan {
    struct Refusal: Error, CustomStringConvertible {
        var description: String { "the notes are not ready" }
    }

    static var schemas: [any VersionedSchema.Type] { [NotebookV1.self, NotebookV2.self, NotebookV3.self] }
    static var stages: [MigrationStage] {
        [
            .custom(
                fromVersion: NotebookV2.self, toVersion: NotebookV3.self,
                willMigrate: { context in
                    // Edits made before the failure must not reach the package either.
                    for note in try context.fetch(FetchDescriptor<NotebookV2.Note>()) { context.delete(note) }
                    try context.save()
                    throw Refusal()
                },
                didMigrate: nil)
        ]
    }
}

@Suite(.serialized)
struct SchemaMigrationPlanTests {
    /// Every file of a package, by path inside it.
    static func files(of package: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        let enumerator = FileManager.default.enumerator(at: package, includingPropertiesForKeys: [.isRegularFileKey])
        while let url = enumerator?.nextObject() as? URL {
            guard try url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile == true else { continue }
            files[String(url.path.dropFirst(package.path.count))] = try Data(contentsOf: url)
        }
        return files
    }

    static func document(of package: URL) throws -> String {
        try packageText(package)
    }

    /// A package saved by version 1's models: three notes, two titled alike.
    static func savedByVersion1(at url: URL, schema: Schema = Schema([NotebookV1.Note.self])) throws {
        let context = ModelContext(try ModelContainer(for: schema, configurations: ModelConfiguration(url: url)))
        context.insert(NotebookV1.Note(title: "Groceries", body: "milk eggs bread"))
        context.insert(NotebookV1.Note(title: "Ideas", body: "a REPL for documents"))
        context.insert(NotebookV1.Note(title: "Groceries", body: "apples"))
        try context.save()
    }

    /// How many times `step` ran for this suite's counter.
    static func runs(_ step: String) -> Int {
        notebookStageRuns.withLock { $0[NotebookStageCounter.$name.withValue(counter) { NotebookStageCounter.key(step) }, default: 0] }
    }

    /// The counter this suite's counting test sets.
    static let counter = "SchemaMigrationPlanTests"

    @Test func `a three-version plan removes duplicates before the version that makes titles unique, and the package records version 3`() throws {
        try NotebookStageCounter.$name.withValue(Self.counter) { try threeVersionPlan() }
    }

    func threeVersionPlan() throws {
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("Notes.folio")
        try Self.savedByVersion1(at: url)
        #expect(try Self.document(of: url).contains("<schema>"), "a package saved without a version, as before versioning")
        let (willBefore, didBefore) = (Self.runs("willMigrate"), Self.runs("didMigrate"))

        do {
            let container = try ModelContainer(
                for: Schema(versionedSchema: NotebookV3.self),
                migrationPlan: NotebookMigrationPlan.self,
                configurations: ModelConfiguration(url: url))
            let context = ModelContext(container)
            let notes = try context.fetch(FetchDescriptor<NotebookV3.Note>(sortBy: [SortDescriptor(\.title)]))
            #expect(notes.map(\.title) == ["Groceries", "Ideas"])
            #expect(notes.map(\.body) == ["milk eggs bread", "a REPL for documents"], "the first of the duplicates is kept")
            #expect(notes.map(\.wordCount) == [3, 4], "didMigrate saw version 3's models")
            #expect(notes.allSatisfy { !$0.pinned }, "version 2's default")
            #expect(container.schema.version == Schema.Version(3, 0, 0))
        }
        #expect(Self.runs("willMigrate") == willBefore + 1 && Self.runs("didMigrate") == didBefore + 1)
        let document = try Self.document(of: url)
        #expect(document.contains("<schema version=\"3.0.0\">"), "the package is rewritten once the plan succeeds")
        #expect(document.contains("unique=\"true\""))

        // Opened again with the plan: it records version 3, so no stage runs.
        let context = ModelContext(
            try ModelContainer(
                for: Schema(versionedSchema: NotebookV3.self),
                migrationPlan: NotebookMigrationPlan.self,
                configurations: ModelConfiguration(url: url)))
        #expect(try context.fetchCount(FetchDescriptor<NotebookV3.Note>()) == 2)
        #expect(Self.runs("willMigrate") == willBefore + 1)
        // Upserts keep working on the migrated unique attribute.
        context.insert(NotebookV3.Note(title: "Ideas", body: "replaced"))
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<NotebookV3.Note>()) == 2)
    }

    @Test func `a package that records version 1 starts from version 1, whatever it matches`() throws {
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("Notes.folio")
        try Self.savedByVersion1(at: url, schema: Schema(versionedSchema: NotebookV1.self))
        #expect(try Self.document(of: url).contains("<schema version=\"1.0.0\">"))
        let context = ModelContext(
            try ModelContainer(
                for: NotebookV3.Note.self, migrationPlan: NotebookMigrationPlan.self,
                configurations: ModelConfiguration(url: url)))
        #expect(try context.fetchCount(FetchDescriptor<NotebookV3.Note>()) == 2)
        #expect(try Self.document(of: url).contains("<schema version=\"3.0.0\">"))
    }

    @Test func `versions with the same models are told apart by the version the package records`() throws {
        // SameModelsV2 has version 1's models; ExclaimPlan's stage only rewrites data (a "!" after each title).
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("Notes.folio")
        try Self.savedByVersion1(at: url)
        func titles() throws -> [String] {
            let container = try ModelContainer(
                for: Schema(versionedSchema: SameModelsV2.self), migrationPlan: ExclaimPlan.self,
                configurations: ModelConfiguration(url: url))
            return try ModelContext(container).fetch(FetchDescriptor<NotebookV1.Note>()).map(\.title).sorted()
        }
        // Saved without a version: the first version with its models, so the stage runs once.
        #expect(try titles() == ["Groceries!", "Groceries!", "Ideas!"])
        #expect(try Self.document(of: url).contains("<schema version=\"1.1.0\">"))
        // Now it records 1.1.0: nothing runs again.
        #expect(try titles() == ["Groceries!", "Groceries!", "Ideas!"])
    }

    @Test func `a failing willMigrate leaves the package byte for byte and reports the stage`() throws {
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("Notes.folio")
        try Self.savedByVersion1(at: url)
        let before = try Self.files(of: url)
        let error = #expect(throws: ModelError.self) {
            _ = try ModelContainer(
                for: Schema(versionedSchema: NotebookV3.self), migrationPlan: FailingNotebookPlan.self,
                configurations: ModelConfiguration(url: url))
        }
        guard case .migration(_, .stageFailed(let from, let to, let step, let message))? = error else {
            Issue.record("expected a failed stage, got \(String(describing: error))")
            return
        }
        #expect(from == Schema.Version(2, 0, 0) && to == Schema.Version(3, 0, 0) && step == "willMigrate")
        #expect(message == "the notes are not ready")
        #expect(try Self.files(of: url) == before)
        // The package still opens with version 1's models, all three notes there.
        let context = ModelContext(try ModelContainer(for: NotebookV1.Note.self, configurations: ModelConfiguration(url: url)))
        #expect(try context.fetchCount(FetchDescriptor<NotebookV1.Note>()) == 3)
    }

    @Test func `a package saved by a later version is refused as a backward migration, with or without a plan`() throws {
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("Notes.folio")
        do {
            let context = ModelContext(
                try ModelContainer(
                    for: Schema(versionedSchema: NotebookV3.self),
                    configurations: ModelConfiguration(url: url)))
            context.insert(NotebookV3.Note(title: "From the future"))
            try context.save()
        }
        let before = try Self.files(of: url)
        enum PlanToV2: SchemaMigrationPlan {
            static var schemas: [any VersionedSchema.Type] { [NotebookV1.self, NotebookV2.self, NotebookV3.self] }
            static var stages: [MigrationStage] { [] }
        }
        for plan in [PlanToV2.self, nil] as [(any SchemaMigrationPlan.Type)?] {
            let error = #expect(throws: ModelError.self) {
                _ = try ModelContainer(
                    for: Schema(versionedSchema: NotebookV2.self), migrationPlan: plan,
                    configurations: ModelConfiguration(url: url))
            }
            guard case .migration(_, .backwardMigration(let stored, let current))? = error else {
                Issue.record("expected a backward migration, got \(String(describing: error))")
                continue
            }
            #expect(stored == Schema.Version(3, 0, 0) && current == Schema.Version(2, 0, 0))
        }
        #expect(try Self.files(of: url) == before)
    }

    @Test func `a package whose schema is none of the plan's versions is an unknown model version`() throws {
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("Other.folio")
        do {
            let context = ModelContext(try ModelContainer(for: TravelV1.Trip.self, configurations: ModelConfiguration(url: url)))
            context.insert(TravelV1.Trip(name: "Lisbon", destination: "PT"))
            try context.save()
        }
        let before = try Self.files(of: url)
        let error = #expect(throws: ModelError.self) {
            _ = try ModelContainer(
                for: Schema(versionedSchema: NotebookV3.self), migrationPlan: NotebookMigrationPlan.self,
                configurations: ModelConfiguration(url: url))
        }
        guard case .migration(_, .unknownModelVersion(let stored))? = error else {
            Issue.record("expected an unknown model version, got \(String(describing: error))")
            return
        }
        #expect(stored == nil)
        #expect(try Self.files(of: url) == before)
    }

    @Test func `a read-only container migrates in memory and leaves the package as it was`() throws {
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("Notes.folio")
        try Self.savedByVersion1(at: url)
        let before = try Self.files(of: url)
        let context = ModelContext(
            try ModelContainer(
                for: Schema(versionedSchema: NotebookV3.self),
                migrationPlan: NotebookMigrationPlan.self,
                configurations: ModelConfiguration(url: url, allowsSave: false)))
        #expect(try context.fetch(FetchDescriptor<NotebookV3.Note>()).map(\.title).sorted() == ["Groceries", "Ideas"])
        #expect(try Self.files(of: url) == before)
    }

    @Test func `an in-memory container takes a plan and starts empty`() throws {
        let container = try ModelContainer(
            for: Schema(versionedSchema: NotebookV3.self), migrationPlan: NotebookMigrationPlan.self,
            configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<NotebookV3.Note>()) == 0)
    }

    @Test func `two consecutive versions with no stage between them are bridged by a lightweight step`() throws {
        enum NoStages: SchemaMigrationPlan {
            static var schemas: [any VersionedSchema.Type] { [NotebookV2.self, NotebookV1.self] }
            static var stages: [MigrationStage] { [] }
        }
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("Notes.folio")
        try Self.savedByVersion1(at: url)
        let context = ModelContext(
            try ModelContainer(
                for: Schema(versionedSchema: NotebookV2.self), migrationPlan: NoStages.self,
                configurations: ModelConfiguration(url: url)))
        #expect(try context.fetchCount(FetchDescriptor<NotebookV2.Note>()) == 3)
        #expect(try Self.document(of: url).contains("<schema version=\"2.0.0\">"))
    }

    @Test(arguments: [
        ("DuplicateVersions", "NotebookV1 and"),
        ("BackwardStage", "does not go forward"),
        ("UnlistedVersion", "which its schemas do not list"),
        ("TwoStagesFromOne", "two stages start at"),
    ])
    func `a plan that does not hold together is refused before the package is touched`(plan: String, reason: String) throws {
        enum V1Copy: VersionedSchema {
            static let versionIdentifier = Schema.Version(1, 0, 0)
            static var models: [any PersistentModel.Type] { [NotebookV1.Note.self] }
        }
        enum DuplicateVersions: SchemaMigrationPlan {
            static var schemas: [any VersionedSchema.Type] { [NotebookV1.self, V1Copy.self, NotebookV3.self] }
            static var stages: [MigrationStage] { [] }
        }
        enum BackwardStage: SchemaMigrationPlan {
            static var schemas: [any VersionedSchema.Type] { [NotebookV1.self, NotebookV2.self, NotebookV3.self] }
            static var stages: [MigrationStage] { [.lightweight(fromVersion: NotebookV2.self, toVersion: NotebookV1.self)] }
        }
        enum UnlistedVersion: SchemaMigrationPlan {
            static var schemas: [any VersionedSchema.Type] { [NotebookV2.self, NotebookV3.self] }
            static var stages: [MigrationStage] { [.lightweight(fromVersion: NotebookV1.self, toVersion: NotebookV2.self)] }
        }
        enum TwoStagesFromOne: SchemaMigrationPlan {
            static var schemas: [any VersionedSchema.Type] { [NotebookV1.self, NotebookV2.self, NotebookV3.self] }
            static var stages: [MigrationStage] {
                [
                    .lightweight(fromVersion: NotebookV1.self, toVersion: NotebookV2.self),
                    .lightweight(fromVersion: NotebookV1.self, toVersion: NotebookV3.self),
                ]
            }
        }
        let plans: [String: any SchemaMigrationPlan.Type] = [
            "DuplicateVersions": DuplicateVersions.self, "BackwardStage": BackwardStage.self,
            "UnlistedVersion": UnlistedVersion.self, "TwoStagesFromOne": TwoStagesFromOne.self,
        ]
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("Notes.folio")
        try Self.savedByVersion1(at: url)
        let before = try Self.files(of: url)
        let error = #expect(throws: ModelError.self) {
            _ = try ModelContainer(
                for: Schema(versionedSchema: NotebookV3.self), migrationPlan: plans[plan],
                configurations: ModelConfiguration(url: url))
        }
        guard case .migration(_, .invalidPlan(let found))? = error else {
            Issue.record("expected an invalid plan, got \(String(describing: error))")
            return
        }
        #expect(found.contains(reason))
        #expect(try Self.files(of: url) == before)
    }

    @Test func `a container whose models are none of the plan's versions is refused`() throws {
        let error = #expect(throws: ModelError.self) {
            _ = try ModelContainer(
                for: TravelV1.Trip.self, migrationPlan: NotebookMigrationPlan.self,
                configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        }
        guard case .migration(_, .invalidPlan(let reason))? = error else {
            Issue.record("expected an invalid plan, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("none of its versions"))
    }
}
