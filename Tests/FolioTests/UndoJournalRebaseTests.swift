import Foundation
import PropertyBased
import Testing
import Folio
@testable import FolioCore
import FolioTestSupport

/// The undo journal after the document changed elsewhere: a step stays
/// undoable when the change met none of what it touches (its objects'
/// presence, the properties it sets, a relationship on both ends), and is
/// undone over the change without taking it back; a step the change meets
/// is dropped, with every step beyond it on its stack.
@Suite struct UndoJournalRebaseTests {
    /// A context on the zoo at `url` keeping the journal, with an undo manager.
    private static func journaled(_ url: URL) throws -> ModelContext {
        var configuration = ModelConfiguration(url: url)
        configuration.undoJournal = .standard
        let context = ModelContext(try ModelContainer(for: try zooSchema(), configurations: configuration))
        context.undoManager = UndoManager()
        return context
    }

    /// A property of one object, by identifier and name.
    private struct Property: Hashable {
        var id: UInt64
        var name: String
    }

    /// The reference model's state: every object's properties as text
    /// (a relationship as its targets' identifiers, in order).
    private typealias Values = [UInt64: [String: String]]

    private static func values(_ context: ModelContext) throws -> Values {
        var values: Values = [:]
        for animal in try allIDs(context, "Animal") {
            var properties: [String: String] = [:]
            for name in ["name", "age", "notes"] { properties[name] = "\(try context.value(name, of: animal))" }
            properties["category"] = try context.related("category", of: animal).map { "\($0.id)" }.joined(separator: " ")
            values[animal.id] = properties
        }
        for category in try allIDs(context, "AnimalCategory") {
            values[category.id] = [
                "name": "\(try context.value("name", of: category))",
                "animals": try context.related("animals", of: category).map { "\($0.id)" }.joined(separator: " "),
            ]
        }
        return values
    }

    /// What changed from `old` to `new`: properties, and objects added or removed.
    private static func difference(_ old: Values, _ new: Values) -> (properties: Set<Property>, presence: Set<UInt64>) {
        var properties = Set<Property>()
        var presence = Set<UInt64>()
        for id in Set(old.keys).union(new.keys) {
            guard let before = old[id], let after = new[id] else {
                presence.insert(id)
                continue
            }
            for (name, value) in before where after[name] != value { properties.insert(Property(id: id, name: name)) }
        }
        return (properties, presence)
    }

    /// `base`, with what changed elsewhere from `saved` to `outside` laid over it.
    private static func overlay(_ base: Values, saved: Values, outside: Values) -> Values {
        var result: Values = [:]
        for (id, now) in outside {
            result[id] = now
            for (name, value) in now where saved[id]?[name] == value { result[id]?[name] = base[id]?[name] }
        }
        return result
    }

    /// One random step of our session, as one undo step: what it touches, as
    /// the reference model sees it (a move counts its animal's relationship
    /// and both categories' lists).
    private static func edit(
        _ context: ModelContext, _ index: Int, using generator: inout SeededGenerator
    ) throws -> (properties: Set<Property>, objects: Set<UInt64>) {
        let animals = try allIDs(context, "Animal"), categories = try allIDs(context, "AnimalCategory")
        let animal = animals[Int.random(in: 0..<animals.count, using: &generator)]
        defer { context.processPendingChanges() }
        switch Int.random(in: 0..<5, using: &generator) {
        case 0:
            try context.setValue(.string("ours \(index)"), for: "name", of: animal)
            return ([Property(id: animal.id, name: "name")], [animal.id])
        case 1:
            try context.setValue(.int(Int64(index)), for: "age", of: animal)
            return ([Property(id: animal.id, name: "age")], [animal.id])
        case 2:
            try context.setValue(.string("note \(index)"), for: "notes", of: animal)
            return ([Property(id: animal.id, name: "notes")], [animal.id])
        case 3:
            let category = categories[Int.random(in: 0..<categories.count, using: &generator)]
            try context.setValue(.string("ours \(index)"), for: "name", of: category)
            return ([Property(id: category.id, name: "name")], [category.id])
        default:
            let old = try #require(try context.related("category", of: animal).first)
            let new = try #require(categories.first { $0 != old })
            try context.link(animal, "category", to: new)
            return (
                [Property(id: animal.id, name: "category"), Property(id: old.id, name: "animals"), Property(id: new.id, name: "animals")],
                [animal.id, old.id, new.id]
            )
        }
    }

