import Foundation
import Testing
import Folio
@testable import FolioCore
import FolioTestSupport

/// The package watcher wakes its handler when a save commits — another
/// container's, another program's, another process's — and at no other time;
/// cancelling it stops it and closes what it opened.
@Suite struct PackageWatcherTests {
    /// Counts a watcher's wake-ups, and waits for a number of them (generously: only when one is expected).
    final class WakeCounter: @unchecked Sendable {
        private let condition = NSCondition()
        private var count = 0

        var value: Int { condition.withLock { count } }

        func wake() {
            condition.withLock {
                count += 1
                condition.broadcast()
            }
        }

        /// Whether `expected` wake-ups came before a minute passed.
        func waitFor(_ expected: Int) -> Bool {
            let deadline = Date(timeIntervalSinceNow: Patience.seconds)
            return condition.withLock {
                while count < expected {
                    guard condition.wait(until: deadline) else { return count >= expected }
                }
                return true
            }
        }
    }

    /// A package with one animal, saved by a writer context that stays open.
    static func savedPackage() throws -> (url: URL, writer: ModelContext) {
        let url = temporaryPackageURL()
        let writer = ModelContext(try ModelContainer(for: try zooSchema(), configurations: ModelConfiguration(url: url)))
        try writer.insert("Animal", ["name": .string("Rex")])
        try writer.save()
        return (url, writer)
    }

    @Test("each save of another container wakes the handler exactly once, and nothing wakes it in between")
    func eachSaveWakesOnce() throws {
        let (url, writer) = try Self.savedPackage()
        defer { try? FileManager.default.removeItem(at: url) }
        let counter = WakeCounter()
        let watcher = try PackageWatcher(folder: url) { counter.wake() }
        defer { watcher.cancel() }
        #expect(counter.value == 0, "no save yet")
        for save in 1...3 {
            try writer.insert("Animal", ["name": .string("A\(save)")])
            try writer.save()
            #expect(counter.waitFor(save), "save \(save) woke the handler")
            // Events of one folder arrive in order: had anything before this save woken the handler, this would be more.
            #expect(counter.value == save)
        }
        #expect(watcher.wakeUps == 3)
    }

    @Test("files other than the commit file written in the package folder do not wake the handler; the commit that follows does")
    func otherFilesDoNotWake() throws {
        let (url, _) = try Self.savedPackage()
        defer { try? FileManager.default.removeItem(at: url) }
        let counter = WakeCounter()
        let watcher = try PackageWatcher(folder: url) { counter.wake() }
        defer { watcher.cancel() }
        try Data("notes".utf8).write(to: url.appendingPathComponent("notes.txt"))
        try FileManager.default.removeItem(at: url.appendingPathComponent("notes.txt"))
        try FileManager.default.createDirectory(at: url.appendingPathComponent("scratch"), withIntermediateDirectories: false)
        try FileManager.default.removeItem(at: url.appendingPathComponent("scratch"))
        // Another program commits: the manifest is renamed into place.
        let graph = try DocumentPackage(url: url).read()
        _ = try graph.insert("Animal")
        try DocumentPackage(url: url).write(graph)
        #expect(counter.waitFor(1))
        // The earlier events were read first, and did not count.
        #expect(counter.value == 1)
    }

    @Test("another process's autosaves wake the handler, however many of them come in a burst")
    func anotherProcessWakes() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let animals = try folder.copySample("Animals.folio")
        let counter = WakeCounter()
        let watcher = try PackageWatcher(folder: animals) { counter.wake() }
        defer { watcher.cancel() }
        let run = try runProgram(BuiltProgram.autosaveChild, [animals.path, "1", "20"], in: folder.url)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(counter.waitFor(1), "the child's saves woke the handler")
        // Coalesced: at most one wake-up per commit the child made (20 autosaves, often fewer writes).
        #expect(counter.value <= 20)
        let reader = ModelContext(try ModelContainer(contentsOf: animals, allowsSave: false))
        #expect(try reader.fetchCount(DynamicFetchDescriptor(entity: "AnimalCategory", predicate: try ObjectPredicate("name == 'v20'"))) == 1)
    }

    @Test("after cancel returns the handler is never called again, while an uncancelled watcher sees the save")
    func cancelStops() throws {
        let (url, writer) = try Self.savedPackage()
        defer { try? FileManager.default.removeItem(at: url) }
        let cancelled = WakeCounter(), witness = WakeCounter()
        let watcher = try PackageWatcher(folder: url) { cancelled.wake() }
        let other = try PackageWatcher(folder: url) { witness.wake() }
        defer { other.cancel() }
        watcher.cancel()
        watcher.cancel()  // idempotent
        try writer.insert("Animal")
        try writer.save()
        #expect(witness.waitFor(1), "the save was seen")
        #expect(cancelled.value == 0)
        #expect(watcher.wakeUps == 0)
    }

    @Test("a handler may cancel its own watcher, and is then not called again")
    func cancelFromTheHandler() throws {
        let (url, writer) = try Self.savedPackage()
        defer { try? FileManager.default.removeItem(at: url) }
        let counter = WakeCounter(), witness = WakeCounter()
        nonisolated(unsafe) var watcher: PackageWatcher?
        let box = NSLock()
        watcher = try PackageWatcher(folder: url) {
            counter.wake()
            box.withLock { watcher }?.cancel()
        }
        let other = try PackageWatcher(folder: url) { witness.wake() }
        defer { other.cancel() }
        // Each save once the last was seen: two saves in a row may reach a watcher as one wake.
        for saves in 1...2 {
            try writer.insert("Animal")
            try writer.save()
            #expect(witness.waitFor(saves))
        }
        #expect(counter.waitFor(1))
        #expect(counter.value == 1)
        box.withLock { watcher = nil }
    }

    @Test("a cancelled watcher has closed its descriptor when cancel returns; a released one stops and closes it as it goes")
    func descriptorsAreClosed() throws {
        let (url, writer) = try Self.savedPackage()
        defer { try? FileManager.default.removeItem(at: url) }
        let watchers = try (0..<10).map { _ in try PackageWatcher(folder: url) {} }
        #expect(watchers.allSatisfy { !$0.isClosed })
        for watcher in watchers { watcher.cancel() }
        #expect(watchers.allSatisfy { $0.isClosed })

        let released = WakeCounter(), witness = WakeCounter()
        var watcher: PackageWatcher? = try PackageWatcher(folder: url) { released.wake() }
        weak let gone = watcher
        watcher = nil
        #expect(gone == nil)
        let other = try PackageWatcher(folder: url) { witness.wake() }
        defer { other.cancel() }
        try writer.insert("Animal")
        try writer.save()
        #expect(witness.waitFor(1))
        #expect(released.value == 0)
    }

    @Test("a folder that does not exist, or a file, cannot be watched; the error names it")
    func missingFolderIsRefused() throws {
        let url = temporaryPackageURL()
        #expect(throws: PackageError.self) { _ = try PackageWatcher(folder: url) {} }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let file = try folder.write("text", to: "file.txt")
        do {
            _ = try PackageWatcher(folder: file) {}
            Issue.record("a file was watched")
        } catch {
            #expect("\(error)".contains(file.path))
        }
    }
}
