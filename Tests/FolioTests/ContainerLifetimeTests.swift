import Foundation
import Testing
import Folio
@testable import FolioCore
import FolioTestSupport

/// A container, its contexts, their undo managers and the package's lock all go
/// away when the program drops them, so a document closed and opened again is
/// never refused as locked (issue 13, item 3).
@Suite struct ContainerLifetimeTests {
    static let samples = SampleDocuments.folder

    /// A copy of the Animals sample in a fresh folder.
    static func animalsCopy() throws -> URL {
        let url = temporaryPackageURL("Animals")
        try FileManager.default.copyItem(at: samples.appendingPathComponent("Animals.folio"), to: url)
        return url
    }

    /// Weak references to what a piece of code made, to check they are gone.
    final class Weak {
        weak var container: ModelContainer?
        weak var context: ModelContext?
        weak var undoManager: UndoManager?
        weak var sharedDocument: SharedDocument?
    }

    /// No process-wide store for the package, and its lock is free.
    static func expectReleased(_ url: URL, _ weak: Weak, sourceLocation: SourceLocation = #_sourceLocation) {
        // An autosave's background job queued before the drop holds the store while it runs (it
        // finds nothing left to write: the container's teardown flushed): on a loaded machine it
        // may not have run yet. Once it has, nothing holds the store.
        weak.sharedDocument?.waitForBackgroundWrites()
        #expect(weak.container == nil, "container", sourceLocation: sourceLocation)
        #expect(weak.context == nil, "context", sourceLocation: sourceLocation)
        #expect(weak.undoManager == nil, "undo manager", sourceLocation: sourceLocation)
        #expect(weak.sharedDocument == nil, "store", sourceLocation: sourceLocation)
        #expect(!DocumentRegistry.shared.contains(DocumentRegistry.canonicalPath(url)), sourceLocation: sourceLocation)
        #expect(throws: Never.self, "the lock is free", sourceLocation: sourceLocation) { _ = try PackageLock(path: url.path) }
    }

    /// The README's "The library" example, as written there.
    static func readmeLibraryExample(_ url: URL, _ weak: Weak) throws {
        let container = try ModelContainer(contentsOf: url)
        let context = ModelContext(container)
        context.undoManager = UndoManager()
        weak.container = container
        weak.context = context
        weak.undoManager = context.undoManager
        weak.sharedDocument = container.sharedDocument

        let mammals = try context.fetchIdentifiers(
            DynamicFetchDescriptor(
                entity: "AnimalCategory", predicate: try ObjectPredicate("name == 'Mammal'")))
        _ = try context.fetchIdentifiers(
            DynamicFetchDescriptor(
                entity: "Animal", predicate: try ObjectPredicate("category.name == 'Mammal'"), sortBy: [.init("name")]))
        #expect(try context.deletionPreview(for: mammals).summary == "deletes 1 AnimalCategory, also deletes 7 Animal")
        try context.delete(mammals)
        #expect(context.isDeleted(mammals[0]))
        context.processPendingChanges()
        context.undoManager?.undo()
        context.undoManager?.redo()
        let birds = try context.insert("AnimalCategory", ["name": .string("Bird")])
        let kiwi = try context.insert("Animal", ["name": .string("Kiwi"), "diet": .string("omnivorous")])
        try context.link(kiwi, "category", to: birds)
        _ = try context.delete(entity: "Animal", where: try ObjectPredicate("diet == 'carnivorous'"))
        try context.save()
    }

    @Test("the README's library example frees its container, context, undo manager and lock, and the package reopens, again and again")
    func readmeExampleReleases() throws {
        let url = try Self.animalsCopy()
        for round in 0..<5 {
            let weak = Weak()
            if round == 0 {
                try Self.readmeLibraryExample(url, weak)
            } else {
                // Reopening after the drop: no PackageError.locked, and the last save is there.
                let container = try ModelContainer(contentsOf: url)
                let context = ModelContext(container)
                context.undoManager = UndoManager()
                weak.container = container
                weak.context = context
                weak.undoManager = context.undoManager
                weak.sharedDocument = container.sharedDocument
                #expect(try context.fetchCount(DynamicFetchDescriptor(entity: "Animal", predicate: try ObjectPredicate("name == 'Kiwi'"))) == round)
                let birds = try context.fetchIdentifiers(DynamicFetchDescriptor(entity: "AnimalCategory", predicate: try ObjectPredicate("name == 'Bird'")))
                let kiwi = try context.insert("Animal", ["name": .string("Kiwi"), "diet": .string("omnivorous")])
                try context.link(kiwi, "category", to: birds[0])
                context.processPendingChanges()
                try context.save()
            }
            Self.expectReleased(url, weak)
        }
    }

