import Foundation
import Testing
import Folio
@testable import FolioCore
import FolioTestSupport

/// A zoo context with a session of every kind of edit on its undo and redo stacks.
private func editedZoo() throws -> ModelContext {
    let context = try makeContext(try zooSchema())
    let categories = try context.insertZoo(categories: 2, perCategory: 3)
    let animals = try allIDs(context, "Animal")
    try context.setValue(.int(9), for: "age", of: animals[0])
    context.processPendingChanges()
    try context.setValue(.string("has notes"), for: "notes", of: animals[1])
    context.processPendingChanges()
    try context.setRelated([animals[0], animals[2]], for: "animals", of: categories[1])
    context.processPendingChanges()
    try context.unlink(animals[3], "category", from: categories[1])
    context.processPendingChanges()
    try context.delete(categories[0])  // cascades to its animals
    context.processPendingChanges()
    try context.insert("AnimalCategory", ["name": .string("Category 1")], related: ["animals": [animals[5]]])  // an upsert
    context.processPendingChanges()
    context.undoManager?.undo()
    return context
}

private func capture(_ context: ModelContext, limits: UndoJournalLimits = .standard) throws -> UndoJournal.Capture {
    let undoManager = try #require(context.undoManager)
    return UndoJournal.capture(undoManager.recordedSteps, in: context.graph, mergeEpoch: context.mergeEpoch, owner: "tester", limits: limits)
}

@Suite struct UndoJournalCodingTests {
    @Test func everyKindOfFolioStepIsKeptAndReadsBackAsWritten() throws {
        let context = try editedZoo()
        let undoManager = try #require(context.undoManager)
        let captured = try capture(context)
        #expect(captured.dropped == 0)
        #expect(captured.journal.undo.count == undoManager.undoCount)
        #expect(captured.journal.redo.count == undoManager.redoCount)
        #expect(captured.journal.undo.map(\.name) == undoManager.undoActionNames)
        #expect(!captured.journal.states.isEmpty)
        let bytes = captured.journal.encode(layout: context.graph.layout)
        let read = try UndoJournal.decode(bytes, layout: context.graph.layout, owner: "tester")
        #expect(read == captured.journal)
        #expect(read.encode(layout: context.graph.layout) == bytes)
    }

