import Foundation
import PropertyBased
import Testing
import Folio
@testable import FolioCore
import FolioTestSupport

/// Optional to-many relationships (`[Item]?`) tell no collection (`nil`) from
/// an empty one, in the graph, through undo and merges, and in the document.
@Suite struct OptionalToManyTests {
    /// Owner.items ⇄ Item.owner (one-to-many), Owner.tags ⇄ Tag.owners (many-to-many,
    /// both optional), Owner.extras (non-optional, no inverse).
    static func schema(optional: Bool = true) throws -> Schema {
        try Schema([
            .init(
                "Owner", attributes: [.init("name", .string)],
                relationships: [
                    .init("items", to: "Item", toMany: true, isOptional: optional, inverse: "owner"),
                    .init("tags", to: "Tag", toMany: true, isOptional: optional, inverse: "owners"),
                    .init("extras", to: "Tag", toMany: true),
                ]),
            .init(
                "Item", attributes: [.init("name", .string)],
                relationships: [.init("owner", to: "Owner", inverse: "items")]),
            .init(
                "Tag", attributes: [.init("name", .string)],
                relationships: [.init("owners", to: "Owner", toMany: true, isOptional: optional, inverse: "tags")]),
        ])
    }

    @Test("a new object's optional to-many holds no collection; [] gives it an empty one, nil takes it away, undo restores each")
    func setNilAndEmpty() throws {
        let context = try makeContext(try Self.schema())
        let owner = try context.insert("Owner", ["name": .string("o")])
        let item = try context.insert("Item", ["name": .string("i")])
        #expect(try context.relatedCollection("items", of: owner) == nil)
        #expect(try context.related("items", of: owner) == [])
        #expect(try context.relatedCollection("extras", of: owner) == [], "a non-optional to-many always has a collection")
        #expect(try context.relatedCollection("owner", of: item) == [], "a to-one reads as related(_:of:)")
        context.processPendingChanges()

        try context.setRelated([], for: "items", of: owner)
        context.processPendingChanges()
        #expect(try context.relatedCollection("items", of: owner) == [])
        try context.setRelated([item], for: "items", of: owner)
        context.processPendingChanges()
        try context.setRelated(nil, for: "items", of: owner)
        context.processPendingChanges()
        #expect(try context.relatedCollection("items", of: owner) == nil)
        #expect(try context.related("owner", of: item) == [], "the inverse follows")
        #expect(context.graph.invariantViolations().isEmpty)

        context.undoManager?.undo()
        #expect(try context.relatedCollection("items", of: owner) == [item])
        context.undoManager?.undo()
        #expect(try context.relatedCollection("items", of: owner) == [])
        context.undoManager?.undo()
        #expect(try context.relatedCollection("items", of: owner) == nil)
        context.undoManager?.redo()
        #expect(try context.relatedCollection("items", of: owner) == [])
    }

    @Test("linking from either side gives a nil to-many a collection; unlinking or deleting the last object leaves it empty")
    func inverseSide() throws {
        let context = try makeContext(try Self.schema())
        let owner = try context.insert("Owner", ["name": .string("o")])
        let item = try context.insert("Item", ["name": .string("i")])
        let tag = try context.insert("Tag", ["name": .string("t")])
        context.processPendingChanges()
        try context.link(item, "owner", to: owner)
        context.processPendingChanges()
        #expect(try context.relatedCollection("items", of: owner) == [item])
        try context.setRelated(nil, for: "owner", of: item)
        context.processPendingChanges()
        #expect(try context.relatedCollection("items", of: owner) == [])
        try context.link(tag, "owners", to: owner)
        context.processPendingChanges()
        #expect(try context.relatedCollection("tags", of: owner) == [tag])
        #expect(try context.relatedCollection("owners", of: tag) == [owner])
        try context.delete(tag)
        context.processPendingChanges()
        #expect(try context.relatedCollection("tags", of: owner) == [])
        context.undoManager?.undo()
        #expect(try context.relatedCollection("tags", of: owner) == [tag])
        #expect(context.graph.invariantViolations().isEmpty)
    }

    @Test("nil to [] is a change to save, and setting it back to nil is none")
    func changeTracking() throws {
        let url = temporaryPackageURL("Owners")
        let context = try makeContext(try Self.schema(), url: url)
        let owner = try context.insert("Owner", ["name": .string("o")])
        try context.save()
        try context.setRelated([], for: "items", of: owner)
        #expect(context.hasChanges)
        #expect(context.changedIdentifiers == [owner])
        try context.setRelated(nil, for: "items", of: owner)
        #expect(!context.hasChanges)
    }

