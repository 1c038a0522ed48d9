import Foundation
import FolioTestSupport
import Folio
import Testing

// HistoryObserver (iOS 27) as an app uses it: made on the main actor beside the
// main context, its `eventCounter` observed, counting the saves of every
// context — and of another process — that match its models and authors.

@Model
final class Sighting {
    var species: String
    var count: Int

    init(species: String, count: Int) {
        self.species = species
        self.count = count
    }
}

@Model
final class Birdwatcher {
    var name: String

    init(name: String) { self.name = name }
}

@Suite @MainActor struct HistoryObserverTests {
    /// Lets the main actor's queue run until `condition` holds; false after
    /// 12,000 turns of it (each a 5 ms sleep: a generous bound, only while an
    /// expected event is awaited). Turns are counted, not time.
    func eventually(_ condition: () throws -> Bool) async throws -> Bool {
        var turns = 0
        while try !condition() {
            if turns >= 12_000 { return false }
            turns += 1
            try await Task.sleep(for: .milliseconds(5))
        }
        return true
    }

    func container(_ folder: TemporaryFolder) throws -> ModelContainer {
        try ModelContainer(
            for: Sighting.self, Birdwatcher.self,
            configurations: ModelConfiguration(url: folder.storeURL("Birds.store")))
    }

    @Test func eachSaveOfTheMainContextCountsOnceBeforeSaveReturns() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let container = try container(folder)
        let context = container.mainContext
        context.insert(Sighting(species: "Wren", count: 1))
        try context.save()
        let observer = try HistoryObserver(modelContainer: container)
        #expect(observer.eventCounter == 0, "saves before the observer do not count")
        context.insert(Sighting(species: "Robin", count: 2))
        try context.save()
        #expect(observer.eventCounter == 1)
        context.insert(Birdwatcher(name: "Ada"))
        try context.save()
        #expect(observer.eventCounter == 2)
        try context.save()  // nothing to save: no transaction
        #expect(observer.eventCounter == 2)

