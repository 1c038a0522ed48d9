import Foundation
import PropertyBased
import Testing
import Folio
@testable import FolioCore
import FolioTestSupport

@Suite struct ModelContextPropertyTests {
    /// Runs one random session and checks it against the reference model after every step.
    ///
    /// - Parameters:
    ///   - seed: chooses the schema and the objects saved at the start.
    ///   - plan: the steps; `nil` draws `steps` steps from `seed` (how the
    ///     regression seeds below were found, kept so they replay).
    static func session(seed: UInt64, plan: [SessionStep]? = nil, steps: Int = 0) throws {
        var rng = SeededGenerator(seed: seed)
        let schema = RandomGraphs.schema(&rng)
        let url = temporaryPackageURL()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let context = try makeContext(schema, url: url)
        var model = ReferenceModel(schema: schema)

        func insertRandom() throws {
            let entity = schema.entities.randomElement(using: &rng)!
            var values: [String: Value] = [:]
            for attribute in entity.attributes where Bool.random(using: &rng) {
                values[attribute.name] = RandomGraphs.value(for: attribute, &rng)
            }
            let id = try context.insert(entity.name, values)
            model.insert(id.id, entity.name, values)
        }
        // At least one object, so that this first save writes the package whose bytes
        // the final save is held to (a save with nothing to write writes nothing).
        for _ in 0..<Int.random(in: 1...6, using: &rng) { try insertRandom() }
        try context.save()
        context.undoManager?.removeAllActions()
        var saved = model
        var horizon = (model: model, bytes: try packageDocument(url))
        var undoStack: [ReferenceModel] = []
        var redoStack: [ReferenceModel] = []

        func step(_ body: () throws -> Void) rethrows {
            let before = model
            try body()
            context.processPendingChanges()
            undoStack.append(before)
            redoStack.removeAll()
        }
        func live(_ entity: String? = nil) -> [UInt64] {
            model.objects.filter { entity == nil || $0.value.entity == entity }.keys.sorted()
        }
        func id(_ raw: UInt64) -> PersistentIdentifier { PersistentIdentifier(entityName: model.objects[raw]!.entity, id: raw) }

        for index in 0..<(plan?.count ?? steps) {
            let roll: Int
            if let plan {
                roll = plan[index].roll
                rng = SeededGenerator(seed: plan[index].seed)
            } else {
                roll = Int.random(in: 0..<100, using: &rng)
            }
            var action = ""
            switch roll {
            case 0..<20:
                action = "insert"
                try step { try insertRandom() }
            case 20..<38:
                guard let target = live().randomElement(using: &rng),
                    let attribute = schema.entity(named: model.objects[target]!.entity)!.attributes.randomElement(using: &rng)
                else { continue }
                action = "set \(target).\(attribute.name)"
                let value = RandomGraphs.value(for: attribute, &rng)
                try step {
                    try context.setValue(value, for: attribute.name, of: id(target))
                    model.objects[target]!.values[attribute.name] = value
                }
            case 38..<55:
                guard let source = live().randomElement(using: &rng),
                    let r = schema.entity(named: model.objects[source]!.entity)!.relationships.randomElement(using: &rng),
                    let target = live(r.destination).randomElement(using: &rng)
                else { continue }
                let unlinking = Int.random(in: 0..<3, using: &rng) == 0
                if r.isToMany, Int.random(in: 0..<4, using: &rng) == 0 {
                    // Emptied: to no collection (nil) or an empty one ([]).
                    let absent = Bool.random(using: &rng)
                    action = "set \(source).\(r.name) \(absent ? "nil" : "[]")"
                    try step {
                        try context.setRelated(absent ? nil : [], for: r.name, of: id(source))
                        model.clear(source, r.name, absent: absent)
                    }
                    break
                }
                action = "\(unlinking ? "unlink" : "link") \(source).\(r.name) \(target)"
                try step {
                    if unlinking {
                        try context.unlink(id(source), r.name, from: id(target))
                        model.unlink(source, r.name, target)
                    } else {
                        try context.link(id(source), r.name, to: id(target))
                        model.link(source, r.name, target)
                    }
                }
            case 55..<67:
                let all = live()
                guard !all.isEmpty else { continue }
                let victims = (0..<Int.random(in: 1...2, using: &rng)).map { _ in all.randomElement(using: &rng)! }
                action = "delete \(victims)"
                try step {
                    try context.delete(Set(victims).map(id))
                    model.delete(victims, saved: saved)
                }
            case 67..<71:
                let entity = schema.entities.randomElement(using: &rng)!
                let matching = live(entity.name)
                action = "delete all \(entity.name)"
                guard !matching.isEmpty else { continue }
                try step {
                    try context.delete(entity: entity.name, where: try ObjectPredicate("true"))
                    model.delete(matching, saved: saved)
                }
            case 71..<83:
                action = "undo"
                #expect(context.undoManager?.canUndo == !undoStack.isEmpty, "seed \(seed) step \(index)")
                guard let previous = undoStack.popLast() else { continue }
                context.undoManager?.undo()
                redoStack.append(model)
                model = previous
            case 83..<90:
                action = "redo"
                #expect(context.undoManager?.canRedo == !redoStack.isEmpty, "seed \(seed) step \(index)")
                guard let next = redoStack.popLast() else { continue }
                context.undoManager?.redo()
                undoStack.append(model)
                model = next
            case 90..<98:
                action = "save"
                if model.denyViolations(saved: saved) {
                    #expect(throws: ModelError.self, "seed \(seed) step \(index)") { try context.save() }
                } else {
                    try context.save()
                    model.denials = [:]
                    saved = model
                }
            default:
                action = "rollback"
                context.rollback()
                model = saved
                undoStack.removeAll()
                redoStack.removeAll()
                horizon = (model, try packageDocument(url))
            }
            if ProcessInfo.processInfo.environment["FOLIO_TRACE"] != nil {
                print("step \(index): \(action)  deleted=\(context.deletedIdentifiers) denials=\(model.denials)")
            }
            let actual = context.graph.snapshot()
            guard actual == model.snapshot else {
                Issue.record("seed \(seed) step \(index) after \(action):\nfolio:\n\(actual)\nmodel:\n\(model.snapshot)")
                return
            }
            // Change tracking is exact: what the context reports unsaved is what differs from the saved state.
            let (current, last) = (
                actual.objects.values.reduce(into: [UInt64: GraphSnapshot.Object]()) { $0.merge($1) { a, _ in a } },
                saved.snapshot.objects.values.reduce(into: [UInt64: GraphSnapshot.Object]()) { $0.merge($1) { a, _ in a } }
            )
            let expectedInserted = Set(current.keys).subtracting(last.keys)
            let expectedDeleted = Set(last.keys).subtracting(current.keys)
            let expectedChanged = Set(current.keys.filter { last[$0] != nil && last[$0] != current[$0] })
            #expect(context.hasChanges == (actual != saved.snapshot), "seed \(seed) step \(index) after \(action): hasChanges")
            #expect(Set(context.insertedIdentifiers.map(\.id)) == expectedInserted, "seed \(seed) step \(index) after \(action): inserted")
            #expect(Set(context.deletedIdentifiers.map(\.id)) == expectedDeleted, "seed \(seed) step \(index) after \(action): deleted")
            #expect(Set(context.changedIdentifiers.map(\.id)) == expectedChanged, "seed \(seed) step \(index) after \(action): changed")
            let problems = context.graph.invariantViolations()
            guard problems.isEmpty else {
                Issue.record("seed \(seed) step \(index) after \(action): \(problems)")
                return
            }
        }
        // Undo everything: back to the horizon, and a save gives its bytes exactly.
        while context.undoManager?.canUndo == true { context.undoManager?.undo() }
        #expect(context.graph.snapshot() == horizon.model.snapshot, "seed \(seed): undo all")
        if !horizon.model.denyViolations(saved: saved), (try? context.save()) != nil {
            #expect(try packageDocument(url) == horizon.bytes, "seed \(seed): bytes")
        }
    }

    @Test(
        "random edit, delete, undo, redo, save and rollback sequences match a plain reference model, and hasChanges is true exactly when the graph differs from the saved state",
        .tags(.long)
    )
    func randomSessions() async throws {
        // 150 random schemas, sessions of up to 140 steps: about 10,000 steps
        // checked against the model, the rarest action (rollback, 2 in 100) about
        // 200 times. It ran 400 of up to 100: twice the work, the same actions.
        await checkProperty(count: TestEffort.cases(150), input: Gen.uint64(in: 0...UInt64.max), SessionStep.generator.array(of: 1...140)) { seed, plan in
            try Self.session(seed: seed, plan: plan)
        }
    }

    // Seeds that once found bugs, kept as regressions.

    @Test("undoing a delete keeps the object's earlier edits tracked, so the next save writes them")
    func undoneDeleteKeepsEdits() throws {
        try Self.session(seed: 8_775_881_058_508_877_165, steps: 60)
    }

    @Test("an undone delete that a save already committed is not denied again")
    func committedDeleteNotDenied() throws {
        try Self.session(seed: 8_096_935_001_032_870_493, steps: 60)
    }
}
