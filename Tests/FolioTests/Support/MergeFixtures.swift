import Foundation
import Folio
@testable import FolioCore

/// Three versions of one document for merge tests: a base and two copies
/// edited apart. Theirs hands out identifiers from 1,000,000 so the two
/// sides' inserts never share one (as writers' lanes guarantee in a package).
struct MergeFixture {
    let base: ObjectGraph
    let ours: ObjectGraph
    let theirs: ObjectGraph

    init(_ base: ObjectGraph) {
        self.base = base
        ours = base.copy()
        theirs = base.copy()
        theirs.nextID = max(theirs.nextID, 1_000_000)
    }

    func merge() throws -> MergeResult { try ObjectGraph.merge(base: base, ours: ours, theirs: theirs) }
}

/// Categories and animals, with the categories' delete rule for their animals
/// chosen by the test; a category's name is unique, and `minimum` / `maximum`
/// bound how many animals a category holds.
func mergeZooSchema(rule: Schema.Relationship.DeleteRule = .nullify, minimum: Int = 0, maximum: Int = 0) throws -> Schema {
    try Schema([
        .init("Category", attributes: [.init("name", .string, options: [.unique])],
              relationships: [.init("animals", to: "Animal", toMany: true, inverse: "category", deleteRule: rule,
                                    minimumModelCount: minimum, maximumModelCount: maximum)]),
        .init("Animal", attributes: [.init("name", .string), .init("age", .int), .init("tags", .set(.string)),
                                     .init("notes", .dictionary(.string)),
                                     .init("photo", .data, isOptional: true, options: [.externalStorage])],
              relationships: [.init("category", to: "Category", inverse: "animals"),
                              .init("friends", to: "Animal", toMany: true)]),
    ])
}
