import Foundation
import FolioTestSupport
import Folio
import Testing

// Lightweight migration as SwiftData does it without a plan: the next
// version of the app renames a property with `originalName` and adds one with
// a default, and opens the store the previous version saved.

enum ContactsV1 {
    @Model
    final class Member {
        var fullName: String
        var joined: Date

        init(fullName: String, joined: Date) {
            self.fullName = fullName
            self.joined = joined
        }
    }
}

enum ContactsV2 {
    @Model
    final class Member {
        @Attribute(originalName: "fullName") var name: String
        var joined: Date
        var isActive: Bool = true

        init(name: String, joined: Date) {
            self.name = name
            self.joined = joined
        }
    }
}

@Suite @MainActor struct RenameMigrationTests {
    @Test func aRenamedPropertyKeepsItsValuesAndANewOneTakesItsDefault() throws {
        let directory = try TemporaryFolder()
        let configuration = ModelConfiguration(url: directory.storeURL("Members.store"))
        do {
            let context = ModelContext(try ModelContainer(for: ContactsV1.Member.self, configurations: configuration))
            context.insert(ContactsV1.Member(fullName: "Ada Lovelace", joined: .day(1)))
            try context.save()
        }

        let context = ModelContext(try ModelContainer(for: ContactsV2.Member.self, configurations: configuration))
        let members = try context.fetch(FetchDescriptor<ContactsV2.Member>())
        #expect(members.map(\.name) == ["Ada Lovelace"])
        #expect(members.map(\.isActive) == [true])
        #expect(members.map(\.joined) == [.day(1)])
    }
}
