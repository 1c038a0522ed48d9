import Foundation
import FolioTestSupport
import Testing
import Folio
@testable import FolioCore

/// Autosave never blocks an edit (docs/ARCHITECTURE.md, "Autosave"): the main
/// context's `processPendingChanges()` publishes the save at once and the
/// package is written by the store's background writer, from the saved state
/// as it was published. These tests hold the writer with its test hook, so
/// what they see in between does not depend on timing.
@Suite struct AutosaveTests {
    /// Holds the background writer: each write waits at its start until
    /// released, and says it has started. Counts the writes that started.
    final class WriterGate: @unchecked Sendable {
        private let started = DispatchSemaphore(value: 0)
        private let proceed = DispatchSemaphore(value: 0)
        private let lock = NSLock()
        private var count = 0
        private var isOpen = false
        private var failures: [PackageError] = []

        /// Installs the gate on a store's writer; later writes fail with `failures`, in order, first.
        func install(on store: SharedDocument, failing failures: [PackageError] = []) {
            self.failures = failures
            store.beforeBackgroundWrite = { [self] in
                let held = lock.withLock {
                    count += 1
                    return !isOpen
                }
                started.signal()
                if held { proceed.wait() }
                return lock.withLock { self.failures.isEmpty ? nil : self.failures.removeFirst() }
            }
        }

        /// Waits until a write has started (and is held).
        func waitUntilStarted() { started.wait() }
        /// Lets one held write (or the next one) go on.
        func release() { proceed.signal() }
        /// Lets every write go on from now on (they are still counted).
        func open(on store: SharedDocument) {
            lock.withLock { isOpen = true }
            proceed.signal()
        }
        /// How many background write jobs have started.
        var writesStarted: Int { lock.withLock { count } }
    }

    static let diskFull = PackageError.io(path: "/injected", operation: "write", code: ENOSPC, message: "No space left on device")

    /// A package with `categories` categories of `perCategory` animals each, saved.
    static func zooPackage(categories: Int = 3, perCategory: Int = 50) throws -> URL {
        let url = temporaryPackageURL("Zoo")
        let context = try makeContext(try zooSchema(), url: url)
        _ = try context.insertZoo(categories: categories, perCategory: perCategory)
        try context.save()
        return url
    }

    /// What the package on disk holds now: live objects per entity (read with a fresh loader).
    static func onDisk(_ url: URL) throws -> [String: Int] {
        let graph = try DocumentPackage(url: url).read()
        return try ["AnimalCategory": graph.count(of: "AnimalCategory"), "Animal": graph.count(of: "Animal")]
    }

