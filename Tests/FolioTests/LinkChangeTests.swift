import Testing
import Folio
@testable import FolioCore
import FolioTestSupport

/// Link edits record what they changed as ``LinkChange``s, O(1) each, not the
/// lists they touched: appending to a to-many never copies it, however large,
/// and undo and redo of any number of links are exact.
@Suite struct LinkChangeTests {
    /// Where a to-many list's elements live now: it moves when the list grows
    /// past its capacity (O(log n) times over n appends) and on every append
    /// that must copy a list whose storage something else shares.
    static func storage(_ context: ModelContext, _ id: PersistentIdentifier, _ relationship: String) throws -> UnsafeRawPointer? {
        let ref = try context.graph.ref(for: id)
        let slot = try context.graph.linkSlot(relationship, entity: Int(ref.entity))
        return context.graph.tables[Int(ref.entity)].links[slot].many[Int(ref.row)]
            .withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
    }

    @Test(
        "linking 30,000 objects into one to-many, from either side, in one undo group, never copies the list; undo and redo of it all are exact", .tags(.long),
        .onlyInLongRuns)
    @MainActor func appendsInPlace() throws {
        let container = try ModelContainer(for: try zooSchema(), configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = container.mainContext
        context.autosaveEnabled = false
        context.undoManager = UndoManager()
        let category = try context.insert("AnimalCategory", ["name": .string("Big")])
        // 30,000: the moves counted below tell a list grown by doubling (about
        // 15 moves) from one copied per append (30,000) as well as 100,000 did.
        let count = 30_000
        var animals: [PersistentIdentifier] = []
        animals.reserveCapacity(count)
        for index in 0..<count { animals.append(try context.insert("Animal", ["age": .int(Int64(index))])) }
        context.processPendingChanges()
        let unlinked = context.graph.snapshot()
        let steps = context.undoManager?.undoCount ?? 0

        // One automatic group that nothing closes: every link's undo record is kept.
        var moves = 0
        var last = try Self.storage(context, category, "animals")
        for (index, animal) in animals.enumerated() {
            if index.isMultiple(of: 2) { try context.link(animal, "category", to: category) } else { try context.link(category, "animals", to: animal) }
            let now = try Self.storage(context, category, "animals")
            if now != last { moves += 1; last = now }
        }
        // Growth by doubling moves the list about log2(30,000) ≈ 15 times; a copy per append would be 30,000.
        #expect(moves <= 40, "the list moved \(moves) times over \(count) appends")
        #expect(try context.related("animals", of: category) == animals)
        let linked = context.graph.snapshot()

        context.undoManager?.undo()
        #expect(context.undoManager?.undoCount == steps)
        #expect(context.graph.snapshot() == unlinked)
        #expect(try context.related("animals", of: category).isEmpty)
        #expect(try context.related("category", of: animals[count - 1]).isEmpty)
        context.undoManager?.redo()
        // The snapshot holds both sides of every link (invariantViolations() scans each list per member: too slow here).
        #expect(context.graph.snapshot() == linked)
    }

    @Test("a link records only what it changed: an append, a to-one, and what a moved object left")
    func recordsChanges() throws {
        let context = try makeContext(try zooSchema())
        let categories = try context.insertZoo(categories: 2, perCategory: 3)
        let animal = try context.related("animals", of: categories[0])[1]
        let graph = context.graph
        graph.linkJournal = []
        let source = try graph.ref(for: animal)
        let target = try graph.ref(for: categories[1])
        graph.addLink(source, try graph.linkSlot("category", entity: Int(source.entity)), target)
        let changes = graph.linkJournal ?? []
        graph.linkJournal = nil
        // Out of the old category's list (at index 1), to-one cleared, set, appended to the new list at its end.
        let described = changes.map { change -> String in
            switch change {
            case .inserted(_, _, _, let index): "inserted at \(index)"
            case .removed(_, _, _, let index): "removed at \(index)"
            case .toOne(_, _, let old, let new): "to-one \(old) -> \(new)"
            case .absent: "absent"
            case .replaced: "replaced"
            }
        }
        #expect(described == ["to-one 0 -> -1", "removed at 1", "to-one -1 -> \(target.row)", "inserted at 3"])
        graph.revert(changes)
        #expect(try context.related("animals", of: categories[0])[1] == animal)
        #expect(context.graph.invariantViolations().isEmpty)
    }

    @Test("deleting one member of a large to-many cuts it out in place and records only the cut; undo puts it back where it was")
    func deletionKeepsTheCut() throws {
        let context = try makeContext(try zooSchema())
        let category = try context.insertZoo(categories: 1, perCategory: 1_000)[0]
        let members = try context.related("animals", of: category)
        let before = context.graph.snapshot()
        let storage = try Self.storage(context, category, "animals")
        let record = context.graph.removeObjects([try context.graph.ref(for: members[500])])
        #expect(try Self.storage(context, category, "animals") == storage, "the survivor's list was edited in place")
        #expect(record.cuts.count == 1 && record.links.count == 1, "one cut from the category, the animal's own to-one")
        context.graph.restore(record)
        #expect(context.graph.snapshot() == before)

        try context.delete(members[500])
        context.processPendingChanges()
        context.undoManager?.undo()
        #expect(try context.related("animals", of: category) == members)
        context.undoManager?.redo()
        #expect(try context.related("animals", of: category) == Array(members[..<500] + members[501...]))
        #expect(context.graph.invariantViolations().isEmpty)
    }

    @Test("a context without an undo manager keeps no journal the size of its largest link edit once the edit is done")
    func spareJournalStaysSmall() throws {
        let context = ModelContext(try ModelContainer(for: try zooSchema(), configurations: ModelConfiguration(isStoredInMemoryOnly: true)))
        let category = try context.insert("AnimalCategory", ["name": .string("Big")])
        var animals: [PersistentIdentifier] = []
        for index in 0..<20_000 { animals.append(try context.insert("Animal", ["age": .int(Int64(index))])) }
        // One edit journals two changes per link (the list's append, the animal's to-one).
        try context.setRelated(animals, for: "animals", of: category)
        let late = try context.insert("Animal", ["age": .int(-1)])
        try context.link(late, "category", to: category)
        #expect(try context.related("animals", of: category) == animals + [late])
        // What the next edit reuses is sized for a typical edit, not for the 40,000 changes of the largest one.
        let kept = context.spareLinkJournal?.capacity ?? 0
        #expect(kept <= 1_024, "the context still holds room for \(kept) link changes")
    }
}
