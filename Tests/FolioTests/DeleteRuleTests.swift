import Foundation
import Testing
import Folio
@testable import FolioCore
import FolioTestSupport

@Suite struct DeleteRuleTests {
    @Test("cascade on a to-many deletes every destination")
    func cascadeToMany() throws {
        let context = try makeContext(try ruleSchema(ownerRule: .cascade, itemRule: .nullify))
        let owner = try context.insert("Owner")
        let items = try (0..<3).map { _ in try context.insert("Item") }
        try context.setRelated(items, for: "items", of: owner)
        try context.save()
        try context.delete(owner)
        #expect(items.allSatisfy { !context.contains($0) && context.isDeleted($0) })
        #expect(context.graph.invariantViolations().isEmpty)
    }

    @Test("cascade on a to-one deletes the destination")
    func cascadeToOne() throws {
        let context = try makeContext(try ruleSchema(ownerRule: .nullify, itemRule: .cascade))
        let owner = try context.insert("Owner")
        let item = try context.insert("Item")
        try context.link(item, "owner", to: owner)
        try context.delete(item)
        #expect(!context.contains(owner))
    }

    @Test("nullify on either side cuts the inverse on the survivor")
    func nullifyBothSides() throws {
        let context = try makeContext(try ruleSchema(ownerRule: .nullify, itemRule: .nullify))
        let owner = try context.insert("Owner")
        let (a, b) = (try context.insert("Item"), try context.insert("Item"))
        try context.setRelated([a, b], for: "items", of: owner)
        try context.delete(a)
        #expect(try context.related("items", of: owner) == [b])
        try context.delete(owner)
        #expect(try context.related("owner", of: b).isEmpty)
        #expect(context.contains(b))
    }

    @Test("noAction deletes nothing else and leaves no dangling reference")
    func noAction() throws {
        let context = try makeContext(try ruleSchema(ownerRule: .noAction, itemRule: .noAction))
        let owner = try context.insert("Owner")
        let item = try context.insert("Item")
        try context.link(owner, "items", to: item)
        try context.delete(owner)
        #expect(context.contains(item))
        #expect(try context.related("owner", of: item).isEmpty)
        #expect(context.graph.invariantViolations().isEmpty)
    }

    @Test("deny makes save throw, naming the denying objects, and writes nothing")
    func denyRefusesSave() throws {
        let url = temporaryPackageURL()
        let context = try makeContext(try ruleSchema(ownerRule: .deny, itemRule: .nullify), url: url)
        let owner = try context.insert("Owner", ["name": .string("O")])
        let item = try context.insert("Item")
        try context.link(owner, "items", to: item)
        try context.save()
        let saved = try packageDocument(url)
        try context.delete(owner)
        #expect(context.isDeleted(owner))
        let error = #expect(throws: ModelError.self) { try context.save() }
        #expect(error == .validation([ValidationIssue(kind: .deny, object: owner, relationship: "items", related: [item])]))
        #expect(try packageDocument(url) == saved)
        context.undoManager?.undo()
        #expect(try context.related("items", of: owner) == [item])
        try context.save()
    }

    @Test("deny does not refuse when the denying objects are deleted too")
    func denySatisfied() throws {
        let context = try makeContext(try ruleSchema(ownerRule: .deny, itemRule: .nullify))
        let owner = try context.insert("Owner")
        let item = try context.insert("Item")
        try context.link(owner, "items", to: item)
        try context.save()
        try context.delete([owner, item])
        try context.save()
        #expect(context.graph.count == 0)
    }

    @Test("deny on a to-one side is enforced too")
    func denyToOne() throws {
        let context = try makeContext(try ruleSchema(ownerRule: .nullify, itemRule: .deny))
        let owner = try context.insert("Owner")
        let item = try context.insert("Item")
        try context.link(item, "owner", to: owner)
        try context.save()
        try context.delete(item)
        #expect(throws: ModelError.self) { try context.save() }
        #expect(try context.deletionPreview(for: [owner]).denials.isEmpty)
    }

    @Test("cascade chains are transitive and cycles terminate")
    func cascadeChainsAndCycles() throws {
        let schema = try Schema([
            .init(
                "Node", attributes: [.init("label", .int)],
                relationships: [
                    .init("children", to: "Node", toMany: true, inverse: "parent", deleteRule: .cascade),
                    .init("parent", to: "Node", inverse: "children", deleteRule: .cascade),
                ])
        ])
        let context = try makeContext(schema)
        var nodes = [try context.insert("Node", ["label": .int(0)])]
        for index in 1..<50 {
            let node = try context.insert("Node", ["label": .int(Int64(index))])
            try context.link(node, "parent", to: nodes[(index - 1) / 2])
            nodes.append(node)
        }
        context.processPendingChanges()
        let preview = try context.deletionPreview(for: [nodes[30]])
        #expect(preview.deleted.count == 50)  // up through every parent and back down: a cycle of cascades
        try context.delete(nodes[30])
        #expect(context.graph.count == 0)
        context.undoManager?.undo()
        #expect(context.graph.count == 50)
        for index in 1..<50 { #expect(try context.related("parent", of: nodes[index]) == [nodes[(index - 1) / 2]]) }
        #expect(context.graph.invariantViolations().isEmpty)
    }

    @Test("relationships without an inverse leave no dangling reference when the destination is deleted")
    func noInverseNoDangling() throws {
        let context = try makeContext(try kitchenSinkSchema())
        let (a, b) = (try context.insert("Thing"), try context.insert("Thing"))
        try context.link(a, "friends", to: b)
        context.processPendingChanges()
        try context.delete(b)
        #expect(try context.related("friends", of: a).isEmpty)
        context.undoManager?.undo()
        #expect(try context.related("friends", of: a) == [b])
    }

    @Test("the deletion preview counts cascades by entity and lists nullified links")
    func preview() throws {
        let context = try makeContext(try zooSchema())
        let categories = try context.insertZoo(categories: 2, perCategory: 12)
        let preview = try context.deletionPreview(for: [categories[0]])
        #expect(preview.cascadedCounts == ["Animal": 12])
        #expect(preview.summary == "deletes 1 AnimalCategory, also deletes 12 Animal")
        let animal = try context.related("animals", of: categories[1])[0]
        let single = try context.deletionPreview(for: [animal])
        #expect(single.nullified == [.init(object: categories[1], relationship: "animals", count: 1)])
        #expect(context.graph.count == 26)  // a preview changes nothing
    }
}
