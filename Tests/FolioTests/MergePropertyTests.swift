import Foundation
import PropertyBased
import Testing
import Folio
@testable import FolioCore
import FolioTestSupport

/// One edit of a side, as numbers a generator draws: a failing case shrinks
/// to fewer, simpler edits.
struct MergeEdit: Sendable, CustomStringConvertible {
    var kind: Int
    var pick: Int
    var other: Int

    var description: String { "(\(kind), \(pick), \(other))" }

    static let generator = zip(Gen.int(in: 0...12), Gen.int(in: 0...999), Gen.int(in: 0...999))
        .map { MergeEdit(kind: $0.0, pick: $0.1, other: $0.2) }
    static let sequence = generator.array(of: 0...12)

    /// Does the edit on a side's graph, deleting by the schema's delete rules.
    func apply(to graph: ObjectGraph) throws {
        func all(_ entity: String) throws -> [PersistentIdentifier] { try graph.identifiers(of: entity) }
        let (items, categories, tags) = (try all("Item"), try all("Category"), try all("Tag"))
        let item = items.isEmpty ? nil : items[pick % items.count]
        let category = categories.isEmpty ? nil : categories[other % categories.count]
        let tag = tags.isEmpty ? nil : tags[other % tags.count]
        switch kind {
        case 0:
            let id = try graph.insert("Item", ["name": .string("n\(other % 3)"), "score": .int(Int64(other % 4))])
            if let category, pick % 2 == 0 { try graph.link(id, "category", to: category) }
        case 1:
            // A valid side holds no two equal titles (a context would have upserted).
            let title = Value.string("t\(other % 3)")
            if try !categories.contains(where: { try graph.value("title", of: $0) == title }) {
                try graph.insert("Category", ["title": title])
            }
        case 2: try graph.insert("Tag", ["label": .string("l\(other % 3)")])
        case 3: if let item { try graph.setValue(.int(Int64(other % 4)), for: "score", of: item) }
        case 4: if let item { try graph.setValue(.string("n\(other % 3)"), for: "name", of: item) }
        case 5:
            guard let item, case .set(var elements) = try graph.value("labels", of: item) else { return }
            let element = Value.string("e\(other % 4)")
            if elements.contains(element) { elements.removeAll { $0 == element } } else { elements.append(element) }
            try graph.setValue(.set(elements), for: "labels", of: item)
        case 6:
            guard let item, case .dictionary(var entries) = try graph.value("meta", of: item) else { return }
            entries["k\(other % 3)"] = other % 4 == 0 ? nil : .int(Int64(other % 5))
            try graph.setValue(.dictionary(entries), for: "meta", of: item)
        case 7:
            guard let item else { return }
            if let category, other % 3 != 0 {
                try graph.link(item, "category", to: category)
            } else {
                try graph.setRelated([], for: "category", of: item)
            }
        case 8:
            guard let item, let tag else { return }
            if try graph.related("tags", of: item).contains(tag) {
                try graph.unlink(item, "tags", from: tag)
            } else {
                try graph.link(item, "tags", to: tag)
            }
        case 9:
            // A reorder: one member of a category's list moved to another place.
            guard let category else { return }
            var list = try graph.related("items", of: category)
            guard list.count > 1 else { return }
            let moved = list.remove(at: pick % list.count)
            list.insert(moved, at: other % (list.count + 1))
            try graph.setRelated(list, for: "items", of: category)
        case 10:
            guard let item else { return }
            var list = try graph.related("tags", of: item)
            guard list.count > 1 else { return }
            list.append(list.removeFirst())
            try graph.setRelated(list, for: "tags", of: item)
        case 11:
            guard let item else { return }
            try graph.setRelated(items.isEmpty || other % 4 == 0 ? [] : [items[other % items.count]], for: "buddy", of: item)
        default:
            let victims = items + categories + tags
            guard !victims.isEmpty else { return }
            try delete(victims[(pick + other) % victims.count], in: graph)
        }
    }

