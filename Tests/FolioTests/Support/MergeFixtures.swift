import Foundation
import Folio
@testable import FolioCore
import FolioTestSupport
import Testing

/// Three versions of one document for merge tests: a base and two copies
/// edited apart. Each copy is a writer of its own (its own lane), so the two
/// sides' inserts never share an identifier, as in two packages.
struct MergeFixture {
    let base: ObjectGraph
    let ours: ObjectGraph
    let theirs: ObjectGraph

    init(_ base: ObjectGraph) {
        self.base = base
        ours = base.copy()
        theirs = base.copy()
    }

    func merge() throws -> MergeResult { try ObjectGraph.merge(base: base, ours: ours, theirs: theirs) }
}

/// Categories and animals, with the categories' delete rule for their animals
/// chosen by the test; a category's name is unique, and `minimum` / `maximum`
/// bound how many animals a category holds.
func mergeZooSchema(rule: Schema.Relationship.DeleteRule = .nullify, minimum: Int = 0, maximum: Int = 0) throws -> Schema {
    try Schema([
        .init(
            "Category", attributes: [.init("name", .string, options: [.unique])],
            relationships: [
                .init(
                    "animals", to: "Animal", toMany: true, inverse: "category", deleteRule: rule,
                    minimumModelCount: minimum, maximumModelCount: maximum)
            ]),
        .init(
            "Animal",
            attributes: [
                .init("name", .string), .init("age", .int), .init("tags", .set(.string)),
                .init("notes", .dictionary(.string)),
                .init("photo", .data, isOptional: true, options: [.externalStorage]),
            ],
            relationships: [
                .init("category", to: "Category", inverse: "animals"),
                .init("friends", to: "Animal", toMany: true),
            ]),
    ])
}

/// A base with one category (`mammals`) holding two animals, Rex (3) and Tom (5),
/// under ``mergeZooSchema(rule:minimum:maximum:)``.
func mergeZoo(rule: Schema.Relationship.DeleteRule = .nullify, minimum: Int = 0, maximum: Int = 0) throws
    -> (MergeFixture, mammals: PersistentIdentifier, rex: PersistentIdentifier, tom: PersistentIdentifier)
{
    let graph = ObjectGraph(schema: try mergeZooSchema(rule: rule, minimum: minimum, maximum: maximum))
    let mammals = try graph.insert("Category", ["name": .string("Mammal")])
    let rex = try graph.insert("Animal", ["name": .string("Rex"), "age": .int(3)])
    let tom = try graph.insert("Animal", ["name": .string("Tom"), "age": .int(5)])
    try graph.link(rex, "category", to: mammals)
    try graph.link(tom, "category", to: mammals)
    return (MergeFixture(graph), mammals, rex, tom)
}

/// The merged graph keeps every invariant, and a package written from it reads back the same.
func expectMergeSound(_ result: MergeResult, sourceLocation: SourceLocation = #_sourceLocation) throws {
    #expect(result.graph.invariantViolations().isEmpty, sourceLocation: sourceLocation)
    let package = DocumentPackage(url: temporaryPackageURL())
    defer { try? FileManager.default.removeItem(at: package.url.deletingLastPathComponent()) }
    try package.write(result.graph)
    #expect(try package.read().snapshot() == result.graph.snapshot(), sourceLocation: sourceLocation)
}
