import Foundation
import Testing
import Folio
@testable import FolioCore
import FolioTestSupport

/// Review of the persistent history (issue 15, item 1): behaviour the
/// documentation promises, probed where the code looked fragile.
@Suite struct HistoryReviewTests {
    typealias Transaction = DefaultHistoryTransaction

    static func history(_ context: ModelContext, _ descriptor: HistoryDescriptor<Transaction> = .init()) throws -> [Transaction] {
        try context.fetchHistory(descriptor)
    }

    static func lines(_ transaction: Transaction) -> [String] {
        ModelContextHistoryTests.lines(transaction)
    }

    /// Runs `save` (which saves `first`) while `other`, on `first`'s first
    /// `willSave`, makes `edit` and saves: another thread's save landing between
    /// `first`'s merge and its store. Returns whether the edit ran.
    static func save(
        _ first: ModelContext, whileAnother other: ModelContext,
        saves edit: @escaping @Sendable (ModelContext) throws -> Void
    ) throws -> Bool {
        final class Hook: @unchecked Sendable {
            var done = false
            let other: ModelContext
            init(_ other: ModelContext) { self.other = other }
        }
        let hook = Hook(other)
        let firstID = ObjectIdentifier(first)
        let observer = NotificationCenter.default.addObserver(forName: ModelContext.willSave, object: nil, queue: nil) { note in
            guard let object = note.object as AnyObject?, ObjectIdentifier(object) == firstID, !hook.done else { return }
            hook.done = true
            try? edit(hook.other)
            try? hook.other.save()
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        try first.save()
        return hook.done
    }

    @Test("an object two contexts delete is recorded deleted once: the second save, which merged the first, deleted nothing")
    func concurrentDeleteRecordedOnce() throws {
        let url = temporaryPackageURL()
        let container = try ModelContainer(for: try ModelContextHistoryTests.schema(), configurations: ModelConfiguration(url: url))
        let first = ModelContext(container)
        let rex = try first.insert("Animal", ["name": .string("Rex")])
        try first.save()
        let other = ModelContext(container)
        _ = try other.fetchIdentifiers(DynamicFetchDescriptor(entity: "Animal"))
        try first.delete(rex)
        // Another thread's save lands between `first.save()` merging and storing.
        #expect(try Self.save(first, whileAnother: other) { try $0.delete(rex) })
        // Found in review: both transactions recorded the delete, tombstone and all.
        let deletes = try Self.history(first).flatMap(Self.lines).filter { $0.hasPrefix("delete") }
        #expect(deletes == ["delete Animal#\(rex.id)"])
    }

    @Test("an edit another context saves with the same value between this save's merge and its store: this save records no update")
    func racingSameValueEditRecordsNothing() throws {
        let url = temporaryPackageURL()
        let container = try ModelContainer(for: try ModelContextHistoryTests.schema(), configurations: ModelConfiguration(url: url))
        let first = ModelContext(container)
        let rex = try first.insert("Animal", ["name": .string("Rex"), "age": .int(1)])
        try first.save()
        let other = ModelContext(container)
        _ = try other.fetchIdentifiers(DynamicFetchDescriptor(entity: "Animal"))
        try first.setValue(.int(5), for: "age", of: rex)
        #expect(try Self.save(first, whileAnother: other) { try $0.setValue(.int(5), for: "age", of: rex) })
        // Without the race (other saves before first.save() starts), first's save merges, finds its edit
        // equal to the saved value and records nothing. The save path's own merge must give the same history:
        // first's save wrote no change (found in review: it recorded a third transaction, "update Animal#1 [age]").
        let recorded = try Self.history(first).map(Self.lines)
        #expect(recorded == [["insert Animal#\(rex.id)"], ["update Animal#\(rex.id) [\"age\"]"]])
    }

    @Test("a transaction's updates of one entity come by identifier, as DefaultHistoryTransaction.changes documents")
    func updatesOrderedByIdentifier() throws {
        let context = try makeContext(try ModelContextHistoryTests.schema(), url: temporaryPackageURL())
        let rex = try context.insert("Animal", ["name": .string("Rex"), "age": .int(1)])
        let tom = try context.insert("Animal", ["name": .string("Tom"), "age": .int(1)])
        try context.save()
        try context.setValue(.int(2), for: "age", of: rex)
        try context.setValue(.string("Thomas"), for: "name", of: tom)
        try context.save()
        #expect(rex.id < tom.id)
        // Found in review: updates came grouped by their property sets ([name] before [age]).
        let updated = try Self.history(context).last?.changes.map(\.changedPersistentIdentifier)
        #expect(updated == [rex, tom])
    }

    /// A package whose manifest says the next transaction is number `next`.
    static func packageWithNextNumber(_ next: Int64) throws -> URL {
        let url = temporaryPackageURL()
        do {
            let context = try makeContext(try ModelContextHistoryTests.schema(), url: url)
            try context.insert("Animal", ["name": .string("Rex")])
            try context.save()
            try context.deleteHistory(HistoryDescriptor<Transaction>())
        }
        let manifest = url.appendingPathComponent("manifest.xml")
        let text = try String(contentsOf: manifest, encoding: .utf8)
        try text.replacingOccurrences(of: "<history next=\"2\">", with: "<history next=\"\(next)\">")
            .write(to: manifest, atomically: true, encoding: .utf8)
        return url
    }

    @Test("a package whose history numbering reached Int64.max is refused or saved with an error, never a crash", .format2)
    func numberingAtTheTop() async throws {
        // The package as the child process sees it: the manifest really says next="5" here.
        let sample = try Self.packageWithNextNumber(5)
        #expect(try String(contentsOf: sample.appendingPathComponent("manifest.xml"), encoding: .utf8).contains("<history next=\"5\">"))
        // Found in review: "arithmetic overflow" at HistoryLog.append's `nextNumber += 1`; the loader now refuses it.
        await #expect(processExitsWith: .success) {
            let url = try HistoryReviewTests.packageWithNextNumber(Int64.max)
            let context: ModelContext
            do { context = try makeContext(try ModelContextHistoryTests.schema(), url: url) } catch { return }  // refused: fine
            try context.insert("Animal", ["name": .string("Tom")])
            _ = try? context.save()
        }
    }
}
