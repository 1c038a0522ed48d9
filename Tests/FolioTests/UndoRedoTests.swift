import Foundation
import Testing
import Folio
@testable import FolioCore
import FolioTestSupport

/// Runs `action` as one user action, then checks that undo puts the graph back
/// exactly as it was and redo exactly as the action left it — twice over, so
/// redo's own registration is checked too. Returns the snapshots.
@discardableResult
private func expectUndoRedo(
    _ context: ModelContext, sourceLocation: SourceLocation = #_sourceLocation,
    _ action: () throws -> Void
) throws -> (before: GraphSnapshot, after: GraphSnapshot) {
    let undoManager = try #require(context.undoManager, sourceLocation: sourceLocation)
    context.processPendingChanges()
    let before = context.graph.snapshot()
    let steps = undoManager.undoCount
    try action()
    context.processPendingChanges()
    let after = context.graph.snapshot()
    #expect(after != before, "the action changed nothing", sourceLocation: sourceLocation)
    #expect(undoManager.undoCount == steps + 1, "the action is not exactly one undo step", sourceLocation: sourceLocation)
    #expect(context.graph.invariantViolations().isEmpty, sourceLocation: sourceLocation)
    for round in 1...2 {
        undoManager.undo()
        #expect(context.graph.snapshot() == before, "undo #\(round) did not restore the state", sourceLocation: sourceLocation)
        #expect(context.graph.invariantViolations() == [], sourceLocation: sourceLocation)
        #expect(undoManager.canRedo, sourceLocation: sourceLocation)
        undoManager.redo()
        #expect(context.graph.snapshot() == after, "redo #\(round) did not repeat the action", sourceLocation: sourceLocation)
        #expect(context.graph.invariantViolations() == [], sourceLocation: sourceLocation)
    }
    #expect(undoManager.undoCount == steps + 1, sourceLocation: sourceLocation)
    return (before, after)
}

/// A unique code with two plain attributes, for upserts.
private func tagSchema() throws -> Schema {
    try Schema([
        .init("Tag", attributes: [.init("code", .string, options: [.unique]), .init("label", .string), .init("rank", .int)])
    ])
}

func allIDs(_ context: ModelContext, _ entity: String) throws -> [PersistentIdentifier] {
    try context.fetchIdentifiers(DynamicFetchDescriptor(entity: entity))
}

/// A saved zoo of 3 categories with 4 animals each, and an empty undo stack.
func savedZoo(url: URL? = nil) throws -> (ModelContext, [PersistentIdentifier]) {
    let context = try makeContext(try zooSchema(), url: url)
    let categories = try context.insertZoo(categories: 3, perCategory: 4)
    try context.save()
    context.undoManager?.removeAllActions()
    return (context, categories)
}

/// People, clubs and things, linked every way the kitchen sink allows.
private struct ClubFixture {
    let context: ModelContext
    let people: [PersistentIdentifier]  // pA, p1, pB
    let clubs: [PersistentIdentifier]  // c1, c2, c3
    let doomedThings: [PersistentIdentifier]  // p1's things t1, t2, t3
    let survivors: [PersistentIdentifier]  // s1 (owned by pA), s2, s3

    init() throws {
        context = try makeContext(try kitchenSinkSchema())
        let pA = try context.insert("Person", ["name": .string("A")])
        let p1 = try context.insert("Person", ["name": .string("One")])
        let pB = try context.insert("Person", ["name": .string("B")])
        let c1 = try context.insert("Club", ["title": .string("Chess")])
        let c2 = try context.insert("Club", ["title": .string("Choir")])
        let c3 = try context.insert("Club", ["title": .string("Rowing")])
        for member in [pA, p1, pB] { try context.link(c1, "members", to: member) }  // p1 in the middle
        for member in [p1, pA] { try context.link(c2, "members", to: member) }  // p1 first
        try context.link(c3, "members", to: pB)
        var things: [PersistentIdentifier] = []
        for index in 0..<3 {
            things.append(
                try context.insert(
                    "Thing",
                    [
                        "v_string": .string("t\(index)"), "v_int": .int(Int64(7 + index)), "scores": .array([.double(Double(index))]),
                        "anything": index == 1 ? .string("x") : .null, "o_date": .date(Date(timeIntervalSinceReferenceDate: Double(index))),
                    ]))
        }
        try context.setRelated([things[2], things[0], things[1]], for: "things", of: p1)  // not in insertion order
        let s1 = try context.insert("Thing", ["v_string": .string("s1")])
        let s2 = try context.insert("Thing", ["v_string": .string("s2")])
        let s3 = try context.insert("Thing", ["v_string": .string("s3")])
        try context.link(pA, "things", to: s1)
        try context.link(things[0], "twin", to: s2)  // one-to-one with a survivor
        try context.setRelated([things[1], s1], for: "friends", of: s3)  // a survivor's no-inverse list
        try context.link(things[2], "friends", to: s1)  // a doomed object's no-inverse list
        try context.link(s2, "friends", to: things[2])
        try context.save()
        context.undoManager?.removeAllActions()
        people = [pA, p1, pB]
        clubs = [c1, c2, c3]
        doomedThings = things
        survivors = [s1, s2, s3]
    }
}

