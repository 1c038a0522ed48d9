import Foundation
import Testing
import Folio
@testable import FolioCore

/// `ModelContext.conflicts` and `resolve(_:keeping:)`: the records a merge
/// left in a document, resolved one by one, each one undo step (issue 30 item 5).
@Suite struct ConflictResolutionTests {
    // MARK: Fixtures

    /// A base with one category (`mammals`) holding Rex (friend of Tom) and Tom.
    func zoo(rule: Schema.Relationship.DeleteRule = .nullify, maximum: Int = 0) throws
        -> (MergeFixture, mammals: PersistentIdentifier, rex: PersistentIdentifier, tom: PersistentIdentifier)
    {
        let graph = ObjectGraph(schema: try mergeZooSchema(rule: rule, maximum: maximum))
        let mammals = try graph.insert("Category", ["name": .string("Mammal")])
        let rex = try graph.insert(
            "Animal",
            [
                "name": .string("Rex"), "age": .int(3),
                "notes": .dictionary(["diet": .string("grass"), "home": .string("barn")]),
            ])
        let tom = try graph.insert("Animal", ["name": .string("Tom"), "age": .int(5)])
        try graph.link(rex, "category", to: mammals)
        try graph.link(tom, "category", to: mammals)
        try graph.link(tom, "friends", to: rex)
        return (MergeFixture(graph), mammals, rex, tom)
    }

    /// A context (with an undo manager) over a merged graph and the records it carries,
    /// as a package holding them opens.
    func context(over result: MergeResult) -> ModelContext {
        let context = ModelContext(Self.container(over: result.graph))
        context.undoManager = UndoManager()
        return context
    }

    static func container(over graph: ObjectGraph) -> ModelContainer {
        let core = ContainerCore(
            schema: graph.schema, configurations: [ModelConfiguration(isStoredInMemoryOnly: true)],
            modelValueChecks: graph.schema.modelValueChecks, sharedDocument: SharedDocument.inMemory(graph))
        return ModelContainer(core: core)
    }

    /// The one record of `kind` the context holds.
    func record(_ context: ModelContext, _ kind: MergeConflict.Kind) throws -> MergeConflict {
        let found = context.conflicts.filter { $0.kind == kind }
        try #require(found.count == 1, "records: \(context.conflicts)")
        return found[0]
    }

    /// Resolves `conflict` with `resolution` and checks: `read` gives `expected`,
    /// the record is gone, the context has changes, and it was one undo step
    /// whose undo restores what `read` gave and the record (and no changes
    /// left), and whose redo applies both again.
    func expectResolution<T: Equatable>(
        _ context: ModelContext, _ conflict: MergeConflict,
        _ resolution: MergeConflict.Resolution, gives expected: T,
        _ read: () throws -> T, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let undoManager = try #require(context.undoManager)
        context.processPendingChanges()
        let before = try read()
        let recordsBefore = context.conflicts
        let steps = undoManager.undoCount
        let hadChanges = context.hasChanges

        try context.resolve(conflict, keeping: resolution)
        #expect(try read() == expected, "\(resolution)", sourceLocation: sourceLocation)
        #expect(!context.conflicts.contains(conflict), sourceLocation: sourceLocation)
        #expect(context.conflicts.count == recordsBefore.count - 1, sourceLocation: sourceLocation)
        #expect(context.hasChanges, sourceLocation: sourceLocation)
        context.processPendingChanges()
        #expect(undoManager.undoCount == steps + 1, sourceLocation: sourceLocation)
        #expect(undoManager.undoActionName == "Resolve Conflict", sourceLocation: sourceLocation)

        undoManager.undo()
        #expect(try read() == before, "undo of \(resolution)", sourceLocation: sourceLocation)
        #expect(context.conflicts == recordsBefore, sourceLocation: sourceLocation)
        #expect(context.hasChanges == hadChanges, "undo took the resolution back", sourceLocation: sourceLocation)
        #expect(undoManager.undoCount == steps, sourceLocation: sourceLocation)

        undoManager.redo()
        #expect(try read() == expected, "redo of \(resolution)", sourceLocation: sourceLocation)
        #expect(!context.conflicts.contains(conflict), sourceLocation: sourceLocation)
        #expect(context.hasChanges, sourceLocation: sourceLocation)
        #expect(context.graph.invariantViolations().isEmpty, sourceLocation: sourceLocation)
    }

