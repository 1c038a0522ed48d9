import Foundation
import Testing
import Folio
@testable import FolioCore
import FolioTestSupport

/// A context on the zoo package at `url`, keeping an undo journal, with an undo manager.
private func journaledContext(_ url: URL) throws -> ModelContext {
    var configuration = ModelConfiguration(url: url)
    configuration.undoJournal = .standard
    let context = ModelContext(try ModelContainer(for: try zooSchema(), configurations: configuration))
    context.undoManager = UndoManager()
    return context
}

/// One session's edits of every kind, each its own step, with the snapshot
/// before the first and after each; saved at the end, the container then closed.
private func editingSession(_ url: URL) throws -> (snapshots: [GraphSnapshot], names: [String]) {
    let context = try journaledContext(url)
    let categories = try context.insertZoo(categories: 2, perCategory: 3)
    try context.save()
    context.undoManager?.removeAllActions()
    try context.save()
    let animals = try allIDs(context, "Animal")
    var snapshots = [context.graph.snapshot()]
    let edits: [() throws -> Void] = [
        { try context.setValue(.int(9), for: "age", of: animals[0]) },
        { try context.setValue(.string("notes"), for: "notes", of: animals[1]) },
        { try context.setRelated([animals[2], animals[0]], for: "animals", of: categories[1]) },
        { try context.unlink(animals[3], "category", from: categories[1]) },
        { _ = try context.insert("Animal", ["name": .string("New")], related: ["category": [categories[1]]]) },
        { try context.delete(categories[0]) },
    ]
    for edit in edits {
        try edit()
        context.processPendingChanges()
        snapshots.append(context.graph.snapshot())
    }
    try context.save()
    return (snapshots, try #require(context.undoManager).undoActionNames)
}

@Suite struct UndoJournalReopeningTests {
    @Test func reopeningBringsBackEveryStepAndUndoAndRedoGiveWhatTheSessionGave() throws {
        let folder = try TemporaryFolder("undo-reopen")
        let url = folder.appending("Zoo.folio")
        let (snapshots, names) = try editingSession(url)
        let context = try journaledContext(url)
        let undoManager = try #require(context.undoManager)
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
        // Undone and saved, then reopened again: the redo steps come back too.
        undoManager.undo()
        undoManager.undo()
        try context.save()
        #expect(context.graph.snapshot() == snapshots[4])
    }

    @Test func redoStepsSurviveASaveAndAReopening() throws {
        let folder = try TemporaryFolder("undo-reopen")
        let url = folder.appending("Zoo.folio")
        let (snapshots, _) = try editingSession(url)
        do {
            let context = try journaledContext(url)
            try context.restoreUndoJournal()
            context.undoManager?.undo()
            context.undoManager?.undo()
            try context.save()
        }
        let context = try journaledContext(url)
        let undoManager = try #require(context.undoManager)
        #expect(try context.restoreUndoJournal() == UndoJournalRestoration(undoCount: 4, redoCount: 2, dropped: []))
        #expect(context.graph.snapshot() == snapshots[4])
        undoManager.redo()
        undoManager.redo()
        #expect(context.graph.snapshot() == snapshots[6])
        for _ in 0..<6 { undoManager.undo() }
        #expect(context.graph.snapshot() == snapshots[0])
    }

    @Test func aChangeElsewhereDropsTheStepsItTouchesAndKeepsTheNewerOnes() throws {
        let folder = try TemporaryFolder("undo-reopen")
        let url = folder.appending("Zoo.folio")
        var expected: GraphSnapshot
        do {
            let context = try journaledContext(url)
            _ = try context.insertZoo(categories: 1, perCategory: 2)
            try context.save()
            context.undoManager?.removeAllActions()
            let animals = try allIDs(context, "Animal")
            try context.setValue(.int(5), for: "age", of: animals[0])
            context.processPendingChanges()
            try context.setValue(.int(6), for: "age", of: animals[1])
            context.processPendingChanges()
            try context.save()
        }
        // Another program (here: a container without the journal) sets the first animal's age too.
        do {
            let other = try makeContext(try zooSchema(), url: url)
            let animals = try allIDs(other, "Animal")
            try other.setValue(.int(70), for: "age", of: animals[0])
            try other.save()
            expected = other.graph.snapshot()
        }
        let context = try journaledContext(url)
        let restored = try context.restoreUndoJournal()
        #expect(restored.undoCount == 1)
        #expect(restored.dropped == ["Set Animal.age"])
        #expect(restored.summary.contains("\"Set Animal.age\""))
        let animals = try allIDs(context, "Animal")
        context.undoManager?.undo()
        #expect(try context.value("age", of: animals[1]) == .int(1))
        #expect(try context.value("age", of: animals[0]) == .int(70))
        context.undoManager?.redo()
        #expect(context.graph.snapshot() == expected)
    }

    @Test func aMergeBetweenSessionsKeepsTheStepsItDidNotMeetAndNeverUndoesTheMergedEdits() throws {
        let folder = try TemporaryFolder("undo-merge")
        let ours = folder.appending("Zoo.folio")
        do {
            let context = try journaledContext(ours)
            _ = try context.insertZoo(categories: 1, perCategory: 3)
            try context.save()
        }
        let base = folder.appending("Base.folio"), theirs = folder.appending("Theirs.folio")
        try FileManager.default.copyItem(at: ours, to: base)
        try FileManager.default.copyItem(at: ours, to: theirs)
        // Our session: three steps, each setting an animal's age.
        let animals: [PersistentIdentifier]
        let agesBefore: [Value]
        do {
            let context = try journaledContext(ours)
            animals = try allIDs(context, "Animal")
            agesBefore = try animals.map { try context.value("age", of: $0) }
            for (index, age) in [(2, 30), (1, 40), (0, 50)] {
                try context.setValue(.int(Int64(age)), for: "age", of: animals[index])
                context.processPendingChanges()
            }
            try context.save()
        }
        // Their branch renames the animal of our middle step and deletes the one of
        // our oldest; Git's merge driver merges it into ours.
        do {
            let other = try makeContext(try zooSchema(), url: theirs)
            try other.setValue(.string("theirs"), for: "name", of: animals[1])
            try other.delete(animals[2])
            try other.save()
        }
        try DocumentPackage.merge(base: base, ours: ours, theirs: theirs, into: ours)

        let context = try journaledContext(ours)
        let restored = try context.restoreUndoJournal()
        // The rename met no step (another property); the delete met the oldest.
        #expect(restored.undoCount == 2)
        #expect(restored.dropped == ["Set Animal.age"])
        context.undoManager?.undo()
        context.undoManager?.undo()
        #expect(try context.value("age", of: animals[0]) == agesBefore[0])
        #expect(try context.value("age", of: animals[1]) == agesBefore[1])
        // Their edits are never undone.
        #expect(try context.value("name", of: animals[1]) == .string("theirs"))
        #expect(throws: (any Error).self) { try context.value("age", of: animals[2]) }
        #expect(context.undoManager?.canUndo == false)
        context.undoManager?.redo()
        context.undoManager?.redo()
        #expect(try context.value("age", of: animals[0]) == .int(50))
        #expect(try context.value("age", of: animals[1]) == .int(40))
        #expect(context.graph.invariantViolations().isEmpty)
    }

    @Test func aDamagedJournalIsRefusedAndTheDocumentOpensWithoutIt() throws {
        let folder = try TemporaryFolder("undo-reopen")
        let url = folder.appending("Zoo.folio")
        let (snapshots, _) = try editingSession(url)
        let file = url.appendingPathComponent(DocumentPackage.undoJournalFileName)
        var bytes = try Data(contentsOf: file)
        bytes.removeLast(5)
        try bytes.write(to: file)
        let context = try journaledContext(url)
        #expect(throws: UndoJournalError.self) { try context.restoreUndoJournal() }
        #expect(context.undoManager?.canUndo == false)
        #expect(context.graph.snapshot() == snapshots[6])
        // The next save writes a journal that reads.
        let animal = try #require(try allIDs(context, "Animal").first)
        try context.setValue(.int(3), for: "age", of: animal)
        try context.save()
        let reopened = try journaledContext(url)
        #expect(try reopened.restoreUndoJournal().undoCount == 1)
    }

    @Test func stepsThatDoNotFitTheirRelationshipsAreRefusedNotApplied() throws {
        let context = try makeContext(try zooSchema())
        let categories = try context.insertZoo(categories: 1, perCategory: 1)
        let category = try context.graph.ref(for: categories[0])
        let object = UndoJournal.Object(entity: Int(category.entity), id: categories[0].id)
        // `animals` is a to-many: a to-one change on it would break the column.
        let slot = try #require(context.graph.layout.entities[object.entity].linkIndex["animals"])
        let hostile = UndoJournal(
            owner: "tester", schemaHash: UndoJournal.schemaHash(context.graph.layout), states: [],
            undo: [.init(name: "Hostile", time: 0, steps: [.revertLinks([.toOne(object, slot: slot, old: nil, new: nil)], name: "Hostile", exact: true)])],
            redo: [])
        #expect(throws: UndoJournalError.self) { _ = try hostile.undoSteps(in: context.graph, mergeEpoch: 0) }
    }

    @Test func erasingTheDocumentRemovesItsJournal() throws {
        let folder = try TemporaryFolder("undo-reopen")
        let url = folder.appending("Zoo.folio")
        _ = try editingSession(url)
        let file = url.appendingPathComponent(DocumentPackage.undoJournalFileName)
        #expect(FileManager.default.fileExists(atPath: file.path))
        let context = try journaledContext(url)
        try context.container.erase()
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }
}
