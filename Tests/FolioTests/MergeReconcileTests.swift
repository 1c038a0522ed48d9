import Testing
import Folio
@testable import FolioCore

/// The reconcile pass over whole merged states, as a loader would run it on
/// a package merged outside Folio.
@Suite struct MergeReconcileTests {
    func animal(_ name: String, category: [UInt64] = []) -> ObjectState {
        ObjectState(
            entity: "Animal",
            attributes: [
                "name": .value(.string(name)), "age": .value(.int(0)), "tags": .value(.set([])),
                "notes": .value(.dictionary([:])), "photo": .value(.null),
            ],
            links: ["category": .init(category), "friends": .init([])])
    }

    func category(_ name: String, animals: [UInt64] = []) -> ObjectState {
        ObjectState(entity: "Category", attributes: ["name": .value(.string(name))], links: ["animals": .init(animals)])
    }

    @Test("a derived list keeps its order for confirmed members, drops the others, and appends missing ones by identifier")
    func derivedOrder() throws {
        var states: [UInt64: ObjectState] = [
            1: category("Mammal", animals: [4, 9, 2]), 2: animal("Rex", category: [1]),
            3: animal("Lion", category: [1]), 4: animal("Tom", category: [1]),
            9: animal("Gone"),
        ]
        let conflicts = try MergeReconcile.reconcile(&states, schema: try mergeZooSchema())
        #expect(states[1]?.links["animals"]?.ids == [4, 2, 3])
        #expect(conflicts.isEmpty)
    }

    @Test("a fact link to a missing object with no record to revive from is cut even under deny")
    func denyWithoutRecord() throws {
        var states: [UInt64: ObjectState] = [2: animal("Rex", category: [1])]
        let conflicts = try MergeReconcile.reconcile(&states, schema: try mergeZooSchema(rule: .deny))
        #expect(states[2]?.links["category"]?.ids == [])
        #expect(conflicts.map(\.kind) == [.danglingLink])
    }

    @Test("a relationship with no inverse is its own fact: a link to a missing object is cut")
    func noInverse() throws {
        var states: [UInt64: ObjectState] = [2: animal("Rex")]
        states[2]?.links["friends"] = .init([7, 2])
        let conflicts = try MergeReconcile.reconcile(&states, schema: try mergeZooSchema())
        #expect(states[2]?.links["friends"]?.ids == [2])
        #expect(conflicts.map(\.kind) == [.danglingLink])
    }

    @Test("uniqueness removal cascades through the removed object's links like a delete")
    func uniquenessThenCascade() throws {
        var states: [UInt64: ObjectState] = [1: category("Bird"), 5: category("Bird"), 6: animal("Tweety", category: [5])]
        let conflicts = try MergeReconcile.reconcile(&states, schema: try mergeZooSchema(rule: .cascade))
        #expect(Set(states.keys) == [1])
        #expect(conflicts.map(\.kind) == [.uniqueness, .cascade])
    }

    @Test("reconcile is idempotent: a second pass changes nothing and records nothing")
    func idempotent() throws {
        var states: [UInt64: ObjectState] = [1: category("Bird"), 5: category("Bird"), 6: animal("Tweety", category: [5, 1])]
        states[6]?.links["category"] = .init([5])
        _ = try MergeReconcile.reconcile(&states, schema: try mergeZooSchema())
        let once = states
        #expect(try MergeReconcile.reconcile(&states, schema: try mergeZooSchema()).isEmpty)
        #expect(states == once)
    }
}