    /// Identifiers as one string, to compare object states as lists of strings.
    func ids(_ list: [PersistentIdentifier]) -> String { list.map(\.description).joined(separator: ",") }

    // MARK: Cells

    static let cellChoices: [MergeConflict.Resolution] = [.merged, .ours, .theirs, .base, .content(.value(.int(9)))]

    @Test("an attribute conflict takes ours, theirs, base, the merged value or a typed value; one undo step", arguments: cellChoices)
    func attributeValue(_ resolution: MergeConflict.Resolution) throws {
        let (fixture, _, rex, _) = try zoo()
        try fixture.ours.setValue(.int(4), for: "age", of: rex)
        try fixture.theirs.setValue(.int(6), for: "age", of: rex)
        let context = context(over: try fixture.merge())
        let conflict = try record(context, .value)
        #expect(conflict.property == "age")
        let expected: Value =
            switch resolution {
            case .merged, .ours: .int(4)
            case .theirs: .int(6)
            case .base: .int(3)
            default: .int(9)
            }
        try expectResolution(context, conflict, resolution, gives: expected) { try context.value("age", of: rex) }
    }

    @Test(
        "a dictionary key conflict sets only that key; a key one side removed is removed or put back",
        arguments: [MergeConflict.Resolution.merged, .ours, .theirs, .base, .content(.value(.string("hay")))])
    func dictionaryKey(_ resolution: MergeConflict.Resolution) throws {
        let (fixture, _, rex, _) = try zoo()
        // Both change "diet"; ours removes "home", theirs changes it.
        try fixture.ours.setValue(.dictionary(["diet": .string("meat")]), for: "notes", of: rex)
        try fixture.theirs.setValue(.dictionary(["diet": .string("fish"), "home": .string("field")]), for: "notes", of: rex)
        let context = context(over: try fixture.merge())
        #expect(context.conflicts.map(\.key) == ["diet", "home"])
        let diet = try #require(context.conflicts.first { $0.key == "diet" })
        let home = try #require(context.conflicts.first { $0.key == "home" })
        #expect(home.ours == nil)
        func notes() throws -> Value { try context.value("notes", of: rex) }

        let dietValue: Value =
            switch resolution {
            case .merged, .ours: .string("meat")
            case .theirs: .string("fish")
            case .base: .string("grass")
            default: .string("hay")
            }
        try expectResolution(context, diet, resolution, gives: .dictionary(["diet": dietValue]), notes)

        let homeValue: Value? =
            switch resolution {
            case .merged, .ours: nil
            case .theirs: .string("field")
            case .base: .string("barn")
            default: .string("hay")
            }
        var expected: [String: Value] = ["diet": dietValue]
        expected["home"] = homeValue
        try expectResolution(context, home, resolution, gives: .dictionary(expected), notes)
        #expect(context.conflicts.isEmpty)
    }

    @Test(
        "a to-one conflict sets the link to a side's object, the base's, or one given; the inverse list follows",
        arguments: ["merged", "ours", "theirs", "base", "content"])
    func toOne(_ choice: String) throws {
        let (fixture, mammals, rex, _) = try zoo()
        let birds = try fixture.base.insert("Category", ["name": .string("Bird")])
        let fish = try fixture.base.insert("Category", ["name": .string("Fish")])
        let reptiles = try fixture.base.insert("Category", ["name": .string("Reptile")])
        let sides = MergeFixture(fixture.base)
        try sides.ours.setRelated([birds], for: "category", of: rex)
        try sides.theirs.setRelated([fish], for: "category", of: rex)
        let context = context(over: try sides.merge())
        let conflict = try record(context, .value)
        #expect(conflict.property == "category")
        let (resolution, expected): (MergeConflict.Resolution, PersistentIdentifier) =
            switch choice {
            case "merged": (.merged, birds)
            case "ours": (.ours, birds)
            case "theirs": (.theirs, fish)
            case "base": (.base, mammals)
            default: (.content(.related([reptiles])), reptiles)
            }
        try expectResolution(context, conflict, resolution, gives: [[expected], [rex]]) {
            [try context.related("category", of: rex), try context.related("animals", of: expected).filter { $0 == rex }]
        }
    }

