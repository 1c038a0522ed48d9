import Foundation
import Testing
import Folio
@testable import FolioCore
import FolioTestSupport

@Suite struct ObjectGraphMergeTests {

    @Test("edits of different objects and cells on the two sides are all kept, with no conflict")
    func disjointEdits() throws {
        let (fixture, mammals, rex, tom) = try mergeZoo()
        let lion = try fixture.ours.insert("Animal", ["name": .string("Lion")])
        try fixture.ours.link(lion, "category", to: mammals)
        try fixture.ours.setValue(.int(4), for: "age", of: rex)
        let tiger = try fixture.theirs.insert("Animal", ["name": .string("Tiger")])
        try fixture.theirs.link(tiger, "category", to: mammals)
        try fixture.theirs.setValue(.string("Thomas"), for: "name", of: tom)
        let result = try fixture.merge()
        #expect(result.conflicts.isEmpty)
        let graph = result.graph
        #expect(try graph.value("age", of: rex) == .int(4))
        #expect(try graph.value("name", of: tom) == .string("Thomas"))
        // Concurrent inserts at one place come by identifier (each side's writer draws its own lane).
        #expect(try graph.related("animals", of: mammals).map(\.id) == [rex.id, tom.id] + [lion.id, tiger.id].sorted())
        try expectMergeSound(result)
    }

