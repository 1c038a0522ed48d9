import Folio
import Testing

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
        #expect(specimen.attribute(named: "number")?.defaultValue == .int(0))
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
