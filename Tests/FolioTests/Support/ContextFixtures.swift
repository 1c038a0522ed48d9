import Foundation
import Folio
@testable import FolioCore

/// A context on an in-memory container, with an undo manager.
func makeContext(_ schema: Schema, url: URL? = nil) throws -> ModelContext {
    let configuration = url.map { ModelConfiguration(url: $0) } ?? ModelConfiguration(isStoredInMemoryOnly: true)
    let context = ModelContext(try ModelContainer(for: schema, configurations: configuration))
    context.undoManager = UndoManager()
    return context
}

/// Owner ↔ Item with the given rules on each side; `toMany` picks Owner.items' shape.
func ruleSchema(
    ownerRule: Schema.Relationship.DeleteRule, itemRule: Schema.Relationship.DeleteRule,
    toMany: Bool = true
) throws -> Schema {
    try Schema([
        .init(
            "Owner", attributes: [.init("name", .string)],
            relationships: [.init("items", to: "Item", toMany: toMany, inverse: "owner", deleteRule: ownerRule)]),
        .init(
            "Item", attributes: [.init("name", .string)],
            relationships: [.init("owner", to: "Owner", inverse: "items", deleteRule: itemRule)]),
    ])
}

extension ModelContext {
    /// Inserts a zoo: `categories` categories with `perCategory` animals each.
    func insertZoo(categories: Int, perCategory: Int) throws -> [PersistentIdentifier] {
        var ids: [PersistentIdentifier] = []
        for c in 0..<categories {
            let category = try insert("AnimalCategory", ["name": .string("Category \(c)")])
            ids.append(category)
            for a in 0..<perCategory {
                let animal = try insert("Animal", ["name": .string("Animal \(c)-\(a)"), "age": .int(Int64(a))])
                try link(animal, "category", to: category)
            }
        }
        processPendingChanges()
        return ids
    }
}
