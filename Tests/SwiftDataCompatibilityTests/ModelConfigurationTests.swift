import Foundation
import FolioTestSupport
import Folio
import Testing

// ModelConfiguration as SwiftData code writes it (issue 14, item 7): SwiftData's
// parameters compile unchanged, iCloud and app-group choices store locally.

@Suite @MainActor struct ModelConfigurationTests {
    @Test func theFullSwiftDataInitializerCompilesAndKeepsItsArguments() throws {
        let schema = Schema([Trip.self])
        let configuration = ModelConfiguration(
            schema: schema, isStoredInMemoryOnly: true, allowsSave: true,
            groupContainer: .none, cloudKitDatabase: .none)
        #expect(configuration.schema == schema)
        #expect(configuration.isStoredInMemoryOnly)
        #expect(configuration.allowsSave)
        #expect(configuration.url == URL(fileURLWithPath: "/dev/null"))

        let container = try ModelContainer(for: schema, configurations: configuration)
        container.mainContext.insert(Trip(name: "Rome", destination: "Italy", startDate: .day(1), endDate: .day(4)))
        #expect(try container.mainContext.fetchCount(FetchDescriptor<Trip>()) == 1)
    }

    @Test func aNamedConfiguration() throws {
        let configuration = ModelConfiguration("Trips", schema: Schema([Trip.self]), isStoredInMemoryOnly: true)
        #expect(configuration.name == "Trips")
        #expect(configuration.url.path == "/dev/null")
        let container = try ModelContainer(for: Trip.self, configurations: configuration)
        #expect(container.configurations.first?.name == "Trips")
    }

    @Test func aNamedOnDiskConfigurationIsNamedAfterItsName() {
        let configuration = ModelConfiguration("Trips")
        #expect(configuration.name == "Trips")
        #expect(!configuration.isStoredInMemoryOnly)
        #expect(configuration.url.lastPathComponent.hasPrefix("Trips"))
    }

    @Test(arguments: [
        ModelConfiguration.CloudKitDatabase.none,
        .automatic,
        .private("iCloud.com.example.Trips"),
    ])
    func everyCloudKitChoiceStoresLocally(database: ModelConfiguration.CloudKitDatabase) throws {
        let directory = try TemporaryFolder()
        let url = directory.storeURL()
        do {
            let configuration = ModelConfiguration(url: url, allowsSave: true, cloudKitDatabase: database)
            #expect(configuration.url == url)
            #expect(configuration.cloudKitDatabase == database)
            let context = ModelContext(try ModelContainer(for: Trip.self, configurations: configuration))
            context.insert(Trip(name: "Rome", destination: "Italy", startDate: .day(1), endDate: .day(4)))
            try context.save()
        }
        #expect(FileManager.default.fileExists(atPath: url.path))
        let reopened = ModelContext(try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: url)))
        #expect(try reopened.fetchCount(FetchDescriptor<Trip>()) == 1)
    }

    @Test func thePrivateDatabaseNamesItsContainer() {
        let configuration = ModelConfiguration(cloudKitDatabase: .private("iCloud.com.example.Trips"))
        #expect(configuration.cloudKitContainerIdentifier == "iCloud.com.example.Trips")
        #expect(ModelConfiguration(cloudKitDatabase: .none).cloudKitContainerIdentifier == nil)
    }

    /// Checks `url` rather than creating the store, so the test neither writes to
    /// the user's data folder nor changes the process-wide environment.
    @Test func anAppGroupStoresUnderTheDataFolder() {
        let configuration = ModelConfiguration("Trips", groupContainer: .identifier("group.com.example.trips"))
        #expect(configuration.groupAppContainerIdentifier == "group.com.example.trips")

        let environment = ProcessInfo.processInfo.environment
        let dataHome =
            environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.local/share"
        #expect(configuration.url.path == dataHome + "/group.com.example.trips/Trips.folio")
    }

    @Test func aReadOnlyInMemoryConfiguration() throws {
        // The configuration in SwiftData's "Preserving your app's model data across launches".
        let configuration = ModelConfiguration(isStoredInMemoryOnly: true, allowsSave: false)
        let container = try ModelContainer(
            for: Trip.self, Accommodation.self,
            configurations: configuration
        )
        let context = container.mainContext
        context.autosaveEnabled = false
        context.insert(Trip(name: "Rome", destination: "Italy", startDate: .day(1), endDate: .day(4)))
        #expect(throws: ModelError.saveNotAllowed) {
            try context.save()
        }
    }

    @Test func aNameThatIsAPathIsRefusedByTheContainer() {
        let configuration = ModelConfiguration("Trips/2025")
        #expect {
            try ModelContainer(for: Trip.self, configurations: configuration)
        } throws: { error in
            guard case ModelError.configuration(let reason) = error else { return false }
            return reason.contains("Trips/2025")
        }
    }

    @Test func theContainerKeepsTheConfiguration() throws {
        let directory = try TemporaryFolder()
        let configuration = ModelConfiguration(url: directory.storeURL("Journal.store"))
        let container = try ModelContainer(for: Trip.self, configurations: configuration)
        #expect(container.configurations == [configuration])
        #expect(container.configurations.first?.url == directory.storeURL("Journal.store"))
        #expect(container.configurations.first?.name == "Journal")
    }
}
