import Foundation
import Testing
import Folio
@testable import FolioCore
import FolioTestSupport

/// A store tells its observers of every saved state it publishes — once per
/// save, never for its own writes seen again by its package watcher — and
/// watches its package only while an observer is registered.
@Suite struct DocumentObserverTests {
    /// Counts what a store told it.
    final class Recorder: DocumentObserver, @unchecked Sendable {
        private let condition = NSCondition()
        private var told: [[Int64]] = []

        func documentDidPublish(_ store: SharedDocument, transactions: [StoredTransaction]) {
            condition.withLock {
                told.append(transactions.map(\.number))
                condition.broadcast()
            }
        }

        var calls: [[Int64]] { condition.withLock { told } }

        /// Whether `count` calls came before a minute passed.
        func waitFor(_ count: Int) -> Bool {
            let deadline = Date(timeIntervalSinceNow: Patience.seconds)
            return condition.withLock {
                while told.count < count {
                    guard condition.wait(until: deadline) else { return told.count >= count }
                }
                return true
            }
        }
    }

    /// Waits (a minute at most) until `condition` holds.
    func eventually(_ condition: () -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: Patience.seconds)
        while !condition() {
            if Date() >= deadline { return false }
            usleep(2_000)
        }
        return true
    }

    @Test("each save is told once with the transaction it recorded; the watcher's wake-up for the store's own write tells nothing more")
    func eachSaveToldOnce() throws {
        let url = temporaryPackageURL()
        defer { try? FileManager.default.removeItem(at: url) }
        let context = ModelContext(try ModelContainer(for: try zooSchema(), configurations: ModelConfiguration(url: url)))
        try context.insert("Animal")
        try context.save()
        let recorder = Recorder()
        context.sharedDocument.addObserver(recorder)
        #expect(context.sharedDocument.isWatchingPackage)
        try context.insert("Animal")
        try context.save()
        #expect(recorder.calls.count == 1)
        let last = try #require(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).last)
        #expect(recorder.calls.first == [last.transactionIdentifier])
        // The watcher saw the commit, found the package current, and told no one.
        #expect(eventually { context.sharedDocument.observers.watcherWakeUps >= 1 })
        context.sharedDocument.waitForBackgroundWrites()
        #expect(recorder.calls.count == 1)
        // An autosave, then deleteAllData: told too.
        context.autosaveEnabled = true
        try context.insert("Animal")
        context.processPendingChanges()
        #expect(recorder.calls.count == 2 && recorder.calls.last?.count == 1)
        try context.container.erase()
        #expect(recorder.calls.count == 3 && recorder.calls.last == [])
    }

    @Test("a read-only store watches its package while observed: another program's save is taken in and told; released observers stop the watcher")
    func watchesWhileObserved() throws {
        let url = temporaryPackageURL()
        defer { try? FileManager.default.removeItem(at: url) }
        try DocumentPackage(url: url).write(ObjectGraph(schema: try zooSchema()))
        let reader = ModelContext(try ModelContainer(contentsOf: url, allowsSave: false))
        #expect(!reader.sharedDocument.isWatchingPackage)
        var recorder: Recorder? = Recorder()
        reader.sharedDocument.addObserver(try #require(recorder))
        #expect(reader.sharedDocument.isWatchingPackage)
        let graph = try DocumentPackage(url: url).read()
        _ = try graph.insert("Animal", ["name": .string("Olm")])
        try DocumentPackage(url: url).write(graph)
        #expect(try #require(recorder).waitFor(1))
        #expect(try reader.fetchCount(DynamicFetchDescriptor(entity: "Animal")) == 1)
        // Gone: the store no longer tells it, and stops watching at its next unregistering.
        let id = ObjectIdentifier(try #require(recorder))
        recorder = nil
        reader.sharedDocument.removeObserver(id)
        #expect(!reader.sharedDocument.isWatchingPackage)
    }

    @Test("an in-memory store never watches; a new document is watched from its first save")
    func watchingNeedsAPackageOnDisk() throws {
        let memory = ModelContext(try ModelContainer(for: try zooSchema(), configurations: ModelConfiguration(isStoredInMemoryOnly: true)))
        let inMemory = Recorder()
        memory.sharedDocument.addObserver(inMemory)
        try memory.insert("Animal")
        try memory.save()
        #expect(!memory.sharedDocument.isWatchingPackage)
        #expect(inMemory.calls.count == 1)

        let url = temporaryPackageURL()
        defer { try? FileManager.default.removeItem(at: url) }
        let context = ModelContext(try ModelContainer(for: try zooSchema(), configurations: ModelConfiguration(url: url)))
        let recorder = Recorder()
        context.sharedDocument.addObserver(recorder)
        #expect(!context.sharedDocument.isWatchingPackage, "nothing on disk yet")
        try context.insert("Animal")
        try context.save()
        #expect(context.sharedDocument.isWatchingPackage)
    }

    #if os(Linux)
    @Test("a merge written over the observed package: the watcher takes it in, then watches the folder in its place, so a later outside save is told too")
    func watchesTheFolderAMergePutInPlace() throws {
        let folder = try TemporaryFolder("watcher-after-merge")
        let versions = try MergeHistoryTests.versions(in: folder.url)
        let context = try makeContext(try MergeHistoryTests.schema(), url: versions.ours)
        let recorder = Recorder()
        context.sharedDocument.addObserver(recorder)
        #expect(context.sharedDocument.isWatchingPackage)
        try DocumentPackage.merge(base: versions.base, ours: versions.ours, theirs: versions.theirs, into: versions.ours)
        // The old folder's watch ended: the merged package is taken in (its whole history told).
        #expect(recorder.waitFor(1))
        #expect(try context.fetchCount(DynamicFetchDescriptor(entity: "Animal")) == 3)
        #expect(context.sharedDocument.isWatchingPackage)
        // Another program saves into the merged package: the new watcher sees it.
        let graph = try DocumentPackage(url: versions.ours).read()
        _ = try graph.insert("Animal", ["name": .string("Olm"), "age": .int(9)])
        try DocumentPackage(url: versions.ours).write(graph)
        #expect(recorder.waitFor(2))
        #expect(try context.fetchCount(DynamicFetchDescriptor(entity: "Animal")) == 4)
    }
    #endif
}
