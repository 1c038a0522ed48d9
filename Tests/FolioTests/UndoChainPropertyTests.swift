import Foundation
import PropertyBased
import Testing
import Folio
@testable import FolioCore
import FolioTestSupport

/// One edit of a saved zoo (``savedZoo(url:)``), as the numbers a generator
/// draws: a failing chain shrinks to fewer operations, each toward kind 0,
/// the first object and no save, and prints as the list of them.
struct ChainOperation: Sendable, CustomStringConvertible {
    /// Which edit (0...13, see ``perform(on:)``).
    var kind: Int
    /// Which object the edit starts from (an index, taken modulo the live count).
    var pick: Int
    /// A second object, a value or a choice, by the same rule.
    var other: Int
    /// Whether the context saves after the edit.
    var save: Bool

    var description: String { "(\(kind), \(pick), \(other)\(save ? ", save" : ""))" }

    static let generator = zip(Gen.int(in: 0...13), Gen.int(in: 0...999), Gen.int(in: 0...999), Gen.int(in: 0...4))
        .map { ChainOperation(kind: $0.0, pick: $0.1, other: $0.2, save: $0.3 == 4) }

    /// Does the edit through the context's public API; returns what it did.
    func perform(on context: ModelContext) throws -> String {
        let animals = try allIDs(context, "Animal")
        let categories = try allIDs(context, "AnimalCategory")
        let animal = animals.isEmpty ? nil : animals[pick % animals.count]
        let category = categories.isEmpty ? nil : categories[(kind == 4 ? other : pick) % categories.count]
        switch kind {
        case 0:
            let id = try context.insert("Animal", ["name": .string("R\(other)"), "age": .int(Int64(pick % 20))])
            return "insert \(id)"
        case 1:
            let name = "Category \(other % 6)"  // sometimes an existing one: an upsert that changes nothing
            try context.insert("AnimalCategory", ["name": .string(name)])
            return "insert category \(name)"
        case 2:
            guard let animal else { return "nothing" }
            try context.setValue(.int(Int64(other % 50)), for: "age", of: animal)
            return "set age of \(animal)"
        case 3:
            guard let animal else { return "nothing" }
            try context.setValue(other % 2 == 0 ? .null : .string("note \(other % 10)"), for: "notes", of: animal)
            return "set notes of \(animal)"
        case 4:
            guard let animal, let category else { return "nothing" }
            try context.link(animal, "category", to: category)
            return "link \(animal) to \(category)"
        case 5:
            guard let animal, let current = try context.related("category", of: animal).first else { return "nothing" }
            try context.unlink(animal, "category", from: current)
            return "unlink \(animal)"
        case 6:
            guard let category else { return "nothing" }
            var targets = try context.related("animals", of: category)
            if !targets.isEmpty {
                targets = Array(targets[(other % targets.count)...] + targets[..<(other % targets.count)])
                if other % 2 == 1 { targets.removeLast() }
            }
            if !animals.isEmpty, case let extra = animals[other % animals.count], !targets.contains(extra) {
                targets.insert(extra, at: other % (targets.count + 1))
            }
            try context.setRelated(targets, for: "animals", of: category)
            return "setRelated \(category)"
        case 7:
            guard let animal else { return "nothing" }
            try context.delete(animal)
            return "delete \(animal)"
        case 8:
            guard let category else { return "nothing" }
            try context.delete(category)
            return "delete \(category) (cascade)"
        case 9:
            let bound = other % 20
            let count = try context.delete(entity: "Animal", where: try ObjectPredicate("age > \(bound) and age < \(bound + 6)"))
            return "delete \(count) animals aged \(bound + 1)...\(bound + 5)"
        case 10:
            let all = animals + categories
            guard !all.isEmpty else { return "nothing" }
            let picks = Set([pick, other, pick + other].map { all[$0 % all.count] })
            try context.delete(Array(picks))
            return "delete \(picks.sorted { $0.id < $1.id })"
        case 11:
            if other % 3 == 0 { context.deleteEverything(); return "delete everything" }
            return "nothing"
        case 12:
            try context.transaction(actionName: "Batch") {
                let new = try context.insert("AnimalCategory", ["name": .string("T\(other)")])
                if let animal { try context.link(animal, "category", to: new) }
                try context.insert("Animal", ["name": .string("In batch")])
            }
            return "transaction"
        default:
            guard let animal else { return "nothing" }
            try context.setValue(.string("Renamed \(other % 100)"), for: "name", of: animal)
            try context.setValue(.double(Double(pick % 100) / 4), for: "weight", of: animal)
            return "rename \(animal)"
        }
    }
}

@Suite struct UndoChainPropertyTests {
    @Test("random chains of operations undo back to the start and redo to the end, step by step")
    func randomChains() async {
        await checkProperty(count: 20, input: ChainOperation.generator.array(of: 1...40)) { operations in
            try Self.check(operations)
        }
    }

    /// Runs `operations` on a saved zoo, then undoes every step and redoes it,
    /// checking the graph against the snapshot each step left.
    static func check(_ operations: [ChainOperation]) throws {
        let (context, _) = try savedZoo()
        let undoManager = try #require(context.undoManager)
        let start = context.graph.snapshot()
        var snapshots = [start]
        var names: [String] = []
        for operation in operations {
            let steps = undoManager.undoCount
            let description = try operation.perform(on: context)
            context.processPendingChanges()
            #expect(context.graph.invariantViolations().isEmpty, "after \(description)")
            if operation.save { try context.save() }
            if undoManager.undoCount > steps {
                #expect(undoManager.undoCount == steps + 1, "\(description) made several steps")
                snapshots.append(context.graph.snapshot())
                names.append(description)
            } else {
                #expect(context.graph.snapshot() == snapshots.last, "\(description) changed the graph without a step")
            }
        }
        let end = context.graph.snapshot()
        for index in stride(from: snapshots.count - 2, through: 0, by: -1) {
            undoManager.undo()
            #expect(context.graph.snapshot() == snapshots[index], "undo of step \(index + 1), \(names[index])")
            #expect(context.graph.invariantViolations().isEmpty)
        }
        #expect(context.graph.snapshot() == start)
        #expect(!undoManager.canUndo)
        for index in snapshots.indices.dropFirst() {
            undoManager.redo()
            #expect(context.graph.snapshot() == snapshots[index], "redo of step \(index), \(names[index - 1])")
            #expect(context.graph.invariantViolations().isEmpty)
        }
        #expect(context.graph.snapshot() == end)
        #expect(!undoManager.canRedo)
        // What is in memory saves and reads back the same.
        try context.save()
        #expect(ModelContext(context.container).graph.snapshot() == end)
    }
}
