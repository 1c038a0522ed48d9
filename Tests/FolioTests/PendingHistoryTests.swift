import Foundation
import FolioTestSupport
import Testing
import Folio
@testable import FolioCore

/// A save's history transaction is built when the history needs it
/// (``PendingTransaction``): by the background write for an autosave, or by
/// whoever reads the history first. What is recorded, and `didSave`, are as
/// if it were built at the save.
@Suite struct PendingHistoryTests {
    /// The pending transactions of `document`'s history.
    static func pending(_ document: SharedDocument) -> [HistoryLog.Pending] {
        document.lock.withLock { document.history.pending }
    }

    /// Every deleted identifier the history's transactions record, per transaction.
    static func deleted(_ transactions: [StoredTransaction]) -> [[UInt64]] {
        transactions.map { $0.deleted.flatMap { Array($0.ids) } }
    }

    /// The history the package at `url` holds, read afresh.
    static func onDisk(_ url: URL) throws -> [StoredTransaction] {
        let package = DocumentPackage(url: url)
        return try package.readDocument(limits: .standard).history.transactions(in: package.folder, limits: .standard, schema: nil)
    }

    @Test("an autosave's history transaction is built by the background write, not at the save")
    @MainActor func autosaveTransactionIsBuiltByTheWrite() throws {
        let url = try AutosaveTests.zooPackage()
        let container = try ModelContainer(for: try zooSchema(), configurations: ModelConfiguration(url: url))
        let context = container.mainContext
        let gate = AutosaveTests.WriterGate()
        gate.install(on: container.sharedDocument)
        try context.delete(try AutosaveTests.category(context, "Category 0"))
        context.processPendingChanges()
        gate.waitUntilStarted()
        let waiting = Self.pending(container.sharedDocument)
        #expect(waiting.count == 1)
        #expect(waiting.first.map { !$0.transaction.isBuilt } == true)
        gate.open(on: container.sharedDocument)
        container.sharedDocument.waitForBackgroundWrites()
        #expect(Self.pending(container.sharedDocument).isEmpty)
        #expect(waiting.first?.transaction.recorded?.transaction?.deleted.map(\.ids.count) == [1, 50])
        // The package holds it, numbered after the first save's.
        let onDisk = try Self.onDisk(url)
        #expect(onDisk.count == 2)
        #expect(onDisk.map(\.number) == onDisk.map(\.number).sorted())
        #expect(Self.deleted(onDisk).last?.count == 51)
    }

    @Test("the history read right after an autosave, before its write, holds the autosave's transaction, once")
    @MainActor func historyReadBeforeTheWrite() throws {
        let url = try AutosaveTests.zooPackage()
        let container = try ModelContainer(for: try zooSchema(), configurations: ModelConfiguration(url: url))
        let context = container.mainContext
        // The writer's queue held by a job ahead of the autosave's (not its lock, which a read waits for).
        let held = DispatchSemaphore(value: 0)
        container.sharedDocument.writer?.schedule { held.wait() }
        try context.delete(try AutosaveTests.category(context, "Category 1"))
        context.processPendingChanges()
        #expect(Self.pending(container.sharedDocument).count == 1)
        let before = try container.sharedDocument.historyTransactions()
        #expect(before.count == 2)
        #expect(Self.deleted(before).last?.count == 51)
        #expect(Self.pending(container.sharedDocument).isEmpty)
        #expect(!container.sharedDocument.isWritten)
        held.signal()
        container.sharedDocument.waitForBackgroundWrites()
        // The write recorded nothing more: what was read is what the package holds.
        #expect(try container.sharedDocument.historyTransactions() == before)
        #expect(try Self.onDisk(url).map(\.number) == before.map(\.number))
    }

    @Test("didSave after an autosaved cascade names the objects its history transaction records, in its order")
    @MainActor func didSaveMatchesTheTransaction() throws {
        let url = try AutosaveTests.zooPackage()
        let container = try ModelContainer(for: try zooSchema(), configurations: ModelConfiguration(url: url))
        let context = container.mainContext
        final class Seen: @unchecked Sendable { var deleted: [[PersistentIdentifier]] = [] }
        let seen = Seen()
        let observer = NotificationCenter.default.addObserver(forName: ModelContext.didSave, object: context, queue: nil) { note in
            seen.deleted.append(note.userInfo?[ModelContext.NotificationKey.deletedIdentifiers.rawValue] as? [PersistentIdentifier] ?? [])
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        try context.delete(try AutosaveTests.category(context, "Category 2"))
        context.processPendingChanges()
        let recorded = try #require(try container.sharedDocument.historyTransactions().last)
        let expected = recorded.deleted.flatMap { objects in objects.ids.map { PersistentIdentifier(entityName: objects.entity, id: $0) } }
        #expect(seen.deleted == [expected])
        #expect(expected.count == 51)
    }

    @Test("in memory, where nothing writes, saves past the limit record their transactions: the history stays whole")
    @MainActor func inMemoryPendingIsBounded() throws {
        let container = try ModelContainer(for: try zooSchema(), configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = container.mainContext
        for number in 1...(HistoryLog.pendingLimit * 2 + 3) {
            try context.insert("AnimalCategory", ["name": .string("Category \(number)")])
            context.processPendingChanges()
            #expect(Self.pending(container.sharedDocument).count <= HistoryLog.pendingLimit)
        }
        let history = try container.sharedDocument.historyTransactions()
        #expect(history.count == HistoryLog.pendingLimit * 2 + 3)
        #expect(history.map(\.number) == Array(1...Int64(history.count)) || history.map(\.number) == history.map(\.number).sorted())
        #expect(Set(history.map(\.number)).count == history.count)
    }
}
