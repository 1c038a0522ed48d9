import Folio
import Foundation
import Testing
@testable import FolioREPL
import FolioTestSupport

/// The REPL never loses work (docs/RELIABILITY.md): quitting with unsaved
/// changes, `revert`, `save as` and a failed save never lose the last saved
/// package or the edits in memory.
///
/// "On disk" is compared byte for byte (manifest.xml with its parts, and the package's
/// entries); "in memory" is the document as it would be saved now, which the
/// canonical writer makes byte-comparable too.
@Suite struct DataSafetyTests {
    /// The package's files: the manifest and parts' bytes and the folder's entries (hidden ones included).
    struct OnDisk: Equatable {
        var document: Data?
        var entries: [String]

        init(_ url: URL) {
            document = try? packageDocument(url)
            entries = ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).sorted()
        }
    }

    /// The document as the session would save it now (written to a scratch package).
    static func inMemory(_ session: Session) throws -> Data {
        let scratch = temporaryPackageURL("safety")
        defer { try? FileManager.default.removeItem(at: scratch) }
        try session.interpreter.context.exportPackage(to: scratch)
        return try packageDocument(scratch)
    }

    /// Opens a package read-only (the session may hold it open for writing).
    static func onDisk(_ url: URL) throws -> ModelContext {
        ModelContext(try ModelContainer(contentsOf: url, allowsSave: false))
    }

    static func name(_ context: ModelContext, _ id: UInt64) throws -> Value {
        try context.value("name", of: PersistentIdentifier(entityName: "Animal", id: id))
    }

    /// A session with one save behind it (Newt renamed Eft, a Kiwi) and unsaved edits after it (Frog, a Dodo).
    static func sessionWithSavedAndUnsavedWork(_ url: URL? = nil) throws -> (session: Session, saved: OnDisk) {
        let session = try url.map { try Session(url: $0) } ?? Session("Animals")
        try session.run("set 2 name=Eft")
        try session.run("insert Animal name=Kiwi diet=omnivorous category=6")
        #expect(try session.run("save") == "saved \(session.url.path)\n")
        let saved = OnDisk(session.url)
        try session.run("set 3 name=Frog")
        try session.run("insert Animal name=Dodo diet=herbivorous category=6")
        #expect(session.interpreter.hasUnsavedChanges)
        return (session, saved)
    }

    /// The unsaved edits of ``sessionWithSavedAndUnsavedWork(_:)`` are all in memory.
    static func expectUnsavedEdits(_ session: Session, _ note: Comment, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let context = session.interpreter.context
        #expect(session.interpreter.hasUnsavedChanges, note, sourceLocation: sourceLocation)
        #expect(try name(context, 2) == .string("Eft"), note, sourceLocation: sourceLocation)
        #expect(try name(context, 3) == .string("Frog"), note, sourceLocation: sourceLocation)
        #expect(try session.count("Animal", "name == 'Dodo'") == 1, note, sourceLocation: sourceLocation)
        #expect(try session.count("Animal") == 32, note, sourceLocation: sourceLocation)
    }

    /// The package holds the first save exactly: Eft and Kiwi, no Frog, no Dodo.
    static func expectFirstSave(_ url: URL, _ note: Comment, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let context = try onDisk(url)
        #expect(try name(context, 2) == .string("Eft"), note, sourceLocation: sourceLocation)
        #expect(try name(context, 3) == .string("Tree Frog"), note, sourceLocation: sourceLocation)
        #expect(try context.fetchCount(DynamicFetchDescriptor(entity: "Animal")) == 31, note, sourceLocation: sourceLocation)
    }

    static func remove(_ session: Session) {
        try? FileManager.default.removeItem(at: session.url.deletingLastPathComponent())
    }

    // MARK: quit

    @Test("quit with unsaved changes: declined, the edits stay; accepted, the package is the last saved one and nothing is written")
    func quitWithUnsavedChanges() throws {
        let (session, saved) = try Self.sessionWithSavedAndUnsavedWork()
        defer { Self.remove(session) }
        let memory = try Self.inMemory(session)

        session.answer = false
        #expect(try session.outcome("quit") == .proceed)
        #expect(session.questions == ["Quit without saving? [y/N] "])
        #expect(session.transcript.hasSuffix("unsaved changes: 1 inserted, 2 changed, 0 deleted\ncancelled\n"), "\(session.transcript)")
        try Self.expectUnsavedEdits(session, "declined quit")
        #expect(try Self.inMemory(session) == memory)
        #expect(OnDisk(session.url) == saved, "a declined quit writes nothing")

        session.answer = true
        #expect(try session.outcome("quit") == .quit)
        #expect(OnDisk(session.url) == saved, "an accepted quit writes nothing: the last save stays")
        try Self.expectFirstSave(session.url, "after quit")
    }

    @Test("quit! and quit with --yes leave the last saved package as it was")
    func quitWithoutAsking() throws {
        for line in ["quit!", "quit"] {
            let (session, saved) = try Self.sessionWithSavedAndUnsavedWork()
            defer { Self.remove(session) }
            if line == "quit" { session.interpreter.options.assumeYes = true }
            #expect(try session.outcome(line) == .quit)
            #expect(session.questions.isEmpty)
            #expect(OnDisk(session.url) == saved, "\(line)")
            try Self.expectFirstSave(session.url, "\(line)")
        }
    }

    // MARK: revert

    @Test("revert: the disk is unchanged and memory is back to the last save; declined, nothing changes")
    func revert() throws {
        let (session, saved) = try Self.sessionWithSavedAndUnsavedWork()
        defer { Self.remove(session) }
        let memory = try Self.inMemory(session)

        session.answer = false
        #expect(try session.run("revert") == "discards 1 inserted, 2 changed, 0 deleted\ncancelled\n")
        try Self.expectUnsavedEdits(session, "declined revert")
        #expect(try Self.inMemory(session) == memory)
        #expect(OnDisk(session.url) == saved)

        session.answer = true
        #expect(try session.run("revert").hasSuffix("reverted to Animals.folio as last saved (undo history cleared)\n"))
        #expect(OnDisk(session.url) == saved, "revert writes nothing")
        #expect(!session.interpreter.hasUnsavedChanges)
        #expect(try Self.inMemory(session) == saved.document, "memory is exactly the last save")
        #expect(try Self.name(session.interpreter.context, 2) == .string("Eft"))
        #expect(try Self.name(session.interpreter.context, 3) == .string("Tree Frog"))
        #expect(try session.count("Animal", "name == 'Dodo'") == 0)
        #expect(try session.outcome("quit") == .quit, "nothing left to lose: quit does not ask")
    }

    // MARK: save as

    @Test("save as: the original keeps its last save, the copy has every edit, and later saves go to the copy")
    func saveAs() throws {
        let (session, saved) = try Self.sessionWithSavedAndUnsavedWork()
        defer { Self.remove(session) }
        let original = session.url
        let memory = try Self.inMemory(session)
        let copy = original.deletingLastPathComponent().appendingPathComponent("Copy.folio")

        #expect(try session.run("save as \(copy.path)").hasPrefix("saved as \(copy.path)"))
        #expect(OnDisk(original) == saved, "the original is untouched")
        try Self.expectFirstSave(original, "original after save as")
        #expect(OnDisk(copy).document == memory, "the copy is exactly what was in memory")
        // A new document: its history starts with its own first save.
        #expect(OnDisk(copy).entries == ["manifest.xml", "parts"])
        #expect(session.interpreter.documentURL == copy)
        #expect(!session.interpreter.hasUnsavedChanges)

        try session.run("set 4 name=Olm")
        #expect(try session.run("save") == "saved \(copy.path)\n")
        #expect(OnDisk(original) == saved, "saving the copy never touches the original")
        #expect(try Self.name(try Self.onDisk(copy), 4) == .string("Olm"))
        #expect(try Self.name(try Self.onDisk(copy), 3) == .string("Frog"))
    }

    @Test("save as onto a folder that is not a Folio package is refused without asking, and nothing in it is touched")
    func saveAsOntoForeignFolder() throws {
        let (session, saved) = try Self.sessionWithSavedAndUnsavedWork()
        defer { Self.remove(session) }
        let memory = try Self.inMemory(session)
        let folder = session.url.deletingLastPathComponent().appendingPathComponent("Photos")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("blobs"), withIntermediateDirectories: true)
        let files = ["holiday.jpg": Data("jpeg".utf8), "blobs/cat.png": Data("png".utf8), ".draft.tmp": Data("draft".utf8)]
        for (name, data) in files { try data.write(to: folder.appendingPathComponent(name)) }
        session.answer = true

        let error = try #require(session.error("save as \(folder.path)"))
        #expect(error.message.hasPrefix("\(folder.path): exists and is not a Folio package"), "\(error)")
        #expect(error.column == 9)
        #expect(session.questions.isEmpty, "refused without asking")
        for (name, data) in files { #expect(try Data(contentsOf: folder.appendingPathComponent(name)) == data, "\(name)") }
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: folder.path)) == ["holiday.jpg", "blobs", ".draft.tmp"])
        #expect(session.interpreter.documentURL == session.url, "still editing the original")
        try Self.expectUnsavedEdits(session, "after the refused save as")
        #expect(try Self.inMemory(session) == memory)
        #expect(OnDisk(session.url) == saved)
    }

    // MARK: failed saves

    @Test("a save that fails while writing keeps the last saved package and every edit; fixed, the same session saves")
    func failedSave() throws {
        let (session, saved) = try Self.sessionWithSavedAndUnsavedWork()
        defer { Self.remove(session) }
        let memory = try Self.inMemory(session)
        let undoSteps = session.interpreter.context.undoManager?.undoCount
        // Something occupies the temporary file's name: the save gets past its checks and fails creating it.
        let obstacle = session.url.appendingPathComponent(".manifest.xml.tmp")
        try FileManager.default.createDirectory(at: obstacle, withIntermediateDirectories: false)
        let savedWithObstacle = OnDisk(session.url)

        let error = try #require(session.error("save"))
        #expect(error.message.hasPrefix(obstacle.path + ": create failed: "), "\(error)")
        #expect(OnDisk(session.url) == savedWithObstacle, "the failed save wrote nothing")
        #expect(OnDisk(session.url).document == saved.document)
        try Self.expectFirstSave(session.url, "after the failed save")
        try Self.expectUnsavedEdits(session, "after the failed save")
        #expect(try Self.inMemory(session) == memory)
        #expect(session.interpreter.context.undoManager?.undoCount == undoSteps, "the undo history is kept")
        #expect(session.interpreter.prompt == "Animals*> ")

        // Quitting still asks: the edits are still unsaved.
        #expect(try session.outcome("quit") == .proceed)
        #expect(session.questions.last == "Quit without saving? [y/N] ")

        // The obstacle gone, the same session saves everything.
        try FileManager.default.removeItem(at: obstacle)
        #expect(try session.run("save") == "saved \(session.url.path)\n")
        #expect(OnDisk(session.url).document == memory)
        #expect(OnDisk(session.url).entries == ["history", "manifest.xml", "parts"], "the save's transaction is in this writer's history file")
    }

    @Test("a save after the package's folder vanished fails clearly; the edits stay, and save as to a good path keeps them all")
    func saveAfterFolderVanished() throws {
        let folder = try temporaryFolderURL("safety")
        defer { try? FileManager.default.removeItem(at: folder) }
        let parent = folder.appendingPathComponent("Parent")
        try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
        let url = parent.appendingPathComponent("Animals.folio")
        try FileManager.default.copyItem(at: sampleFolder.appendingPathComponent("Animals.folio"), to: url)
        let (session, _) = try Self.sessionWithSavedAndUnsavedWork(url)
        let memory = try Self.inMemory(session)
        try FileManager.default.removeItem(at: parent)

        let error = try #require(session.error("save"))
        #expect(error.message.hasPrefix(url.path + ": "), "\(error)")
        #expect(!FileManager.default.fileExists(atPath: parent.path), "a save never recreates the package's parents")
        try Self.expectUnsavedEdits(session, "after the failed save")
        #expect(session.interpreter.documentURL == url)

        let rescue = folder.appendingPathComponent("Rescued.folio")
        #expect(try session.run("save as \(rescue.path)").hasPrefix("saved as \(rescue.path)"))
        #expect(OnDisk(rescue).document == memory, "the rescued copy holds every edit")
        #expect(session.interpreter.documentURL == rescue)
    }

    @Test("save as to a place that cannot be written fails clearly and goes on editing the original, edits kept; save as elsewhere works")
    func failedSaveAs() throws {
        let (session, saved) = try Self.sessionWithSavedAndUnsavedWork()
        defer { Self.remove(session) }
        let memory = try Self.inMemory(session)
        let unwritable = "/proc/folio-test-\(UUID().uuidString).folio"  // /proc refuses new entries, even to root

        let error = try #require(session.error("save as \(unwritable)"))
        #expect(error.message.hasPrefix("\(unwritable): mkdir failed: "), "\(error)")
        #expect(error.column == 9)
        #expect(session.interpreter.documentURL == session.url, "still editing the original")
        try Self.expectUnsavedEdits(session, "after the failed save as")
        #expect(try Self.inMemory(session) == memory)
        #expect(OnDisk(session.url) == saved)

        let good = session.url.deletingLastPathComponent().appendingPathComponent("Good.folio")
        #expect(try session.run("save as \(good.path)").hasPrefix("saved as \(good.path)"))
        #expect(OnDisk(good).document == memory)
        #expect(OnDisk(session.url.deletingLastPathComponent().appendingPathComponent("Animals.folio")) == saved)
    }

    @Test("save as over a package another writer has open is refused: that package and the edits here are both kept")
    func saveAsOverLockedPackage() throws {
        let (session, _) = try Self.sessionWithSavedAndUnsavedWork()
        defer { Self.remove(session) }
        let memory = try Self.inMemory(session)
        let other = session.url.deletingLastPathComponent().appendingPathComponent("Other.folio")
        try FileManager.default.copyItem(at: sampleFolder.appendingPathComponent("Countries.folio"), to: other)
        let holder = try ModelContainer(contentsOf: other)  // another writer has it open
        let before = OnDisk(other)
        session.answer = true  // "Replace it?" yes: but it is in use

        let error = session.error("save as \(other.path)")
        #expect(error?.message.contains("open for writing elsewhere") == true, "\(String(describing: error))")
        #expect(error?.message.hasPrefix("saved ") == false, "it wrote first, then found the lock: \(String(describing: error))")
        #expect(OnDisk(other) == before, "the other writer's package was replaced")
        #expect(session.interpreter.documentURL == session.url, "still editing the original")
        try Self.expectUnsavedEdits(session, "after save as over a locked package")
        #expect(try Self.inMemory(session) == memory)
        _ = holder
    }

    @Test("after a failed save, revert goes back to the last saved package, not to anything half written")
    func revertAfterFailedSave() throws {
        let (session, saved) = try Self.sessionWithSavedAndUnsavedWork()
        defer { Self.remove(session) }
        let obstacle = session.url.appendingPathComponent(".manifest.xml.tmp")
        try FileManager.default.createDirectory(at: obstacle, withIntermediateDirectories: false)
        #expect(session.error("save") != nil)
        session.answer = true
        #expect(try session.run("revert").hasSuffix("(undo history cleared)\n"))
        #expect(try Self.inMemory(session) == saved.document)
        try FileManager.default.removeItem(at: obstacle)
        #expect(try session.run("save") == "no changes to save\n")
        #expect(OnDisk(session.url) == saved)
    }
}
