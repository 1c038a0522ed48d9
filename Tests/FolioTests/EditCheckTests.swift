import Foundation
import Testing
import Folio
@testable import FolioCore

/// What a program can ask before a dynamic edit, so it refuses the edit when it
/// is made rather than at save: the uniqueness rules a set would break
/// (`uniquenessConflicts`), whether an insert would update an existing object
/// (`upsertMatch`), and which attributes a new object needs (`isRequired`).
@Suite struct EditCheckTests {
    /// Flows: a unique label, and no two at one step of one snapshot.
    static func flowSchema() throws -> Schema {
        try Schema([
            .init(
                "Flow",
                attributes: [
                    .init("label", .string, options: [.unique]), .init("step", .int),
                    .init("note", .string, isOptional: true),
                    .init("kind", .string, defaultValue: .string("plain")),
                    .init("scratch", .string, options: [.transient]), .init("extra", .any),
                ],
                relationships: [.init("snapshot", to: "Snapshot", inverse: "flows")],
                uniquenessConstraints: [["snapshot", "step"]]),
            .init(
                "Snapshot", attributes: [.init("name", .string)],
                relationships: [.init("flows", to: "Flow", toMany: true, inverse: "snapshot")]),
        ])
    }

    @Test("a set that would share a unique value or a constraint's values is reported before it is made, as save would report it")
    func conflictsBeforeTheEdit() throws {
        let context = try makeContext(Self.flowSchema())
        let snapshot = try context.insert("Snapshot", ["name": .string("1.0")])
        let first = try context.insert("Flow", ["label": .string("a"), "step": .int(1)], related: ["snapshot": [snapshot]])
        let second = try context.insert("Flow", ["label": .string("b"), "step": .int(2)])
        try context.save()
        let steps = context.undoManager?.undoCount

        let label = try context.uniquenessConflicts(setting: ["label": .string("a")], of: second)
        #expect(label == [ValidationIssue(kind: .unique, object: second, relationship: "label", related: [first])])
        // The constraint's other member as the object holds it, or as the same call gives it.
        #expect(try context.uniquenessConflicts(setting: ["step": .int(1)], of: second).isEmpty)
        let both = try context.uniquenessConflicts(setting: ["step": .int(1)], related: ["snapshot": [snapshot]], of: second)
        #expect(both == [ValidationIssue(kind: .unique, object: second, relationship: "snapshot, step", related: [first])])
        #expect(try context.uniquenessConflicts(setting: [:], related: ["snapshot": nil], of: first).isEmpty)
        // Setting an object's own values again, or values no one holds, breaks nothing.
        #expect(try context.uniquenessConflicts(setting: ["label": .string("a"), "step": .int(1)], of: first).isEmpty)
        #expect(try context.uniquenessConflicts(setting: ["label": .string("c")], of: second).isEmpty)
        // Nothing changed, and no undo step was made.
        #expect(!context.hasChanges)
        #expect(context.undoManager?.undoCount == steps)

        // The save refuses exactly what the check reported.
        try context.setValue(.string("a"), for: "label", of: second)
        guard case .validation(let issues)? = #expect(throws: ModelError.self, performing: { try context.save() }) else { return }
        #expect(issues.filter { $0.kind == .unique && $0.object == second } == label)
    }

    @Test("the check throws what the setters throw: unknown names, wrong types, deleted objects")
    func checkErrors() throws {
        let context = try makeContext(Self.flowSchema())
        let flow = try context.insert("Flow", ["label": .string("a"), "step": .int(1)])
        let snapshot = try context.insert("Snapshot", ["name": .string("1.0")])
        #expect(throws: ModelError.graph(.unknownAttribute(entity: "Flow", attribute: "nope"))) {
            try context.uniquenessConflicts(setting: ["nope": .int(1)], of: flow)
        }
        #expect(throws: ModelError.self) { try context.uniquenessConflicts(setting: ["step": .string("x")], of: flow) }
        #expect(throws: ModelError.self) { try context.uniquenessConflicts(setting: [:], related: ["snapshot": [flow]], of: flow) }
        try context.delete(snapshot)
        #expect(throws: ModelError.graph(.objectNotFound(snapshot))) {
            try context.uniquenessConflicts(setting: ["name": .string("2.0")], of: snapshot)
        }
    }

    @Test("upsertMatch names the object an insert would update, and nil when it would insert")
    func upsertMatch() throws {
        let context = try makeContext(Self.flowSchema())
        let snapshot = try context.insert("Snapshot", ["name": .string("1.0")])
        let first = try context.insert("Flow", ["label": .string("a"), "step": .int(1)], related: ["snapshot": [snapshot]])
        #expect(try context.upsertMatch("Flow", ["label": .string("a")]) == first)
        #expect(try context.upsertMatch("Flow", ["step": .int(1)], related: ["snapshot": [snapshot]]) == first)
        #expect(try context.upsertMatch("Flow", ["step": .int(1)]) == nil)
        #expect(try context.upsertMatch("Flow", ["label": .string("b")]) == nil)
        #expect(try context.upsertMatch("Snapshot", ["name": .string("1.0")]) == nil)
        #expect(throws: ModelError.graph(.unknownAttribute(entity: "Flow", attribute: "nope"))) {
            try context.upsertMatch("Flow", ["nope": .int(1)])
        }
        // What it says is what the insert does.
        context.processPendingChanges()
        #expect(try context.insert("Flow", ["label": .string("a"), "note": .string("again")]) == first)
        context.processPendingChanges()
        #expect(try context.value("note", of: first) == .string("again"))
        #expect(try context.fetchCount(DynamicFetchDescriptor(entity: "Flow")) == 1)
        #expect(context.undoManager?.undoActionNames.last == "Update Flow")
    }

    @Test("an attribute is required when it is not optional, has no default, is not transient and is not an any-value")
    func requiredAttributes() throws {
        let flow = try #require(try Self.flowSchema().entity(named: "Flow"))
        #expect(flow.attributes.filter(\.isRequired).map(\.name) == ["label", "step"])
        // The dynamic insert still starts one it is not given at its type's zero, as documented.
        let context = try makeContext(Self.flowSchema())
        let bare = try context.insert("Flow", ["label": .string("x")])
        #expect(try context.value("step", of: bare) == .int(0))
        #expect(try context.value("kind", of: bare) == .string("plain"))
    }
}
