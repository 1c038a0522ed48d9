import Folio
import Testing
import FolioTestSupport

@Model
final class Owner {
    var name: String = ""
    @Relationship(deleteRule: .deny, minimumModelCount: 0, maximumModelCount: 3) var pets: [Pet] = []
    var favourite: Pet?
}

@Model
final class Pet {
    var name: String = ""
    @Relationship(inverse: \Owner.pets) var owner: Owner?
    var admirers: [Owner] = []
}

@Suite struct SchemaFromModelsTests {
    @Test func `property types decide attributes, relationships, optionality and defaults`() throws {
        let schema = Schema([Specimen.self])
        let specimen = try #require(schema.entity(named: "Specimen"))
        #expect(specimen.attribute(named: "small")?.type == .int8)
        #expect(specimen.attribute(named: "cities")?.type == .set(.string))
        #expect(specimen.attribute(named: "parks")?.type == .dictionary(.string))
        #expect(specimen.attribute(named: "companion")?.type == .any)
        #expect(specimen.attribute(named: "tag")?.type == .codable)
        #expect(specimen.attribute(named: "maybe")?.isOptional == true)
        #expect(specimen.attribute(named: "text")?.isOptional == false)
        #expect(specimen.attribute(named: "number")?.defaultStoredValue == .int(0))
        #expect(specimen.attribute(named: "photo")?.isExternal == true)
        #expect(specimen.relationships.isEmpty)
    }

    @Test func `an inverse named on one side is set on the other, and options and counts are kept`() throws {
        let schema = Schema([Owner.self])
        #expect(schema.entities.map(\.name) == ["Owner", "Pet"])
        let owner = try #require(schema.entity(named: "Owner"))
        let pet = try #require(schema.entity(named: "Pet"))
        #expect(owner.relationship(named: "pets")?.inverse == "owner")
        #expect(pet.relationship(named: "owner")?.inverse == "pets")
        #expect(owner.relationship(named: "pets")?.deleteRule == .deny)
        #expect(owner.relationship(named: "pets")?.maximumModelCount == 3)
        #expect(owner.relationship(named: "pets")?.isToMany == true)
        // The only relationships between the two classes left without an inverse pair up.
        #expect(owner.relationship(named: "favourite")?.inverse == "admirers")
        #expect(pet.relationship(named: "admirers")?.inverse == "favourite")
        try schema.validate()
    }

    @Test func `deny on a model relationship refuses the save, naming the objects`() throws {
        let context = ModelContext(try ModelContainer(for: Owner.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true)))
        let owner = Owner(name: "Ann")
        context.insert(owner)
        owner.pets.append(Pet(name: "Rex"))
        try context.save()
        #expect(owner.pets.map(\.name) == ["Rex"])
        context.delete(owner)
        let error = #expect(throws: ModelError.self) { try context.save() }
        guard case .validation(let issues)? = error else { Issue.record("expected a validation error"); return }
        #expect(issues.map(\.kind) == [.deny])
        #expect(issues.first?.object == owner.persistentModelID)
    }
}

@Suite struct SchemaDefaultsTests {
    @Test func `two schemas of the same classes are equal even when defaults are expressions like Date.now`() throws {
        let first = Schema([Badge.self])
        Thread.sleep(forTimeInterval: 0.002)
        #expect(Schema([Badge.self]) == first)
    }

    @Test func `a package whose stored defaults differ from the models' (Date.now of an earlier run) opens as it is`() throws {
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("Badges.folio")
        // What an earlier run wrote: the same entity, with that run's `created` and `token` defaults.
        var entity = try #require(Schema([Badge.self]).entity(named: "Badge"))
        for index in entity.attributes.indices {
            switch entity.attributes[index].name {
            case "created": entity.attributes[index].defaultStoredValue = .date(Date(timeIntervalSinceReferenceDate: 0))
            case "token": entity.attributes[index].defaultStoredValue = .uuid(UUID())
            default: continue
            }
        }
        let earlier = try Schema([entity])
        #expect(earlier != Schema([Badge.self]))
        do {
            let context = ModelContext(try ModelContainer(for: earlier, configurations: ModelConfiguration(url: url)))
            try context.insert("Badge", ["name": .string("first"), "token": .uuid(UUID())])
            try context.save()
        }
        let container = try ModelContainer(for: Badge.self, configurations: ModelConfiguration(url: url))
        #expect(container.schema == Schema([Badge.self]))
        let context = ModelContext(container)
        #expect(try context.fetch(FetchDescriptor<Badge>()).map(\.name) == ["first"])
        context.insert(Badge(name: "second"))
        try context.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Badge>()) == 2)
    }
}
