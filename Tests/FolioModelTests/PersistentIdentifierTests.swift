import Foundation
import Folio
import Testing
import FolioTestSupport

@Model final class Stamp {
    var name: String
    init(name: String) { self.name = name }
}

/// Identifiers are never reused: not within a session, not across saves, not
/// after the container is dropped and the package opened again. The package
/// records the counter (`next-id`); one written without it opens with the
/// counter above its largest identifier.
@MainActor @Suite struct PersistentIdentifierTests {
    let folder: TemporaryFolder

    init() throws { folder = try TemporaryFolder() }

    var url: URL { folder.url.appendingPathComponent("Stamps.folio") }

    func container() throws -> ModelContainer {
        try ModelContainer(for: Stamp.self, configurations: ModelConfiguration(url: url))
    }

    /// The identifier a new model gets once the container is dropped and the package opened again.
    /// Whether `new`, handed out after `old`'s session, can never be `old`: a new
    /// writer draws another lane; the same shared document, still alive when a
    /// background write is releasing it, goes on past `old` in its lane.
    static func comesAfter(_ new: UInt64, _ old: UInt64) -> Bool {
        new != old && (new >> 32 != old >> 32 || new & 0xFFFF_FFFF > old & 0xFFFF_FFFF)
    }

    func identifierAfterReopening() throws -> PersistentIdentifier {
        let next = Stamp(name: "next")
        try container().mainContext.insert(next)
        return next.persistentModelID
    }

    @Test("a model's identifier deleted and saved is not given to a new model after the container is reopened")
    func typedDeleteIsNotReused() throws {
        let deleted: UInt64
        do {
            let context = try container().mainContext
            let first = Stamp(name: "first"), second = Stamp(name: "second")
            context.insert(first)
            context.insert(second)
            try context.save()
            deleted = second.persistentModelID.id
            #expect(deleted > first.persistentModelID.id)
            context.delete(second)
            try context.save()
        }
        let context = try container().mainContext
        #expect(try context.fetch(FetchDescriptor<Stamp>()).map(\.name) == ["first"])
        let third = Stamp(name: "third")
        context.insert(third)
        try context.save()
        // Another writer: another lane, so never the deleted object's identifier.
        #expect(Self.comesAfter(third.persistentModelID.id, deleted))
    }

    @Test("an object deleted through the dynamic API and saved keeps its identifier to itself after reopening")
    func dynamicDeleteIsNotReused() throws {
        let deleted: PersistentIdentifier
        do {
            let context = try ModelContainer(for: Stamp.self, configurations: ModelConfiguration(url: url)).mainContext
            _ = try context.insert("Stamp", ["name": .string("first")])
            deleted = try context.insert("Stamp", ["name": .string("second")])
            try context.save()
            try context.delete(deleted)
            try context.save()
        }
        let reopened = try ModelContainer(contentsOf: url).mainContext
        #expect(try reopened.fetchIdentifiers(DynamicFetchDescriptor(entity: "Stamp")).count == 1)
        let next = try reopened.insert("Stamp", ["name": .string("third")])
        #expect(Self.comesAfter(next.id, deleted.id))
    }

    @Test("an insert undone before the save uses up its identifier, in this session and the next")
    func undoneInsertIsNotReused() throws {
        let undone: PersistentIdentifier
        do {
            let context = try container().mainContext
            context.undoManager = UndoManager()
            context.insert(Stamp(name: "kept"))
            context.processPendingChanges()
            let extra = Stamp(name: "undone")
            context.insert(extra)
            context.processPendingChanges()
            undone = extra.persistentModelID
            context.undoManager?.undo()
            try context.save()
        }
        let after = try identifierAfterReopening().id
        #expect(Self.comesAfter(after, undone.id))
    }

    @Test("an insert rolled back uses up its identifier after reopening, though the save that follows has nothing else to write")
    func rolledBackInsertIsNotReused() throws {
        let discarded: PersistentIdentifier
        do {
            let context = try container().mainContext
            context.insert(Stamp(name: "kept"))
            try context.save()
            let extra = Stamp(name: "discarded")
            context.insert(extra)
            discarded = extra.persistentModelID
            context.rollback()
            #expect(!context.hasChanges)
            try context.save()
        }
        let after = try identifierAfterReopening().id
        #expect(after != discarded.id && after >> 32 != discarded.id >> 32)
    }

    @Test("undoing a saved delete brings the object back with its identifier, which reopening keeps")
    func undoneDeleteKeepsItsIdentifier() throws {
        let id: PersistentIdentifier
        do {
            let context = try container().mainContext
            context.undoManager = UndoManager()
            let stamp = Stamp(name: "back")
            context.insert(stamp)
            try context.save()
            id = stamp.persistentModelID
            context.delete(stamp)
            try context.save()
            context.undoManager?.undo()
            #expect(try context.value("name", of: id) == .string("back"))
            try context.save()
        }
        let context = try container().mainContext
        #expect(try context.fetch(FetchDescriptor<Stamp>()).map(\.persistentModelID) == [id])
    }

    @Test("an insert undone after the last save, in a context without autosave, uses up its identifier after reopening")
    func undoneInsertWithNothingElseToSaveIsNotReused() throws {
        let undone: PersistentIdentifier
        do {
            let container = try container()
            let context = ModelContext(container)
            context.undoManager = UndoManager()
            _ = try context.insert("Stamp", ["name": .string("kept")])
            try context.save()
            undone = try context.insert("Stamp", ["name": .string("undone")])
            context.undoManager?.undo()
            #expect(!context.hasChanges)
            try context.save()
        }
        let context = try ModelContainer(contentsOf: url).mainContext
        let next = try context.insert("Stamp", ["name": .string("next")])
        #expect(next.id != undone.id && next.id >> 32 != undone.id >> 32)
    }

    @Test("a format-3 manifest keeps no counter: after reopening, new ids come from the new writer's lane, never limited by one")
    func noCounterLimitsInserts() throws {
        let a: PersistentIdentifier
        do {
            let context = try container().mainContext
            a = try context.insert("Stamp", ["name": .string("a")])
            try context.save()
        }
        let manifest = try String(contentsOf: url.appendingPathComponent("manifest.xml"), encoding: .utf8)
        #expect(manifest.contains(#"<folio format="3">"#) && !manifest.contains("next-id"))
        let context = try ModelContainer(contentsOf: url).mainContext
        let b = try context.insert("Stamp", ["name": .string("b")])
        let c = try context.insert("Stamp", ["name": .string("c")])
        #expect((1..<(UInt64(1) << 31)).contains(b.id >> 32) && c.id == b.id + 1)
        #expect(b.id >> 32 != a.id >> 32, "a later session is a writer of its own")
        // Exhaustion is a writer without a free lane (LaneIdentifierTests), said so.
        #expect(
            "\(GraphError.identifiersExhausted(entity: "Stamp"))" == "Stamp: no identifier is left for a new object: "
                + "no free lane was found for this writer (identifiers are never reused)")
        #expect(try context.fetchIdentifiers(DynamicFetchDescriptor(entity: "Stamp")).count == 3)
    }
}
