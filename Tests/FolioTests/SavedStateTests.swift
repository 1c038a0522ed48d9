import Foundation
import Testing
import Folio
@testable import FolioCore
import FolioTestSupport

/// `savedValue(_:of:)`, `savedRelated(_:of:)` and `changedPropertyNames(of:)`:
/// the last saved state beside the edited one.
@Suite struct SavedStateTests {
    @Test("an edited attribute reads its saved value beside the new one; undo takes the difference back")
    func editedAttribute() throws {
        let context = try makeContext(try ruleSchema(ownerRule: .nullify, itemRule: .nullify))
        let owner = try context.insert("Owner", ["name": .string("Newt")])
        try context.save()
        #expect(context.changedPropertyNames(of: owner).isEmpty)
        try context.setValue(.string("Great Crested Newt"), for: "name", of: owner)
        context.processPendingChanges()
        #expect(try context.savedValue("name", of: owner) == .string("Newt"))
        #expect(try context.value("name", of: owner) == .string("Great Crested Newt"))
        #expect(context.changedPropertyNames(of: owner) == ["name"])
        context.undoManager?.undo()
        #expect(context.changedPropertyNames(of: owner).isEmpty)
    }

    @Test("a relationship reads what it held at the save; both sides of a link are changed")
    func relationships() throws {
        let context = try makeContext(try ruleSchema(ownerRule: .nullify, itemRule: .nullify))
        let owner = try context.insert("Owner")
        let (a, b) = (try context.insert("Item"), try context.insert("Item"))
        try context.setRelated([a], for: "items", of: owner)
        try context.save()
        try context.link(b, "owner", to: owner)
        #expect(try context.savedRelated("items", of: owner) == [a])
        #expect(try context.related("items", of: owner) == [a, b])
        #expect(context.changedPropertyNames(of: owner) == ["items"])
        #expect(context.changedPropertyNames(of: b) == ["owner"])
        #expect(try context.savedRelated("owner", of: b) == [])
    }

    @Test("an unsaved insert has no saved state; a deleted object keeps its saved values until the save, none after")
    func insertedAndDeleted() throws {
        let context = try makeContext(try ruleSchema(ownerRule: .nullify, itemRule: .nullify))
        let kept = try context.insert("Item", ["name": .string("kept")])
        try context.save()
        let fresh = try context.insert("Item", ["name": .string("new")])
        #expect(try context.savedValue("name", of: fresh) == nil)
        #expect(try context.savedRelated("owner", of: fresh) == nil)
        #expect(context.changedPropertyNames(of: fresh).isEmpty)
        try context.setValue(.string("edited"), for: "name", of: kept)
        try context.delete(kept)
        #expect(try context.savedValue("name", of: kept) == .string("kept"))
        #expect(context.changedPropertyNames(of: kept).isEmpty)
        try context.save()
        #expect(try context.savedValue("name", of: kept) == nil, "saved as deleted: no saved state")
    }

    @Test("an unknown attribute, relationship or object is a graph error")
    func unknownNames() throws {
        let context = try makeContext(try ruleSchema(ownerRule: .nullify, itemRule: .nullify))
        let item = try context.insert("Item")
        try context.save()
        #expect(throws: ModelError.graph(.unknownAttribute(entity: "Item", attribute: "nope"))) { try context.savedValue("nope", of: item) }
        #expect(throws: ModelError.self) { try context.savedRelated("nope", of: item) }
        let missing = PersistentIdentifier(entityName: "Item", id: 999)
        #expect(throws: ModelError.graph(.objectNotFound(missing))) { try context.savedValue("name", of: missing) }
        #expect(context.changedPropertyNames(of: missing).isEmpty)
    }
}