    @Test("a to-many relationship's count conflict: merged accepts the list, a given list replaces it")
    func toManyCount() throws {
        let (fixture, mammals, rex, tom) = try zoo(maximum: 2)
        let lion = try fixture.ours.insert("Animal", ["name": .string("Lion")])
        try fixture.ours.link(lion, "category", to: mammals)
        let tiger = try fixture.theirs.insert("Animal", ["name": .string("Tiger")])
        try fixture.theirs.link(tiger, "category", to: mammals)
        let result = try fixture.merge()
        let context = context(over: result)
        let conflict = try record(context, .count)
        #expect(conflict.property == "animals")
        func animals() throws -> Set<PersistentIdentifier> { Set(try context.related("animals", of: mammals)) }
        try expectResolution(context, conflict, .merged, gives: [rex, tom, lion, tiger], animals)
        context.undoManager?.undo()
        try expectResolution(context, conflict, .content(.related([rex, lion])), gives: [rex, lion], animals)
        #expect(try context.related("category", of: tom).isEmpty)
        try context.save()
        #expect(context.conflicts.isEmpty)
    }

    @Test(
        "a value record on a to-many relationship sets the list to the chosen side's objects that still exist",
        arguments: [MergeConflict.Resolution.ours, .theirs, .base])
    func toManyValue(_ resolution: MergeConflict.Resolution) throws {
        let (fixture, mammals, rex, tom) = try zoo()
        let context = context(over: try fixture.merge())
        let gone = PersistentIdentifier(entityName: "Animal", id: 999_999)
        let conflict = MergeConflict(
            kind: .value, id: tom, property: "friends", base: .related([]),
            ours: .related([]), theirs: .related([gone, rex]))
        context.graph.conflicts = [conflict]
        context.baseline.conflicts = [conflict]
        #expect(try context.related("friends", of: tom) == [rex])
        let expected: [PersistentIdentifier] = resolution == .theirs ? [rex] : []
        _ = mammals
        try expectResolution(context, conflict, resolution, gives: expected) { try context.related("friends", of: tom) }
    }

    // MARK: Whole objects

    @Test("deleted and edited: the edited side brings the object back with its identifier, values and surviving links")
    func deletedAndEdited() throws {
        let (fixture, mammals, rex, tom) = try zoo()
        try fixture.ours.remove(tom)
        try fixture.ours.remove(mammals)
        try fixture.theirs.setValue(.int(7), for: "age", of: tom)
        let context = context(over: try fixture.merge())
        let conflict = try record(context, .deletedAndEdited)
        #expect(conflict.id == tom && conflict.ours == nil)
        #expect(!context.contains(tom))
        func tomState() throws -> [String] {
            guard context.contains(tom) else { return ["gone"] }
            return [
                try context.value("name", of: tom).description, try context.value("age", of: tom).description,
                ids(try context.related("category", of: tom)), ids(try context.related("friends", of: tom)),
            ]
        }
        try expectResolution(
            context, conflict, .theirs,
            gives: [Value.string("Tom").description, Value.int(7).description, "", rex.description], tomState)
        // Saved with the same identifier: another context sees Tom.
        try context.save()
        #expect(try ModelContext(context.container).value("age", of: tom) == .int(7))
    }

    @Test(
        "deleted and edited: base brings back the base version; ours and merged leave it deleted",
        arguments: [MergeConflict.Resolution.base, .ours, .merged])
    func deletedAndEditedOtherChoices(_ resolution: MergeConflict.Resolution) throws {
        let (fixture, _, _, tom) = try zoo()
        try fixture.ours.remove(tom)
        try fixture.theirs.setValue(.int(7), for: "age", of: tom)
        let context = context(over: try fixture.merge())
        let conflict = try record(context, .deletedAndEdited)
        let expected: Value? = resolution == .base ? .int(5) : nil
        try expectResolution(context, conflict, resolution, gives: expected) {
            context.contains(tom) ? try context.value("age", of: tom) : nil
        }
    }

