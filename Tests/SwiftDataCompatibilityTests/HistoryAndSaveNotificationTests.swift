import Foundation
import FolioTestSupport
import Folio
import Testing

// History and save notifications as a SwiftData app uses them (iOS 18): it
// fetches the transactions, reads a deleted model's preserved values through
// the tombstone, and observes `willSave` / `didSave`.

@Model
final class Memo {
    @Attribute(.preserveValueOnDeletion) var title: String
    var body: String

    init(title: String, body: String) {
        self.title = title
        self.body = body
    }
}

/// What the notification observers saw, read back on the test's actor.
private final class SeenNotifications: @unchecked Sendable {
    private let lock = NSLock()
    private var names: [Notification.Name] = []
    private var inserted: [PersistentIdentifier] = []

    func record(_ note: Notification) {
        lock.withLock {
            names.append(note.name)
            inserted += note.userInfo?[ModelContext.NotificationKey.insertedIdentifiers.rawValue] as? [PersistentIdentifier] ?? []
        }
    }

    var seen: (names: [Notification.Name], inserted: [PersistentIdentifier]) { lock.withLock { (names, inserted) } }
}

@Suite @MainActor struct HistoryAndSaveNotificationTests {
    @Test func aDeletedModelsTombstoneGivesItsPreservedValuesAsSendable() async throws {
        let directory = try TemporaryFolder()
        let configuration = ModelConfiguration(url: directory.storeURL("Memos.store"))
        do {
            let context = ModelContext(try ModelContainer(for: Memo.self, configurations: configuration))
            let memo = Memo(title: "Groceries", body: "Milk")
            context.insert(memo)
            try context.save()
            context.delete(memo)
            try context.save()
        }

        let context = ModelContext(try ModelContainer(for: Memo.self, configurations: configuration))
        let transactions = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(transactions.count == 2)
        let tombstone = try #require(
            transactions.last?.changes.compactMap { change -> HistoryTombstone<Memo>? in
                guard case .delete(let delete as DefaultHistoryDelete<Memo>) = change else { return nil }
                return delete.tombstone
            }.first)
        let title: (any Sendable)? = tombstone[\Memo.title]
        #expect(title as? String == "Groceries")
        #expect(tombstone[\Memo.body] == nil)
        // Sendable, so it can leave the actor that read it.
        let sent = Task.detached { title as? String }
        #expect(await sent.value == "Groceries")
    }

    @Test func savingPostsWillSaveThenDidSaveWithTheInsertedIdentifiers() throws {
        let container = try ModelContainer(for: Memo.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        let seen = SeenNotifications()
        let observers = [ModelContext.willSave, ModelContext.didSave].map { name in
            NotificationCenter.default.addObserver(forName: name, object: context, queue: nil) { seen.record($0) }
        }
        defer { observers.forEach(NotificationCenter.default.removeObserver) }

        let memo = Memo(title: "Call", body: "Ada")
        context.insert(memo)
        try context.save()
        #expect(seen.seen.names == [ModelContext.willSave, ModelContext.didSave])
        #expect(seen.seen.inserted == [memo.persistentModelID])
    }
}
