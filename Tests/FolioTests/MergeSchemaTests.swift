import Foundation
import Testing
import Folio
@testable import FolioCore
import FolioTestSupport

/// Merging versions whose schemas differ by a lightweight migration: the
/// versions are migrated to the newer schema first; anything else is refused.
@Suite struct MergeSchemaTests {
    /// The merge zoo's schema with `change` applied to its Animal entity.
    func zooSchema(_ change: (inout Schema.Entity) -> Void) throws -> Schema {
        var entities = try mergeZooSchema().entities
        change(&entities[1])
        return try Schema(entities)
    }

    func withWeight() throws -> Schema {
        try zooSchema { $0.attributes.append(.init("weight", .double, defaultValue: .double(1))) }
    }

    @Test("ours added an attribute: base and theirs are migrated to ours' schema, and every edit is kept")
    func oursAddedAttribute() throws {
        let (fixture, mammals, rex, tom) = try mergeZoo()
        let ours = try fixture.ours.migrated(to: try withWeight())
        try ours.setValue(.double(7.5), for: "weight", of: rex)
        let lion = try ours.insert("Animal", ["name": .string("Lion"), "weight": .double(190)])
        try ours.link(lion, "category", to: mammals)
        try fixture.theirs.setValue(.string("Thomas"), for: "name", of: tom)
        let tiger = try fixture.theirs.insert("Animal", ["name": .string("Tiger")])
        try fixture.theirs.link(tiger, "category", to: mammals)

        let result = try ObjectGraph.merge(base: fixture.base, ours: ours, theirs: fixture.theirs)
        #expect(result.conflicts.isEmpty)
        let graph = result.graph
        #expect(graph.schema == ours.schema)
        #expect(try graph.value("weight", of: rex) == .double(7.5))
        #expect(try graph.value("weight", of: lion) == .double(190))
        // Theirs' objects take the new attribute's default, as a migration on open gives them.
        #expect(try graph.value("weight", of: tom) == .double(1))
        #expect(try graph.value("weight", of: tiger) == .double(1))
        #expect(try graph.value("name", of: tom) == .string("Thomas"))
        #expect(try graph.related("animals", of: mammals).map(\.id) == [rex.id, tom.id] + [lion.id, tiger.id].sorted())
        try expectMergeSound(result)
    }