    @Test("cascade: a side brings the removed object back, linked only to objects that still exist")
    func cascade() throws {
        let (fixture, mammals, rex, _) = try zoo(rule: .cascade)
        try fixture.ours.remove(mammals)
        let lion = try fixture.theirs.insert("Animal", ["name": .string("Lion"), "age": .int(2)])
        try fixture.theirs.link(lion, "category", to: mammals)
        try fixture.theirs.link(lion, "friends", to: rex)
        let context = context(over: try fixture.merge())
        let conflict = try record(context, .cascade)
        #expect(conflict.id == lion)
        #expect(!context.contains(lion))
        func lionState() throws -> [String] {
            guard context.contains(lion) else { return ["gone"] }
            return [
                try context.value("name", of: lion).description, ids(try context.related("category", of: lion)),
                ids(try context.related("friends", of: lion)),
            ]
        }
        try expectResolution(context, conflict, .ours, gives: [Value.string("Lion").description, "", rex.description], lionState)
        context.undoManager?.undo()
        try expectResolution(context, conflict, .merged, gives: ["gone"], lionState)
        context.undoManager?.undo()
        try expectResolution(context, conflict, .base, gives: ["gone"], lionState)
    }

    @Test("uniqueness: the removed object comes back once the kept one no longer holds the value; merged leaves it removed")
    func uniqueness() throws {
        let (fixture, _, _, _) = try zoo()
        let ourBird = try fixture.ours.insert("Category", ["name": .string("Bird")])
        let theirBird = try fixture.theirs.insert("Category", ["name": .string("Bird")])
        let context = context(over: try fixture.merge())
        let conflict = try record(context, .uniqueness)
        let (kept, removed) = ourBird.id < theirBird.id ? (ourBird, theirBird) : (theirBird, ourBird)
        #expect(conflict.id == removed)
        func removedName() throws -> Value? { context.contains(removed) ? try context.value("name", of: removed) : nil }
        try expectResolution(context, conflict, .merged, gives: nil, removedName)
        context.undoManager?.undo()

        try context.setValue(.string("Birds"), for: "name", of: kept)
        try context.save()
        try expectResolution(context, conflict, .theirs, gives: .string("Bird"), removedName)
        try context.save()
        #expect(Set(try context.fetchIdentifiers(DynamicFetchDescriptor(entity: "Category"))).isSuperset(of: [kept, removed]))
    }

    @Test("deny: merged keeps the object brought back; base (no object) deletes it, undoably; ours overwrites it")
    func deny() throws {
        let (fixture, mammals, rex, tom) = try zoo(rule: .deny)
        try fixture.ours.remove(rex)
        try fixture.ours.remove(tom)
        try fixture.ours.remove(mammals)
        try fixture.theirs.setValue(.string("Mammalia"), for: "name", of: mammals)
        let lion = try fixture.theirs.insert("Animal", ["name": .string("Lion")])
        try fixture.theirs.link(lion, "category", to: mammals)
        let context = context(over: try fixture.merge())
        let conflict = try record(context, .deny)
        #expect(conflict.id == mammals)
        func mammalsState() throws -> [String] {
            guard context.contains(mammals) else { return ["gone"] }
            return [try context.value("name", of: mammals).description, ids(try context.related("animals", of: mammals))]
        }
        let kept = [Value.string("Mammalia").description, lion.description]
        try expectResolution(context, conflict, .merged, gives: kept, mammalsState)
        context.undoManager?.undo()
        try expectResolution(context, conflict, .ours, gives: kept, mammalsState)
        context.undoManager?.undo()
        try expectResolution(context, conflict, .base, gives: ["gone"], mammalsState)
        // The deny rule still holds at save (Lion is in it), as for any delete.
        #expect(throws: ModelError.self) { try context.save() }
    }

