import Foundation
import PropertyBased
import Testing
import Folio
@testable import FolioCore
import FolioTestSupport

/// A context taking in another context's save merges through the document
/// merge's engine (issue 30 item 6): a three-way merge of its graph and the
/// state now saved against the saved state it last saw, its own unsaved
/// edits winning, and nothing recorded.
@Suite struct ContextMergeEngineTests {
    /// Two contexts on one in-memory container of ``mergeZooSchema(rule:minimum:maximum:)``
    /// (sets, maps, a list without inverse, a to-one with its inverse list).
    @MainActor static func twoContexts(rule: Schema.Relationship.DeleteRule = .cascade) throws
        -> (container: ModelContainer, ours: ModelContext, theirs: ModelContext)
    {
        let container = try ModelContainer(
            for: try mergeZooSchema(rule: rule),
            configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        return (container, ModelContext(container), ModelContext(container))
    }

    /// One random edit of `context`, its choices drawn from `rng`.
    @MainActor static func edit(_ context: ModelContext, roll: Int, rng: inout SeededGenerator, names: inout Int) throws {
        let categories = try context.fetchIdentifiers(DynamicFetchDescriptor(entity: "Category"))
        let animals = try context.fetchIdentifiers(DynamicFetchDescriptor(entity: "Animal"))
        let tags: [Value] = ["a", "b", "c", "d"].map { .string($0) }
        switch roll {
        case 0..<8:
            names += 1
            _ = try context.insert("Category", ["name": .string("Category \(names)")])
        case 8..<20 where !categories.isEmpty:
            names += 1
            let animal = try context.insert("Animal", ["name": .string("Animal \(names)")])
            try context.link(animal, "category", to: categories.randomElement(using: &rng)!)
        case 20..<30 where !animals.isEmpty:
            try context.setValue(.int(Int64.random(in: 0...9, using: &rng)), for: "age", of: animals.randomElement(using: &rng)!)
        case 30..<38 where !animals.isEmpty:
            let animal = animals.randomElement(using: &rng)!
            guard case .set(var set) = try context.value("tags", of: animal) else { return }
            let tag = tags.randomElement(using: &rng)!
            if set.contains(tag) { set.removeAll { $0 == tag } } else { set.append(tag) }
            try context.setValue(.set(set), for: "tags", of: animal)
        case 38..<44 where !animals.isEmpty:
            let animal = animals.randomElement(using: &rng)!
            guard case .dictionary(var notes) = try context.value("notes", of: animal) else { return }
            notes[["x", "y"].randomElement(using: &rng)!] = .string("n\(Int.random(in: 0...3, using: &rng))")
            try context.setValue(.dictionary(notes), for: "notes", of: animal)
        case 44..<56 where !animals.isEmpty && !categories.isEmpty:
            try context.link(animals.randomElement(using: &rng)!, "category", to: categories.randomElement(using: &rng)!)
        case 56..<64 where animals.count > 1:
            try context.link(animals.randomElement(using: &rng)!, "friends", to: animals.randomElement(using: &rng)!)
        case 64..<70 where !animals.isEmpty:
            let animal = animals.randomElement(using: &rng)!
            let friends = try context.related("friends", of: animal)
            if let friend = friends.randomElement(using: &rng) { try context.unlink(animal, "friends", from: friend) }
        case 70..<80 where !animals.isEmpty:
            try context.delete(animals.randomElement(using: &rng)!)
        case 80..<86 where !categories.isEmpty:
            try context.delete(categories.randomElement(using: &rng)!)
        default:
            break
        }
    }

    /// The merge a context makes of another context's save equals the
    /// document merge (``ObjectGraph/merge(base:ours:theirs:)``) of the same
    /// three versions — the saved state the context last saw, its graph, the
    /// state now saved — object by object: every attribute, set, map, list
    /// and link alike. (The schema's one unique key is never shared here, and
    /// it has no one-to-one: the two rules where a context differs on purpose.)
    @Test(
        "a context's merge of another context's save equals the document merge of the same three versions",
        arguments: [Schema.Relationship.DeleteRule.cascade, .nullify])
    @MainActor func equalsTheDocumentMerge(rule: Schema.Relationship.DeleteRule) async {
        await checkProperty(count: 60, input: SessionStep.generator.array(of: 1...40)) { plan in
            let (container, ours, theirs) = try Self.twoContexts(rule: rule)
            var names = 0
            var rng = SeededGenerator(seed: 1)
            for _ in 0..<3 {
                names += 1
                let category = try ours.insert("Category", ["name": .string("Category \(names)")])
                for _ in 0..<3 {
                    names += 1
                    let animal = try ours.insert("Animal", ["name": .string("Animal \(names)")])
                    try ours.link(animal, "category", to: category)
                }
            }
            try ours.save()
            _ = try theirs.fetchIdentifiers(DynamicFetchDescriptor(entity: "Animal"))
            // Each step edits one side; their side saves at the end, ours merges it.
            for step in plan {
                rng = SeededGenerator(seed: step.seed)
                let side = rng.next() % 2 == 0 ? ours : theirs
                do { try Self.edit(side, roll: step.roll, rng: &rng, names: &names) } catch {}
            }
            try theirs.save()
            let base = ours.baseline, mine = ours.graph.copy()
            let saved = try container.sharedDocument.withSavedGraph { $0 }
            let expected = try ObjectGraph.merge(base: base, ours: mine, theirs: saved).graph
            ours.mergeSavedChanges()
            #expect(ours.graph.objectStates() == expected.objectStates(), "plan \(plan)")
            // Its save publishes every change: the other context, merging it, holds the same document.
            try ours.save()
            _ = try theirs.fetchIdentifiers(DynamicFetchDescriptor(entity: "Animal"))
            #expect(theirs.graph.objectStates() == ours.graph.objectStates(), "plan \(plan)")
            withExtendedLifetime(container) {}
        }
    }

    @Test("an animal another context saved into a category this context deleted goes with the cascade, and this context's save publishes it")
    @MainActor func cascadeFromAnUnsavedDelete() throws {
        let url = temporaryPackageURL()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        var container: ModelContainer? = try ModelContainer(
            for: try mergeZooSchema(rule: .cascade),
            configurations: ModelConfiguration(url: url))
        let ours = ModelContext(container!), theirs = ModelContext(container!)
        let mammals = try ours.insert("Category", ["name": .string("Mammal")])
        try ours.save()
        _ = try theirs.fetchIdentifiers(DynamicFetchDescriptor(entity: "Category"))
        try ours.delete(mammals)
        let cat = try theirs.insert("Animal", ["name": .string("Cat")])
        try theirs.link(cat, "category", to: mammals)
        try theirs.save()
        // Ours' delete wins; the cat, held by a category gone here, goes with it as a document merge's cascade.
        ours.mergeSavedChanges()
        #expect(!ours.contains(cat))
        #expect(ours.isDeleted(cat))
        try ours.save()
        #expect(try theirs.fetchIdentifiers(DynamicFetchDescriptor(entity: "Animal")).isEmpty)
        container = nil
        let reopened = try ModelContainer(for: try mergeZooSchema(rule: .cascade), configurations: ModelConfiguration(url: url))
        #expect(try reopened.mainContext.fetchIdentifiers(DynamicFetchDescriptor(entity: "Animal")).isEmpty)
        #expect(try reopened.mainContext.fetchIdentifiers(DynamicFetchDescriptor(entity: "Category")).isEmpty)
    }

    @Test("a set both contexts edited keeps both contexts' elements, and a map both sides' keys")
    @MainActor func setsAndMapsMergeByElement() throws {
        let (container, ours, theirs) = try Self.twoContexts()
        let rex = try ours.insert("Animal", ["name": .string("Rex"), "tags": .set([.string("old")])])
        try ours.save()
        _ = try theirs.fetchIdentifiers(DynamicFetchDescriptor(entity: "Animal"))
        try ours.setValue(.set([.string("old"), .string("mine")]), for: "tags", of: rex)
        try ours.setValue(.dictionary(["x": .string("mine")]), for: "notes", of: rex)
        try theirs.setValue(.set([.string("yours")]), for: "tags", of: rex)
        try theirs.setValue(.dictionary(["y": .string("yours")]), for: "notes", of: rex)
        try theirs.save()
        ours.mergeSavedChanges()
        guard case .set(let tags) = try ours.value("tags", of: rex) else { Issue.record("no set"); return }
        #expect(Set(tags) == [.string("mine"), .string("yours")])
        #expect(try ours.value("notes", of: rex) == .dictionary(["x": .string("mine"), "y": .string("yours")]))
        try ours.save()
        _ = try theirs.fetchIdentifiers(DynamicFetchDescriptor(entity: "Animal"))
        #expect(try theirs.value("notes", of: rex) == .dictionary(["x": .string("mine"), "y": .string("yours")]))
        withExtendedLifetime(container) {}
    }

    @Test("an attribute both contexts changed keeps this context's unsaved value; one only the other changed takes the saved one")
    @MainActor func ownEditsWin() throws {
        let (container, ours, theirs) = try Self.twoContexts()
        let rex = try ours.insert("Animal", ["name": .string("Rex"), "age": .int(3)])
        try ours.save()
        _ = try theirs.fetchIdentifiers(DynamicFetchDescriptor(entity: "Animal"))
        try ours.setValue(.int(4), for: "age", of: rex)
        try theirs.setValue(.int(9), for: "age", of: rex)
        try theirs.setValue(.string("Rexy"), for: "name", of: rex)
        try theirs.save()
        ours.mergeSavedChanges()
        #expect(try ours.value("age", of: rex) == .int(4))
        #expect(try ours.value("name", of: rex) == .string("Rexy"))
        #expect(ours.hasChanges)
        withExtendedLifetime(container) {}
    }

    @Test("list inserts both contexts made are all kept, in one order")
    @MainActor func listInsertsBothKept() throws {
        let (container, ours, theirs) = try Self.twoContexts()
        let rex = try ours.insert("Animal", ["name": .string("Rex")])
        let a = try ours.insert("Animal", ["name": .string("A")])
        let b = try ours.insert("Animal", ["name": .string("B")])
        try ours.save()
        _ = try theirs.fetchIdentifiers(DynamicFetchDescriptor(entity: "Animal"))
        try ours.link(rex, "friends", to: a)
        try theirs.link(rex, "friends", to: b)
        try theirs.save()
        ours.mergeSavedChanges()
        #expect(Set(try ours.related("friends", of: rex)) == [a, b])
        try ours.save()
        _ = try theirs.fetchIdentifiers(DynamicFetchDescriptor(entity: "Animal"))
        #expect(try theirs.related("friends", of: rex) == (try ours.related("friends", of: rex)))
        withExtendedLifetime(container) {}
    }

    @Test("merging one saved edit into a context of thousands of objects builds states for the objects it names, not the document")
    @MainActor func costFollowsTheChange() throws {
        let (container, ours, theirs) = try Self.twoContexts()
        let category = try ours.insert("Category", ["name": .string("Big")])
        var animals: [PersistentIdentifier] = []
        for index in 0..<(TestEffort.isLong ? 20_000 : 4_000) {
            animals.append(try ours.insert("Animal", ["name": .string("Animal \(index)"), "age": .int(1)]))
        }
        try ours.link(animals[0], "category", to: category)
        try ours.save()
        _ = try theirs.fetchIdentifiers(DynamicFetchDescriptor(entity: "Animal"))
        try ours.setValue(.int(2), for: "age", of: animals[1])
        try theirs.setValue(.int(3), for: "age", of: animals[2])
        try theirs.save()
        let built = ours.mergeSavedChanges()
        // Base, ours and theirs of the two objects named (and no more than a few reached from them).
        #expect(built > 0 && built <= 12)
        #expect(try ours.value("age", of: animals[2]) == .int(3))
        #expect(try ours.value("age", of: animals[1]) == .int(2))
        withExtendedLifetime(container) {}
    }
}