    /// Deletes an object as a context would: cascades followed, refused when a `deny` still holds anything.
    func delete(_ id: PersistentIdentifier, in graph: ObjectGraph) throws {
        var doomed: [PersistentIdentifier] = [id]
        var index = 0
        while index < doomed.count {
            let object = doomed[index]
            index += 1
            for relationship in graph.schema.entity(named: object.entityName)!.relationships where relationship.deleteRule == .cascade {
                for target in try graph.related(relationship.name, of: object) where !doomed.contains(target) { doomed.append(target) }
            }
        }
        for object in doomed {
            for relationship in graph.schema.entity(named: object.entityName)!.relationships where relationship.deleteRule == .deny {
                if try graph.related(relationship.name, of: object).contains(where: { !doomed.contains($0) }) { return }
            }
        }
        for object in doomed where graph.contains(object) { try graph.remove(object) }
    }
}

@Suite struct MergePropertyTests {
    static let rules = Schema.Relationship.DeleteRule.allCases

    /// Categories, items and tags: a to-one with its to-many, a many-to-many,
    /// a to-one without inverse, a unique title or not, delete rules from the seed.
    static func schema(_ seed: Int) throws -> Schema {
        let rule = { (shift: Int) in rules[(seed >> shift) % rules.count] }
        let titleOptions: Set<Schema.Attribute.Option> = seed % 2 == 0 ? [.unique] : []
        return try Schema([
            .init(
                "Category", attributes: [.init("title", .string, options: titleOptions)],
                relationships: [.init("items", to: "Item", toMany: true, inverse: "category", deleteRule: rule(1))]),
            .init(
                "Item",
                attributes: [
                    .init("name", .string), .init("score", .int), .init("labels", .set(.string)),
                    .init("meta", .dictionary(.int)),
                ],
                relationships: [
                    .init("category", to: "Category", inverse: "items", deleteRule: rule(3)),
                    .init("tags", to: "Tag", toMany: true, inverse: "items", deleteRule: rule(5)),
                    .init("buddy", to: "Item"),
                ]),
            .init(
                "Tag", attributes: [.init("label", .string)],
                relationships: [.init("items", to: "Item", toMany: true, inverse: "tags", deleteRule: rule(7))]),
        ])
    }

    /// The engine's schema knowledge, written out plainly for the reference.
    static func description(_ schema: Schema) -> ReferenceMerge.Description {
        let merge = MergeSchema(schema)
        var entities: [String: ReferenceMerge.Entity] = [:]
        for entity in schema.entities {
            let roles = merge.entities[entity.name]!.links
            entities[entity.name] = ReferenceMerge.Entity(
                attributes: Dictionary(
                    uniqueKeysWithValues: entity.attributes.map { attribute -> (String, String) in
                        switch attribute.type {
                        case .set: return (attribute.name, "set")
                        case .dictionary: return (attribute.name, "dictionary")
                        default: return (attribute.name, "cell")
                        }
                    }),
                relationships: entity.relationships.map { relationship in
                    let inverse = relationship.inverse.flatMap { schema.entity(named: relationship.destination)!.relationship(named: $0) }
                    let role = roles.first { $0.name == relationship.name }!.role
                    return .init(
                        name: relationship.name, destination: relationship.destination, toMany: relationship.isToMany,
                        inverse: relationship.inverse, role: "\(role)",
                        ruleOnDestinationDelete: inverse?.deleteRule.rawValue ?? "nullify")
                },
                unique: entity.uniquenessConstraints)
        }
        return .init(entities: entities, order: schema.entities.map(\.name))
    }

    static func document(_ graph: ObjectGraph) -> ReferenceMerge.Document {
        var document: ReferenceMerge.Document = [:]
        for (entity, objects) in graph.snapshot().objects {
            for (id, object) in objects { document[id] = .init(entity: entity, values: object.values, links: object.links) }
        }
        return document
    }

    static func key(_ conflict: MergeConflict) -> String {
        "\(conflict.kind.rawValue) \(conflict.id.id) \(conflict.property ?? "-") \(conflict.key ?? "-")"
    }

