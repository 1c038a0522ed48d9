import Testing
import Folio
@testable import FolioCore

/// The per-object merge over plain states, with no graph: what a Git merge
/// driver runs on one part file's objects.
@Suite struct ObjectStateMergeTests {
    func animal(_ name: String, age: Int64 = 1, category: [UInt64] = []) -> ObjectState {
        ObjectState(
            entity: "Animal",
            attributes: [
                "name": .value(.string(name)), "age": .value(.int(age)), "tags": .value(.set([])),
                "notes": .value(.dictionary([:])), "photo": .value(.null),
            ],
            links: ["category": .init(category), "friends": .init([])])
    }

    func category(_ name: String, animals: [UInt64] = []) -> ObjectState {
        ObjectState(entity: "Category", attributes: ["name": .value(.string(name))], links: ["animals": .init(animals)])
    }

    func merge(_ base: [UInt64: ObjectState], _ ours: [UInt64: ObjectState], _ theirs: [UInt64: ObjectState]) throws
        -> ObjectStateMerge.Outcome
    {
        try ObjectStateMerge.merge(base: base, ours: ours, theirs: theirs, schema: try mergeZooSchema())
    }

    @Test("objects unchanged on both sides stay as the base; inserts on either side are kept")
    func insertsKept() throws {
        let base: [UInt64: ObjectState] = [1: animal("Rex")]
        let outcome = try merge(base, base.merging([2: animal("Lion")]) { $1 }, base.merging([3: animal("Tiger")]) { $1 })
        #expect(outcome.states == [1: animal("Rex"), 2: animal("Lion"), 3: animal("Tiger")])
        #expect(outcome.conflicts.isEmpty)
    }

    @Test("a derived list changing is no edit: a delete against it deletes with no conflict")
    func derivedListIsNoEdit() throws {
        let base: [UInt64: ObjectState] = [1: category("Mammal", animals: [2]), 2: animal("Rex", category: [1])]
        let theirs: [UInt64: ObjectState] = [
            1: category("Mammal", animals: [2, 3]), 2: animal("Rex", category: [1]),
            3: animal("Lion", category: [1]),
        ]
        let outcome = try merge(base, [2: animal("Rex", category: [1])], theirs)
        #expect(outcome.states[1] == nil && outcome.conflicts.isEmpty)
        #expect(outcome.deleted[1] == theirs[1], "kept for a deny rule to bring back")
    }

    @Test("a fact changed on the side that kept the object is an edit: delete wins, recorded")
    func factEditIsEdit() throws {
        let base: [UInt64: ObjectState] = [2: animal("Rex", category: [])]
        let outcome = try merge(base, [2: animal("Rex", category: [1])], [:])
        #expect(outcome.states.isEmpty)
        #expect(outcome.conflicts.map(\.kind) == [.deletedAndEdited] && outcome.conflicts.first?.theirs == nil)
    }

    @Test("derived to-manys merge as ordered lists with no conflict; fact to-ones as cells")
    func relationships() throws {
        let base: [UInt64: ObjectState] = [1: category("Mammal", animals: [2, 3]), 2: animal("Rex", category: [1])]
        let ours: [UInt64: ObjectState] = [1: category("Mammal", animals: [3, 2]), 2: animal("Rex", category: [5])]
        let theirs: [UInt64: ObjectState] = [1: category("Mammal", animals: [2, 3, 4]), 2: animal("Rex", category: [6])]
        let outcome = try merge(base, ours, theirs)
        #expect(outcome.states[1]?.links["animals"]?.ids == [3, 2, 4])
        #expect(outcome.states[2]?.links["category"]?.ids == [5])
        #expect(outcome.conflicts.map(\.property) == ["category"])
    }
}