    @Test("the document writes an empty collection as \"\" and no collection as absence, and reads both back")
    func documentForm() throws {
        let url = temporaryPackageURL("Owners")
        let graph = ObjectGraph(schema: try Self.schema())
        let none = try graph.insert("Owner", ["name": .string("none")])
        let empty = try graph.insert("Owner", ["name": .string("empty")])
        let full = try graph.insert("Owner", ["name": .string("full")])
        let item = try graph.insert("Item", ["name": .string("i")])
        try graph.setRelated([], for: "items", of: empty)
        try graph.setRelated([], for: "tags", of: empty)
        try graph.setRelated([], for: "extras", of: empty)
        try graph.link(full, "items", to: item)
        try DocumentPackage(url: url).write(graph)

        let text = try packageText(url)
        #expect(text.contains(#"<relationship name="items" destination="Item" to-many="true" optional="true" inverse="owner""#))
        #expect(text.contains(#"<Owner f.id="\#(none.id)" name="none"/>"#), "no collection: nothing written")
        #expect(
            text.contains(#"<Owner f.id="\#(empty.id)" name="empty" items="" tags=""/>"#),
            "an empty collection is written; a non-optional empty list is not")
        #expect(text.contains(#"<Owner f.id="\#(full.id)" name="full" items="\#(item.id)"/>"#))

        let back = try DocumentPackage(url: url).read()
        #expect(back.snapshot() == graph.snapshot())
        #expect(try back.relatedCollection("items", of: none) == nil)
        #expect(try back.relatedCollection("items", of: empty) == [])
        #expect(try back.relatedCollection("tags", of: full) == nil)
        #expect(back.invariantViolations().isEmpty)
    }

    /// A package as Folio wrote it before optional to-many relationships: no
    /// `optional` in the schema, empty lists left out.
    static let oldPackage = """
        <?xml version="1.0" encoding="UTF-8"?>
        <folio format="1">
          <schema>
            <entity name="Owner">
              <attribute name="name" type="string"/>
              <relationship name="items" destination="Item" to-many="true" inverse="owner" delete-rule="nullify"/>
              <relationship name="tags" destination="Tag" to-many="true" inverse="owners" delete-rule="nullify"/>
              <relationship name="extras" destination="Tag" to-many="true" delete-rule="nullify"/>
            </entity>
            <entity name="Item">
              <attribute name="name" type="string"/>
              <relationship name="owner" destination="Owner" inverse="items" delete-rule="nullify"/>
            </entity>
            <entity name="Tag">
              <attribute name="name" type="string"/>
              <relationship name="owners" destination="Owner" to-many="true" inverse="tags" delete-rule="nullify"/>
            </entity>
          </schema>
          <objects Owner="2" Item="1">
            <Owner f.id="1" name="empty"/>
            <Owner f.id="2" name="full" items="3"/>
            <Item f.id="3" name="i" owner="2"/>
          </objects>
        </folio>

        """

    @Test("a package written before optional to-manys opens; made optional, its empty lists stay empty collections, not nil")
    func oldPackages() throws {
        let url = temporaryPackageURL("Old")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        try Self.oldPackage.write(to: url.appendingPathComponent("document.xml"), atomically: true, encoding: .utf8)
        let empty = PersistentIdentifier(entityName: "Owner", id: 1)
        let full = PersistentIdentifier(entityName: "Owner", id: 2)

        let asWritten = try DocumentPackage(url: url).read()
        #expect(asWritten.schema == (try Self.schema(optional: false)))
        #expect(try asWritten.relatedCollection("items", of: empty) == [])

        // Opened with the schema of `var items: [Item]?`: what the document held, it still holds.
        let context = try makeContext(try Self.schema(), url: url)
        #expect(try context.relatedCollection("items", of: empty) == [])
        #expect(try context.relatedCollection("tags", of: empty) == [])
        #expect(try context.relatedCollection("items", of: full) == [PersistentIdentifier(entityName: "Item", id: 3)])
        let fresh = try context.insert("Owner", ["name": .string("new")])
        #expect(try context.relatedCollection("items", of: fresh) == nil, "a new object's has never been assigned")
        try context.save()
        let reopened = try DocumentPackage(url: url).read()
        #expect(try reopened.relatedCollection("items", of: empty) == [])
        #expect(try reopened.relatedCollection("items", of: fresh) == nil)
    }