    @Test("danglingLink, linkTaken and count are accepted with merged: the record goes, the document stays")
    func acceptedWithMerged() throws {
        // danglingLink: ours deletes Mammal, theirs files a new animal in it.
        let (fixture, mammals, _, _) = try zoo()
        try fixture.ours.remove(mammals)
        let lion = try fixture.theirs.insert("Animal", ["name": .string("Lion")])
        try fixture.theirs.link(lion, "category", to: mammals)
        let context = context(over: try fixture.merge())
        let dangling = try record(context, .danglingLink)
        #expect(dangling.id == lion)
        try expectResolution(context, dangling, .merged, gives: []) { try context.related("category", of: lion) }
        context.undoManager?.undo()
        try expectResolution(context, dangling, .ours, gives: []) { try context.related("category", of: lion) }

        // linkTaken: two passports given one owner.
        let schema = try Schema([
            .init(
                "Person", attributes: [.init("name", .string)],
                relationships: [.init("passport", to: "Passport", inverse: "owner")]),
            .init(
                "Passport", attributes: [.init("number", .string)],
                relationships: [.init("owner", to: "Person", inverse: "passport")]),
        ])
        let base = ObjectGraph(schema: schema)
        let ann = try base.insert("Person", ["name": .string("Ann")])
        let first = try base.insert("Passport", ["number": .string("1")])
        let second = try base.insert("Passport", ["number": .string("2")])
        let sides = MergeFixture(base)
        try sides.ours.link(first, "owner", to: ann)
        try sides.theirs.link(second, "owner", to: ann)
        let people = self.context(over: try sides.merge())
        let taken = try record(people, .linkTaken)
        #expect(taken.id == second)
        try expectResolution(people, taken, .merged, gives: [[ann], []]) {
            [try people.related("owner", of: first), try people.related("owner", of: second)]
        }
        people.undoManager?.undo()
        // A side sets the relationship to it: the second passport takes Ann from the first.
        try expectResolution(people, taken, .ours, gives: [[], [ann]]) {
            [try people.related("owner", of: first), try people.related("owner", of: second)]
        }
    }

    // MARK: Failures

    @Test("a resolution that fails at once changes nothing: the earlier edit, the record and the undo stack stay")
    func failingAtOnce() throws {
        let (fixture, _, rex, tom) = try zoo()
        try fixture.ours.setValue(.int(4), for: "age", of: rex)
        try fixture.theirs.setValue(.int(6), for: "age", of: rex)
        let context = context(over: try fixture.merge())
        let undoManager = try #require(context.undoManager)
        let conflict = try record(context, .value)
        try context.setValue(.string("Thomas"), for: "name", of: tom)
        context.processPendingChanges()
        let steps = undoManager.undoCount
        #expect(throws: ModelError.self) { try context.resolve(conflict, keeping: .content(.value(.string("old")))) }
        #expect(throws: ModelError.self) { try context.resolve(conflict, keeping: .content(.object([:]))) }
        #expect(try context.value("name", of: tom) == .string("Thomas"))
        #expect(try context.value("age", of: rex) == .int(4))
        #expect(context.conflicts == [conflict])
        #expect(undoManager.undoCount == steps)
        #expect(undoManager.undoActionName == "Set Animal.name")
    }

    @Test("a resolution that fails after bringing an object back takes it away again, and leaves no redo step")
    func failingHalfway() throws {
        let (fixture, mammals, rex, _) = try zoo(rule: .cascade)
        try fixture.ours.remove(mammals)
        let lion = try fixture.theirs.insert("Animal", ["name": .string("Lion")])
        try fixture.theirs.link(lion, "category", to: mammals)
        let context = context(over: try fixture.merge())
        let undoManager = try #require(context.undoManager)
        let conflict = try record(context, .cascade)
        let steps = undoManager.undoCount
        // A category link to an animal: the object comes back, then the link fails.
        let wrong = MergeConflict.Content.object([
            "name": .value(.string("Lion")),
            "category": .related([rex]),
        ])
        #expect(throws: ModelError.self) { try context.resolve(conflict, keeping: .content(wrong)) }
        #expect(!context.contains(lion))
        #expect(context.conflicts == [conflict])
        #expect(!context.hasChanges)
        #expect(undoManager.undoCount == steps)
        #expect(undoManager.redoCount == 0)
    }

    @Test("a conflict the document does not record throws conflictNotRecorded, also once resolved")
    func unknownConflict() throws {
        let (fixture, _, rex, _) = try zoo()
        try fixture.ours.setValue(.int(4), for: "age", of: rex)
        try fixture.theirs.setValue(.int(6), for: "age", of: rex)
        let context = context(over: try fixture.merge())
        let conflict = try record(context, .value)
        var other = conflict
        other.theirs = .value(.int(7))
        #expect(throws: ModelError.conflictNotRecorded(other)) { try context.resolve(other, keeping: .ours) }
        try context.resolve(conflict, keeping: .theirs)
        #expect(throws: ModelError.conflictNotRecorded(conflict)) { try context.resolve(conflict, keeping: .ours) }
        #expect(try context.value("age", of: rex) == .int(6))
    }

    // MARK: Contexts