@Suite struct UndoRedoTests {
    // MARK: Each operation

    @Test("undo of an insert removes the object and redo brings it back with the same identifier")
    func insert() throws {
        let (context, _) = try savedZoo()
        var animal: PersistentIdentifier?
        try expectUndoRedo(context) {
            animal = try context.insert("Animal", ["name": .string("Newbie"), "age": .int(2), "notes": .string("n")])
        }
        let id = try #require(animal)
        #expect(context.contains(id) && context.insertedIdentifiers == [id])
        context.undoManager?.undo()
        #expect(!context.contains(id) && !context.hasChanges)
        context.undoManager?.redo()
        #expect(try context.value("notes", of: id) == .string("n"))
    }

    @Test("undo of an insert and link made as one action removes both")
    func insertAndLink() throws {
        let (context, categories) = try savedZoo()
        try expectUndoRedo(context) {
            let animal = try context.insert("Animal", ["name": .string("Linked")])
            try context.link(animal, "category", to: categories[1])
            let category = try context.insert("AnimalCategory", ["name": .string("New")])
            try context.setRelated([animal, try context.related("animals", of: categories[0])[2]], for: "animals", of: category)
        }
    }

    @Test("undo of an attribute edit restores the old value; redo sets the new one")
    func attributeEdit() throws {
        let (context, categories) = try savedZoo()
        let animal = try context.related("animals", of: categories[0])[1]
        try expectUndoRedo(context) { try context.setValue(.string("Renamed"), for: "name", of: animal) }
        try expectUndoRedo(context) { try context.setValue(.int(99), for: "age", of: animal) }
        try expectUndoRedo(context) { try context.setValue(.double(-0.0), for: "weight", of: animal) }
        try expectUndoRedo(context) { try context.setValue(.string("note"), for: "notes", of: animal) }
        try expectUndoRedo(context) { try context.setValue(.null, for: "notes", of: animal) }
        try expectUndoRedo(context) {
            try context.setValue(.date(Date(timeIntervalSinceReferenceDate: 1e6)), for: "born", of: animal)
        }
        try expectUndoRedo(context) { try context.setValue(.string("Renamed Category"), for: "name", of: categories[2]) }
        try expectUndoRedo(context) {  // several edits in one action are one step
            try context.setValue(.int(1), for: "age", of: animal)
            try context.setValue(.int(2), for: "age", of: animal)
            try context.setValue(.string("Twice"), for: "name", of: animal)
        }
    }

    @Test("undo of a to-one link puts the object back at its old position in the old category")
    func linkToOne() throws {
        let (context, categories) = try savedZoo()
        let mammals = try context.related("animals", of: categories[0])
        let moved = mammals[1]
        let (before, _) = try expectUndoRedo(context) { try context.link(moved, "category", to: categories[2]) }
        #expect(before.objects["AnimalCategory"]?[categories[0].id]?.links["animals"] == mammals.map(\.id))
        #expect(try context.related("animals", of: categories[0]) == [mammals[0], mammals[2], mammals[3]])
        #expect(try context.related("animals", of: categories[2]).last == moved)
        context.undoManager?.undo()
        #expect(try context.related("animals", of: categories[0]) == mammals)
        context.undoManager?.redo()
        // Linked from the to-many side: the animal leaves its old category too.
        try expectUndoRedo(context) { try context.link(categories[1], "animals", to: mammals[3]) }
        #expect(try context.related("category", of: mammals[3]) == [categories[1]])
    }

    @Test("undo of an unlink restores the link in both directions, in order")
    func unlink() throws {
        let (context, categories) = try savedZoo()
        let animals = try context.related("animals", of: categories[1])
        try expectUndoRedo(context) { try context.unlink(animals[2], "category", from: categories[1]) }
        try expectUndoRedo(context) { try context.unlink(categories[1], "animals", from: animals[0]) }
        context.undoManager?.undo()
        context.undoManager?.undo()
        #expect(try context.related("animals", of: categories[1]) == animals)

        let club = try ClubFixture()
        let (c1, p1) = (club.clubs[0], club.people[1])
        try expectUndoRedo(club.context) { try club.context.unlink(p1, "clubs", from: c1) }  // many-to-many
        club.context.undoManager?.undo()
        #expect(try club.context.related("members", of: c1) == club.people)
        try expectUndoRedo(club.context) { try club.context.unlink(club.survivors[2], "friends", from: club.doomedThings[1]) }
    }

