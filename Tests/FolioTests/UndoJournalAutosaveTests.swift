import Foundation
import Testing
import Folio
@testable import FolioCore
import FolioTestSupport

/// A container on the zoo package at `url` keeping an undo journal, as an app opens it.
private func journaledContainer(_ url: URL) throws -> ModelContainer {
    var configuration = ModelConfiguration(url: url)
    configuration.undoJournal = .standard
    return try ModelContainer(for: try zooSchema(), configurations: configuration)
}

/// The journal on disk in `context`'s package, read as a reopening reads it.
private func journalOnDisk(_ url: URL, of context: ModelContext) throws -> UndoJournal {
    let bytes = try Data(contentsOf: url.appendingPathComponent(DocumentPackage.undoJournalFileName))
    return try UndoJournal.decode(Array(bytes), layout: context.graph.layout, owner: ModelContext.undoJournalOwner)
}

/// An autosaving main context (autosave on, no explicit save, as SwiftData
/// apps edit) keeps its undo journal too: the autosave hands the journal to
/// the background writer, which writes it once the package holds the state
/// it applies to.
@Suite struct UndoJournalAutosaveTests {
    /// One session through the main context: edits of every kind, each ended
    /// as an event ends (`processPendingChanges()`, the autosave), never an
    /// explicit save; the container dropped at the end. The snapshots before
    /// the first edit and after each.
    @MainActor private static func autosavingSession(_ url: URL) throws -> (snapshots: [GraphSnapshot], names: [String]) {
        let container = try journaledContainer(url)
        let context = container.mainContext
        #expect(context.autosaveEnabled)
        context.undoManager = UndoManager()
        let categories = try context.fetchIdentifiers(DynamicFetchDescriptor(entity: "AnimalCategory")).sorted { $0.id < $1.id }
        let animals = try context.fetchIdentifiers(DynamicFetchDescriptor(entity: "Animal")).sorted { $0.id < $1.id }
        var snapshots = [context.graph.snapshot()]
        let edits: [() throws -> Void] = [
            { try context.setValue(.int(9), for: "age", of: animals[0]) },
            { try context.setValue(.string("notes"), for: "notes", of: animals[1]) },
            { try context.setRelated([animals[2], animals[0]], for: "animals", of: categories[1]) },
            { try context.unlink(animals[3], "category", from: categories[1]) },
            { _ = try context.insert("Animal", ["name": .string("New")], related: ["category": [categories[1]]]) },
            { try context.delete(categories[0]) },  // cascades to its animals
        ]
        for edit in edits {
            try edit()
            context.processPendingChanges()
            #expect(!context.hasChanges, "autosaved")
            snapshots.append(context.graph.snapshot())
        }
        return (snapshots, try #require(context.undoManager).undoActionNames)
    }

    @Test("edits through an autosaving main context, the container dropped and reopened: undo takes back each step exactly, redo brings it back")
    @MainActor func autosavedStepsComeBackAfterReopening() throws {
        let url = try AutosaveTests.zooPackage(categories: 3, perCategory: 4)
        let (snapshots, names) = try Self.autosavingSession(url)
        let container = try journaledContainer(url)
        let context = container.mainContext
        let undoManager = UndoManager()
        context.undoManager = undoManager
        let restored = try context.restoreUndoJournal()
        #expect(restored == UndoJournalRestoration(undoCount: 6, redoCount: 0, dropped: []))
        #expect(undoManager.undoActionNames == names)
        #expect(context.graph.snapshot() == snapshots[6])
        for step in (0..<6).reversed() {
            undoManager.undo()
            #expect(context.graph.snapshot() == snapshots[step], "undo to step \(step)")
            #expect(context.graph.invariantViolations().isEmpty)
        }
        for step in 1...6 {
            undoManager.redo()
            #expect(context.graph.snapshot() == snapshots[step], "redo to step \(step)")
        }
    }

    @Test("an undo that an autosave saved is kept as a redo step across reopening")
    @MainActor func autosavedUndoKeepsItsRedo() throws {
        let url = try AutosaveTests.zooPackage(categories: 1, perCategory: 2)
        let before: GraphSnapshot
        let after: GraphSnapshot
        do {
            let container = try journaledContainer(url)
            let context = container.mainContext
            context.undoManager = UndoManager()
            let animal = try #require(try context.fetchIdentifiers(DynamicFetchDescriptor(entity: "Animal")).first)
            before = context.graph.snapshot()
            try context.setValue(.int(77), for: "age", of: animal)
            context.processPendingChanges()
            after = context.graph.snapshot()
            context.undoManager?.undo()
            context.processPendingChanges()
        }
        let container = try journaledContainer(url)
        let context = container.mainContext
        context.undoManager = UndoManager()
        #expect(try context.restoreUndoJournal() == UndoJournalRestoration(undoCount: 0, redoCount: 1, dropped: []))
        #expect(context.graph.snapshot() == before)
        context.undoManager?.redo()
        #expect(context.graph.snapshot() == after)
    }

    @Test("the journal is written after the package write the autosave queued, off the editing thread")
    @MainActor func theJournalFollowsThePackageWrite() throws {
        let url = try AutosaveTests.zooPackage(categories: 1, perCategory: 2)
        let container = try journaledContainer(url)
        let context = container.mainContext
        context.undoManager = UndoManager()
        let gate = AutosaveTests.WriterGate()
        gate.install(on: container.sharedDocument)
        let animal = try #require(try context.fetchIdentifiers(DynamicFetchDescriptor(entity: "Animal")).first)
        try context.setValue(.int(5), for: "age", of: animal)
        context.processPendingChanges()
        gate.waitUntilStarted()
        // The package write is held: the journal waits for it (the autosave returned without writing it).
        let file = url.appendingPathComponent(DocumentPackage.undoJournalFileName)
        #expect(!FileManager.default.fileExists(atPath: file.path))
        #expect(container.sharedDocument.lock.withLock { container.sharedDocument.undoJournal.pending != nil })
        gate.open(on: container.sharedDocument)
        container.sharedDocument.waitForBackgroundWrites()
        #expect(container.sharedDocument.isWritten)
        #expect(try journalOnDisk(url, of: context).undo.map(\.name) == ["Set Animal.age"])
    }

    @Test("a failed background write leaves the journal as it was; the write that succeeds next writes both")
    @MainActor func aFailedWriteKeepsTheOldJournalUntilThePackageIsWritten() throws {
        let url = try AutosaveTests.zooPackage(categories: 1, perCategory: 2)
        let animal: PersistentIdentifier
        do {
            let container = try journaledContainer(url)
            let context = container.mainContext
            context.undoManager = UndoManager()
            animal = try #require(try context.fetchIdentifiers(DynamicFetchDescriptor(entity: "Animal")).first)
            try context.setValue(.int(1), for: "age", of: animal)
            try context.save()
            #expect(try journalOnDisk(url, of: context).undo.count == 1)
            let gate = AutosaveTests.WriterGate()
            gate.install(on: container.sharedDocument, failing: [AutosaveTests.diskFull])
            gate.open(on: container.sharedDocument)
            context.autosaveErrorHandler = { _ in }
            try context.setValue(.int(2), for: "age", of: animal)
            context.processPendingChanges()
            container.sharedDocument.waitForBackgroundWrites()
            // The package still holds the first state, and so does the journal: one step.
            #expect(!container.sharedDocument.isWritten)
            #expect(try journalOnDisk(url, of: context).undo.count == 1)
            // Dropping the container writes the package, then the journal waiting for it.
        }
        let container = try journaledContainer(url)
        let context = container.mainContext
        context.undoManager = UndoManager()
        #expect(try context.restoreUndoJournal().undoCount == 2)
        #expect(try context.value("age", of: animal) == .int(2))
        context.undoManager?.undo()
        #expect(try context.value("age", of: animal) == .int(1))
    }

    @Test("a journal of a state the package does not hold (written before the package write landed) has its steps refused, not applied")
    @MainActor func aJournalAheadOfThePackageIsNotApplied() throws {
        let url = try AutosaveTests.zooPackage(categories: 1, perCategory: 2)
        let copy = temporaryPackageURL("Behind")
        let animal: PersistentIdentifier
        do {
            let container = try journaledContainer(url)
            let context = container.mainContext
            context.undoManager = UndoManager()
            animal = try #require(try context.fetchIdentifiers(DynamicFetchDescriptor(entity: "Animal")).first)
            try context.setValue(.int(1), for: "age", of: animal)
            try context.save()
            try FileManager.default.copyItem(at: url, to: copy)
            try context.setValue(.int(2), for: "age", of: animal)
            context.processPendingChanges()
        }
        // The package as it was before the autosave, with the journal written after it.
        let name = DocumentPackage.undoJournalFileName
        try FileManager.default.removeItem(at: copy.appendingPathComponent(name))
        try FileManager.default.copyItem(at: url.appendingPathComponent(name), to: copy.appendingPathComponent(name))
        let container = try journaledContainer(copy)
        let context = container.mainContext
        context.undoManager = UndoManager()
        let before = context.graph.snapshot()
        let restored = try context.restoreUndoJournal()
        #expect(restored.undoCount == 0 && restored.dropped == ["Set Animal.age", "Set Animal.age"])
        #expect(context.graph.snapshot() == before)
        #expect(try context.value("age", of: animal) == .int(1))
    }
}