    @Test("the main context is owned by its container: dropping the container frees both and releases the lock")
    @MainActor func mainContextReleased() throws {
        let url = try Self.animalsCopy()
        for _ in 0..<5 {
            let weak = Weak()
            do {
                let container = try ModelContainer(contentsOf: url)
                let context = container.mainContext
                #expect(container.mainContext === context, "one main context per container")
                #expect(context.undoManager == nil, "no undo manager unless the program sets one, as SwiftData's")
                context.undoManager = UndoManager()
                weak.container = container
                weak.context = context
                weak.undoManager = context.undoManager
                weak.sharedDocument = container.sharedDocument
                _ = try context.insert("AnimalCategory", ["name": .string("Fungus \(UUID())")])
                context.processPendingChanges()  // autosaves
                #expect(!context.hasChanges)
                context.undoManager?.undo()  // registrations hold the context weakly
                #expect(context.hasChanges)
                context.undoManager?.redo()
            }
            Self.expectReleased(url, weak)
        }
    }

    @Test("a main context kept after its container is dropped still fetches and saves, and the lock goes with it")
    @MainActor func mainContextOutlivesContainer() throws {
        let url = try Self.animalsCopy()
        let weak = Weak()
        do {
            var container: ModelContainer? = try ModelContainer(contentsOf: url)
            let context = try #require(container?.mainContext)
            weak.container = container
            weak.sharedDocument = container?.sharedDocument
            container = nil
            #expect(weak.container == nil, "the main context does not keep its container")
            #expect(weak.sharedDocument != nil, "but keeps the document")
            _ = try context.insert("AnimalCategory", ["name": .string("Fungus")])
            try context.save()
            #expect(context.container.mainContext === context, "its container now is a new one on the same document")
            #expect(try context.fetchCount(DynamicFetchDescriptor(entity: "AnimalCategory")) == 7)
            weak.context = context
            weak.undoManager = context.undoManager
        }
        Self.expectReleased(url, weak)
        #expect(try ModelContext(ModelContainer(contentsOf: url)).fetchCount(DynamicFetchDescriptor(entity: "AnimalCategory")) == 7)
    }

    @Test("a context the program keeps keeps its container; background contexts and their undo managers go when dropped")
    func backgroundContextsReleased() throws {
        let url = try Self.animalsCopy()
        let weak = Weak()
        var kept: ModelContext?
        do {
            let container = try ModelContainer(contentsOf: url)
            weak.container = container
            weak.sharedDocument = container.sharedDocument
            for index in 0..<3 {
                let background = ModelContext(container)
                background.undoManager = UndoManager()
                _ = try background.insert("AnimalCategory", ["name": .string("Kind \(index)")])
                try background.save()
                if index == 0 { kept = background }
            }
        }
        #expect(weak.container != nil, "a kept context keeps its container")
        weak.context = kept
        weak.undoManager = kept?.undoManager
        #expect(try kept?.fetchCount(DynamicFetchDescriptor(entity: "AnimalCategory")) == 9, "sees the others' saves")
        kept = nil
        Self.expectReleased(url, weak)
    }

    @Test("an undo manager the program keeps does not keep its context alive; its actions then do nothing")
    func undoManagerDoesNotOwnContext() throws {
        let manager = UndoManager()
        weak var weakContext: ModelContext?
        do {
            let context = try makeContext(try zooSchema())
            context.undoManager = manager
            weakContext = context
            try context.insert("Animal")
            context.processPendingChanges()
        }
        #expect(weakContext == nil)
        #expect(manager.canUndo)
        manager.undo()  // the target is gone: nothing to do, nothing crashes
    }