    @Test("undo of setRelated restores the previous order exactly")
    func setRelatedReorder() throws {
        let (context, categories) = try savedZoo()
        let animals = try context.related("animals", of: categories[0])
        try expectUndoRedo(context) { try context.setRelated(animals.reversed(), for: "animals", of: categories[0]) }
        #expect(try context.related("animals", of: categories[0]) == animals.reversed())
        context.undoManager?.undo()
        #expect(try context.related("animals", of: categories[0]) == animals)
        context.undoManager?.redo()
        // Taking animals from other categories and dropping some of its own.
        let others = try context.related("animals", of: categories[1])
        try expectUndoRedo(context) {
            try context.setRelated([others[2], animals[1], others[0]], for: "animals", of: categories[0])
        }
        try expectUndoRedo(context) { try context.setRelated([], for: "animals", of: categories[2]) }

        let club = try ClubFixture()
        let c1 = club.clubs[0]
        try expectUndoRedo(club.context) { try club.context.setRelated(club.people.reversed(), for: "members", of: c1) }
        club.context.undoManager?.undo()
        #expect(try club.context.related("members", of: c1) == club.people)
        #expect(try club.context.related("clubs", of: club.people[1]) == [c1, club.clubs[1]])
    }

    @Test("undo of a one-to-one link restores both partners it took the destination from")
    func oneToOneSteal() throws {
        let club = try ClubFixture()
        let context = club.context
        let (t0, s2, s1) = (club.doomedThings[0], club.survivors[1], club.survivors[0])
        try context.link(s1, "twin", to: club.doomedThings[1])
        context.processPendingChanges()
        // t0.twin is s2; s1.twin is t1. Link t0.twin to t1: s2 loses t0, s1 loses t1.
        try expectUndoRedo(context) { try context.link(t0, "twin", to: club.doomedThings[1]) }
        #expect(try context.related("twinOf", of: s2).isEmpty && context.related("twin", of: s1).isEmpty)
        context.undoManager?.undo()
        #expect(try context.related("twin", of: t0) == [s2] && context.related("twin", of: s1) == [club.doomedThings[1]])
        // A relationship without an inverse keeps its hidden inverse in step.
        try expectUndoRedo(context) { try context.link(s1, "friends", to: t0) }
    }