    @Test("a migration that makes a to-many no longer optional turns no collection into an empty one")
    func migrationDropsOptional() throws {
        let graph = ObjectGraph(schema: try Self.schema())
        let none = try graph.insert("Owner", ["name": .string("none")])
        let empty = try graph.insert("Owner", ["name": .string("empty")])
        try graph.setRelated([], for: "items", of: empty)
        let plain = try graph.migrated(to: try Self.schema(optional: false))
        #expect(try plain.relatedCollection("items", of: none) == [])
        #expect(plain.invariantViolations().isEmpty)
        let again = try plain.migrated(to: try Self.schema())
        #expect(try again.relatedCollection("items", of: none) == [], "making it optional again invents no nil")
        let kept = try graph.migrated(to: try Self.schema())
        #expect(kept.snapshot() == graph.snapshot(), "unchanged optionality: nil and [] carried over")
    }

    @Test("optional on a to-one relationship is refused: a to-one may always be nil")
    func optionalToOneRefused() {
        #expect(throws: SchemaError.invalidOption(entity: "A", attribute: "b", option: "optional")) {
            try Schema([.init("A", relationships: [.init("b", to: "A", isOptional: true)])])
        }
    }

    @Test("an object whose to-one names an owner that writes no collection is an inverse mismatch")
    func absentListMustAgree() throws {
        let document = Self.oldPackage
            .replacingOccurrences(of: #"to-many="true" inverse="owner""#, with: #"to-many="true" optional="true" inverse="owner""#)
            .replacingOccurrences(of: #" items="3""#, with: "")
        try LoaderFixtures.withPackage(document) { package in
            guard case .inverseMismatch(_, "Item", 3, "owner", 2)? = LoaderFixtures.readFailure(package) else {
                Issue.record("expected an inverse mismatch")
                return
            }
        }
    }

    @Test("random edits of optional to-manys — nil, [], lists, links from both sides, deletes — survive undo, redo and a reopen", .tags(.long))
    func randomEdits() async throws {
        // Each step's roll picks the edit, its seed the source, relationship and targets.
        await checkProperty(count: TestEffort.cases(100), input: SessionStep.generator.array(of: 1...20)) { plan in
            let url = temporaryPackageURL("Owners")
            defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
            let context = try makeContext(try Self.schema(), url: url)
            var objects: [PersistentIdentifier] = []
            for entity in ["Owner", "Owner", "Owner", "Item", "Item", "Item", "Tag", "Tag"] {
                objects.append(try context.insert(entity, ["name": .string(entity)]))
            }
            try context.save()
            context.undoManager?.removeAllActions()
            let saved = context.graph.snapshot()
            let relationships: [String: [(String, String)]] = [
                "Owner": [("items", "Item"), ("tags", "Tag"), ("extras", "Tag")],
                "Item": [("owner", "Owner")], "Tag": [("owners", "Owner")],
            ]
            for step in plan {
                var rng = step.choices
                let live = objects.filter { context.contains($0) }
                guard let source = live.randomElement(using: &rng),
                    let (name, destination) = relationships[source.entityName]?.randomElement(using: &rng)
                else { break }
                let targets = live.filter { $0.entityName == destination }
                switch step.roll * 6 / 100 {
                case 0: try context.setRelated(nil, for: name, of: source)
                case 1: try context.setRelated([], for: name, of: source)
                case 2:
                    let count = name == "owner" ? min(1, targets.count) : Int.random(in: 0...targets.count, using: &rng)
                    try context.setRelated(Array(targets.shuffled(using: &rng).prefix(count)), for: name, of: source)
                case 3: if let target = targets.randomElement(using: &rng) { try context.link(source, name, to: target) }
                case 4: if let target = targets.randomElement(using: &rng) { try context.unlink(source, name, from: target) }
                default: try context.delete(source)
                }
                context.processPendingChanges()
                #expect(context.graph.invariantViolations().isEmpty)
            }
            let edited = context.graph.snapshot()
            try context.save()
            let reread = try DocumentPackage(url: url).read()
            #expect(reread.snapshot() == edited)
            #expect(reread.invariantViolations().isEmpty)
            while context.undoManager?.canUndo == true { context.undoManager?.undo() }
            #expect(context.graph.snapshot() == saved)
            #expect(context.graph.invariantViolations().isEmpty)
            while context.undoManager?.canRedo == true { context.undoManager?.redo() }
            #expect(context.graph.snapshot() == edited)
            #expect(!context.hasChanges, "redone to the saved state")
        }
    }
}