    /// One random change made elsewhere; each changes what it names.
    private static func outsideEdit(_ context: ModelContext, _ index: Int, using generator: inout SeededGenerator) throws {
        let animals = try allIDs(context, "Animal"), categories = try allIDs(context, "AnimalCategory")
        let animal = animals[Int.random(in: 0..<animals.count, using: &generator)]
        switch Int.random(in: 0..<5, using: &generator) {
        case 0: try context.setValue(.string("theirs \(index)"), for: "name", of: animal)
        case 1: try context.setValue(.int(Int64(1000 + index)), for: "age", of: animal)
        case 2:
            let category = categories[Int.random(in: 0..<categories.count, using: &generator)]
            try context.setValue(.string("theirs \(index)"), for: "name", of: category)
        case 3:
            let old = try context.related("category", of: animal).first
            let new = try #require(categories.first { $0 != old })
            try context.link(animal, "category", to: new)
        default:
            if animals.count > 2 { try context.delete(animal) } else { try context.setValue(.int(-1), for: "age", of: animal) }
        }
    }

    @Test(.tags(.long))
    func stepsTheChangeElsewhereDoesNotMeetAreUndoneOverItAndTheOthersDropped() async {
        await checkProperty(count: TestEffort.cases(160), input: Gen.uint64(in: 0...UInt64.max)) { seed in
            var generator = SeededGenerator(seed: seed)
            let folder = try TemporaryFolder("undo-rebase")
            let url = folder.appending("Zoo.folio")
            // Our session: random steps, some undone, saved; the reference keeps each state.
            var states: [Values] = []
            var footprints: [(properties: Set<Property>, objects: Set<UInt64>)] = []
            var position = 0
            do {
                let context = try Self.journaled(url)
                _ = try context.insertZoo(categories: 3, perCategory: 3)
                try context.save()
                context.undoManager?.removeAllActions()
                states.append(try Self.values(context))
                for index in 0..<Int.random(in: 1...7, using: &generator) {
                    footprints.append(try Self.edit(context, index, using: &generator))
                    states.append(try Self.values(context))
                }
                position = states.count - 1 - Int.random(in: 0...min(2, footprints.count), using: &generator)
                for _ in position..<(states.count - 1) { context.undoManager?.undo() }
                try context.save()
            }
            // Elsewhere: a container without the journal changes the document.
            let outside: Values
            do {
                let other = try makeContext(try zooSchema(), url: url)
                for index in 0..<Int.random(in: 1...3, using: &generator) { try Self.outsideEdit(other, index, using: &generator) }
                try other.save()
                outside = try Self.values(other)
            }
            let saved = states[position]
            let changed = Self.difference(saved, outside)
            func meets(_ step: Int) -> Bool {
                !footprints[step].properties.isDisjoint(with: changed.properties) || !footprints[step].objects.isDisjoint(with: changed.presence)
            }
            // Undo goes newest first, redo nearest first: each stack keeps what comes before its first step the change meets.
            let undoKept = (0..<position).reversed().prefix { !meets($0) }.count
            let redoKept = (position..<footprints.count).prefix { !meets($0) }.count

            let context = try Self.journaled(url)
            let undoManager = try #require(context.undoManager)
            let restored = try context.restoreUndoJournal()
            #expect(restored.undoCount == undoKept, "seed \(seed)")
            #expect(restored.redoCount == redoKept, "seed \(seed)")
            #expect(restored.dropped.count == footprints.count - undoKept - redoKept, "seed \(seed)")
            #expect(try Self.values(context) == outside, "seed \(seed)")
            for step in 0..<restored.undoCount {
                undoManager.undo()
                let expected = Self.overlay(states[position - 1 - step], saved: saved, outside: outside)
                #expect(try Self.values(context) == expected, "seed \(seed), undo \(step + 1)")
                #expect(context.graph.invariantViolations().isEmpty, "seed \(seed)")
            }
            for _ in 0..<restored.undoCount { undoManager.redo() }
            #expect(try Self.values(context) == outside, "seed \(seed)")
            for step in 0..<restored.redoCount {
                undoManager.redo()
                let expected = Self.overlay(states[position + 1 + step], saved: saved, outside: outside)
                #expect(try Self.values(context) == expected, "seed \(seed), redo \(step + 1)")
            }
            // What undo and redo left saves and reopens.
            try context.save()
            let reopened = try Self.journaled(url)
            #expect(try Self.values(reopened) == (try Self.values(context)), "seed \(seed)")
        }
    }