    static func category(_ context: ModelContext, _ name: String) throws -> PersistentIdentifier {
        try #require(
            try context.fetchIdentifiers(
                DynamicFetchDescriptor(
                    entity: "AnimalCategory", predicate: try ObjectPredicate("name == '\(name)'"))
            ).first)
    }

    @Test("an autosave after a cascade delete returns before the package is written, and the write follows")
    @MainActor func autosaveReturnsBeforeTheWrite() throws {
        let url = try Self.zooPackage()
        let container = try ModelContainer(for: try zooSchema(), configurations: ModelConfiguration(url: url))
        let context = container.mainContext
        let gate = WriterGate()
        gate.install(on: container.sharedDocument)
        try context.delete(try Self.category(context, "Category 0"))
        context.processPendingChanges()
        gate.waitUntilStarted()
        // Saved (published) but not written: the edit did not wait for the write.
        #expect(!context.hasChanges)
        #expect(!container.sharedDocument.isWritten)
        #expect(try Self.onDisk(url) == ["AnimalCategory": 3, "Animal": 150])
        // Another context sees the saved state already.
        #expect(try ModelContext(container).fetchCount(DynamicFetchDescriptor(entity: "Animal")) == 100)
        gate.open(on: container.sharedDocument)
        container.sharedDocument.waitForBackgroundWrites()
        #expect(container.sharedDocument.isWritten)
        #expect(try Self.onDisk(url) == ["AnimalCategory": 2, "Animal": 100])
    }

    @Test("autosaves made while a background write runs become one write of the latest state")
    @MainActor func autosavesAreCoalesced() throws {
        let url = try Self.zooPackage()
        let container = try ModelContainer(for: try zooSchema(), configurations: ModelConfiguration(url: url))
        let context = container.mainContext
        let gate = WriterGate()
        gate.install(on: container.sharedDocument)
        try context.insert("AnimalCategory", ["name": .string("New 1")])
        context.processPendingChanges()
        gate.waitUntilStarted()
        for number in 2...5 {
            try context.insert("AnimalCategory", ["name": .string("New \(number)")])
            context.processPendingChanges()
        }
        gate.open(on: container.sharedDocument)
        container.sharedDocument.waitForBackgroundWrites()
        // Five autosaves, two jobs: the four made while the first was held queued one more.
        // The held one took the latest state when let go, so the second found nothing left to write.
        #expect(gate.writesStarted == 2)
        #expect(try Self.onDisk(url)["AnimalCategory"] == 8)
    }

    @Test("a background write writes the state its autosave published, not edits made after it")
    @MainActor func backgroundWriteUsesTheSnapshot() throws {
        let url = try Self.zooPackage()
        let container = try ModelContainer(for: try zooSchema(), configurations: ModelConfiguration(url: url))
        let context = container.mainContext
        context.undoManager = UndoManager()
        let gate = WriterGate()
        gate.install(on: container.sharedDocument)
        try context.delete(try Self.category(context, "Category 1"))
        context.processPendingChanges()
        gate.waitUntilStarted()
        // While the write is held: the delete is undone in the context, and another animal added.
        context.undoManager?.undo()
        try context.insert("Animal", ["name": .string("Late")])
        #expect(try context.fetchCount(DynamicFetchDescriptor(entity: "Animal")) == 151)
        gate.open(on: container.sharedDocument)
        container.sharedDocument.waitForBackgroundWrites()
        #expect(try Self.onDisk(url) == ["AnimalCategory": 2, "Animal": 100])
        #expect(context.hasChanges)
    }

    @Test("edits made while a background write runs are saved by the next save")
    @MainActor func editsDuringAWriteAreKept() throws {
        let url = try Self.zooPackage()
        let container = try ModelContainer(for: try zooSchema(), configurations: ModelConfiguration(url: url))
        let context = container.mainContext
        let gate = WriterGate()
        gate.install(on: container.sharedDocument)
        try context.insert("AnimalCategory", ["name": .string("First")])
        context.processPendingChanges()
        gate.waitUntilStarted()
        let second = try context.insert("AnimalCategory", ["name": .string("Second")])
        gate.open(on: container.sharedDocument)
        container.sharedDocument.waitForBackgroundWrites()
        #expect(context.hasChanges && context.insertedIdentifiers == [second])
        #expect(try Self.onDisk(url)["AnimalCategory"] == 4)
        try context.save()
        #expect(try Self.onDisk(url)["AnimalCategory"] == 5)
        #expect(!context.hasChanges)
    }

    @Test("a failed background write is reported once, at the next processPendingChanges, and written again")
    @MainActor func failedWriteIsReportedAndRetried() throws {
        let url = try Self.zooPackage()
        let container = try ModelContainer(for: try zooSchema(), configurations: ModelConfiguration(url: url))
        let context = container.mainContext
        nonisolated(unsafe) var reported: [ModelError] = []
        context.autosaveErrorHandler = { reported.append($0) }
        let gate = WriterGate()
        gate.install(on: container.sharedDocument, failing: [Self.diskFull])
        try context.insert("AnimalCategory", ["name": .string("Unlucky")])
        context.processPendingChanges()
        gate.waitUntilStarted()
        gate.open(on: container.sharedDocument)
        container.sharedDocument.waitForBackgroundWrites()
        // Saved in memory, not on disk; nothing is told on the writer's thread.
        #expect(reported.isEmpty && !context.hasChanges && !container.sharedDocument.isWritten)
        #expect(try Self.onDisk(url)["AnimalCategory"] == 3)
        // The next user action tells the context, and writes the state again.
        context.processPendingChanges()
        #expect(reported == [.package(Self.diskFull)])
        container.sharedDocument.waitForBackgroundWrites()
        #expect(container.sharedDocument.isWritten)
        #expect(try Self.onDisk(url)["AnimalCategory"] == 4)
        context.processPendingChanges()
        #expect(reported.count == 1, "reported once")
    }

    @Test("after a failed background write, an explicit save with nothing new writes the state again")
    @MainActor func explicitSaveWritesWhatAFailedWriteLeft() throws {
        let url = try Self.zooPackage()
        let container = try ModelContainer(for: try zooSchema(), configurations: ModelConfiguration(url: url))
        let context = container.mainContext
        let gate = WriterGate()
        gate.install(on: container.sharedDocument, failing: [Self.diskFull])
        try context.delete(try Self.category(context, "Category 2"))
        context.processPendingChanges()
        gate.waitUntilStarted()
        gate.open(on: container.sharedDocument)
        container.sharedDocument.waitForBackgroundWrites()
        #expect(!context.hasChanges && !container.sharedDocument.isWritten)
        try context.save()
        #expect(container.sharedDocument.isWritten)
        #expect(try Self.onDisk(url) == ["AnimalCategory": 2, "Animal": 100])
    }

    @Test("an explicit save made while a background write runs returns with the package holding everything saved")
    @MainActor func explicitSaveWaitsForTheBackgroundWrite() throws {
        let url = try Self.zooPackage()
        let container = try ModelContainer(for: try zooSchema(), configurations: ModelConfiguration(url: url))
        let context = container.mainContext
        let gate = WriterGate()
        gate.install(on: container.sharedDocument)
        try context.insert("AnimalCategory", ["name": .string("Autosaved")])
        context.processPendingChanges()
        gate.waitUntilStarted()
        try context.insert("AnimalCategory", ["name": .string("Saved")])
        // The held write is let go from another thread while save() waits for it (or before: either way).
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.05) { gate.release() }
        try context.save()
        #expect(container.sharedDocument.isWritten)
        #expect(try Self.onDisk(url)["AnimalCategory"] == 5)
        gate.open(on: container.sharedDocument)
    }

    @Test("a package changed on disk by another program fails the background write; the report and the explicit save say so")
    @MainActor func modifiedOnDiskIsStillDetected() throws {
        LibraryLog.capture()
        let url = try Self.zooPackage()
        do {
            let container = try ModelContainer(for: try zooSchema(), configurations: ModelConfiguration(url: url))
            let context = container.mainContext
            nonisolated(unsafe) var reported: [ModelError] = []
            context.autosaveErrorHandler = { reported.append($0) }
            // Another program rewrites manifest.xml, the commit point (same content, new file).
            let document = url.appendingPathComponent("manifest.xml")
            let bytes = try Data(contentsOf: document)
            try FileManager.default.removeItem(at: document)
            try bytes.write(to: document)
            try context.insert("AnimalCategory", ["name": .string("Mine")])
            context.processPendingChanges()
            container.sharedDocument.waitForBackgroundWrites()
            context.processPendingChanges()
            func isModifiedOnDisk(_ error: ModelError?) -> Bool {
                if case .package(.modifiedOnDisk)? = error { return true }
                return false
            }
            #expect(reported.count == 1 && isModifiedOnDisk(reported.first), "\(reported)")
            #expect(performing: { try context.save() }, throws: { isModifiedOnDisk($0 as? ModelError) })
            #expect(try Data(contentsOf: document) == bytes, "the other program's file is left alone")
        }
        // The container went with its change unwritten, so its last write failed
        // where no handler was left to hear it: logged, never printed or lost.
        #expect(!LibraryLog.messages(containing: url.path).filter { $0.contains("changed on disk") }.isEmpty)
    }

    @Test("dropping the container waits for the background write under way: the package holds the autosave")
    @MainActor func teardownWaitsForTheWrite() throws {
        let url = try Self.zooPackage()
        let gate = WriterGate()
        do {
            let container = try ModelContainer(for: try zooSchema(), configurations: ModelConfiguration(url: url))
            let context = container.mainContext
            gate.install(on: container.sharedDocument)
            try context.delete(try Self.category(context, "Category 0"))
            context.processPendingChanges()
            gate.waitUntilStarted()
            DispatchQueue.global().asyncAfter(deadline: .now() + 0.05) { gate.release() }
        }
        #expect(try Self.onDisk(url) == ["AnimalCategory": 2, "Animal": 100])
        #expect(throws: Never.self, "the lock is free") { _ = try PackageLock(path: url.path) }
    }

    @Test("an autosave whose write has not started is written by the container's teardown")
    @MainActor func teardownWritesAQueuedAutosave() throws {
        let url = try Self.zooPackage()
        let hold = DispatchSemaphore(value: 0)
        do {
            let container = try ModelContainer(for: try zooSchema(), configurations: ModelConfiguration(url: url))
            let context = container.mainContext
            // The writer's queue is held by a job of the test's own, so the autosave's write cannot start.
            let store = container.sharedDocument
            store.writer?.schedule { hold.wait() }
            try context.insert("AnimalCategory", ["name": .string("Queued")])
            context.processPendingChanges()
            #expect(!store.isWritten)
        }
        // The teardown wrote on this thread; the queued job, when let go, finds the store gone.
        #expect(try Self.onDisk(url)["AnimalCategory"] == 4)
        hold.signal()
    }

    @Test("in memory, an autosave saves at once and there is nothing to write")
    @MainActor func inMemoryAutosave() throws {
        let container = try ModelContainer(for: try zooSchema(), configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = container.mainContext
        try context.insert("AnimalCategory", ["name": .string("Ephemeral")])
        context.processPendingChanges()
        #expect(!context.hasChanges && container.sharedDocument.writer == nil && container.sharedDocument.isWritten)
        #expect(try ModelContext(container).fetchCount(DynamicFetchDescriptor(entity: "AnimalCategory")) == 1)
    }

    @Test("a read-only container's autosave is refused and reported at once, as before")
    @MainActor func readOnlyAutosave() throws {
        let url = try Self.zooPackage()
        let container = try ModelContainer(for: try zooSchema(), configurations: ModelConfiguration(url: url, allowsSave: false))
        let context = container.mainContext
        nonisolated(unsafe) var reported: [ModelError] = []
        context.autosaveErrorHandler = { reported.append($0) }
        try context.insert("AnimalCategory", ["name": .string("Refused")])
        context.processPendingChanges()
        #expect(reported == [.saveNotAllowed] && context.hasChanges)
        #expect(try Self.onDisk(url)["AnimalCategory"] == 3)
    }

    @Test("the exit flush writes every open store's unwritten autosaves")
    @MainActor func exitFlushWritesEveryStore() throws {
        let url = try Self.zooPackage()
        let container = try ModelContainer(for: try zooSchema(), configurations: ModelConfiguration(url: url))
        let hold = DispatchSemaphore(value: 0)
        container.sharedDocument.writer?.schedule { hold.wait() }
        try container.mainContext.insert("AnimalCategory", ["name": .string("At exit")])
        container.mainContext.processPendingChanges()
        #expect(!container.sharedDocument.isWritten)
        SharedDocument.flushAll()
        #expect(container.sharedDocument.isWritten)
        #expect(try Self.onDisk(url)["AnimalCategory"] == 4)
        hold.signal()
    }
}
