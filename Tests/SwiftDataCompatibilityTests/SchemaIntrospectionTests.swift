// Schema.Attribute.defaultValue as SwiftData's `Any?`, and
// Entity.uniquenessConstraints listing .unique attributes too.
import Foundation
import Folio
import Testing
import FolioTestSupport

@Model
final class Speaker {
    @Attribute(.unique) var name: String
    var token: UUID = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
    var volume: Double = 0.5
    var room: String?

    init(name: String) {
        self.name = name
    }
}

@Suite struct SchemaIntrospectionTests {
    let entity: Schema.Entity?

    init() {
        entity = Schema([Speaker.self]).entities.first { $0.name == "Speaker" }
    }

    func attribute(_ name: String) -> Schema.Attribute? {
        entity?.attributes.first { $0.name == name }
    }

    @Test func defaultValuesAreTheDeclaredSwiftValues() {
        #expect(attribute("token")?.defaultValue as? UUID == UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        #expect(attribute("volume")?.defaultValue as? Double == 0.5)
        #expect(attribute("room")?.defaultValue == nil)
        #expect(attribute("name")?.defaultValue == nil)
    }

    @Test func aUniqueAttributeIsAUniquenessConstraint() {
        #expect(entity?.uniquenessConstraints.contains(["name"]) == true)
        #expect(attribute("name")?.isUnique == true)
    }
}

/// SwiftData's other attribute options, as an app declares them.
@Model
final class Article {
    @Attribute(.spotlight) var title: String = ""
    @Attribute(.allowsCloudEncryption) var secret: String = ""
    @Attribute(.preserveValueOnDeletion) var code: String = ""
    @Attribute(.ephemeral) var draft: String = ""
    init() {}
}

@Suite @MainActor struct AttributeOptionTests {
    @Test func everyAttributeOptionCompilesAndEphemeralValuesAreNotSaved() throws {
        let folder = try temporaryFolderURL("compat-options")
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("Articles.folio")
        do {
            let container = try ModelContainer(for: Article.self, configurations: ModelConfiguration(url: url))
            let article = Article()
            article.title = "Hello"
            article.draft = "unsaved thoughts"
            container.mainContext.insert(article)
            try container.mainContext.save()
            let entity = try #require(container.schema.entity(named: "Article"))
            #expect(entity.attribute(named: "title")?.options == [.spotlight])
            #expect(entity.attribute(named: "draft")?.options == [.ephemeral])
        }
        let container = try ModelContainer(for: Article.self, configurations: ModelConfiguration(url: url))
        let article = try #require(try container.mainContext.fetch(FetchDescriptor<Article>()).first)
        #expect(article.title == "Hello")
        #expect(article.draft == "", "an ephemeral value lives in memory only")
    }
}

// `#Index` (SwiftData, iOS 18): declared in the model, seen in the schema,
// and the indexed fetch finds what a scan would.

@Model
final class Visit {
    #Index<Visit>([\.city], [\.city, \.day])
    var city: String = ""
    var day: Date = Date.now
    init() {}
}

@Suite @MainActor struct IndexMacroTests {
    @Test func theIndexesAreInTheSchemaAndFetchesUseThem() throws {
        let container = try ModelContainer(for: Visit.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        #expect(container.schema.entitiesByName["Visit"]?.indexes == [["city"], ["city", "day"]])
        let context = ModelContext(container)
        for (city, day) in [("Rome", 1), ("Oslo", 2), ("Rome", 3)] {
            let visit = Visit()
            visit.city = city
            visit.day = .day(day)
            context.insert(visit)
        }
        let rome = try context.fetch(FetchDescriptor<Visit>(predicate: #Predicate { $0.city == "Rome" }, sortBy: [SortDescriptor(\.day)]))
        #expect(rome.map(\.day) == [.day(1), .day(3)])
    }
}