    @Test func aJournalCutShortAnywhereIsRefusedAsDamaged() throws {
        let context = try editedZoo()
        let bytes = try capture(context).journal.encode(layout: context.graph.layout)
        for length in 0..<bytes.count {
            #expect(throws: UndoJournalError.self) {
                _ = try UndoJournal.decode(Array(bytes.prefix(length)), layout: context.graph.layout, owner: "tester")
            }
        }
    }

    @Test func aFlippedBitAnywhereIsRefused() throws {
        let context = try editedZoo()
        let bytes = try capture(context).journal.encode(layout: context.graph.layout)
        // Every byte, one bit each (rotating), keeps the test cheap and covers every field.
        for index in bytes.indices {
            var changed = bytes
            changed[index] ^= UInt8(1 << (index % 8))
            #expect(throws: UndoJournalError.self) {
                _ = try UndoJournal.decode(changed, layout: context.graph.layout, owner: "tester")
            }
        }
    }

    @Test func hostileBytesWithAValidChecksumAreRefusedOrReadNeverTrap() throws {
        let context = try editedZoo()
        let layout = context.graph.layout
        let bytes = try capture(context).journal.encode(layout: layout)
        var generator = SeededGenerator(seed: 34)
        var refused = 0
        for _ in 0..<2_000 {
            var body = Array(bytes.dropLast(8))
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                let index = Int.random(in: UndoJournal.magic.count..<body.count, using: &generator)
                body[index] = UInt8.random(in: 0...255, using: &generator)
            }
            if Bool.random(using: &generator) { body.removeLast(Int.random(in: 0...min(16, body.count - 12), using: &generator)) }
            var hasher = ContentHasher()
            hasher.update(body)
            var out = JournalBytesWriter()
            out.append(raw: body)
            out.appendFixed(hasher.finalize())
            do { _ = try UndoJournal.decode(out.bytes, layout: layout, owner: "tester") } catch { refused += 1 }
        }
        #expect(refused > 0)
    }

    @Test func aJournalOfAnotherOwnerSchemaOrVersionIsRefusedByName() throws {
        let context = try editedZoo()
        let layout = context.graph.layout
        let bytes = try capture(context).journal.encode(layout: layout)
        #expect(throws: UndoJournalError.foreign(owner: "tester")) {
            _ = try UndoJournal.decode(bytes, layout: layout, owner: "someone else")
        }
        let other = try makeContext(try ruleSchema(ownerRule: .cascade, itemRule: .nullify))
        #expect(throws: UndoJournalError.schemaChanged) {
            _ = try UndoJournal.decode(bytes, layout: other.graph.layout, owner: "tester")
        }
        #expect(throws: UndoJournalError.notAJournal) {
            _ = try UndoJournal.decode(Array("<?xml version=\"1.0\"?>".utf8), layout: layout, owner: "tester")
        }
        // A later version, and version 1 (one hash per object, before properties were told apart).
        for version in [UndoJournal.version + 1, 1] {
            var other = bytes
            other[UndoJournal.magic.count] = UInt8(version)
            #expect(throws: UndoJournalError.unsupportedVersion(version)) { _ = try UndoJournal.decode(other, layout: layout, owner: "tester") }
        }
    }

    @Test func theStepLimitDropsTheOldestUndoStepsFirst() throws {
        let context = try editedZoo()
        let undoManager = try #require(context.undoManager)
        let captured = try capture(context, limits: UndoJournalLimits(maximumSteps: 3))
        #expect(captured.journal.undo.count + captured.journal.redo.count == 3)
        #expect(captured.journal.redo.count == undoManager.redoCount)
        #expect(captured.journal.undo.map(\.name) == Array(undoManager.undoActionNames.suffix(3 - undoManager.redoCount)))
        #expect(captured.dropped == undoManager.undoCount + undoManager.redoCount - 3)
    }

    @Test func theByteLimitKeepsTheJournalWithinIt() throws {
        let context = try editedZoo()
        let whole = try capture(context).journal.encode(layout: context.graph.layout).count
        let captured = try capture(context, limits: UndoJournalLimits(maximumBytes: whole / 2))
        #expect(captured.journal.encode(layout: context.graph.layout).count <= whole / 2)
        #expect(captured.dropped > 0)
    }

    @Test func groupsKeptFromTheLastCaptureGiveTheSameBytesAndAreEncodedOnce() throws {
        let context = try editedZoo()
        let undoManager = try #require(context.undoManager)
        var cache = UndoJournal.GroupCache()
        func captured(epoch: Int) -> UndoJournal.Capture {
            UndoJournal.capture(
                undoManager.recordedSteps, in: context.graph, mergeEpoch: epoch, owner: "tester", limits: .standard, cache: &cache)
        }
        let first = captured(epoch: context.mergeEpoch)
        let steps = undoManager.undoCount + undoManager.redoCount
        #expect(first.made == steps)
        #expect(first.bytes == first.journal.encode(layout: context.graph.layout))
        // Nothing new: every group comes from the cache, and the bytes are the same.
        let again = captured(epoch: context.mergeEpoch)
        #expect(again.made == 0)
        #expect(again.bytes == first.bytes)
        // One more step: only it is made.
        let animal = try #require(try allIDs(context, "Animal").first)
        try context.setValue(.int(77), for: "age", of: animal)
        context.processPendingChanges()
        let next = captured(epoch: context.mergeEpoch)
        #expect(next.made == 1)
        #expect(next.bytes == next.journal.encode(layout: context.graph.layout))
        // A renamed step is made again; so is every step after a merge (the steps rebase).
        undoManager.setActionName("Renamed")
        #expect(captured(epoch: context.mergeEpoch).made == 1)
        #expect(captured(epoch: context.mergeEpoch + 1).made == undoManager.undoCount + undoManager.redoCount)
    }

    @Test func eachSaveEncodesOnlyTheStepsAddedSinceTheJournalWrittenBefore() throws {
        let folder = try TemporaryFolder("undo-journal")
        var configuration = ModelConfiguration(url: folder.appending("Zoo.folio"))
        configuration.undoJournal = .standard
        let context = ModelContext(try ModelContainer(for: try zooSchema(), configurations: configuration))
        context.undoManager = UndoManager()
        let categories = try context.insertZoo(categories: 2, perCategory: 200)
        try context.save()
        try context.delete(categories[0])  // a cascade of 200: one large step
        context.processPendingChanges()
        try context.save()
        let animal = try #require(try allIDs(context, "Animal").first)
        for age in 1...5 {
            try context.setValue(.int(Int64(age)), for: "age", of: animal)
            context.processPendingChanges()
            // What a save writes after the package, here without a package write: one new step.
            let written = try #require(context.writeUndoJournal())
            #expect(written.made == 1)
            #expect(written.journal.undo.count == 2 + age)
            let file = folder.appending("Zoo.folio").appendingPathComponent(DocumentPackage.undoJournalFileName)
            #expect(Array(try Data(contentsOf: file)) == written.journal.encode(layout: context.graph.layout))
        }
    }

    @Test func anAppsClosureEndsWhatIsKeptAndIsCounted() throws {
        let context = try editedZoo()
        let undoManager = try #require(context.undoManager)
        undoManager.redo()
        undoManager.registerUndo(withTarget: context) { _ in }
        undoManager.setActionName("App Step")
        undoManager.closeAutomaticGroup()
        let animal = try #require(try allIDs(context, "Animal").first)
        try context.setValue(.int(1), for: "age", of: animal)
        context.processPendingChanges()
        let captured = try capture(context)
        #expect(captured.journal.undo.map(\.name) == ["Set Animal.age"])
        #expect(captured.droppedForClosures == 1)
        #expect(captured.dropped == undoManager.undoCount - 1)
    }

    @Test func aSaveWritesTheJournalInThePackageWhenTheConfigurationKeepsOne() throws {
        let folder = try TemporaryFolder("undo-journal")
        var configuration = ModelConfiguration(url: folder.appending("Zoo.folio"))
        configuration.undoJournal = .standard
        let context = ModelContext(try ModelContainer(for: try zooSchema(), configurations: configuration))
        context.undoManager = UndoManager()
        _ = try context.insertZoo(categories: 1, perCategory: 2)
        try context.save()
        let file = folder.appending("Zoo.folio").appendingPathComponent(DocumentPackage.undoJournalFileName)
        let journal = try UndoJournal.decode(
            Array(try Data(contentsOf: file)), layout: context.graph.layout, owner: ModelContext.undoJournalOwner)
        let undoManager = try #require(context.undoManager)
        #expect(journal.undo.count == undoManager.undoCount)
        // The package with its journal is still one a save may write over.
        try DocumentPackage(url: folder.appending("Zoo.folio")).checkWritableTarget()
    }

    @Test func withoutTheOptionNoJournalIsWritten() throws {
        let folder = try TemporaryFolder("undo-journal")
        let context = try makeContext(try zooSchema(), url: folder.appending("Zoo.folio"))
        _ = try context.insertZoo(categories: 1, perCategory: 1)
        try context.save()
        #expect(!FileManager.default.fileExists(atPath: folder.appending("Zoo.folio/.folio-undo").path))
    }
}