    @Test("threads that open, save and drop containers on one package at the same time are never refused as locked", .tags(.long))
    func concurrentReopen() throws {
        let url = temporaryPackageURL()
        try DocumentPackage(url: url).write(ObjectGraph(schema: try zooSchema()))
        final class Failures: @unchecked Sendable {
            let lock = NSLock()
            var errors: [String] = []
            func add(_ error: Error) { lock.lock(); errors.append("\(error)"); lock.unlock() }
        }
        let failures = Failures()
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for _ in 0..<TestEffort.cases(100) {
                do {
                    let context = ModelContext(try ModelContainer(contentsOf: url))
                    try context.insert("Animal")
                    try context.save()
                } catch {
                    failures.add(error)
                }
            }
        }
        #expect(failures.errors.isEmpty, "\(failures.errors.prefix(3))")
        #expect(try DocumentPackage(url: url).read().count(of: "Animal") == 4 * TestEffort.cases(100))
        #expect(throws: Never.self) { _ = try PackageLock(path: url.path) }
    }

    @Test("an open that races with the last store's release takes that store's lock over instead of being refused by it")
    func lockCarriedOver() throws {
        let url = temporaryPackageURL()
        try DocumentPackage(url: url).write(ObjectGraph(schema: try zooSchema()))
        let key = DocumentRegistry.canonicalPath(url)
        // As the registry sees a store whose deinit has started: the store reads nil, its lock is still open.
        var going: PackageLock? = try PackageLock(path: url.path)
        let slot = PackageLockSlot()
        slot.held = going
        slot.holderDidFlush()  // its teardown has written the package
        DocumentRegistry.shared.register(DocumentRegistry.Entry(sharedDocument: nil, slot: slot), for: key)
        let context = ModelContext(try ModelContainer(contentsOf: url))
        going = nil  // the old store finishes going; the new one holds the lock
        #expect(throws: PackageError.locked(path: url.path)) { _ = try PackageLock(path: url.path) }
        try context.insert("Animal")
        try context.save()
        weak let store = context.sharedDocument
        _ = consume context
        #expect(store == nil)
        #expect(throws: Never.self) { _ = try PackageLock(path: url.path) }
    }

    /// Holds the first teardown of a package's store at one stage, on the thread
    /// that dropped it, until the test releases it.
    final class TeardownHold: @unchecked Sendable {
        let stage: DocumentRegistry.TeardownStage
        private let reached = DispatchSemaphore(value: 0)
        private let proceed = DispatchSemaphore(value: 0)
        private let lock = NSLock()
        private var isUsed = false

        init(at stage: DocumentRegistry.TeardownStage) { self.stage = stage }

        func hook(_ reachedStage: DocumentRegistry.TeardownStage) {
            guard reachedStage == stage,
                lock.withLock({
                    defer { isUsed = true }; return !isUsed
                })
            else { return }
            reached.signal()
            proceed.wait()
        }

        /// Whether a teardown reached the stage (and is held there) within ten seconds.
        func waitUntilHeld() -> Bool { reached.wait(timeout: .now() + Patience.seconds) == .success }
        func release() { proceed.signal() }

        /// Runs `body` on a thread of its own (a dispatch queue may wait for a held one), in `group`.
        static func run(in group: DispatchGroup, _ body: @escaping @Sendable () -> Void) {
            group.enter()
            Thread {
                body()
                group.leave()
            }.start()
        }
    }

    /// Opens a container on `url`, inserts an animal, saves, and drops it all
    /// (an `Outcome` body that counts nothing).
    static func insertAnimal(into url: URL) throws -> Int? {
        let context = ModelContext(try ModelContainer(contentsOf: url))
        try context.insert("Animal")
        try context.save()
        return nil
    }

    /// What code run on other threads threw, and what it counted.
    final class Outcome: @unchecked Sendable {
        private let lock = NSLock()
        private(set) var errors: [String] = []
        private(set) var count: Int?

        func record(_ body: () throws -> Int?) {
            do {
                let counted = try body()
                lock.withLock { if let counted { count = counted } }
            } catch {
                lock.withLock { errors.append("\(error)") }
            }
        }
    }

    /// A package whose writer has saved an animal and is going, on a thread of
    /// its own: its store's teardown is held after its last write, with its lock
    /// still open, until `hold` is released (then `first` is done). The caller
    /// removes the teardown hook of `key`.
    static func writerGoing() throws -> (url: URL, key: String, hold: TeardownHold, outcome: Outcome, first: DispatchGroup) {
        let url = temporaryPackageURL()
        try DocumentPackage(url: url).write(ObjectGraph(schema: try zooSchema()))
        let key = DocumentRegistry.canonicalPath(url)
        let hold = TeardownHold(at: .flushed)
        DocumentRegistry.onTeardown(of: key) { hold.hook($0) }
        let outcome = Outcome()
        let first = DispatchGroup()
        TeardownHold.run(in: first) { outcome.record { try Self.insertAnimal(into: url) } }
        guard hold.waitUntilHeld() else {
            DocumentRegistry.onTeardown(of: key, nil)
            throw TeardownNotHeld()
        }
        return (url, key, hold, outcome, first)
    }

    struct TeardownNotHeld: Error {}

    @Test("an open after a store that took a going store's lock over has gone too takes the lock over again")
    func lockCarriedOverTwice() throws {
        let (url, key, hold, outcome, first) = try Self.writerGoing()
        defer { DocumentRegistry.onTeardown(of: key, nil) }
        // The first open carries the going store's lock over and its store goes first;
        // the second must find that lock still open in this process, not take a new one.
        for _ in 0..<2 { outcome.record { try Self.insertAnimal(into: url) } }
        hold.release()
        first.wait()
        #expect(outcome.errors.isEmpty, "\(outcome.errors)")
        #expect(try DocumentPackage(url: url).read().count(of: "Animal") == 3)
        #expect(!DocumentRegistry.shared.contains(key))
        #expect(throws: Never.self) { _ = try PackageLock(path: url.path) }
    }

    @Test("a writer joining a reader opened while the last writer's store was going takes that store's lock over")
    func lockCarriedOverThroughReader() throws {
        let (url, key, hold, outcome, first) = try Self.writerGoing()
        defer { DocumentRegistry.onTeardown(of: key, nil) }
        // The reader's store takes no lock; the writer joining it must take over the going one's.
        var reader: ModelContext? = ModelContext(try ModelContainer(contentsOf: url, allowsSave: false))
        outcome.record { try Self.insertAnimal(into: url) }
        hold.release()
        first.wait()
        #expect(outcome.errors.isEmpty, "\(outcome.errors)")
        #expect(try reader?.fetchCount(DynamicFetchDescriptor(entity: "Animal")) == 2)
        reader = nil
        #expect(try DocumentPackage(url: url).read().count(of: "Animal") == 2)
        #expect(throws: Never.self) { _ = try PackageLock(path: url.path) }
    }

    /// A context handed to another thread to drop.
    final class KeptContext: @unchecked Sendable {
        var context: ModelContext?
        init(_ context: ModelContext) { self.context = context }
    }

    @Test("an open racing with the last store's teardown reads the package after that store's last write")
    @MainActor func openWaitsForLastWrite() throws {
        let url = temporaryPackageURL()
        try DocumentPackage(url: url).write(ObjectGraph(schema: try zooSchema()))
        let key = DocumentRegistry.canonicalPath(url)
        let hold = TeardownHold(at: .started)
        DocumentRegistry.onTeardown(of: key) { hold.hook($0) }
        defer { DocumentRegistry.onTeardown(of: key, nil) }
        // A main context kept after its container is dropped: the container's teardown has
        // nothing to write, and the store's is the last write.
        let kept = KeptContext(try ModelContainer(contentsOf: url).mainContext)
        let store = try #require(kept.context?.sharedDocument)
        // An autosave whose background write fails: saved, and still unwritten at teardown.
        store.beforeBackgroundWrite = { AutosaveTests.diskFull }
        try kept.context?.insert("Animal")
        if let context = kept.context { _ = try context.handOffSave(inBackground: true) }
        store.waitForBackgroundWrites()
        store.beforeBackgroundWrite = nil
        try #require(!store.isWritten)
        _ = consume store
        let outcome = Outcome()
        let first = DispatchGroup()
        TeardownHold.run(in: first) { kept.context = nil }  // the teardown is held there, before it writes
        try #require(hold.waitUntilHeld())
        let second = DispatchGroup()
        TeardownHold.run(in: second) {
            outcome.record { try ModelContext(try ModelContainer(contentsOf: url)).fetchCount(DynamicFetchDescriptor(entity: "Animal")) }
        }
        // An open that does not wait for the teardown's write has read the package by now.
        _ = second.wait(timeout: .now() + 0.5)
        hold.release()
        second.wait()
        first.wait()
        #expect(outcome.errors.isEmpty, "\(outcome.errors)")
        #expect(outcome.count == 1)
    }
}
