import Foundation
import FolioTestSupport
import PropertyBased
import Testing
import Folio
@testable import FolioCore

/// The document's history through the dynamic API: what each save records,
/// that it lives in the package, and that deleting it really removes it.
@Suite(.format2) struct ModelContextHistoryTests {
    typealias Transaction = DefaultHistoryTransaction

    /// The zoo, with an animal's name kept in the history when it is deleted.
    static func schema() throws -> Schema {
        try Schema([
            .init(
                "AnimalCategory", attributes: [.init("name", .string, options: [.unique])],
                relationships: [.init("animals", to: "Animal", toMany: true, inverse: "category", deleteRule: .cascade)]),
            .init(
                "Animal",
                attributes: [
                    .init("name", .string, options: [.preserveValueOnDeletion]), .init("age", .int),
                    .init("notes", .string, isOptional: true, options: [.preserveValueOnDeletion]),
                ],
                relationships: [.init("category", to: "AnimalCategory", inverse: "animals")]),
        ])
    }

    static func history(_ context: ModelContext, _ descriptor: HistoryDescriptor<Transaction> = .init()) throws -> [Transaction] {
        try context.fetchHistory(descriptor)
    }

    /// The changes of a transaction as `kind entity#id [properties]` lines.
    static func lines(_ transaction: Transaction) -> [String] {
        transaction.changes.map { change in
            switch change {
            case .insert(let insert): "insert \(insert.changedPersistentIdentifier)"
            case .update(let update): "update \(update.changedPersistentIdentifier) \(update.updatedAttributeNames)"
            case .delete(let delete): "delete \(delete.changedPersistentIdentifier)"
            }
        }
    }

