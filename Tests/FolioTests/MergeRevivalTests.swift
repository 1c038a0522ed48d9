import Testing
import Folio
@testable import FolioCore

/// Reviving objects for `deny` from recorded conflicts, as a loader alone
/// must (it has the conflicts a merge recorded, not the deleted versions).
@Suite struct MergeRevivalTests {
    /// A base with one category (deny rule) holding two animals.
    func zoo() throws -> (MergeFixture, mammals: PersistentIdentifier, rex: PersistentIdentifier, tom: PersistentIdentifier) {
        let graph = ObjectGraph(schema: try mergeZooSchema(rule: .deny))
        let mammals = try graph.insert("Category", ["name": .string("Mammal")])
        let rex = try graph.insert("Animal", ["name": .string("Rex"), "age": .int(3), "tags": .set([.string("a")])])
        let tom = try graph.insert("Animal", ["name": .string("Tom"), "age": .int(5)])
        try graph.link(rex, "category", to: mammals)
        try graph.link(tom, "category", to: mammals)
        try graph.link(tom, "friends", to: rex)
        return (MergeFixture(graph), mammals, rex, tom)
    }

    @Test("a deleted-and-edited record gives back the edited object's state, attributes and links")
    func recordToState() throws {
        let (fixture, _, rex, tom) = try zoo()
        let schema = MergeSchema(fixture.base.schema)
        let state = fixture.base.objectStates()[tom.id]!
        let record = try ObjectStateMerge.content(of: state, schema: schema, id: tom.id)
        let conflicts = [
            MergeConflict(kind: .deletedAndEdited, id: tom, base: record, ours: nil, theirs: record),
            MergeConflict(kind: .cascade, id: rex, ours: record, theirs: record),
        ]
        let revivable = MergeReconcile.revivableStates(from: conflicts, schema: fixture.base.schema)
        #expect(revivable == [tom.id: state])
        #expect(revivable[tom.id]?.links["friends"]?.ids == [rex.id])
    }

    @Test("only deleted-and-edited records revive; properties the schema lacks are ignored, and other entities skipped")
    func onlyDeletedAndEdited() throws {
        let (fixture, mammals, rex, _) = try zoo()
        let record = MergeConflict.Content.object([
            "name": .value(.string("Mammalia")), "legs": .value(.int(4)),
            "animals": .related([rex]),
        ])
        let conflicts =
            MergeConflict.Kind.allCases.map { MergeConflict(kind: $0, id: mammals, ours: record, theirs: nil) }
            + [MergeConflict(kind: .deletedAndEdited, id: PersistentIdentifier(entityName: "Plant", id: 99), ours: record)]
        let revivable = MergeReconcile.revivableStates(from: conflicts, schema: fixture.base.schema)
        #expect(revivable.keys.sorted() == [mammals.id])
        #expect(
            revivable[mammals.id]
                == ObjectState(
                    entity: "Category", attributes: ["name": .value(.string("Mammalia"))],
                    links: ["animals": .init([rex.id])]))
    }

    @Test("a loader reconciling alone with states from the records revives for deny as the whole merge does")
    func loaderRevivesFromRecords() throws {
        let (fixture, mammals, rex, tom) = try zoo()
        // Ours empties the category and deletes it; theirs renames it and files a new animal in it.
        try fixture.ours.remove(rex)
        try fixture.ours.remove(tom)
        try fixture.ours.remove(mammals)
        try fixture.theirs.setValue(.string("Mammalia"), for: "name", of: mammals)
        let lion = try fixture.theirs.insert("Animal", ["name": .string("Lion")])
        try fixture.theirs.link(lion, "category", to: mammals)
        let whole = try fixture.merge()
        #expect(try whole.graph.value("name", of: mammals) == .string("Mammalia"))
        #expect(whole.conflicts.map(\.kind) == [.deny])

        // What a Git driver leaves: the per-object merge's states and its conflicts, no deleted versions.
        let schema = fixture.base.schema
        let perObject = try ObjectStateMerge.merge(
            base: fixture.base.objectStates(), ours: fixture.ours.objectStates(),
            theirs: fixture.theirs.objectStates(), schema: schema)
        #expect(perObject.conflicts.map(\.kind) == [.deletedAndEdited])
        var alone = perObject.states
        _ = try MergeReconcile.reconcile(&alone, schema: schema)
        #expect(alone[mammals.id] == nil)

        var states = perObject.states
        let conflicts = try MergeReconcile.reconcile(
            &states, schema: schema, revivable: MergeReconcile.revivableStates(from: perObject.conflicts, schema: schema),
            conflicts: perObject.conflicts)
        #expect(states == whole.graph.objectStates())
        #expect(conflicts == whole.conflicts)
    }
}
