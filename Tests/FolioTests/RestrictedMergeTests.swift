import Testing
import Folio
@testable import FolioCore

/// The per-object merge restricted to some objects, with no conflict records:
/// what a context merging another context's save needs (issue 30 item 6).
@Suite struct RestrictedMergeTests {
    @Test("a merge of the named objects and what their links reach gives those objects as the whole merge does, and no conflicts when asked for none")
    func restrictedWithoutConflicts() throws {
        let graph = ObjectGraph(schema: try mergeZooSchema())
        let mammals = try graph.insert("Category", ["name": .string("Mammal")])
        let fish = try graph.insert("Category", ["name": .string("Fish")])
        let rex = try graph.insert("Animal", ["name": .string("Rex"), "age": .int(3)])
        let tom = try graph.insert("Animal", ["name": .string("Tom"), "age": .int(5)])
        try graph.link(rex, "category", to: mammals)
        try graph.link(tom, "category", to: mammals)
        var fishes: [PersistentIdentifier] = []
        for index in 0..<20 {
            let one = try graph.insert("Animal", ["name": .string("Fish \(index)")])
            try graph.link(one, "category", to: fish)
            fishes.append(one)
        }
        let fixture = MergeFixture(graph)
        try fixture.ours.setValue(.int(10), for: "age", of: rex)
        try fixture.theirs.setValue(.int(20), for: "age", of: rex)
        try fixture.theirs.setValue(.string("Thomas"), for: "name", of: tom)
        let birds = try fixture.theirs.insert("Category", ["name": .string("Bird")])
        try fixture.theirs.link(tom, "category", to: birds)

        let named: [UInt64] = [rex.id, tom.id, mammals.id, birds.id]
        var ids = Set<UInt64>()
        for version in [fixture.base, fixture.ours, fixture.theirs] { ids.formUnion(version.reachedIdentifiers(from: named)) }
        #expect(ids == Set(named))
        #expect(!ids.contains(fish.id) && fishes.allSatisfy { !ids.contains($0.id) })

        let schema = MergeSchema(graph.schema)
        let restricted = try ObjectStateMerge.merge(
            base: fixture.base.objectStates(of: ids), ours: fixture.ours.objectStates(of: ids),
            theirs: fixture.theirs.objectStates(of: ids), schema: schema, recordsConflicts: false)
        let whole = try ObjectStateMerge.merge(
            base: fixture.base.objectStates(), ours: fixture.ours.objectStates(),
            theirs: fixture.theirs.objectStates(), schema: schema)
        #expect(restricted.conflicts.isEmpty)
        #expect(whole.conflicts.map(\.kind) == [.value])
        for id in ids { #expect(restricted.states[id] == whole.states[id]) }
        // This context's edit wins, as in SwiftData.
        #expect(restricted.states[rex.id]?.attributes["age"] == .value(.int(10)))
        #expect(restricted.states[tom.id]?.links["category"]?.ids == [birds.id])
    }

    @Test("with no conflict records, a delete against an edit still deletes and keeps the edited version to revive")
    func deleteAgainstEditWithoutRecords() throws {
        let graph = ObjectGraph(schema: try mergeZooSchema())
        let rex = try graph.insert("Animal", ["name": .string("Rex"), "age": .int(3)])
        let fixture = MergeFixture(graph)
        try fixture.ours.setValue(.int(4), for: "age", of: rex)
        try fixture.theirs.remove(rex)
        let outcome = try ObjectStateMerge.merge(
            base: fixture.base.objectStates(), ours: fixture.ours.objectStates(),
            theirs: fixture.theirs.objectStates(), schema: MergeSchema(graph.schema),
            recordsConflicts: false)
        #expect(outcome.states.isEmpty && outcome.conflicts.isEmpty)
        #expect(outcome.deleted[rex.id]?.attributes["age"] == .value(.int(4)))
    }
}