    /// A random base (a few objects of each entity, linked), and its two sides edited apart.
    static func fixture(_ seed: Int, _ start: [MergeEdit], _ ours: [MergeEdit], _ theirs: [MergeEdit]) throws -> MergeFixture {
        let base = ObjectGraph(schema: try schema(seed))
        for edit in [
            MergeEdit(kind: 1, pick: 0, other: 0), MergeEdit(kind: 2, pick: 0, other: 1),
            MergeEdit(kind: 0, pick: 0, other: 2),
        ] + start {
            try edit.apply(to: base)
        }
        let fixture = MergeFixture(base)
        for edit in ours { try edit.apply(to: fixture.ours) }
        for edit in theirs { try edit.apply(to: fixture.theirs) }
        return fixture
    }

    static let seeds = Gen.int(in: 0...511)

    @Test("two random edit sequences merged through the engine equal the plain reference merge, and the result is sound")
    func engineMatchesReference() async {
        await checkProperty(count: 150, input: Self.seeds, MergeEdit.sequence, MergeEdit.sequence, MergeEdit.sequence) {
            seed, start, ours, theirs in
            let fixture = try Self.fixture(seed, start, ours, theirs)
            let result = try fixture.merge()
            let (expected, conflicts) = ReferenceMerge.merge(
                base: Self.document(fixture.base), ours: Self.document(fixture.ours),
                theirs: Self.document(fixture.theirs),
                Self.description(fixture.base.schema))
            #expect(Self.document(result.graph) == expected)
            #expect(Set(result.conflicts.map(Self.key)) == conflicts)
            #expect(result.graph.invariantViolations().isEmpty)
            #expect(result.graph.firstUniquenessViolation() == nil)
        }
    }

    @Test("the per-object merge is symmetric: swapping the sides swaps the conflicts' sides and changes only conflicting objects")
    func symmetric() async {
        await checkProperty(count: 150, input: Self.seeds, MergeEdit.sequence, MergeEdit.sequence, MergeEdit.sequence) {
            seed, start, ours, theirs in
            let fixture = try Self.fixture(seed, start, ours, theirs)
            let schema = MergeSchema(fixture.base.schema)
            let (b, o, t) = (fixture.base.objectStates(), fixture.ours.objectStates(), fixture.theirs.objectStates())
            let forward = try ObjectStateMerge.merge(base: b, ours: o, theirs: t, schema: schema)
            let backward = try ObjectStateMerge.merge(base: b, ours: t, theirs: o, schema: schema)
            #expect(backward.conflicts == forward.conflicts.map(\.swapped))
            let conflicted = Set(forward.conflicts.map(\.id.id))
            #expect(forward.states.filter { !conflicted.contains($0.key) } == backward.states.filter { !conflicted.contains($0.key) })
            let whole = try fixture.merge()
            if whole.conflicts.isEmpty {
                let swapped = try ObjectGraph.merge(base: fixture.base, ours: fixture.theirs, theirs: fixture.ours)
                #expect(swapped.conflicts.isEmpty && swapped.graph.snapshot() == whole.graph.snapshot())
            }
        }
    }

    @Test("merging with an unchanged side gives the other side, with no conflict")
    func unchangedSide() async {
        await checkProperty(count: 150, input: Self.seeds, MergeEdit.sequence, MergeEdit.sequence) { seed, start, edits in
            let fixture = try Self.fixture(seed, start, edits, [])
            let left = try ObjectGraph.merge(base: fixture.base, ours: fixture.ours, theirs: fixture.theirs)
            #expect(left.graph.snapshot() == fixture.ours.snapshot() && left.conflicts.isEmpty)
            let right = try ObjectGraph.merge(base: fixture.base, ours: fixture.theirs, theirs: fixture.ours)
            #expect(right.graph.snapshot() == fixture.ours.snapshot() && right.conflicts.isEmpty)
        }
    }

    @Test("every merged graph is written as a package that opens to the same graph", .tags(.long))
    func mergedPackagesOpen() async {
        await checkProperty(count: TestEffort.cases(40), input: Self.seeds, MergeEdit.sequence, MergeEdit.sequence, MergeEdit.sequence) {
            seed, start, ours, theirs in
            let result = try Self.fixture(seed, start, ours, theirs).merge()
            let package = DocumentPackage(url: temporaryPackageURL())
            defer { try? FileManager.default.removeItem(at: package.url.deletingLastPathComponent()) }
            try package.write(result.graph)
            #expect(try package.read().snapshot() == result.graph.snapshot())
        }
    }
}
