import Foundation
import FolioTestSupport
import Folio
import Testing

// Autosave as a SwiftData app relies on it: the main context saves the
// changes of the current event once the event is over, without `save()`; a
// context the app makes does not autosave unless asked.

@Suite @MainActor struct AutosaveTests {
    @Test func onlyTheMainContextAutosavesByDefault() throws {
        let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        #expect(container.mainContext.autosaveEnabled)
        #expect(!ModelContext(container).autosaveEnabled)
    }

    @Test func theMainContextSavesOnceTheCurrentEventIsOver() async throws {
        let directory = try TemporaryFolder()
        let configuration = ModelConfiguration(url: directory.storeURL())
        let container = try ModelContainer(for: Trip.self, configurations: configuration)
        let context = container.mainContext
        context.insert(Trip(name: "Rome", destination: "Italy", startDate: .day(1), endDate: .day(4)))
        context.insert(Trip(name: "Oslo", destination: "Norway", startDate: .day(5), endDate: .day(6)))
        // Still the same event: nothing saved yet.
        #expect(context.hasChanges)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Trip>()) == 0)

        try await waitUntil { !context.hasChanges }
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Trip>()) == 2)
        // One autosave for the event's edits.
        #expect(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).count == 1)
    }

    @Test func aContextMadeByTheAppKeepsItsChangesUntilSaved() async throws {
        let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        context.insert(Trip(name: "Rome", destination: "Italy", startDate: .day(1), endDate: .day(4)))
        try await Task.sleep(for: .milliseconds(100))
        #expect(context.hasChanges)
        #expect(try container.mainContext.fetchCount(FetchDescriptor<Trip>()) == 0)

        // Turned on, it autosaves at `processPendingChanges()`: off the main
        // thread Folio knows no run loop to wait for (a difference from SwiftData).
        context.autosaveEnabled = true
        context.insert(Trip(name: "Oslo", destination: "Norway", startDate: .day(5), endDate: .day(6)))
        context.processPendingChanges()
        #expect(!context.hasChanges)
        #expect(try container.mainContext.fetchCount(FetchDescriptor<Trip>()) == 2)
    }

    /// Lets the main actor's queue run until `condition` holds, at most 1,000
    /// turns of it (each a 10 ms sleep of this task). Turns are counted, not
    /// time: a loaded machine gives as many turns, only later.
    private func waitUntil(_ condition: () throws -> Bool) async throws {
        var turns = 0
        while try !condition() {
            #expect(turns < 1_000, "the main queue ran 1,000 times without the condition holding")
            if turns >= 1_000 { return }
            turns += 1
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}