    @Test("one cell changed on both sides to different values keeps ours and records the conflict")
    func valueConflict() throws {
        let (fixture, _, rex, _) = try mergeZoo()
        try fixture.ours.setValue(.int(10), for: "age", of: rex)
        try fixture.theirs.setValue(.int(20), for: "age", of: rex)
        let result = try fixture.merge()
        #expect(try result.graph.value("age", of: rex) == .int(10))
        #expect(
            result.conflicts == [
                MergeConflict(
                    kind: .value, id: rex, property: "age",
                    base: .value(.int(3)), ours: .value(.int(10)), theirs: .value(.int(20)))
            ])
        let swapped = try ObjectGraph.merge(base: fixture.base, ours: fixture.theirs, theirs: fixture.ours)
        #expect(swapped.conflicts == result.conflicts.map(\.swapped))
    }

    @Test("a to-one set to different objects on the two sides keeps ours and records identifiers")
    func toOneConflict() throws {
        let (fixture, _, rex, _) = try mergeZoo()
        let birds = try fixture.base.insert("Category", ["name": .string("Bird")])
        let fishes = try fixture.base.insert("Category", ["name": .string("Fish")])
        let again = MergeFixture(fixture.base)
        try again.ours.link(rex, "category", to: birds)
        try again.theirs.link(rex, "category", to: fishes)
        let result = try again.merge()
        #expect(try result.graph.related("category", of: rex) == [birds])
        #expect(result.conflicts.map(\.kind) == [.value])
        #expect(result.conflicts.first?.theirs == .related([fishes]))
        try expectMergeSound(result)
    }

    @Test("a delete on one side wins over an edit on the other, recording the edited object")
    func deleteAgainstEdit() throws {
        let (fixture, mammals, rex, _) = try mergeZoo()
        try fixture.ours.remove(rex)
        try fixture.theirs.setValue(.int(9), for: "age", of: rex)
        let result = try fixture.merge()
        #expect(!result.graph.contains(rex))
        #expect(try result.graph.related("animals", of: mammals).count == 1)
        let conflict = try #require(result.conflicts.first)
        #expect(conflict.kind == .deletedAndEdited && conflict.ours == nil)
        guard case .object(let values)? = conflict.theirs else { Issue.record("no object recorded"); return }
        #expect(values["age"] == .value(.int(9)))
        #expect(values["category"] == .related([mammals]))
        try expectMergeSound(result)
    }

    @Test("a delete on one side with no edit on the other deletes, with no conflict")
    func deleteUnchanged() throws {
        let (fixture, _, rex, _) = try mergeZoo()
        try fixture.theirs.remove(rex)
        let result = try fixture.merge()
        #expect(!result.graph.contains(rex) && result.conflicts.isEmpty)
    }

    @Test("an object linked on one side to an object deleted on the other follows the delete rule: nullify cuts the link")
    func danglingNullify() throws {
        let (fixture, mammals, _, _) = try mergeZoo(rule: .nullify)
        let lion = try fixture.ours.insert("Animal", ["name": .string("Lion")])
        try fixture.ours.link(lion, "category", to: mammals)
        try fixture.theirs.remove(mammals)
        let result = try fixture.merge()
        #expect(result.graph.contains(lion) && !result.graph.contains(mammals))
        #expect(try result.graph.related("category", of: lion).isEmpty)
        #expect(result.conflicts.map(\.kind) == [.danglingLink])
        try expectMergeSound(result)
    }

    @Test("cascade removes the object linked to a deleted one, recording its values")
    func danglingCascade() throws {
        let (fixture, mammals, rex, tom) = try mergeZoo(rule: .cascade)
        let lion = try fixture.ours.insert("Animal", ["name": .string("Lion")])
        try fixture.ours.link(lion, "category", to: mammals)
        for animal in [mammals, rex, tom] { try fixture.theirs.remove(animal) }
        let result = try fixture.merge()
        #expect(result.graph.count == 0)
        #expect(result.conflicts.map(\.kind) == [.cascade])
        #expect(result.conflicts.first?.id == lion)
        try expectMergeSound(result)
    }

    @Test("deny brings back the deleted object an edit on the other side still links to")
    func danglingDeny() throws {
        let (fixture, mammals, rex, tom) = try mergeZoo(rule: .deny)
        // Ours empties the category, then deletes it (allowed: it denies nothing now).
        try fixture.ours.remove(rex)
        try fixture.ours.remove(tom)
        try fixture.ours.remove(mammals)
        let lion = try fixture.theirs.insert("Animal", ["name": .string("Lion")])
        try fixture.theirs.link(lion, "category", to: mammals)
        let result = try fixture.merge()
        #expect(result.graph.contains(mammals) && result.graph.contains(lion))
        #expect(try result.graph.related("animals", of: mammals) == [lion])
        #expect(result.conflicts.map(\.kind) == [.deny])
        try expectMergeSound(result)
    }

    @Test("two objects given one unique value on the two sides: the larger identifier is removed and recorded")
    func uniqueness() throws {
        let (fixture, _, _, _) = try mergeZoo()
        let ourBirds = try fixture.ours.insert("Category", ["name": .string("Bird")])
        let theirBirds = try fixture.theirs.insert("Category", ["name": .string("Bird")])
        let result = try fixture.merge()
        let (kept, removed) = ourBirds.id < theirBirds.id ? (ourBirds, theirBirds) : (theirBirds, ourBirds)
        #expect(result.graph.contains(kept) && !result.graph.contains(removed))
        #expect(result.conflicts.map(\.kind) == [.uniqueness] && result.conflicts.first?.id == removed)
        try expectMergeSound(result)
    }

    @Test("a maximum count exceeded by the merge is recorded and the state kept")
    func counts() throws {
        let (fixture, mammals, _, _) = try mergeZoo(maximum: 3)
        try fixture.ours.link(try fixture.ours.insert("Animal"), "category", to: mammals)
        try fixture.theirs.link(try fixture.theirs.insert("Animal"), "category", to: mammals)
        let result = try fixture.merge()
        #expect(try result.graph.related("animals", of: mammals).count == 4)
        #expect(result.conflicts.map(\.kind) == [.count] && result.conflicts.first?.id == mammals)
    }

    @Test("sets and dictionaries merge by element and key across the two sides")
    func collections() throws {
        let (fixture, _, rex, _) = try mergeZoo()
        try fixture.base.setValue(.set([.string("a")]), for: "tags", of: rex)
        let again = MergeFixture(fixture.base)
        try again.ours.setValue(.set([.string("a"), .string("b")]), for: "tags", of: rex)
        try again.theirs.setValue(.set([.string("c")]), for: "tags", of: rex)
        try again.ours.setValue(.dictionary(["x": .string("1")]), for: "notes", of: rex)
        try again.theirs.setValue(.dictionary(["y": .string("2")]), for: "notes", of: rex)
        let result = try again.merge()
        #expect(try result.graph.value("tags", of: rex) == .set([.string("b"), .string("c")]))
        #expect(try result.graph.value("notes", of: rex) == .dictionary(["x": .string("1"), "y": .string("2")]))
        #expect(result.conflicts.isEmpty)
    }

    @Test("merging with an unchanged side gives the other side")
    func unchangedSide() throws {
        let (fixture, mammals, rex, _) = try mergeZoo()
        try fixture.ours.remove(rex)
        try fixture.ours.setValue(.string("Mammalia"), for: "name", of: mammals)
        try fixture.ours.link(try fixture.ours.insert("Animal"), "category", to: mammals)
        let result = try fixture.merge()
        #expect(result.graph.snapshot() == fixture.ours.snapshot() && result.conflicts.isEmpty)
    }

    @Test("a schema no lightweight migration reaches is refused, naming the difference (MergeSchemaTests has the rest)")
    func schemaMismatch() throws {
        let (fixture, _, _, _) = try mergeZoo()
        var entities = try mergeZooSchema().entities
        entities[0].relationships[0].isToMany = false
        let other = ObjectGraph(schema: try Schema(entities))
        #expect(
            throws: MergeError.schemaMismatch(
                side: .theirs,
                difference: "relationship Category.animals is declared "
                    + "differently, not a lightweight migration: \(MigrationError.relationshipKindChanged(entity: "Category", relationship: "animals", wasToMany: true))"
            )
        ) {
            try ObjectGraph.merge(base: fixture.base, ours: fixture.ours, theirs: other)
        }
    }
}