    @Test("every save records one transaction: its inserts, the properties of its updates, and its deletes with cascades")
    func savesRecordTransactions() throws {
        let context = try makeContext(try Self.schema(), url: temporaryPackageURL())
        let mammals = try context.insert("AnimalCategory", ["name": .string("Mammals")])
        let rex = try context.insert("Animal", ["name": .string("Rex"), "age": .int(3)])
        let tom = try context.insert("Animal", ["name": .string("Tom")])
        try context.link(rex, "category", to: mammals)
        try context.save()
        try context.setValue(.int(4), for: "age", of: rex)
        try context.link(tom, "category", to: mammals)
        try context.save()
        try context.delete(mammals)
        try context.save()

        let history = try Self.history(context)
        #expect(history.map(\.transactionIdentifier) == [1, 2, 3])
        #expect(Self.lines(history[0]) == ["insert AnimalCategory#\(mammals.id)", "insert Animal#\(rex.id)", "insert Animal#\(tom.id)"])
        #expect(
            Self.lines(history[1]) == [
                "update AnimalCategory#\(mammals.id) [\"animals\"]",
                "update Animal#\(rex.id) [\"age\"]", "update Animal#\(tom.id) [\"category\"]",
            ])
        #expect(Self.lines(history[2]) == ["delete AnimalCategory#\(mammals.id)", "delete Animal#\(rex.id)", "delete Animal#\(tom.id)"])
        #expect(history.map(\.token) == [1, 2, 3].map { DefaultHistoryToken(transactionNumber: $0) })
        #expect(history[0].timestamp <= history[2].timestamp)
        // Change identifiers grow through the history.
        let changeIDs = history.flatMap(\.changes).map { change -> Int64 in
            switch change {
            case .insert(let insert): insert.changeIdentifier
            case .update(let update): update.changeIdentifier
            case .delete(let delete): delete.changeIdentifier
            }
        }
        #expect(changeIDs == changeIDs.sorted() && Set(changeIDs).count == changeIDs.count)
    }

    @Test("an object inserted and deleted before a save, or an edit put back, records nothing")
    func cancelledChangesRecordNothing() throws {
        let context = try makeContext(try Self.schema(), url: temporaryPackageURL())
        let rex = try context.insert("Animal", ["name": .string("Rex"), "age": .int(3)])
        try context.save()
        let ghost = try context.insert("Animal", ["name": .string("Ghost")])
        try context.delete(ghost)
        try context.setValue(.int(9), for: "age", of: rex)
        try context.setValue(.int(3), for: "age", of: rex)
        try context.save()
        #expect(try Self.history(context).count == 1)
    }

    @Test("a delete's tombstone holds the values of preserveValueOnDeletion attributes only, nil ones left out")
    func tombstones() throws {
        let context = try makeContext(try Self.schema(), url: temporaryPackageURL())
        let rex = try context.insert("Animal", ["name": .string("Rex & \"Co\"\u{7}"), "age": .int(3), "notes": .string("good dog")])
        let tom = try context.insert("Animal", ["name": .string("Tom"), "age": .int(5)])
        try context.save()
        try context.delete(rex)
        try context.delete(tom)
        try context.save()
        let reopened = try makeContext(try Self.schema(), url: context.container.configurations[0].url)
        let deletes =
            try Self.history(reopened).last?.changes.compactMap { change -> HistoryTombstone<DynamicModel>? in
                guard case .delete(let delete as DefaultHistoryDelete<DynamicModel>) = change else { return nil }
                return delete.tombstone
            } ?? []
        #expect(deletes.count == 2)
        #expect(deletes.first?["name"] == .string("Rex & \"Co\"\u{7}") && deletes.first?["notes"] == .string("good dog"))
        #expect(deletes.first?["age"] == nil)
        #expect(deletes.last.map { $0.values.map(\.name) } == ["name"])
    }

    @Test("author, program and process are recorded with each transaction")
    func authorAndProcess() throws {
        let context = try makeContext(try Self.schema(), url: temporaryPackageURL())
        try context.insert("Animal", ["name": .string("Rex")])
        try context.save()
        context.author = "importer \u{1}"
        try context.insert("Animal", ["name": .string("Tom")])
        try context.save()
        let reopened = try makeContext(try Self.schema(), url: context.container.configurations[0].url)
        let history = try Self.history(reopened)
        #expect(history.map(\.author) == [nil, "importer \u{1}"])
        #expect(history.allSatisfy { $0.processIdentifier == String(ProcessInfo.processInfo.processIdentifier) })
        #expect(history.allSatisfy { !$0.bundleIdentifier.isEmpty })
        #expect(history.allSatisfy { $0.storeIdentifier == context.container.configurations[0].url.path })
        let byAuthor = try Self.history(reopened, HistoryDescriptor(predicate: #Predicate<Transaction> { $0.author == "importer \u{1}" }))
        #expect(byAuthor.map(\.transactionIdentifier) == [2])
    }

    @Test("the history lives in the package: a later container reads it, and numbering goes on from it")
    func persisted() throws {
        let url = temporaryPackageURL()
        do {
            let context = try makeContext(try Self.schema(), url: url)
            for name in ["Rex", "Tom", "Kit"] {
                try context.insert("Animal", ["name": .string(name)])
                try context.save()
            }
        }
        // Three small transactions: the open tail, held by the manifest itself (no file to write).
        #expect(!FileManager.default.fileExists(atPath: url.appendingPathComponent("history").path))
        let saved = try String(contentsOf: url.appendingPathComponent("manifest.xml"), encoding: .utf8)
        #expect(saved.contains("<transaction id=\"3\""))
        let context = try makeContext(try Self.schema(), url: url)
        #expect(try Self.history(context).map(\.transactionIdentifier) == [1, 2, 3])
        try context.insert("Animal", ["name": .string("Max")])
        try context.save()
        #expect(try Self.history(context).map(\.transactionIdentifier) == [1, 2, 3, 4])
        let manifest = try String(contentsOf: url.appendingPathComponent("manifest.xml"), encoding: .utf8)
        #expect(manifest.contains("<history next=\"5\">"))
    }

    @Test("changes since a token, sorted and limited as the descriptor says")
    func descriptors() throws {
        let context = try makeContext(try Self.schema(), url: temporaryPackageURL())
        for name in ["A", "B", "C", "D", "E"] {
            try context.insert("Animal", ["name": .string(name)])
            try context.save()
        }
        let token = DefaultHistoryToken(transactionNumber: 2)
        #expect(
            try Self.history(context, HistoryDescriptor(predicate: #Predicate { $0.token > token }))
                .map(\.transactionIdentifier) == [3, 4, 5])
        var newestFirst = HistoryDescriptor<Transaction>(sortBy: [SortDescriptor(\.transactionIdentifier, order: .reverse)])
        newestFirst.fetchLimit = 2
        #expect(try Self.history(context, newestFirst).map(\.transactionIdentifier) == [5, 4])
        #expect(DefaultHistoryToken("7") == DefaultHistoryToken(transactionNumber: 7) && DefaultHistoryToken("x") == nil)
        let encoded = try JSONEncoder().encode(token)
        #expect(try JSONDecoder().decode(DefaultHistoryToken.self, from: encoded) == token)
    }

    @Test("deleteHistory removes the transactions it selects from the package, tombstone bytes and all; numbers are not reused")
    func deleteHistoryRemovesBytes() throws {
        let url = temporaryPackageURL()
        let context = try makeContext(try Self.schema(), url: url)
        let secret = try context.insert("Animal", ["name": .string("SECRET-NAME-42")])
        try context.save()
        try context.delete(secret)
        try context.save()
        #expect(try allPackageBytes(url).range(of: Data("SECRET-NAME-42".utf8)) != nil)
        try context.deleteHistory(HistoryDescriptor<Transaction>(predicate: #Predicate { $0.transactionIdentifier <= 2 }))
        #expect(try Self.history(context).isEmpty)
        #expect(try allPackageBytes(url).range(of: Data("SECRET-NAME-42".utf8)) == nil)
        #expect(!FileManager.default.fileExists(atPath: url.appendingPathComponent("history").path))
        try context.insert("Animal", ["name": .string("Next")])
        try context.save()
        let reopened = try makeContext(try Self.schema(), url: url)
        #expect(try Self.history(reopened).map(\.transactionIdentifier) == [3])
    }

    @Test("deleteAllData removes the whole history; the next save's transaction numbers on")
    func deleteAllDataRemovesHistory() throws {
        let url = temporaryPackageURL()
        let container = try ModelContainer(for: try Self.schema(), configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        let rex = try context.insert("Animal", ["name": .string("TOMBSTONED-VALUE")])
        try context.save()
        try context.delete(rex)
        try context.save()
        container.deleteAllData()
        #expect(try Self.history(context).isEmpty)
        #expect(try allPackageBytes(url).range(of: Data("TOMBSTONED-VALUE".utf8)) == nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: url.path) == ["manifest.xml"])
        try context.insert("Animal", ["name": .string("After")])
        try context.save()
        #expect(try Self.history(context).map(\.transactionIdentifier) == [3])
    }

    @Test("autosaves of the main context and saves of background contexts are recorded, and reach the package")
    @MainActor func autosavesAndBackgroundContexts() throws {
        let url = temporaryPackageURL()
        let container = try ModelContainer(for: try Self.schema(), configurations: ModelConfiguration(url: url))
        let main = container.mainContext
        try main.insert("Animal", ["name": .string("Autosaved")])
        main.processPendingChanges()
        let background = ModelContext(container)
        background.author = "background"
        try background.insert("Animal", ["name": .string("Background")])
        try background.save()
        #expect(try Self.history(main).map(\.author) == [nil, "background"])
        container.sharedDocument.waitForBackgroundWrites()
        let reader = try ModelContainer(for: try Self.schema(), configurations: ModelConfiguration(url: url, allowsSave: false))
        #expect(try Self.history(ModelContext(reader)).count == 2)
    }

    @Test("exporting over a package replaces its history too: no transaction or tombstone of the replaced document stays")
    func exportReplacesHistory() throws {
        let target = temporaryPackageURL()
        do {
            let replaced = try makeContext(try Self.schema(), url: target)
            let secret = try replaced.insert("Animal", ["name": .string("REPLACED-SECRET-77")])
            try replaced.save()
            try replaced.delete(secret)
            try replaced.save()
            // Past a segment's size: the replaced history is in history/ as well as in the manifest.
            replaced.author = String(repeating: "a", count: HistoryLog.segmentBytes)
            try replaced.insert("Animal", ["name": .string("Other")])
            try replaced.save()
        }
        let source = try makeContext(try Self.schema(), url: temporaryPackageURL())
        try source.insert("Animal", ["name": .string("Copied")])
        try source.save()
        try source.exportPackage(to: target)
        let copy = try makeContext(try Self.schema(), url: target)
        // A copy is a new document: its history starts empty, and the replaced one's goes.
        let bytes = try allPackageBytes(target), history = try Self.history(copy)
        #expect(bytes.range(of: Data("REPLACED-SECRET-77".utf8)) == nil)
        #expect(!FileManager.default.fileExists(atPath: target.appendingPathComponent("history").path))
        #expect(history.map(\.transactionIdentifier) == [], "the copy's history describes another document")
        let animals = try copy.fetchIdentifiers(DynamicFetchDescriptor(entity: "Animal"))
        #expect(try animals.map { try copy.value("name", of: $0) } == [.string("Copied")])
    }

    @Test("an in-memory container keeps its history in memory")
    func inMemory() throws {
        let context = try makeContext(try Self.schema())
        try context.insert("Animal", ["name": .string("Rex")])
        try context.save()
        try context.deleteHistory(HistoryDescriptor<Transaction>())
        try context.insert("Animal", ["name": .string("Tom")])
        try context.save()
        #expect(try Self.history(context).map(\.transactionIdentifier) == [2])
    }

    @Test("history segments fill up and close: a long history is several files, and a save rewrites only the last")
    func segmentsRollOver() throws {
        let url = temporaryPackageURL()
        let context = try makeContext(try Self.schema(), url: url)
        context.undoManager = nil
        let note = String(repeating: "n", count: 2_000)
        for index in 0..<80 {
            let animal = try context.insert("Animal", ["name": .string("A\(index)"), "notes": .string(note)])
            try context.save()
            try context.delete(animal)
            try context.save()
        }
        let folder = url.appendingPathComponent("history").path
        let files = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        #expect(files.count >= 2)
        try context.insert("Animal", ["name": .string("Last")])
        try context.save()
        let after = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        // Every closed segment is still there, untouched; only the open one was replaced.
        #expect(Set(files).subtracting(after).count <= 1)
        #expect(after.count - Set(after).intersection(files).count <= 1)
        let reopened = try makeContext(try Self.schema(), url: url)
        #expect(try Self.history(reopened).map(\.transactionIdentifier) == Array(1...161))
    }

    /// A package whose history holds one transaction (Rex inserted), closed
    /// into a segment file: its author alone is past a segment's size.
    static func packageWithOneSave() throws -> URL {
        let url = temporaryPackageURL()
        let context = try makeContext(try schema(), url: url)
        context.author = String(repeating: "a", count: HistoryLog.segmentBytes)
        try context.insert("Animal", ["name": .string("Rex")])
        try context.save()
        return url
    }

    @Test("a damaged history file is an error naming it, not a silent gap")
    func damagedSegment() throws {
        let url = try Self.packageWithOneSave()
        let folder = url.appendingPathComponent("history")
        let file = try #require(try FileManager.default.contentsOfDirectory(atPath: folder.path).first)
        try Data("<history><transaction id=\"x\"/></history>".utf8).write(to: folder.appendingPathComponent(file))
        let context = try makeContext(try Self.schema(), url: url)
        #expect(context.hasChanges == false)
        do {
            _ = try Self.history(context)
            Issue.record("a damaged segment was read")
        } catch let ModelError.package(error) {
            #expect("\(error)".contains(file))
        }
    }

    @Test("a history file removed by hand is an error when the history is read, never a save refused; the next open lists what is left")
    func missingSegment() throws {
        let url = try Self.packageWithOneSave()
        let folder = url.appendingPathComponent("history")
        for file in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            try FileManager.default.removeItem(at: folder.appendingPathComponent(file))
        }
        do {
            let context = try makeContext(try Self.schema(), url: url)
            #expect(throws: ModelError.self) { try Self.history(context) }
            try context.insert("Animal", ["name": .string("Tom")])
            try context.save()
        }
        let reopened = try makeContext(try Self.schema(), url: url)
        #expect(try reopened.fetchCount(DynamicFetchDescriptor(entity: "Animal")) == 2)
        #expect(try Self.history(reopened).map(\.transactionIdentifier) == [2])
    }

    @Test("willSave and didSave are posted for saves, autosaves and background contexts, with the identifiers saved")
    @MainActor func notifications() throws {
        let url = temporaryPackageURL()
        let container = try ModelContainer(for: try Self.schema(), configurations: ModelConfiguration(url: url))
        let main = container.mainContext
        let rex = try main.insert("Animal", ["name": .string("Rex")])
        main.processPendingChanges()
        let background = ModelContext(container)
        final class Log: @unchecked Sendable {
            var events: [String] = []
            var userInfo: [[String: [PersistentIdentifier]]] = []
        }
        let log = Log()
        let center = NotificationCenter.default
        let mainID = ObjectIdentifier(main), backgroundID = ObjectIdentifier(background)
        @Sendable func name(_ note: Notification) -> String? {
            guard let object = note.object as AnyObject? else { return nil }
            return ObjectIdentifier(object) == mainID ? "main" : ObjectIdentifier(object) == backgroundID ? "background" : nil
        }
        let observers = [
            center.addObserver(forName: ModelContext.willSave, object: nil, queue: nil) { note in
                guard let context = name(note) else { return }
                log.events.append("will \(context)")
            },
            center.addObserver(forName: ModelContext.didSave, object: nil, queue: nil) { note in
                guard let context = name(note) else { return }
                log.events.append("did \(context)")
                log.userInfo.append(note.userInfo as? [String: [PersistentIdentifier]] ?? [:])
            },
        ]
        defer { observers.forEach(center.removeObserver) }
        try main.setValue(.int(1), for: "age", of: rex)
        main.processPendingChanges()
        try background.setValue(.int(2), for: "age", of: rex)
        let tom = try background.insert("Animal", ["name": .string("Tom")])
        try background.save()
        try main.delete(rex)
        try main.save()
        main.processPendingChanges()  // nothing to save: nothing posted
        #expect(log.events == ["will main", "did main", "will background", "did background", "will main", "did main"])
        typealias Key = ModelContext.NotificationKey
        #expect(log.userInfo.map { $0[Key.insertedIdentifiers.rawValue] ?? [] } == [[], [tom], []])
        #expect(log.userInfo.map { $0[Key.updatedIdentifiers.rawValue] ?? [] } == [[rex], [rex], []])
        #expect(log.userInfo.map { $0[Key.deletedIdentifiers.rawValue] ?? [] } == [[], [], [rex]])
    }

    /// Replays a history's inserts and deletes: the live identifiers it leaves, by entity.
    static func replay(_ history: [Transaction]) -> [String: Set<UInt64>] {
        var live: [String: Set<UInt64>] = [:]
        for transaction in history {
            for change in transaction.changes {
                let id = change.changedPersistentIdentifier
                switch change {
                case .insert: live[id.entityName, default: []].insert(id.id)
                case .update: break
                case .delete: live[id.entityName, default: []].remove(id.id)
                }
            }
        }
        return live.filter { !$0.value.isEmpty }
    }

    @Test("random sessions of edits, undo, saves, autosaves, reopenings and history deletes: replaying the history gives the saved objects", .tags(.long))
    func replayMatchesDocument() async {
        await checkProperty(count: TestEffort.cases(25), input: SessionStep.generator.array(of: 1...80)) { plan in
            try await MainActor.run { try Self.session(plan: plan) }
        }
    }

    /// One session: each step's `roll` picks the action and its `seed` the
    /// action's choices, so a failing plan shrinks to fewer steps, each toward an insert.
    @MainActor static func session(plan: [SessionStep]) throws {
        do {
            var rng = SeededGenerator(seed: 0)
            let url = temporaryPackageURL()
            defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
            var container: ModelContainer? = try ModelContainer(for: try Self.schema(), configurations: ModelConfiguration(url: url))
            var context: ModelContext! = container?.mainContext
            context.undoManager = UndoManager()
            var trace: [String] = []
            var truncatedAt: Int64 = 0
            var lastNumber: Int64 = 0
            for (step, planned) in plan.enumerated() {
                rng = SeededGenerator(seed: planned.seed)
                let animals = try context.fetchIdentifiers(DynamicFetchDescriptor(entity: "Animal"))
                let categories = try context.fetchIdentifiers(DynamicFetchDescriptor(entity: "AnimalCategory"))
                switch planned.roll {
                case 0..<20:
                    trace.append("insert category")
                    try context.insert("AnimalCategory", ["name": .string("C\(step)")])
                case 20..<45:
                    trace.append("insert animal")
                    let animal = try context.insert("Animal", ["name": .string("A\(step)")])
                    if let category = categories.randomElement(using: &rng) { try context.link(animal, "category", to: category) }
                case 45..<60 where !animals.isEmpty:
                    trace.append("edit")
                    try context.setValue(.int(Int64(step)), for: "age", of: animals.randomElement(using: &rng)!)
                case 60..<70:
                    guard let victim = (categories + animals).randomElement(using: &rng) else { continue }
                    trace.append("delete \(victim)")
                    try context.delete(victim)
                case 70..<78:
                    trace.append("undo")
                    context.undoManager?.undo()
                case 78..<86:
                    trace.append("autosave")
                    context.processPendingChanges()
                case 86..<89:
                    trace.append("save")
                    try context.save()
                case 89..<92:
                    trace.append("another context inserts and saves")
                    let other = ModelContext(container!)
                    other.author = "other"
                    try other.insert("Animal", ["name": .string("Other \(step)")])
                    try other.save()
                case 92..<96:
                    trace.append("reopen")
                    try context.save()
                    // Both go, and with them the store: the next container reads the package.
                    context = nil
                    container = nil
                    container = try ModelContainer(for: try Self.schema(), configurations: ModelConfiguration(url: url))
                    context = container?.mainContext
                    context.undoManager = UndoManager()
                default:
                    let history = try Self.history(context)
                    guard history.count > 1 else { continue }
                    let keep = history[history.count / 2].transactionIdentifier
                    trace.append("delete history before \(keep)")
                    try context.deleteHistory(HistoryDescriptor<Transaction>(predicate: #Predicate { $0.transactionIdentifier < keep }))
                    truncatedAt = keep - 1
                }
                let history = try Self.history(context)
                let numbers = history.map(\.transactionIdentifier)
                #expect(numbers == numbers.sorted() && Set(numbers).count == numbers.count, "\(trace)")
                #expect((numbers.last ?? lastNumber) >= lastNumber, "numbers went back; \(trace)")
                lastNumber = numbers.last ?? lastNumber
                guard truncatedAt == 0 else { continue }
                // What the history says was saved is what the saved state holds.
                let saved = try context.sharedDocument.withSavedGraph { graph -> [String: Set<UInt64>] in
                    var live: [String: Set<UInt64>] = [:]
                    for (entity, table) in zip(graph.layout.entities, graph.tables) {
                        for row in 0..<table.rowCount where table.isLive[row] { live[entity.name, default: []].insert(table.ids[row]) }
                    }
                    return live
                }
                #expect(Self.replay(history) == saved, "\(trace)")
            }
            try context.save()
            let reader = try ModelContainer(for: try Self.schema(), configurations: ModelConfiguration(url: url, allowsSave: false))
            #expect(
                try Self.history(ModelContext(reader)).map(\.transactionIdentifier)
                    == (try Self.history(context)).map(\.transactionIdentifier), "\(trace)")
        }
    }
}
