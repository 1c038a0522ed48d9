import Foundation
import Testing
import Folio
@testable import FolioCore
import FolioTestSupport

/// Random sessions of edits, undo, redo, saves and reopenings — clean, and as
/// after a kill (the unsaved edits lost) — checked at every step against what
/// one long session gives: the undo history as a list of states and a position in it.
@Suite struct UndoJournalPropertyTests {
    /// One long session's undo as states: `states[position]` is the document
    /// now, states before it are undo's, after it redo's.
    private struct Model {
        var states: [GraphSnapshot]
        var position = 0

        mutating func edited(_ state: GraphSnapshot) {
            states.removeSubrange((position + 1)...)
            states.append(state)
            position += 1
        }
    }

    private static func open(_ url: URL) throws -> ModelContext {
        var configuration = ModelConfiguration(url: url)
        configuration.undoJournal = .standard
        let context = ModelContext(try ModelContainer(for: try zooSchema(), configurations: configuration))
        context.undoManager = UndoManager()
        try context.restoreUndoJournal()
        return context
    }

    /// One random edit of a small zoo, as one undo step.
    private static func edit(_ context: ModelContext, using generator: inout SeededGenerator) throws {
        let categories = try allIDs(context, "AnimalCategory")
        let animals = try allIDs(context, "Animal")
        switch Int.random(in: 0..<6, using: &generator) {
        case 0:
            _ = try context.insert(
                "Animal", ["name": .string("A\(Int.random(in: 0..<1000, using: &generator))")],
                related: categories.isEmpty ? [:] : ["category": [categories.randomElement(using: &generator)!]])
        case 1 where !animals.isEmpty:
            try context.setValue(.int(Int64.random(in: 0..<100, using: &generator)), for: "age", of: animals.randomElement(using: &generator)!)
        case 2 where !animals.isEmpty && !categories.isEmpty:
            try context.link(animals.randomElement(using: &generator)!, "category", to: categories.randomElement(using: &generator)!)
        case 3 where !categories.isEmpty:
            try context.setRelated(Array(animals.shuffled(using: &generator).prefix(3)), for: "animals", of: categories.randomElement(using: &generator)!)
        case 4 where categories.count > 1:
            try context.delete(categories.randomElement(using: &generator)!)
        case 5 where !animals.isEmpty:
            try context.delete(animals.randomElement(using: &generator)!)
        default:
            _ = try context.insert("AnimalCategory", ["name": .string("C\(Int.random(in: 0..<1_000_000, using: &generator))")])
        }
        context.processPendingChanges()
    }

    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func randomSessionsGiveWhatOneLongSessionGives(seed: UInt64) throws {
        let folder = try TemporaryFolder("undo-property")
        let url = folder.appending("Zoo.folio")
        var generator = SeededGenerator(seed: seed)
        var context: ModelContext? = try Self.open(url)
        _ = try context!.insertZoo(categories: 3, perCategory: 3)
        try context!.save()
        context!.undoManager?.removeAllActions()
        try context!.save()
        var model = Model(states: [context!.graph.snapshot()])
        var saved = model
        for step in 0..<60 {
            let current = try #require(context)
            let undoManager = try #require(current.undoManager)
            switch Int.random(in: 0..<10, using: &generator) {
            case 0...3:
                try Self.edit(current, using: &generator)
                model.edited(current.graph.snapshot())
            case 4...5 where model.position > 0:
                undoManager.undo()
                model.position -= 1
            case 6 where model.position < model.states.count - 1:
                undoManager.redo()
                model.position += 1
            case 7:
                try current.save()
                saved = model
            case 8:
                // A clean quit: saved first, then reopened.
                try current.save()
                saved = model
                context = nil
                context = try Self.open(url)
            default:
                // A kill: nothing since the last save survives, on disk or in the journal.
                current.undoManager?.removeAllActions()
                current.rollback()
                context = nil
                context = try Self.open(url)
                model = saved
            }
            let now = try #require(context)
            #expect(now.graph.snapshot() == model.states[model.position], "seed \(seed), step \(step)")
            #expect(now.undoManager?.undoCount == model.position, "seed \(seed), step \(step)")
            #expect(now.undoManager?.redoCount == model.states.count - 1 - model.position, "seed \(seed), step \(step)")
            #expect(now.graph.invariantViolations().isEmpty)
        }
    }
}
