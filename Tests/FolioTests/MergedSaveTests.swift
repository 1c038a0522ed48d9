import Foundation
import PropertyBased
import Testing
import Folio
@testable import FolioCore
import FolioTestSupport

/// Merges and saves that rewrite only the parts holding changed objects: what
/// another context saved and this one merged must reach the package with this
/// context's save, whole (found in review of issue 16: before, every save
/// rewrote the whole document and hid these merge mistakes).
@Suite struct MergedSaveTests {
    /// A package folder whose saves use small parts (a few objects each), so a
    /// save that misses a changed object leaves a stale part behind.
    static func withSmallParts<T>(_ body: (URL) throws -> T) throws -> T {
        let url = temporaryPackageURL()
        let folder = url.deletingLastPathComponent().path
        DocumentWriter.usePartSizes((512, 1_024), under: folder)
        defer {
            DocumentWriter.usePartSizes(nil, under: folder)
            try? FileManager.default.removeItem(atPath: folder)
        }
        return try body(url)
    }

    static func onDisk(_ url: URL) throws -> GraphSnapshot { try DocumentPackage(url: url).read().snapshot() }

    /// Shows: an object deleted and saved by context A, then brought back by A's
    /// undo and saved again, is dropped by context B's next save. B merges both
    /// change sets; the merge of A's upsert finds B's dead row for the identifier
    /// and skips it (ModelContext+Merging.swift, `guard graph.isLive(ref) else { continue }`),
    /// so B's graph lacks the object, and B's save publishes that graph as the
    /// saved state and rewrites the part that held the object without it.
    @Test("an object a context deletes, saves, undoes and saves again survives another context's later save")
    func undoneDeleteSurvivesOtherContextsSave() throws {
        try Self.withSmallParts { url in
            let container = try ModelContainer(for: try zooSchema(), configurations: ModelConfiguration(url: url))
            let a = ModelContext(container)
            a.undoManager = UndoManager()
            let b = ModelContext(container)
            let category = try a.insert("AnimalCategory", ["name": .string("Cats")])
            let animal = try a.insert("Animal", ["name": .string("Tom")])
            try a.link(animal, "category", to: category)
            try a.save()
            // B sees the animal.
            #expect(try b.fetchIdentifiers(DynamicFetchDescriptor(entity: "Animal")) == [animal])
            try a.delete(animal)
            try a.save()
            a.undoManager?.undo()
            #expect(a.contains(animal))
            try a.save()
            #expect(try Self.onDisk(url) == a.graph.snapshot())
            // B edits the category and saves: the animal must still be there.
            try b.setValue(.string("Big cats"), for: "name", of: category)
            try b.save()
            #expect(b.contains(animal), "B's merge dropped the animal A brought back")
            #expect(
                try container.sharedDocument.withSavedGraph { $0.snapshot() }.objects["Animal"]?[animal.id] != nil,
                "the saved state lost the animal")
            #expect(try Self.onDisk(url).objects["Animal"]?[animal.id] != nil, "the package lost the animal")
        }
    }

    /// Shows: context B deletes a category (unsaved) while context A links an
    /// animal to it and saves. B's save merges A's change: the animal's link to
    /// the category B deleted is filtered out (ModelContext+Merging.swift, the
    /// `rows` of `state.links`), so B's graph has the animal with no category, but
    /// the animal is in none of B's tracking sets, so `savedObjectNumbers()`
    /// (ModelContext+Merging.swift:93) leaves it out and its part is kept, still
    /// naming the deleted category: the package no longer reads as the saved
    /// graph (its two sides disagree: a dangling reference).
    @Test("a link another context saved to an object this context deletes is written as the merge left it", .format2)
    func mergedLinkToObjectDeletedHere() throws {
        try Self.withSmallParts { url in
            let container = try ModelContainer(for: try zooSchema(), configurations: ModelConfiguration(url: url))
            let a = ModelContext(container)
            let b = ModelContext(container)
            let category = try a.insert("AnimalCategory", ["name": .string("Cats")])
            // Enough animals for several parts: the animal linked below is not in the
            // part the category's identifier falls in (a deleted identifier dirties
            // that part in every entity, which would hide the bug).
            for index in 0..<40 { _ = try a.insert("Animal", ["name": .string("Animal \(index) with a name of some length")]) }
            let animal = try a.insert("Animal", ["name": .string("Tom")])
            try a.save()
            #expect(try #require(DocumentPackage(url: url).readManifest()).parts.filter { $0.entity == "Animal" }.count > 2)
            _ = try b.fetchIdentifiers(DynamicFetchDescriptor(entity: "AnimalCategory"))
            try b.delete(category)
            try a.link(animal, "category", to: category)
            try a.save()
            try b.save()
            let saved = try container.sharedDocument.withSavedGraph { $0.snapshot() }
            #expect(b.graph.snapshot() == saved)
            #expect(throws: Never.self) { try Self.onDisk(url) }
            #expect(try Self.onDisk(url) == saved, "the animal's part still names the category B deleted")
        }
    }

    /// "This context's own unsaved edits win" holds for a to-one link from both
    /// of its ends: B moves an animal to category 2 (unsaved), A moves it to
    /// category 1 and saves; B's merge skips the animal's edited slot and must
    /// not link the animal back to category 1 through that category's list
    /// (it did, through the inverse, and B's edit was silently lost).
    @Test("a context's unsaved move of an object to another category survives merging another context's move of it")
    func unsavedLinkEditWinsOverMergedOne() throws {
        let url = temporaryPackageURL()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let container = try ModelContainer(for: try zooSchema(), configurations: ModelConfiguration(url: url))
        let a = ModelContext(container)
        let b = ModelContext(container)
        let one = try a.insert("AnimalCategory", ["name": .string("One")])
        let two = try a.insert("AnimalCategory", ["name": .string("Two")])
        let animal = try a.insert("Animal", ["name": .string("Tom")])
        try a.save()
        _ = try b.fetchIdentifiers(DynamicFetchDescriptor(entity: "Animal"))
        try b.link(animal, "category", to: two)
        try a.link(animal, "category", to: one)
        try a.save()
        try b.save()
        // B's own unsaved edit wins over the merge, from both ends of the link.
        #expect(try b.related("category", of: animal) == [two], "B's own unsaved edit was overwritten by the merge")
        #expect(try b.related("animals", of: one).isEmpty)
        #expect(try Self.onDisk(url).objects["Animal"]?[animal.id]?.links["category"] == [two.id])
        #expect(try Self.onDisk(url) == container.sharedDocument.withSavedGraph { $0.snapshot() })
    }

    /// One random session of two contexts on one package (the main context with
    /// autosave and an undo manager, and a second one with an undo manager),
    /// with small parts. Returns the failures seen, with the trace. Each step's
    /// `roll` picks the action and its `seed` the context and the action's
    /// choices, so a failing plan shrinks to fewer steps, each toward an insert.
    @MainActor static func twoContextSession(plan: [SessionStep], contextCount: Int = 2, undo: Bool = true) throws -> [String] {
        var rng = SeededGenerator(seed: 0)
        var failures: [String] = []
        try withSmallParts { url in
            let container = try ModelContainer(for: try zooSchema(), configurations: ModelConfiguration(url: url))
            let store = container.sharedDocument
            let main = container.mainContext
            main.undoManager = UndoManager()
            // With one context, no other: the main context is all a typical program has.
            let other = contextCount > 1 ? ModelContext(container) : main
            other.undoManager = UndoManager()
            if !undo { main.undoManager = nil; other.undoManager = nil }
            let contexts = [main, other]
            var names = 0
            var trace: [String] = []
            // A starting zoo: 3 categories of 6 animals.
            for c in 0..<3 {
                names += 1
                let category = try main.insert("AnimalCategory", ["name": .string("Category \(names) \(c)")])
                for a in 0..<6 {
                    let animal = try main.insert("Animal", ["name": .string("Animal \(c)-\(a) with a longer name"), "age": .int(Int64(a))])
                    try main.link(animal, "category", to: category)
                }
            }
            try main.save()
            func check(_ what: String, _ context: ModelContext) {
                do {
                    let disk = try onDisk(url)
                    let graph = context.graph.snapshot()
                    let saved = try store.withSavedGraph { $0.snapshot() }
                    if disk != saved {
                        failures.append(
                            "after \(what) the package differs from the saved state\n"
                                + "trace: \(trace)\ndisk:\n\(disk)\nsaved:\n\(saved)")
                    } else if disk != graph {
                        failures.append(
                            "after \(what) the package differs from the graph saved\n"
                                + "trace: \(trace)\ndisk:\n\(disk)\ngraph:\n\(graph)")
                    }
                } catch {
                    failures.append("after \(what) the package does not read: \(error)\ntrace: \(trace)")
                }
            }
            for step in plan {
                guard failures.isEmpty else { break }
                rng = SeededGenerator(seed: step.seed)
                let index = Int.random(in: 0..<contextCount, using: &rng)
                let context = contexts[index]
                let who = index == 0 ? "main" : "other"
                let categories = try context.fetchIdentifiers(DynamicFetchDescriptor(entity: "AnimalCategory"))
                let animals = try context.fetchIdentifiers(DynamicFetchDescriptor(entity: "Animal"))
                let roll = step.roll
                do {
                    switch roll {
                    case 0..<8:
                        names += 1
                        trace.append("\(who) insert category")
                        _ = try context.insert("AnimalCategory", ["name": .string("New \(names)")])
                    case 8..<20 where !categories.isEmpty:
                        trace.append("\(who) insert animal")
                        let animal = try context.insert("Animal", ["name": .string("Animal \(names) with a longer name")])
                        try context.link(animal, "category", to: categories.randomElement(using: &rng)!)
                    case 20..<30 where !animals.isEmpty:
                        trace.append("\(who) set age")
                        try context.setValue(.int(Int64.random(in: 0...30, using: &rng)), for: "age", of: animals.randomElement(using: &rng)!)
                    case 30..<42 where !animals.isEmpty && !categories.isEmpty:
                        trace.append("\(who) move animal")
                        try context.link(animals.randomElement(using: &rng)!, "category", to: categories.randomElement(using: &rng)!)
                    case 42..<47 where !animals.isEmpty:
                        let animal = animals.randomElement(using: &rng)!
                        if let category = try context.related("category", of: animal).first {
                            trace.append("\(who) unlink animal")
                            try context.unlink(animal, "category", from: category)
                        }
                    case 47..<53 where !animals.isEmpty:
                        trace.append("\(who) delete animal")
                        try context.delete(animals.randomElement(using: &rng)!)
                    case 53..<57 where !categories.isEmpty:
                        trace.append("\(who) delete category (cascade)")
                        try context.delete(categories.randomElement(using: &rng)!)
                    case 57..<67:
                        trace.append("\(who) undo")
                        context.undoManager?.undo()
                    case 67..<72:
                        trace.append("\(who) redo")
                        context.undoManager?.redo()
                    case 72..<80:
                        trace.append("\(who) processPendingChanges")
                        context.processPendingChanges()
                    case 80..<83:
                        trace.append("\(who) rollback")
                        context.rollback()
                    case 83..<86:
                        trace.append("wait for the writer")
                        store.waitForBackgroundWrites()
                        if store.isWritten, try onDisk(url) != store.withSavedGraph({ $0.snapshot() }) {
                            failures.append("the writer caught up but the package is not the saved state\ntrace: \(trace)")
                        }
                    default:
                        trace.append("\(who) save")
                        try context.save()
                        check("\(who) save", context)
                    }
                } catch {
                    trace.append("  (threw \(error))")
                }
            }
            guard failures.isEmpty else { return }
            trace.append("final saves")
            try main.save()
            check("the final save of main", main)
            try other.save()
            check("the final save of other", other)
            // Main merges other's last save (it has no changes left of its own).
            try main.save()
            if try onDisk(url) != store.withSavedGraph({ $0.snapshot() }) {
                failures.append("after the final saves the package is not the saved state\ntrace: \(trace)")
            }
            if other.graph.snapshot() != main.graph.snapshot() {
                failures.append(
                    "after the final saves the second context's graph (merged) differs from the main context's\n"
                        + "trace: \(trace)\nother:\n\(other.graph.snapshot())\nmain:\n\(main.graph.snapshot())")
            }
            withExtendedLifetime(container) {}
        }
        return failures
    }

    /// Shows (when failing): a sequence of edits, undo/redo, autosaves, rollbacks
    /// and saves in two contexts after which the package read back is not the
    /// graph the last save published: a part holding a changed object was not
    /// rewritten, or was rewritten from a graph missing what another context saved.
    ///
    /// With undo, and after the final saves: every context's graph is the
    /// saved state. (An undo rebased over merges used to leave changes its
    /// tracking did not count: the save published a change set without them,
    /// and the other context never merged them. The tracking is now rebuilt
    /// after a rebase, ``ModelContext/rebuildTracking()``.)
    @Test("random two-context sessions with undo and small parts: after every save the package reads back as the saved state", .tags(.long))
    @MainActor func twoContextSessions() async {
        var divergent: [String] = []
        // 30 sessions of up to 200 steps: about 3,000 steps, the rarest action of
        // the table (3 in 100) about 90 times, saves about 400. Fewer, longer
        // sessions than the 80 of up to 120 this ran: less setup, longer chains
        // of undo over merges.
        await checkProperty(count: TestEffort.cases(30), input: SessionStep.generator.array(of: 1...200)) { plan in
            let failures: [String]
            do { failures = try Self.twoContextSession(plan: plan) } catch {
                failures = ["THREW \(error)"]
            }
            let apart = failures.filter { $0.contains("differs from the graph saved") || $0.contains("(merged) differs") }
            divergent += apart
            let broken = failures.filter { !apart.contains($0) }
            #expect(broken.isEmpty, "\(broken.first ?? "")")
        }
        #expect(divergent.isEmpty, "\(divergent.first ?? "")")
    }

    /// Shows (when failing): two contexts without undo (so not the undone-delete
    /// bug above): a merge leaves an object changed in the saving context's graph
    /// that its save does not count as changed, and the package is left stale.
    @Test("random two-context sessions without undo, small parts: after every save the package reads back as the saving context's graph", .tags(.long))
    func twoContextSessionsWithoutUndo() async {
        // 60 sessions of up to 200 steps: about 6,000 steps, the rarest action
        // about 180 times, saves about 850. It ran 300 sessions of up to 120,
        // three times the work, for the same actions on graphs of the same sizes.
        await checkProperty(count: TestEffort.cases(60), input: SessionStep.generator.array(of: 1...200)) { plan in
            let failures = try await MainActor.run { try Self.twoContextSession(plan: plan, undo: false) }
            #expect(failures.isEmpty, "\(failures.first ?? "")")
        }
    }
}
