// VersionedSchema, SchemaMigrationPlan, MigrationStage and
// ModelContainer(for:migrationPlan:configurations:), as SwiftData apps write
// them: model classes nested in each version's enum, a typealias for the
// current one.
import Foundation
import FolioTestSupport
import Folio
import Testing

enum RecipesSchemaV1: VersionedSchema {
    static let versionIdentifier = Schema.Version(1, 0, 0)

    static var models: [any PersistentModel.Type] {
        [Recipe.self]
    }

    @Model
    final class Recipe {
        var name: String
        var minutes: Int

        init(name: String, minutes: Int) {
            self.name = name
            self.minutes = minutes
        }
    }
}

enum RecipesSchemaV2: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(2, 0, 0) }

    static var models: [any PersistentModel.Type] {
        [Recipe.self]
    }

    @Model
    final class Recipe {
        var name: String
        var minutes: Int
        var servings: Int = 2

        init(name: String, minutes: Int, servings: Int = 2) {
            self.name = name
            self.minutes = minutes
            self.servings = servings
        }
    }
}

enum RecipesSchemaV3: VersionedSchema {
    static let versionIdentifier = Schema.Version(3, 0, 0)

    static var models: [any PersistentModel.Type] {
        [Recipe.self]
    }

    @Model
    final class Recipe {
        @Attribute(.unique) var name: String
        var minutes: Int
        var servings: Int = 2
        var summary: String = ""

        init(name: String, minutes: Int, servings: Int = 2) {
            self.name = name
            self.minutes = minutes
            self.servings = servings
        }
    }
}

typealias Recipe = RecipesSchemaV3.Recipe

enum RecipesMigrationPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] {
        [RecipesSchemaV1.self, RecipesSchemaV2.self, RecipesSchemaV3.self]
    }

    static var stages: [MigrationStage] {
        [migrateV1toV2, migrateV2toV3]
    }

    static let migrateV1toV2 = MigrationStage.lightweight(
        fromVersion: RecipesSchemaV1.self,
        toVersion: RecipesSchemaV2.self
    )

    /// Keeps the quickest of each name, so version 3's unique name holds.
    static let migrateV2toV3 = MigrationStage.custom(
        fromVersion: RecipesSchemaV2.self,
        toVersion: RecipesSchemaV3.self,
        willMigrate: { context in
            let recipes = try context.fetch(FetchDescriptor<RecipesSchemaV2.Recipe>(sortBy: [SortDescriptor(\.minutes)]))
            var seen = Set<String>()
            for recipe in recipes {
                if seen.contains(recipe.name) {
                    context.delete(recipe)
                } else {
                    seen.insert(recipe.name)
                }
            }
            try context.save()
        },
        didMigrate: { context in
            for recipe in try context.fetch(FetchDescriptor<RecipesSchemaV3.Recipe>()) {
                recipe.summary = "\(recipe.name), \(recipe.minutes) min"
            }
            try context.save()
        }
    )
}

struct MigrationAborted: Error {}

/// The same versions, with a version 2 to 3 stage that edits, saves, then fails.
enum AbortingMigrationPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] {
        [RecipesSchemaV1.self, RecipesSchemaV2.self, RecipesSchemaV3.self]
    }

    static var stages: [MigrationStage] {
        [
            MigrationStage.lightweight(fromVersion: RecipesSchemaV1.self, toVersion: RecipesSchemaV2.self),
            MigrationStage.custom(
                fromVersion: RecipesSchemaV2.self,
                toVersion: RecipesSchemaV3.self,
                willMigrate: { context in
                    try context.delete(model: RecipesSchemaV2.Recipe.self)
                    try context.save()
                    throw MigrationAborted()
                },
                didMigrate: nil
            ),
        ]
    }
}

@Suite @MainActor struct MigrationPlanTests {
    let directory: TemporaryFolder
    let storeURL: URL

    init() throws {
        directory = try TemporaryFolder()
        storeURL = directory.storeURL("Recipes.store")
    }

    /// What version 1 of the app saved.
    func saveVersion1Recipes() throws {
        let container = try ModelContainer(
            for: Schema(versionedSchema: RecipesSchemaV1.self),
            configurations: ModelConfiguration(url: storeURL))
        let context = ModelContext(container)
        for (name, minutes) in [("Carbonara", 30), ("Risotto", 40), ("Carbonara", 25), ("Tiramisu", 20), ("Risotto", 35)] {
            context.insert(RecipesSchemaV1.Recipe(name: name, minutes: minutes))
        }
        try context.save()
    }