    /// Two contexts over a merge that recorded three attribute conflicts (Rex's age, name and Tom's age).
    func twoContexts() throws -> (ModelContext, ModelContext, [MergeConflict], rex: PersistentIdentifier, tom: PersistentIdentifier) {
        let (fixture, _, rex, tom) = try zoo()
        try fixture.ours.setValue(.int(4), for: "age", of: rex)
        try fixture.theirs.setValue(.int(6), for: "age", of: rex)
        try fixture.ours.setValue(.string("R"), for: "name", of: rex)
        try fixture.theirs.setValue(.string("X"), for: "name", of: rex)
        try fixture.ours.setValue(.int(8), for: "age", of: tom)
        try fixture.theirs.setValue(.int(9), for: "age", of: tom)
        let first = context(over: try fixture.merge())
        let second = ModelContext(first.container)
        second.undoManager = UndoManager()
        let records = first.conflicts
        #expect(records.count == 3)
        #expect(second.conflicts == records)
        return (first, second, records, rex, tom)
    }

    @Test("a resolution one context saves is seen by another: the record goes there too, with the value")
    func savedResolutionIsSeen() throws {
        let (first, second, records, rex, _) = try twoContexts()
        try first.resolve(records[0], keeping: .theirs)
        try first.save()
        #expect(!first.hasChanges)
        #expect(second.conflicts == Array(records.dropFirst()))
        #expect(try second.value("age", of: rex) == .int(6))
        #expect(!second.hasChanges)
        #expect(ModelContext(first.container).conflicts == Array(records.dropFirst()))
    }

    @Test("this context's unsaved resolution of a conflict wins over another context's saved resolution of it")
    func unsavedResolutionWins() throws {
        let (first, second, records, rex, _) = try twoContexts()
        let age = try #require(records.first { $0.property == "age" && $0.id == rex })
        try second.resolve(age, keeping: .base)
        try first.resolve(age, keeping: .theirs)
        try first.save()
        #expect(!second.conflicts.contains(age))
        #expect(try second.value("age", of: rex) == .int(3))
        try second.save()
        #expect(try ModelContext(first.container).value("age", of: rex) == .int(3))
    }

    @Test("resolutions of different conflicts in two contexts both hold: a save keeps what the other context resolved")
    func resolutionsInTwoContextsMerge() throws {
        let (first, second, records, rex, tom) = try twoContexts()
        try second.resolve(records[2], keeping: .base)
        try first.resolve(records[0], keeping: .theirs)
        try first.save()
        // Seen at once, with this context's own resolution kept.
        #expect(second.conflicts == [records[1]])
        try second.save()
        let fresh = ModelContext(first.container)
        #expect(fresh.conflicts == [records[1]])
        #expect(first.conflicts == [records[1]])
        #expect(try fresh.value("age", of: rex) == .int(6))
        #expect(try fresh.value("age", of: tom) == .int(5))
    }

    @Test("undo of a saved resolution puts the record back, and a save carries it to the other context")
    func undoneResolutionTravels() throws {
        let (first, second, records, _, _) = try twoContexts()
        try first.resolve(records[1], keeping: .ours)
        try first.save()
        #expect(second.conflicts.count == 2)
        first.undoManager?.undo()
        #expect(first.hasChanges)
        try first.save()
        #expect(second.conflicts == records)
    }

    @Test("rollback drops an unsaved resolution: value and record come back")
    func rollbackRestoresRecord() throws {
        let (first, _, records, _, _) = try twoContexts()
        try first.resolve(records[0], keeping: .theirs)
        first.rollback()
        #expect(first.conflicts == records)
        #expect(!first.hasChanges)
    }

    @Test("the main context (autosave on, no undo manager) resolves, and its autosave carries the resolution")
    @MainActor func mainContextAutosaves() throws {
        let (fixture, _, rex, _) = try zoo()
        try fixture.ours.setValue(.int(4), for: "age", of: rex)
        try fixture.theirs.setValue(.int(6), for: "age", of: rex)
        let container = Self.container(over: try fixture.merge().graph)
        let main = container.mainContext
        #expect(main.undoManager == nil)
        let conflict = try #require(main.conflicts.first)
        try main.resolve(conflict, keeping: .theirs)
        #expect(main.hasChanges)
        main.processPendingChanges()
        #expect(!main.hasChanges)
        let other = ModelContext(container)
        #expect(other.conflicts.isEmpty)
        #expect(try other.value("age", of: rex) == .int(6))
    }
}
