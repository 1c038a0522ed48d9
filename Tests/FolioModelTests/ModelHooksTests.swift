import Foundation
import Folio
import Synchronization
import Testing
import FolioTestSupport

/// The context layer reaches the models it handed out only through the hooks
/// the typed layer installs with the first model a context registers; these
/// tests hold every way a model can first reach a context to installing them.
@Suite struct ModelHooksTests {
    /// Whether Observation reported a change.
    final class Flag: Sendable {
        let raised = Mutex(false)
        var isRaised: Bool { raised.withLock { $0 } }
    }

    /// A flag raised when the next edit changes what reading `name` saw.
    static func observing(_ stamp: Stamp) -> Flag {
        let flag = Flag()
        withObservationTracking {
            _ = stamp.name
        } onChange: {
            flag.raised.withLock { $0 = true }
        }
        return flag
    }

    @Test("a model a fresh context only fetched is told of a dynamic edit and an undo of its object")
    func fetchedModelIsNotified() throws {
        let container = try ModelContainer(for: Stamp.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let writer = ModelContext(container)
        let id = try writer.insert("Stamp", ["name": .string("first")])
        try writer.save()

        let context = ModelContext(container)
        context.undoManager = UndoManager()
        let stamp = try #require(try context.fetch(FetchDescriptor<Stamp>()).first)
        let changedByEdit = Self.observing(stamp)
        try context.setValue(.string("second"), for: "name", of: id)
        #expect(changedByEdit.isRaised)
        #expect(stamp.name == "second")

        let changedByUndo = Self.observing(stamp)
        context.undoManager?.undo()
        #expect(changedByUndo.isRaised)
        #expect(stamp.name == "first")
    }

    @Test("a rollback tells the observers of a model it changes back, and of one another context saved, and both read the saved state")
    @MainActor func rollbackTellsObservers() throws {
        let container = try ModelContainer(for: Stamp.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = container.mainContext
        let edited = Stamp(name: "saved")
        let other = Stamp(name: "other")
        context.insert(edited)
        context.insert(other)
        try context.save()
        edited.name = "unsaved"
        let editedChanged = Self.observing(edited)
        let otherChanged = Self.observing(other)
        // Another context saves a change to `other`, which this context has not merged.
        let writer = ModelContext(container)
        try writer.setValue(.string("saved elsewhere"), for: "name", of: other.persistentModelID)
        try writer.save()
        context.rollback()
        #expect(editedChanged.isRaised)
        #expect(otherChanged.isRaised)
        #expect(edited.name == "saved")
        #expect(other.name == "saved elsewhere")
    }

    @Test("a model fetched from a container opened without classes is told of edits and detached by a rollback")
    func containerWithoutClasses() throws {
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("Stamps.folio")
        do {
            let context = ModelContext(try ModelContainer(for: Stamp.self, configurations: ModelConfiguration(url: url)))
            context.insert(Stamp(name: "kept"))
            try context.save()
        }
        let context = ModelContext(try ModelContainer(contentsOf: url))
        let stamp = try #require(try context.fetch(FetchDescriptor<Stamp>()).first)
        let changed = Self.observing(stamp)
        try context.setValue(.string("edited"), for: "name", of: stamp.persistentModelID)
        #expect(changed.isRaised)

        let unsaved = Stamp(name: "unsaved")
        context.insert(unsaved)
        context.rollback()
        #expect(unsaved.modelContext == nil)
        #expect(unsaved.name == "unsaved")
        #expect(stamp.name == "kept")
    }
}