    @Test func anEditElsewhereOfAnotherPropertyOfTheSameObjectKeepsTheStep() throws {
        let folder = try TemporaryFolder("undo-rebase")
        let url = folder.appending("Zoo.folio")
        let animals: [PersistentIdentifier]
        do {
            let context = try Self.journaled(url)
            _ = try context.insertZoo(categories: 1, perCategory: 2)
            try context.save()
            context.undoManager?.removeAllActions()
            animals = try allIDs(context, "Animal")
            try context.setValue(.int(5), for: "age", of: animals[0])
            context.processPendingChanges()
            try context.setValue(.int(6), for: "age", of: animals[1])
            context.processPendingChanges()
            try context.save()
        }
        do {
            let other = try makeContext(try zooSchema(), url: url)
            try other.setValue(.string("elsewhere"), for: "name", of: animals[0])
            try other.save()
        }
        let context = try Self.journaled(url)
        #expect(try context.restoreUndoJournal() == UndoJournalRestoration(undoCount: 2, redoCount: 0, dropped: []))
        context.undoManager?.undo()
        context.undoManager?.undo()
        #expect(try context.value("age", of: animals[0]) == .int(0))
        #expect(try context.value("age", of: animals[1]) == .int(1))
        #expect(try context.value("name", of: animals[0]) == .string("elsewhere"))
        context.undoManager?.redo()
        #expect(try context.value("age", of: animals[0]) == .int(5))
        #expect(try context.value("name", of: animals[0]) == .string("elsewhere"))
    }

    @Test func aMoveIsKeptOverARenameOfItsCategoriesAndDroppedWhenTheirListsChanged() throws {
        let folder = try TemporaryFolder("undo-rebase")
        let url = folder.appending("Zoo.folio")
        let animals: [PersistentIdentifier], categories: [PersistentIdentifier]
        do {
            let context = try Self.journaled(url)
            categories = try context.insertZoo(categories: 2, perCategory: 2)
            try context.save()
            context.undoManager?.removeAllActions()
            animals = try context.related("animals", of: categories[0])
            try context.link(animals[0], "category", to: categories[1])
            context.processPendingChanges()
            try context.save()
        }
        // Renaming both categories leaves the move undoable.
        do {
            let other = try makeContext(try zooSchema(), url: url)
            try other.setValue(.string("Renamed 0"), for: "name", of: categories[0])
            try other.setValue(.string("Renamed 1"), for: "name", of: categories[1])
            try other.save()
        }
        do {
            let context = try Self.journaled(url)
            #expect(try context.restoreUndoJournal().undoCount == 1)
            context.undoManager?.undo()
            #expect(try context.related("animals", of: categories[0]) == animals)
            #expect(try context.value("name", of: categories[0]) == .string("Renamed 0"))
            context.undoManager?.redo()
            try context.save()
        }
        // An animal joining the move's destination changes its list: the move is dropped, by name.
        do {
            let other = try makeContext(try zooSchema(), url: url)
            _ = try other.insert("Animal", ["name": .string("Newcomer")], related: ["category": [categories[1]]])
            try other.save()
        }
        let context = try Self.journaled(url)
        let restored = try context.restoreUndoJournal()
        #expect(restored.undoCount == 0)
        #expect(restored.dropped.count == 1)
        #expect(try context.related("category", of: animals[0]) == [categories[1]])
    }

    @Test func aSaveByAContextWithoutAnUndoManagerKeepsTheJournalOfTheOneWithIt() throws {
        let folder = try TemporaryFolder("undo-rebase")
        let url = folder.appending("Zoo.folio")
        var configuration = ModelConfiguration(url: url)
        configuration.undoJournal = .standard
        var animals: [PersistentIdentifier] = []
        do {
            let container = try ModelContainer(for: try zooSchema(), configurations: configuration)
            let editing = ModelContext(container)
            editing.undoManager = UndoManager()
            _ = try editing.insertZoo(categories: 1, perCategory: 2)
            try editing.save()
            editing.undoManager?.removeAllActions()
            animals = try allIDs(editing, "Animal")
            try editing.setValue(.int(7), for: "age", of: animals[0])
            editing.processPendingChanges()
            try editing.save()
            // A background context, as SwiftData makes one: no undo manager.
            let background = ModelContext(container)
            #expect(background.undoManager == nil)
            try background.setValue(.string("imported"), for: "name", of: animals[1])
            try background.save()
        }
        let context = try Self.journaled(url)
        #expect(try context.restoreUndoJournal() == UndoJournalRestoration(undoCount: 1, redoCount: 0, dropped: []))
        context.undoManager?.undo()
        #expect(try context.value("age", of: animals[0]) == .int(0))
        #expect(try context.value("name", of: animals[1]) == .string("imported"))
    }
}