    /// Every file of the store, by path inside it.
    func storeContents() throws -> [String: Data] {
        var contents: [String: Data] = [:]
        let enumerator = FileManager.default.enumerator(at: storeURL, includingPropertiesForKeys: [.isRegularFileKey])
        while let url = enumerator?.nextObject() as? URL {
            guard try url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile == true else { continue }
            contents[String(url.path.dropFirst(storeURL.path.count))] = try Data(contentsOf: url)
        }
        return contents
    }

    @Test func theVersionsAreSwiftDatas() {
        #expect(RecipesSchemaV1.versionIdentifier == Schema.Version(1, 0, 0))
        #expect(RecipesSchemaV3.versionIdentifier > RecipesSchemaV2.versionIdentifier)
        #expect(RecipesMigrationPlan.schemas.count == 3)
        #expect(RecipesMigrationPlan.stages.count == 2)
        let schema = Schema(versionedSchema: RecipesSchemaV3.self)
        #expect(schema.entities.map(\.name) == ["Recipe"])
        #expect(schema.version == Schema.Version(3, 0, 0))
        let versioned = Schema([RecipesSchemaV1.Recipe.self], version: Schema.Version(1, 0, 0))
        #expect(versioned.version == RecipesSchemaV1.versionIdentifier)
    }

    @Test func aCustomStageRemovesDuplicatesBeforeVersion3MakesNamesUnique() throws {
        try saveVersion1Recipes()

        let container = try ModelContainer(
            for: Schema(versionedSchema: RecipesSchemaV3.self),
            migrationPlan: RecipesMigrationPlan.self,
            configurations: ModelConfiguration(url: storeURL))
        let context = container.mainContext
        let recipes = try context.fetch(FetchDescriptor<Recipe>(sortBy: [SortDescriptor(\.name)]))
        #expect(recipes.map(\.name) == ["Carbonara", "Risotto", "Tiramisu"])
        #expect(recipes.map(\.minutes) == [25, 35, 20])
        #expect(recipes.map(\.servings) == [2, 2, 2])
        #expect(recipes.map(\.summary) == ["Carbonara, 25 min", "Risotto, 35 min", "Tiramisu, 20 min"])

        // Version 3's unique name now holds: a second Tiramisu updates the first.
        context.insert(Recipe(name: "Tiramisu", minutes: 15))
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Recipe>()) == 3)
        #expect(try context.fetch(FetchDescriptor<Recipe>(predicate: #Predicate { $0.name == "Tiramisu" })).first?.minutes == 15)
    }

    @Test func aMigratedStoreReopensWithTheCurrentModels() throws {
        try saveVersion1Recipes()
        do {
            let container = try ModelContainer(
                for: Recipe.self, migrationPlan: RecipesMigrationPlan.self,
                configurations: ModelConfiguration(url: storeURL))
            #expect(try ModelContext(container).fetchCount(FetchDescriptor<Recipe>()) == 3)
        }

        let container = try ModelContainer(
            for: Recipe.self, migrationPlan: RecipesMigrationPlan.self,
            configurations: ModelConfiguration(url: storeURL))
        let recipes = try ModelContext(container).fetch(FetchDescriptor<Recipe>(sortBy: [SortDescriptor(\.name)]))
        #expect(recipes.map(\.name) == ["Carbonara", "Risotto", "Tiramisu"])
    }

    @Test func aFailingWillMigrateLeavesTheStoreByteForByteAsItWas() throws {
        try saveVersion1Recipes()
        let before = try storeContents()
        #expect(!before.isEmpty)

        #expect(throws: (any Error).self) {
            try ModelContainer(
                for: Schema(versionedSchema: RecipesSchemaV3.self),
                migrationPlan: AbortingMigrationPlan.self,
                configurations: ModelConfiguration(url: storeURL))
        }

        #expect(try storeContents() == before)
        let container = try ModelContainer(
            for: Schema(versionedSchema: RecipesSchemaV1.self),
            configurations: ModelConfiguration(url: storeURL))
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<RecipesSchemaV1.Recipe>()) == 5)
    }
}