        // Its token is the last transaction's: nothing is after it.
        let last = try #require(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).last)
        let token = try #require(observer.historyTokens[last.storeIdentifier] as? DefaultHistoryToken)
        #expect(token == last.token)
        #expect(observer.modelContainer === container)
    }

    @Test func onlyTransactionsChangingTheObservedModelsCount() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let container = try container(folder)
        let context = container.mainContext
        let observer = try HistoryObserver(observedModels: [Birdwatcher.self], modelContainer: container)
        #expect(observer.observedModels.count == 1)
        let wren = Sighting(species: "Wren", count: 1)
        context.insert(wren)
        try context.save()
        #expect(observer.eventCounter == 0)
        let ada = Birdwatcher(name: "Ada")
        context.insert(ada)
        try context.save()
        #expect(observer.eventCounter == 1)
        ada.name = "Ada L."
        try context.save()
        #expect(observer.eventCounter == 2, "an update counts")
        wren.count = 3
        try context.save()
        #expect(observer.eventCounter == 2)
        context.delete(ada)
        try context.save()
        #expect(observer.eventCounter == 3, "a delete counts")
        // The position moved past every transaction, matching or not.
        let last = try #require(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).last)
        #expect(observer.historyTokens[last.storeIdentifier] as? DefaultHistoryToken == last.token)
    }

    @Test func onlyTheGivenAuthorsTransactionsCount() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let container = try container(folder)
        let observer = try HistoryObserver(authors: ["importer"], modelContainer: container)
        #expect(observer.authors == ["importer"])
        container.mainContext.insert(Sighting(species: "Wren", count: 1))
        try container.mainContext.save()
        #expect(observer.eventCounter == 0, "no author")
        let importer = ModelContext(container)
        importer.author = "importer"
        importer.insert(Sighting(species: "Robin", count: 4))
        try importer.save()
        #expect(observer.eventCounter == 1)
        let other = ModelContext(container)
        other.author = "widget"
        other.insert(Sighting(species: "Tit", count: 2))
        try other.save()
        #expect(observer.eventCounter == 1)
    }

    @Test func anAutosaveOfTheMainContextCounts() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let container = try container(folder)
        let observer = try HistoryObserver(modelContainer: container)
        #expect(container.mainContext.autosaveEnabled)
        container.mainContext.insert(Sighting(species: "Wren", count: 1))
        container.mainContext.processPendingChanges()
        #expect(!container.mainContext.hasChanges)
        #expect(observer.eventCounter == 1)
    }

    @Test func aBackgroundContextsSaveArrivesOnTheMainActor() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let container = try container(folder)
        let observer = try HistoryObserver(modelContainer: container)
        let seenOnMainThread = SeenFlag()
        withObservationTracking {
            _ = observer.eventCounter
        } onChange: {
            seenOnMainThread.set(SeenFlag.isOnMainActor)
        }
        try await Task.detached {
            let context = ModelContext(container)
            context.insert(Sighting(species: "Owl", count: 1))
            try context.save()
        }.value
        #expect(try await eventually { observer.eventCounter == 1 })
        #expect(seenOnMainThread.value == true, "eventCounter changes on the observer's actor, the main actor")
        #expect(try container.mainContext.fetchCount(FetchDescriptor<Sighting>()) == 1)
    }

    @Test func withObservationTrackingFiresWhenTheCounterChanges() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let container = try container(folder)
        let observer = try HistoryObserver(modelContainer: container)
        let fired = SeenFlag()
        withObservationTracking {
            _ = observer.eventCounter
        } onChange: {
            fired.set(true)
        }
        container.mainContext.insert(Birdwatcher(name: "Ada"))
        #expect(fired.value == nil, "no save yet")
        try container.mainContext.save()
        #expect(fired.value == true)
    }

    @Test func aReopenedContainersObserverStartsFromTheTokenItWasGiven() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // The app's first run: it observes, saves twice, keeps the observer's tokens as JSON.
        let saved: Data
        do {
            let container = try container(folder)
            let observer = try HistoryObserver(modelContainer: container)
            container.mainContext.insert(Sighting(species: "Wren", count: 1))
            try container.mainContext.save()
            container.mainContext.insert(Sighting(species: "Robin", count: 1))
            try container.mainContext.save()
            #expect(observer.eventCounter == 2)
            let tokens = observer.historyTokens.compactMapValues { $0 as? DefaultHistoryToken }
            saved = try JSONEncoder().encode(tokens)
        }
        // Meanwhile, another run saves with no observer.
        do {
            let container = try container(folder)
            container.mainContext.insert(Birdwatcher(name: "Ada"))
            try container.mainContext.save()
        }
        // The next run resumes from the saved tokens: what came since is one event at once.
        let container = try container(folder)
        let tokens: [String: any HistoryToken] = try JSONDecoder().decode([String: DefaultHistoryToken].self, from: saved)
        let resumed = try HistoryObserver(historyTokens: tokens, modelContainer: container)
        #expect(resumed.eventCounter == 1)
        let sightings = try HistoryObserver(historyTokens: tokens, observedModels: [Sighting.self], modelContainer: container)
        #expect(sightings.eventCounter == 0, "what came since changed no Sighting")
        let fresh = try HistoryObserver(modelContainer: container)
        #expect(fresh.eventCounter == 0)
        let fromStart = try HistoryObserver(historyTokens: [:], modelContainer: container)
        #expect(fromStart.eventCounter == 1, "no token for this store: the whole history, as one event")
        container.mainContext.insert(Sighting(species: "Tit", count: 1))
        try container.mainContext.save()
        let counters: [Int] = [resumed.eventCounter, sightings.eventCounter, fresh.eventCounter, fromStart.eventCounter]
        #expect(counters == [2, 1, 1, 2])
    }

    @Test func anObserverThatGoesAwayIsNoLongerTold() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let container = try container(folder)
        var observer: HistoryObserver? = try HistoryObserver(modelContainer: container)
        weak let gone = observer
        observer = nil
        #expect(gone == nil, "the store holds its observers weakly")
        container.mainContext.insert(Sighting(species: "Wren", count: 1))
        try container.mainContext.save()
        let kept = try HistoryObserver(modelContainer: container)
        container.mainContext.insert(Sighting(species: "Robin", count: 1))
        try container.mainContext.save()
        #expect(kept.eventCounter == 1)
    }

    @Test func anObserverMadeOnAnotherActorCountsThere() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let container = try container(folder)
        let tally = Tally()
        try await tally.observe(container)
        container.mainContext.insert(Sighting(species: "Wren", count: 1))
        try container.mainContext.save()
        #expect(await tally.waitFor(1))
        try await tally.saveThere(container)
        #expect(await tally.waitFor(2))
    }

    @Test func anObserverMadeOutsideAnyActorCountsOnTheSavingThread() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let container = try container(folder)
        let counts = try await Task.detached {
            let observer = try HistoryObserver(modelContainer: container)
            let context = ModelContext(container)
            context.insert(Sighting(species: "Wren", count: 1))
            try context.save()
            let afterOne = observer.eventCounter
            context.insert(Sighting(species: "Robin", count: 1))
            try context.save()
            return [afterOne, observer.eventCounter]
        }.value
        #expect(counts == [1, 2])
    }

    @Test func anotherProcessesSavesCountAndTheMainContextThenShowsThem() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let animals = try folder.copySample("Animals.folio")
        // A reader app: another process writes the document.
        let container = try ModelContainer(contentsOf: animals, allowsSave: false)
        let observer = try HistoryObserver(modelContainer: container)
        let start = try #require(observer.historyTokens.values.first as? DefaultHistoryToken)
        let categories = try container.mainContext.fetchCount(DynamicFetchDescriptor(entity: "AnimalCategory"))

        let run = try runProgram(BuiltProgram.autosaveChild, [animals.path, "1", "3"], in: folder.url)
        #expect(run.status == 0, "\(run.stderr)")
        // The child's last commit reaches the observer (its autosaves may come as fewer events).
        let arrived = try await eventually {
            guard let token = observer.historyTokens.values.first as? DefaultHistoryToken, token > start else { return false }
            return try container.mainContext.fetchCount(DynamicFetchDescriptor(entity: "AnimalCategory")) == categories + 3
        }
        #expect(arrived)
        #expect(observer.eventCounter >= 1 && observer.eventCounter <= 3)
        let since = try container.mainContext.fetchHistory(
            HistoryDescriptor<DefaultHistoryTransaction>(
                predicate: #Predicate { $0.token > start }))
        #expect(!since.isEmpty && since.count <= 3)
        #expect(since.allSatisfy { $0.processIdentifier != String(ProcessInfo.processInfo.processIdentifier) })
        #expect(observer.historyTokens.values.first as? DefaultHistoryToken == since.last?.token)
    }
}