    @Test("theirs added an attribute: the merge takes theirs' schema, the same as with the sides swapped")
    func theirsAddedAttribute() throws {
        let (fixture, _, rex, tom) = try mergeZoo()
        let theirs = try fixture.theirs.migrated(to: try withWeight())
        try theirs.setValue(.double(4), for: "weight", of: tom)
        try theirs.setValue(.int(30), for: "age", of: rex)
        try fixture.ours.setValue(.int(10), for: "age", of: rex)

        let result = try ObjectGraph.merge(base: fixture.base, ours: fixture.ours, theirs: theirs)
        #expect(result.graph.schema == theirs.schema)
        #expect(try result.graph.value("weight", of: tom) == .double(4))
        #expect(try result.graph.value("age", of: rex) == .int(10))
        #expect(
            result.conflicts == [
                MergeConflict(
                    kind: .value, id: rex, property: "age",
                    base: .value(.int(3)), ours: .value(.int(10)), theirs: .value(.int(30)))
            ])
        let swapped = try ObjectGraph.merge(base: fixture.base, ours: theirs, theirs: fixture.ours)
        #expect(swapped.graph.schema == theirs.schema)
        #expect(swapped.conflicts == result.conflicts.map(\.swapped))
        try expectMergeSound(result)
    }

    @Test("both sides made the same schema change: only the base is migrated")
    func bothSameChange() throws {
        let (fixture, _, rex, tom) = try mergeZoo()
        let ours = try fixture.ours.migrated(to: try withWeight())
        let theirs = try fixture.theirs.migrated(to: try withWeight())
        try ours.setValue(.double(2), for: "weight", of: rex)
        try theirs.setValue(.double(3), for: "weight", of: tom)
        let result = try ObjectGraph.merge(base: fixture.base, ours: ours, theirs: theirs)
        #expect(result.conflicts.isEmpty)
        #expect(try result.graph.value("weight", of: rex) == .double(2))
        #expect(try result.graph.value("weight", of: tom) == .double(3))
        try expectMergeSound(result)
    }

    @Test("a renamed attribute (originalName) carries the other side's edits of it")
    func renamedAttribute() throws {
        let (fixture, _, rex, tom) = try mergeZoo()
        let renamed = try zooSchema { entity in
            entity.attributes[1] = .init("years", .int, originalName: "age")
        }
        let ours = try fixture.ours.migrated(to: renamed)
        try ours.setValue(.int(6), for: "years", of: tom)
        try fixture.theirs.setValue(.int(4), for: "age", of: rex)
        let result = try ObjectGraph.merge(base: fixture.base, ours: ours, theirs: fixture.theirs)
        #expect(result.conflicts.isEmpty)
        #expect(try result.graph.value("years", of: rex) == .int(4))
        #expect(try result.graph.value("years", of: tom) == .int(6))
        try expectMergeSound(result)
    }

    @Test("a changed delete rule is a lightweight change: the merged graph has the side's rule")
    func changedDeleteRule() throws {
        let (fixture, _, rex, _) = try mergeZoo()
        let theirs = try fixture.theirs.migrated(to: try mergeZooSchema(rule: .cascade))
        try fixture.ours.setValue(.int(8), for: "age", of: rex)
        let result = try ObjectGraph.merge(base: fixture.base, ours: fixture.ours, theirs: theirs)
        #expect(result.graph.schema.entity(named: "Category")?.relationship(named: "animals")?.deleteRule == .cascade)
        #expect(try result.graph.value("age", of: rex) == .int(8))
    }

    @Test("both sides changed the schema differently: refused, naming the difference, nothing changed")
    func bothChangedDifferently() throws {
        let (fixture, _, rex, _) = try mergeZoo()
        let ours = try fixture.ours.migrated(to: try withWeight())
        let theirs = try fixture.theirs.migrated(
            to: try zooSchema {
                $0.attributes.append(.init("height", .double, isOptional: true))
            })
        try ours.setValue(.double(2), for: "weight", of: rex)
        let before = [fixture.base, ours, theirs].map { $0.snapshot() }
        #expect(
            throws: MergeError.schemaMismatch(
                side: .theirs, difference: "both sides changed the schema, differently: attribute Animal.weight is only in ours")
        ) {
            try ObjectGraph.merge(base: fixture.base, ours: ours, theirs: theirs)
        }
        #expect([fixture.base, ours, theirs].map { $0.snapshot() } == before)
    }

    @Test("a change that is no lightweight migration (a type changed) is refused, naming the side and why")
    func notLightweight() throws {
        let (fixture, _, _, _) = try mergeZoo()
        let changed = try zooSchema { $0.attributes[1] = .init("age", .string) }
        let theirs = ObjectGraph(schema: changed)
        do {
            _ = try ObjectGraph.merge(base: fixture.base, ours: fixture.ours, theirs: theirs)
            Issue.record("merged")
        } catch {
            guard case .schemaMismatch(let side, let difference) = error else { Issue.record("\(error)"); return }
            #expect(side == .theirs)
            #expect(difference.hasPrefix("attribute Animal.age is declared differently, not a lightweight migration: "))
            #expect(difference.contains("age"))
        }
    }

    @Test("a side's objects that the newer schema refuses (nil in an attribute made required) refuse the merge")
    func dataRefusedByNewerSchema() throws {
        let (fixture, _, rex, tom) = try mergeZoo()
        let required = try zooSchema { $0.attributes[4] = .init("photo", .data, options: [.externalStorage]) }
        for graph in [fixture.base, fixture.ours, fixture.theirs] {
            try graph.setValue(.data(Data([1])), for: "photo", of: rex)
            try graph.setValue(.data(Data([2])), for: "photo", of: tom)
        }
        let ours = try fixture.ours.migrated(to: required)
        try fixture.theirs.setValue(.null, for: "photo", of: rex)
        do {
            _ = try ObjectGraph.merge(base: fixture.base, ours: ours, theirs: fixture.theirs)
            Issue.record("merged")
        } catch {
            guard case .schemaMismatch(let side, let difference) = error else { Issue.record("\(error)"); return }
            #expect(side == .theirs)
            #expect(difference.contains("not a lightweight migration"))
        }
    }
}