    @Test("undo of removing collection elements restores every element")
    func collectionRemoval() throws {
        let context = try makeContext(try kitchenSinkSchema())
        let thing = try context.insert(
            "Thing",
            [
                "tags": .set([.string("a"), .string("b"), .string("c")]),
                "scores": .array([.double(1), .double(2), .double(3)]),
                "dates": .array([.date(Date(timeIntervalSinceReferenceDate: 0)), .date(Date(timeIntervalSinceReferenceDate: 1))]),
                "counts": .dictionary(["x": .int(1), "y": .int(2)]),
                "nested": .dictionary(["k": .array([.string("p"), .string("q")])]),
                "composite": .dictionary(["list": .array([.int(1), .string("two")]), "flag": .bool(true)]),
            ])
        try context.save()
        try expectUndoRedo(context) { try context.setValue(.set([.string("b")]), for: "tags", of: thing) }
        try expectUndoRedo(context) { try context.setValue(.array([.double(1), .double(3)]), for: "scores", of: thing) }
        try expectUndoRedo(context) { try context.setValue(.array([]), for: "dates", of: thing) }
        try expectUndoRedo(context) { try context.setValue(.dictionary(["x": .int(1)]), for: "counts", of: thing) }
        try expectUndoRedo(context) { try context.setValue(.dictionary(["k": .array([.string("q")])]), for: "nested", of: thing) }
        try expectUndoRedo(context) { try context.setValue(.null, for: "nested", of: thing) }
        try expectUndoRedo(context) { try context.setValue(.dictionary(["flag": .bool(true)]), for: "composite", of: thing) }
        context.undoManager?.undo()
        #expect(
            try context.value("composite", of: thing)
                == .dictionary(["list": .array([.int(1), .string("two")]), "flag": .bool(true)]))
    }

    @Test("undo of setting an any-value to none restores the value and its type")
    func anyValueToNone() throws {
        let context = try makeContext(try kitchenSinkSchema())
        let thing = try context.insert(
            "Thing",
            [
                "anything": .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!),
                "o_int": .int(4),
            ])
        try context.save()
        try expectUndoRedo(context) { try context.setValue(.null, for: "anything", of: thing) }
        #expect(try context.value("anything", of: thing) == .null)
        context.undoManager?.undo()
        #expect(try context.value("anything", of: thing) == .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!))
        context.undoManager?.redo()
        try expectUndoRedo(context) { try context.setValue(.int(-5), for: "anything", of: thing) }
        try expectUndoRedo(context) { try context.setValue(.string("now a string"), for: "anything", of: thing) }
        try expectUndoRedo(context) { try context.setValue(.null, for: "o_int", of: thing) }
    }

    @Test("undo of deleting one object restores it at its old position in its category")
    func deleteOne() throws {
        let (context, categories) = try savedZoo()
        let animals = try context.related("animals", of: categories[1])
        try expectUndoRedo(context) { try context.delete(animals[1]) }
        #expect(context.isDeleted(animals[1]) && context.deletedIdentifiers == [animals[1]])
        #expect(context.undoManager?.undoActionName == "Delete Animal")
        context.undoManager?.undo()
        #expect(!context.isDeleted(animals[1]) && context.deletedIdentifiers.isEmpty)
        #expect(try context.related("animals", of: categories[1]) == animals)
        #expect(try context.related("category", of: animals[1]) == [categories[1]])
        #expect(context.undoManager?.redoActionName == "Delete Animal")
    }

    @Test("undo of deleting several objects restores all of them")
    func deleteSeveral() throws {
        let (context, categories) = try savedZoo()
        let first = try context.related("animals", of: categories[0])
        let second = try context.related("animals", of: categories[1])
        try expectUndoRedo(context) { try context.delete([first[3], second[0], first[0], categories[2]]) }
        #expect(context.undoManager?.undoActionName == "Delete 8 objects")  // 3 requested + the category's 4 animals + 1
        #expect(context.deletedIdentifiers.count == 8)
        context.undoManager?.undo()
        #expect(context.deletedIdentifiers.isEmpty)
        #expect(try context.related("animals", of: categories[0]) == first)
        #expect(try context.related("animals", of: categories[1]) == second)
        try expectUndoRedo(context) { try context.delete([first[1], second[1]]) }
        #expect(context.undoManager?.undoActionName == "Delete 2 objects")
    }

    @Test("a step deleting thousands is named with the count in plain digits, in any locale")
    func deleteThousandsName() throws {
        let context = try makeContext(try zooSchema())
        _ = try context.insertZoo(categories: 1, perCategory: 1_233)
        context.processPendingChanges()
        #expect(try context.delete(entity: "AnimalCategory") == 1)  // and its 1,233 animals by the cascade
        // A number formatter would group the digits by the process's locale and,
        // the first time, load that locale's data inside the delete.
        #expect(context.undoManager?.undoActionName == "Delete 1234 objects")
    }

    @Test("undo of delete(entity:where:) restores every matching object")
    func deleteWhere() throws {
        let (context, categories) = try savedZoo()
        let snapshot = context.graph.snapshot()
        var count = 0
        try expectUndoRedo(context) {
            count = try context.delete(entity: "Animal", where: try ObjectPredicate("age >= 2 and category.name != 'Category 1'"))
        }
        #expect(count == 4)
        #expect(context.undoManager?.undoActionName == "Delete 4 objects")
        try expectUndoRedo(context) { _ = try context.delete(entity: "AnimalCategory", where: try ObjectPredicate("name endswith '2'")) }
        #expect(context.undoManager?.undoActionName == "Delete 3 objects")  // the category and its 2 remaining animals
        context.undoManager?.undo()
        context.undoManager?.undo()
        #expect(context.graph.snapshot() == snapshot)
        // A predicate matching nothing deletes nothing and records no step.
        let steps = context.undoManager?.undoCount
        #expect(try context.delete(entity: "Animal", where: try ObjectPredicate("age > 100")) == 0)
        context.processPendingChanges()
        #expect(context.undoManager?.undoCount == steps)
        #expect(try context.related("animals", of: categories[2]).count == 4)
    }

    @Test("undo of delete(entity:) restores every object of the entity and what cascaded")
    func deleteEntity() throws {
        let (context, _) = try savedZoo()
        var count = 0
        try expectUndoRedo(context) { count = try context.delete(entity: "Animal") }
        #expect(count == 12)
        #expect(try context.fetchCount(DynamicFetchDescriptor(entity: "AnimalCategory")) == 3)
        context.undoManager?.undo()
        try expectUndoRedo(context) { count = try context.delete(entity: "AnimalCategory") }
        #expect(count == 3)
        #expect(context.graph.count == 0)
        #expect(context.undoManager?.undoActionName == "Delete 15 objects")
    }

    @Test("undo of deleteEverything restores the whole document")
    func deleteEverything() throws {
        let club = try ClubFixture()
        try expectUndoRedo(club.context) { club.context.deleteEverything() }
        #expect(club.context.undoManager?.undoActionName == "Delete Everything")
        let (context, _) = try savedZoo()
        try context.insert("Animal", ["name": .string("Unsaved")])
        context.processPendingChanges()
        try expectUndoRedo(context) { context.deleteEverything() }
        #expect(context.graph.count == 0 && context.deletedIdentifiers.count == 15 && context.insertedIdentifiers.isEmpty)
        context.undoManager?.undo()
        #expect(context.graph.count == 16 && context.insertedIdentifiers.count == 1 && context.deletedIdentifiers.isEmpty)
    }

    @Test("undo of container.deleteAllData brings the objects back as unsaved inserts, and save writes them again")
    func deleteAllData() throws {
        let url = temporaryPackageURL()
        let (context, categories) = try savedZoo(url: url)
        let saved = context.graph.snapshot()
        let ids = try allIDs(context, "AnimalCategory") + allIDs(context, "Animal")
        try expectUndoRedo(context) {
            context.container.deleteAllData()
            _ = try context.fetchCount(DynamicFetchDescriptor(entity: "Animal"))  // sees it
        }
        #expect(context.undoManager?.undoActionName == "Delete All Data")
        #expect(context.graph.count == 0 && !context.hasChanges)
        #expect(try DocumentPackage(url: url).read().count == 0)
        context.undoManager?.undo()
        #expect(context.graph.snapshot() == saved)
        #expect(context.insertedIdentifiers == ids.sorted() && context.deletedIdentifiers.isEmpty)
        try context.save()
        #expect(try DocumentPackage(url: url).read().snapshot() == saved)
        #expect(ModelContext(context.container).graph.snapshot() == saved)
        #expect(!context.hasChanges)
        // Redo deletes them again, now as ordinary deletes of saved objects.
        context.undoManager?.redo()
        #expect(context.graph.count == 0 && context.deletedIdentifiers == ids.sorted())
        try context.save()
        #expect(try DocumentPackage(url: url).read().count == 0)
        context.undoManager?.undo()
        #expect(context.graph.snapshot() == saved)
        #expect(try context.related("animals", of: categories[1]).count == 4)
    }

    @Test("an upsert updates the existing object; undo restores its old values")
    func uniqueUpsert() throws {
        let context = try makeContext(try tagSchema())
        let tag = try context.insert("Tag", ["code": .string("A"), "label": .string("Old"), "rank": .int(1)])
        try context.save()
        var returned: PersistentIdentifier?
        try expectUndoRedo(context) {
            returned = try context.insert("Tag", ["code": .string("A"), "label": .string("New"), "rank": .int(2)])
        }
        #expect(returned == tag)
        #expect(context.undoManager?.undoActionName == "Update Tag")
        #expect(try context.fetchCount(DynamicFetchDescriptor(entity: "Tag")) == 1)
        context.undoManager?.undo()
        #expect(try context.value("label", of: tag) == .string("Old") && context.value("rank", of: tag) == .int(1))
        context.undoManager?.redo()
        #expect(try context.value("label", of: tag) == .string("New") && context.value("rank", of: tag) == .int(2))
        // The same values again change nothing and record nothing.
        let steps = context.undoManager?.undoCount
        #expect(try context.insert("Tag", ["code": .string("A"), "label": .string("New")]) == tag)
        context.processPendingChanges()
        #expect(context.undoManager?.undoCount == steps)
    }

    @Test("the unique index follows undo and redo of inserts, deletes and edits")
    func uniqueIndexAcrossUndo() throws {
        let context = try makeContext(try tagSchema())
        let a = try context.insert("Tag", ["code": .string("A"), "label": .string("a")])
        context.processPendingChanges()
        // Undoing an insert frees its code.
        let b = try context.insert("Tag", ["code": .string("B")])
        context.processPendingChanges()
        context.undoManager?.undo()
        let b2 = try context.insert("Tag", ["code": .string("B")])
        context.processPendingChanges()
        #expect(b2 != b && context.graph.count == 2)
        // Deleting frees it; undoing the delete takes it back.
        try context.delete(a)
        context.processPendingChanges()
        let a2 = try context.insert("Tag", ["code": .string("A"), "label": .string("second")])
        context.processPendingChanges()
        #expect(a2 != a)
        context.undoManager?.undo()  // the second A
        context.undoManager?.undo()  // the delete
        #expect(context.contains(a) && !context.contains(a2))
        #expect(try context.insert("Tag", ["code": .string("A"), "label": .string("upserted")]) == a)
        context.processPendingChanges()
        #expect(try context.value("label", of: a) == .string("upserted"))
        // Renaming the code moves the index entry; undo moves it back.
        try context.setValue(.string("Z"), for: "code", of: a)
        context.processPendingChanges()
        context.undoManager?.undo()
        #expect(try context.insert("Tag", ["code": .string("A"), "label": .string("again")]) == a)
        context.processPendingChanges()
        context.undoManager?.undo()
        context.undoManager?.redo()
        #expect(try context.insert("Tag", ["code": .string("Z")]) != a)
        #expect(context.graph.invariantViolations().isEmpty)
        #expect(try context.fetchCount(DynamicFetchDescriptor(entity: "Tag", predicate: try ObjectPredicate("code == 'A'"))) == 1)
    }

    // MARK: Cascades

    @Test("undo of a cascade delete restores identifiers, values, order and the links cut on survivors")
    func cascadeRestoresEverything() throws {
        let club = try ClubFixture()
        let context = club.context
        let (pA, p1, pB) = (club.people[0], club.people[1], club.people[2])
        let (c1, c2, c3) = (club.clubs[0], club.clubs[1], club.clubs[2])
        let (s1, s2, s3) = (club.survivors[0], club.survivors[1], club.survivors[2])
        let things = club.doomedThings
        let ownedInOrder = try context.related("things", of: p1)
        #expect(ownedInOrder == [things[2], things[0], things[1]])
        let preview = try context.deletionPreview(for: [p1])
        #expect(preview.cascaded == things.sorted())

        let (before, _) = try expectUndoRedo(context) { try context.delete(p1) }
        #expect(context.undoManager?.undoActionName == "Delete 4 objects")
        // What the delete did.
        #expect(try context.related("members", of: c1) == [pA, pB])
        #expect(try context.related("members", of: c2) == [pA])
        #expect(try context.related("twinOf", of: s2).isEmpty)
        #expect(try context.related("friends", of: s3) == [s1])
        #expect(try context.related("friends", of: s2).isEmpty)
        #expect(Set(context.deletedIdentifiers) == Set([p1] + things))

        context.undoManager?.undo()
        #expect(context.graph.snapshot() == before)
        #expect(([p1] + things).allSatisfy { context.contains($0) && !context.isDeleted($0) })
        #expect(try context.related("things", of: p1) == ownedInOrder)
        #expect(try context.related("clubs", of: p1) == [c1, c2])
        #expect(try context.related("members", of: c1) == [pA, p1, pB])  // back in the middle
        #expect(try context.related("members", of: c2) == [p1, pA])  // back in front
        #expect(try context.related("members", of: c3) == [pB])
        #expect(try context.related("twin", of: things[0]) == [s2] && context.related("twinOf", of: s2) == [things[0]])
        #expect(try context.related("friends", of: s3) == [things[1], s1])
        #expect(try context.related("friends", of: things[2]) == [s1])
        #expect(try context.related("friends", of: s2) == [things[2]])
        #expect(try context.value("v_int", of: things[1]) == .int(8))
        #expect(try context.value("anything", of: things[1]) == .string("x"))
        #expect(try context.value("o_date", of: things[2]) == .date(Date(timeIntervalSinceReferenceDate: 2)))
        #expect(context.deletedIdentifiers.isEmpty)
        #expect(context.graph.invariantViolations().isEmpty)

        // The restored graph saves and reads back the same.
        try context.save()
        #expect(ModelContext(context.container).graph.snapshot() == before)
    }

    @Test("undo of a category delete brings back its animals, with the same identifiers and order")
    func cascadeZoo() throws {
        let (context, categories) = try savedZoo()
        let animals = try context.related("animals", of: categories[1])
        let values = try animals.map { try context.value("name", of: $0) }
        try expectUndoRedo(context) { try context.delete(categories[1]) }
        #expect(context.undoManager?.undoActionName == "Delete 5 objects")
        #expect(animals.allSatisfy { !context.contains($0) })
        context.undoManager?.undo()
        #expect(try context.related("animals", of: categories[1]) == animals)
        #expect(try animals.map { try context.value("name", of: $0) } == values)
    }

    // MARK: Save, names, limits

    @Test("undo after save works and makes the context dirty again")
    func undoAfterSave() throws {
        let url = temporaryPackageURL()
        let (context, categories) = try savedZoo(url: url)
        let animal = try context.related("animals", of: categories[0])[2]
        let savedState = context.graph.snapshot()

        try context.setValue(.int(40), for: "age", of: animal)
        try context.save()
        #expect(!context.hasChanges)
        context.undoManager?.undo()
        #expect(context.hasChanges && context.changedIdentifiers == [animal])
        #expect(try context.value("age", of: animal) == .int(2))
        #expect(context.graph.snapshot() == savedState)
        try context.save()
        #expect(try DocumentPackage(url: url).read().snapshot() == savedState)
        context.undoManager?.redo()
        #expect(context.hasChanges)
        #expect(try context.value("age", of: animal) == .int(40))
        try context.save()

        let edited = context.graph.snapshot()
        try context.delete(animal)
        try context.save()
        #expect(!context.hasChanges && !context.contains(animal))
        context.undoManager?.undo()
        #expect(context.hasChanges && context.contains(animal))
        #expect(context.insertedIdentifiers == [animal])  // gone from the store, so it is an insert now
        #expect(context.graph.snapshot() == edited)
        try context.save()
        #expect(try DocumentPackage(url: url).read().snapshot() == edited)
        #expect(try ModelContext(context.container).related("animals", of: categories[0])[2] == animal)

        let inserted = try context.insert("Animal", ["name": .string("Late")])
        try context.save()
        context.undoManager?.undo()
        #expect(context.hasChanges && context.deletedIdentifiers == [inserted])
        try context.save()
        #expect(try DocumentPackage(url: url).read().snapshot() == edited)
    }

    @Test("steps are named after what they do; redo keeps the name")
    func actionNames() throws {
        let (context, categories) = try savedZoo()
        let undoManager = try #require(context.undoManager)
        let animal = try context.insert("Animal")
        context.processPendingChanges()
        #expect(undoManager.undoActionName == "Insert Animal")
        #expect(undoManager.undoMenuItemTitle == "Undo Insert Animal")
        try context.setValue(.int(3), for: "age", of: animal)
        context.processPendingChanges()
        #expect(undoManager.undoActionName == "Set Animal.age")
        try context.link(animal, "category", to: categories[0])
        context.processPendingChanges()
        #expect(undoManager.undoActionName == "Link Animal.category")
        try context.unlink(animal, "category", from: categories[0])
        context.processPendingChanges()
        #expect(undoManager.undoActionName == "Unlink Animal.category")
        try context.setRelated([animal], for: "animals", of: categories[2])
        context.processPendingChanges()
        #expect(undoManager.undoActionName == "Set AnimalCategory.animals")
        try context.delete(animal)
        context.processPendingChanges()
        #expect(undoManager.undoActionName == "Delete Animal")
        try context.delete(categories[0])
        context.processPendingChanges()
        #expect(undoManager.undoActionName == "Delete 5 objects")
        undoManager.undo()
        #expect(undoManager.redoActionName == "Delete 5 objects" && undoManager.redoMenuItemTitle == "Redo Delete 5 objects")
        #expect(undoManager.undoActionName == "Delete Animal")
        undoManager.redo()
        #expect(undoManager.undoActionName == "Delete 5 objects")

        // The first change of an action names it.
        let category = try context.insert("AnimalCategory", ["name": .string("Big")])
        for index in 0..<12 {
            try context.link(try context.insert("Animal", ["age": .int(Int64(index))]), "category", to: category)
        }
        context.processPendingChanges()
        #expect(undoManager.undoActionName == "Insert AnimalCategory")
        try context.delete(category)
        context.processPendingChanges()
        #expect(undoManager.undoActionName == "Delete 13 objects")

        try context.transaction(actionName: "Adopt a Pair") {
            let pair = try context.insert("AnimalCategory", ["name": .string("Pair")])
            try context.link(try context.insert("Animal"), "category", to: pair)
            try context.link(try context.insert("Animal"), "category", to: pair)
        }
        #expect(undoManager.undoActionName == "Adopt a Pair")
        let beforeUnnamed = undoManager.undoCount
        try context.transaction { try context.insert("Animal") }
        #expect(undoManager.undoCount == beforeUnnamed + 1 && undoManager.undoActionName == "Insert Animal")
        undoManager.undo()
        undoManager.undo()
        #expect(undoManager.redoActionName == "Adopt a Pair")
        #expect(try context.fetchCount(DynamicFetchDescriptor(entity: "AnimalCategory", predicate: try ObjectPredicate("name == 'Pair'"))) == 0)
        undoManager.redo()
        #expect(try context.fetchCount(DynamicFetchDescriptor(entity: "AnimalCategory", predicate: try ObjectPredicate("name == 'Pair'"))) == 1)
        #expect(undoManager.undoActionNames.suffix(2) == ["Delete 13 objects", "Adopt a Pair"])
    }

    @Test("a transaction is one step however many changes it makes")
    func transactionStep() throws {
        let (context, categories) = try savedZoo()
        try expectUndoRedo(context) {
            try context.transaction(actionName: "Reorganise") {
                let animals = try context.related("animals", of: categories[0])
                try context.setRelated(animals.reversed(), for: "animals", of: categories[0])
                try context.delete(categories[1])
                try context.setValue(.string("Renamed"), for: "name", of: categories[2])
                try context.insert("Animal", ["name": .string("In transaction")])
            }
        }
        #expect(context.undoManager?.undoActionName == "Reorganise")
    }

    @Test("processPendingChanges() and save() each close the automatic group, so a context that edits forever with levelsOfUndo = N keeps N steps")
    func boundedUndo() throws {
        let url = temporaryPackageURL()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let (context, categories) = try savedZoo(url: url)
        let undoManager = try #require(context.undoManager)
        undoManager.levelsOfUndo = 4
        let animals = try context.related("animals", of: categories[0])
        var snapshots: [GraphSnapshot] = []
        for step in 0..<60 {
            try context.setValue(.int(Int64(step)), for: "age", of: animals[step % animals.count])
            try context.link(animals[step % animals.count], "category", to: categories[step % categories.count])
            #expect(undoManager.groupingLevel == 1, "the edits of step \(step) are in one open automatic group")
            if step.isMultiple(of: 2) { context.processPendingChanges() } else { try context.save() }
            #expect(undoManager.groupingLevel == 0, "step \(step) closed its group")
            #expect(undoManager.undoCount == min(step + 1, 4))
            snapshots.append(context.graph.snapshot())
        }
        for expected in [58, 57, 56, 55] {
            undoManager.undo()
            #expect(context.graph.snapshot() == snapshots[expected])
        }
        #expect(!undoManager.canUndo)
        #expect(context.graph.invariantViolations().isEmpty)
    }

    @Test("the main context records no undo until the program gives it an undo manager, as SwiftData's")
    @MainActor func mainContextHasNoUndoManager() throws {
        let container = try ModelContainer(for: try zooSchema(), configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = container.mainContext
        #expect(context.undoManager == nil)
        let category = try context.insert("AnimalCategory", ["name": .string("Mammal")])
        context.undoManager = UndoManager()
        let animal = try context.insert("Animal", ["name": .string("Rex")])
        try context.link(animal, "category", to: category)
        context.processPendingChanges()
        context.undoManager?.undo()
        #expect(!context.contains(animal))
        #expect(context.contains(category), "inserted before undo was turned on: not undoable")
        #expect(context.undoManager?.canUndo == false)
    }

    @Test("levelsOfUndo keeps only the newest steps")
    func levelsOfUndo() throws {
        let (context, categories) = try savedZoo()
        let undoManager = try #require(context.undoManager)
        undoManager.levelsOfUndo = 3
        let animal = try context.related("animals", of: categories[0])[0]
        var snapshots = [context.graph.snapshot()]
        for age in 1...5 {
            try context.setValue(.int(Int64(age * 10)), for: "age", of: animal)
            context.processPendingChanges()
            snapshots.append(context.graph.snapshot())
        }
        #expect(undoManager.undoCount == 3)
        for expected in [4, 3, 2] {
            undoManager.undo()
            #expect(context.graph.snapshot() == snapshots[expected])
        }
        #expect(!undoManager.canUndo)
        undoManager.undo()
        #expect(context.graph.snapshot() == snapshots[2])
        #expect(try context.value("age", of: animal) == .int(20))
        for expected in [3, 4, 5] {
            undoManager.redo()
            #expect(context.graph.snapshot() == snapshots[expected])
        }
        #expect(!undoManager.canRedo)
        // Lowering the limit drops the oldest steps at once.
        undoManager.levelsOfUndo = 1
        #expect(undoManager.undoCount == 1)
        undoManager.undo()
        #expect(context.graph.snapshot() == snapshots[4])
    }

    @Test("with undo registration disabled nothing is recorded")
    func disabledRegistration() throws {
        let (context, categories) = try savedZoo()
        let undoManager = try #require(context.undoManager)
        undoManager.disableUndoRegistration()
        let animal = try context.insert("Animal", ["name": .string("Quiet")])
        try context.setValue(.int(5), for: "age", of: animal)
        try context.link(animal, "category", to: categories[0])
        try context.delete(categories[1])
        context.deleteEverything()
        context.processPendingChanges()
        #expect(!undoManager.canUndo && undoManager.undoCount == 0)
        undoManager.undo()
        #expect(context.graph.count == 0)
        undoManager.enableUndoRegistration()
        let recorded = try context.insert("Animal")
        context.processPendingChanges()
        #expect(undoManager.undoCount == 1)
        undoManager.undo()
        #expect(!context.contains(recorded) && context.graph.count == 0)

        // Nested disables need as many enables.
        undoManager.disableUndoRegistration()
        undoManager.disableUndoRegistration()
        undoManager.enableUndoRegistration()
        try context.insert("Animal")
        context.processPendingChanges()
        #expect(!undoManager.canUndo)
        undoManager.enableUndoRegistration()
        #expect(undoManager.isUndoRegistrationEnabled)
    }

    @Test("undoing recorded link edits after unrecorded ones leaves every link with its inverse, the unrecorded edit standing")
    func undoAfterUnrecordedLinkEdits() throws {
        for detaching in [false, true] {
            let (context, categories) = try savedZoo()
            let undoManager = try #require(context.undoManager)
            let animal = try context.insert("Animal", ["name": .string("Moved")])
            context.processPendingChanges()
            try context.link(animal, "category", to: categories[0])
            context.processPendingChanges()
            // Edited with no undo recording it: registration off, or the manager taken away a while.
            if detaching { context.undoManager = nil } else { undoManager.disableUndoRegistration() }
            try context.link(animal, "category", to: categories[1])
            context.processPendingChanges()
            if detaching { context.undoManager = undoManager } else { undoManager.enableUndoRegistration() }
            undoManager.undo()
            #expect(context.graph.invariantViolations().isEmpty, "detaching: \(detaching)")
            #expect(try context.related("category", of: animal) == [categories[1]])
            #expect(try !context.related("animals", of: categories[0]).contains(animal))
            undoManager.undo()
            #expect(context.graph.invariantViolations().isEmpty)
            #expect(!context.contains(animal))
            #expect(try !context.related("animals", of: categories[1]).contains(animal))
        }
    }

    @Test("a context without an undo manager edits without recording")
    func noUndoManager() throws {
        let context = try makeContext(try zooSchema())
        context.undoManager = nil
        let animal = try context.insert("Animal")
        try context.delete(animal)
        context.processPendingChanges()
        #expect(context.graph.count == 0 && context.graph.invariantViolations().isEmpty)
    }
}
