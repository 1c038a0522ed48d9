// Schema.Attribute.defaultValue as SwiftData's `Any?`, and
// Entity.uniquenessConstraints listing .unique attributes too.
import Foundation
import Folio
import Testing

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