/// An actor that keeps a history observer of its own, made on it.
actor Tally {
    private var observer: HistoryObserver?

    func observe(_ container: ModelContainer) throws {
        observer = try HistoryObserver(modelContainer: container)
    }

    var count: Int { observer?.eventCounter ?? -1 }

    /// Lets this actor run until the observer has counted `expected` events;
    /// false after 12,000 turns (each a 5 ms sleep), counted, not timed.
    func waitFor(_ expected: Int) async -> Bool {
        var turns = 0
        while count < expected {
            if turns >= 12_000 { return false }
            turns += 1
            try? await Task.sleep(for: .milliseconds(5))
        }
        return count == expected
    }

    /// Saves from this actor: the observer counts in a task on it.
    func saveThere(_ container: ModelContainer) throws {
        let context = ModelContext(container)
        context.insert(Birdwatcher(name: "Ada"))
        try context.save()
    }
}

/// A value set from whatever thread a change handler runs on, read on the test's actor.
final class SeenFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Bool?

    func set(_ value: Bool) { lock.withLock { stored = value } }
    var value: Bool? { lock.withLock { stored } }

    /// Marks the main queue, which runs the main actor's jobs (on Linux, on a worker thread after `dispatchMain()`).
    private static let mainQueue: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()

    /// Whether the caller runs on the main actor.
    static var isOnMainActor: Bool { Thread.isMainThread || DispatchQueue.getSpecific(key: mainQueue) == true }
}
