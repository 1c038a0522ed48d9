import Foundation
import Testing
import Folio
@testable import FolioCore
import FolioTestSupport
import Synchronization

/// Format 3, the layout that merges (docs/FORMAT.md): parts at paths that are
/// a pure function of their objects' identifiers, a manifest of the schema
/// alone, history files per writer, conflict records beside their objects.
@Suite struct Format3Tests {
    /// The package-relative paths of every file under `url`, and their bytes.
    static func files(_ url: URL) throws -> [String: Data] {
        var result: [String: Data] = [:]
        let root = url.standardizedFileURL.path
        guard let walker = FileManager.default.enumerator(atPath: root) else { return result }
        while let relative = walker.nextObject() as? String {
            var isFolder: ObjCBool = false
            FileManager.default.fileExists(atPath: root + "/" + relative, isDirectory: &isFolder)
            if !isFolder.boolValue { result[relative] = try Data(contentsOf: URL(fileURLWithPath: root + "/" + relative)) }
        }
        return result
    }

    /// A zoo of `count` animals in two categories, written once.
    static func zoo(_ count: Int, at url: URL) throws -> (graph: ObjectGraph, animals: [PersistentIdentifier], categories: [PersistentIdentifier]) {
        let graph = ObjectGraph(schema: try zooSchema())
        let mammals = try graph.insert("AnimalCategory", ["name": .string("Mammal")])
        let birds = try graph.insert("AnimalCategory", ["name": .string("Bird")])
        var animals: [PersistentIdentifier] = []
        for index in 0..<count {
            let animal = try graph.insert("Animal", ["name": .string("Animal \(index)"), "age": .int(Int64(index))])
            try graph.link(animal, "category", to: index % 2 == 0 ? mammals : birds)
            animals.append(animal)
        }
        try DocumentPackage(url: url).write(graph)
        return (graph, animals, [mammals, birds])
    }

    @Test("a save writes format 3: a manifest of the schema alone, parts at parts/ENTITY/LANE-BUCKET.xml counting nothing")
    func layout() throws {
        let url = temporaryPackageURL("Zoo")
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let (graph, animals, _) = try Self.zoo(10, at: url)
        let files = try Self.files(url)
        let manifest = String(decoding: files["manifest.xml"] ?? Data(), as: UTF8.self)
        #expect(manifest.contains(#"<folio format="3">"#), "\(manifest)")
        #expect(!manifest.contains("next-id") && !manifest.contains("<parts>") && !manifest.contains("<history"))
        let animalPart = PackageLayout.partPath(entity: "Animal", id: animals[0].id)
        #expect(Set(files.keys) == ["manifest.xml", animalPart, PackageLayout.partPath(entity: "AnimalCategory", id: animals[0].id)])
        let part = String(decoding: files[animalPart] ?? Data(), as: UTF8.self)
        #expect(part.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<objects entity=\"Animal\">\n"), "\(part)")
        #expect(part.split(separator: "\n").count == 2 + 10 + 1)
        let read = try DocumentPackage(url: url).read()
        #expect(read.objectStates() == graph.objectStates())
    }

    @Test("an edit of one value changes one line of one part; no file is added, renamed or removed")
    func oneEditOneLine() throws {
        let url = temporaryPackageURL("Zoo")
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let (_, animals, _) = try Self.zoo(50, at: url)
        let before = try Self.files(url)
        let container = try ModelContainer(for: try zooSchema(), configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        try context.setValue(.int(99), for: "age", of: animals[7])
        try context.save()
        container.sharedDocument.waitForBackgroundWrites()
        let after = try Self.files(url)
        #expect(Set(before.keys.filter { !$0.hasPrefix("history/") }) == Set(after.keys.filter { !$0.hasPrefix("history/") }))
        let changed = after.keys.filter { !$0.hasPrefix("history/") && before[$0] != after[$0] }.sorted()
        // The manifest is replaced by every commit, with the same bytes.
        #expect(changed == [PackageLayout.partPath(entity: "Animal", id: animals[7].id)])
        let old = String(decoding: before[changed[0]] ?? Data(), as: UTF8.self).split(separator: "\n")
        let new = String(decoding: after[changed[0]] ?? Data(), as: UTF8.self).split(separator: "\n")
        #expect(old.count == new.count)
        #expect(zip(old, new).filter { $0 != $1 }.count == 1)
        // The save's transaction went to this writer's own history file.
        let history = after.keys.filter { $0.hasPrefix("history/") }
        #expect(history.count == 1 && PackageLayout.history(ofFileName: String(history[0].dropFirst(8))) != nil, "\(history)")
    }

    @Test("a part left without objects is kept, written empty, and the package opens")
    func emptiedPartsStay() throws {
        let url = temporaryPackageURL("Zoo")
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let (graph, animals, _) = try Self.zoo(4, at: url)
        for animal in animals { try graph.remove(animal) }
        try DocumentPackage(url: url).write(graph)
        let part = try Self.files(url)[PackageLayout.partPath(entity: "Animal", id: animals[0].id)]
        #expect(part.map { String(decoding: $0, as: UTF8.self) } == "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<objects entity=\"Animal\">\n</objects>\n")
        #expect(try DocumentPackage(url: url).read().tables[1].liveCount == 0)
    }

    @Test("a format-2 package opens; its next save makes it format 3 keeping ids and history, and removes format 2's files")
    func migratesFormat2() throws {
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("Old.folio")
        DocumentPackage.writeFormat2(true, under: url.path)
        let rex = try { () throws -> PersistentIdentifier in
            let container = try ModelContainer(for: try zooSchema(), configurations: ModelConfiguration(url: url))
            let context = ModelContext(container)
            let rex = try context.insert("Animal", ["name": .string("Rex")])
            try context.save()
            container.sharedDocument.waitForBackgroundWrites()
            return rex
        }()
        DocumentPackage.writeFormat2(false, under: url.path)
        #expect(try Self.files(url).keys.contains { $0.hasPrefix("parts/Animal-") }, "a format-2 package to start from")
        let reopened = try ModelContainer(for: try zooSchema(), configurations: ModelConfiguration(url: url))
        let later = ModelContext(reopened)
        try later.setValue(.int(5), for: "age", of: rex)
        try later.save()
        reopened.sharedDocument.waitForBackgroundWrites()
        let files = try Self.files(url)
        #expect(String(decoding: files["manifest.xml"] ?? Data(), as: UTF8.self).contains(#"format="3""#))
        #expect(!files.keys.contains { $0.hasPrefix("parts/Animal-") })
        #expect(files.keys.contains(PackageLayout.partPath(entity: "Animal", id: rex.id)))
        let third = ModelContext(try ModelContainer(for: try zooSchema(), configurations: ModelConfiguration(url: url)))
        let transactions = try third.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(transactions.count == 2, "the format-2 save's transaction and the migrating save's")
        #expect(transactions.map(\.transactionIdentifier) == transactions.map(\.transactionIdentifier).sorted())
        #expect(try third.fetchCount(DynamicFetchDescriptor(entity: "Animal")) == 1)
    }

    @Test("conflict records are lines of the part holding their object, read back the same")
    func conflictLines() throws {
        let base = ObjectGraph(schema: try zooSchema())
        let rex = try base.insert("Animal", ["name": .string("Rex"), "age": .int(3)])
        let ours = base.copy(), theirs = base.copy()
        try ours.setValue(.string("Rex the First"), for: "name", of: rex)
        try theirs.setValue(.string("Rexy"), for: "name", of: rex)
        let result = try ObjectGraph.merge(base: base, ours: ours, theirs: theirs)
        let url = temporaryPackageURL("Merged")
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        try DocumentPackage(url: url).write(result.graph)
        let part = String(decoding: try Self.files(url)[PackageLayout.partPath(entity: "Animal", id: rex.id)] ?? Data(), as: UTF8.self)
        let lines = part.split(separator: "\n")
        #expect(lines.count == 5, "\(part)")
        #expect(lines[2].hasPrefix("  <Animal f.id=\"\(rex.id)\""))
        #expect(lines[3] == #"  <f.conflict f.id="\#(rex.id)" kind="value" property="name" base="Rex" ours="Rex the First" theirs="Rexy"/>"#)
        #expect(try DocumentPackage(url: url).read().conflicts == result.conflicts)
    }

    @Test("parts merged line by line that leave links to a deleted object open: its delete rule applied, each removal recorded")
    func reconcilesLineMergedParts() throws {
        let url = temporaryPackageURL("Zoo")
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let (graph, animals, categories) = try Self.zoo(4, at: url)
        // One side deleted Bird; the other kept Bird's animals (edited them, say): put
        // together file by file as Git would, Bird's part comes from the first side only.
        let deleting = graph.copy()
        try deleting.remove(categories[1])
        let deletedAt = temporaryPackageURL("Deleting")
        defer { try? FileManager.default.removeItem(at: deletedAt.deletingLastPathComponent()) }
        try DocumentPackage(url: deletedAt).write(deleting)
        let categoryPart = PackageLayout.partPath(entity: "AnimalCategory", id: categories[1].id)
        try Self.files(deletedAt)[categoryPart]?.write(to: url.appendingPathComponent(categoryPart))
        let read = try DocumentPackage(url: url).read()
        read._checkInvariants()
        #expect(read.tables[0].liveCount == 1)
        // Bird's animals point at a category that is gone, whose delete rule cascades:
        // they go too, each recorded with its values.
        let birdAnimals = [animals[1], animals[3]]
        #expect(read.tables[1].liveCount == 2)
        let cascades = read.conflicts.filter { $0.kind == .cascade }
        #expect(cascades.map(\.id.id).sorted() == birdAnimals.map(\.id).sorted(), "\(read.conflicts)")
        // Saved, the reconciled document opens strictly, its records kept.
        try DocumentPackage(url: url).write(read)
        let again = try DocumentPackage(url: url).read().conflicts
        #expect(again == read.conflicts, "\(again)\n\(read.conflicts)")
    }

    @Test("a commit cut off after its journal is durable: readers read the new version, the next writer finishes it")
    func journalRollsForward() throws {
        let url = temporaryPackageURL("Zoo")
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let (graph, animals, _) = try Self.zoo(3, at: url)
        try graph.setValue(.string("Renamed"), for: "name", of: animals[0])
        struct Crash: Error {}
        DocumentPackage.interruptCommits(under: url.path) { (stage: CommitJournal.Stage) throws(PackageError) in
            if stage == .renamed(0) || stage == .journalDurable { throw .io(path: url.path, operation: "crash", code: EIO, message: "crash") }
        }
        #expect(throws: PackageError.self) { try DocumentPackage(url: url).write(graph) }
        DocumentPackage.interruptCommits(under: url.path, nil)
        #expect(FileManager.default.fileExists(atPath: url.appendingPathComponent(CommitJournal.fileName).path))
        let read = try DocumentPackage(url: url).read()
        #expect(try read.value("name", of: animals[0]) == .string("Renamed"))
        try graph.setValue(.int(8), for: "age", of: animals[1])
        try DocumentPackage(url: url).write(graph)
        #expect(!FileManager.default.fileExists(atPath: url.appendingPathComponent(CommitJournal.fileName).path))
        #expect(try DocumentPackage(url: url).read().objectStates() == graph.objectStates())
    }

    @Test("a reader that chose a commit's temporary, renamed into place before it opened it, reads the new version, not an error")
    func temporaryRenamedUnderTheReader() throws {
        let url = temporaryPackageURL("Zoo")
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let (graph, animals, _) = try Self.zoo(3, at: url)
        try graph.setValue(.string("Renamed"), for: "name", of: animals[0])
        // The commit stops with its journal durable and every temporary still there.
        DocumentPackage.interruptCommits(under: url.path) { (stage: CommitJournal.Stage) throws(PackageError) in
            if stage == .journalDurable { throw .io(path: url.path, operation: "stop", code: EIO, message: "stopped") }
        }
        #expect(throws: PackageError.self) { try DocumentPackage(url: url).write(graph) }
        DocumentPackage.interruptCommits(under: url.path, nil)
        // The commit goes on between the reader's choice of a part's temporary and its open: that
        // one temporary is renamed into place, the journal stays (as on another thread, mid-commit).
        let renamed = Mutex(0)
        CommitJournal.onReadingTemporary(in: url.path) { temporary in
            // A part's (the manifest is renamed last, and its change alone sends a reader round again).
            guard temporary.folder != nil else { return }
            let first = renamed.withLock { count in
                count += 1
                return count == 1
            }
            guard first else { return }
            try? temporary.package.move(temporary, to: String(temporary.name.dropFirst().dropLast(4)))
        }
        defer { CommitJournal.onReadingTemporary(in: url.path, nil) }
        let read = try DocumentPackage(url: url).read()
        #expect(renamed.withLock { $0 } >= 1, "a part's temporary was renamed under the reader")
        #expect(try read.value("name", of: animals[0]) == .string("Renamed"))
        #expect(read.objectStates() == graph.objectStates())
    }

    @Test("two writers' transactions go to their own files and read back in time order; deleteHistory empties, never removes")
    func historyFilesPerWriter() throws {
        let url = temporaryPackageURL("Zoo")
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        for name in ["First", "Second"] {
            let container = try ModelContainer(for: try zooSchema(), configurations: ModelConfiguration(url: url))
            let context = ModelContext(container)
            context.author = name
            try context.insert("Animal", ["name": .string(name)])
            try context.save()
            container.sharedDocument.waitForBackgroundWrites()
        }
        let historyFiles = try Self.files(url).keys.filter { $0.hasPrefix("history/") }
        #expect(historyFiles.count == 2, "\(historyFiles)")
        let container = try ModelContainer(for: try zooSchema(), configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        let transactions = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(transactions.map(\.author) == ["First", "Second"])
        try context.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        container.sharedDocument.waitForBackgroundWrites()
        let after = try Self.files(url).filter { $0.key.hasPrefix("history/") }
        #expect(Set(after.keys) == Set(historyFiles))
        #expect(after.values.allSatisfy { $0 == Data(HistoryLog.encode([])) })
        #expect(
            try ModelContext(try ModelContainer(for: try zooSchema(), configurations: ModelConfiguration(url: url)))
                .fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).isEmpty)
    }
}

extension Format3Tests {
    @Test("a sample of format 2 opened by contents, edited through mainContext with autosave, migrates in the background")
    @MainActor func autosaveMigratesASample() throws {
        let folder = try TemporaryFolder()
        let url = try folder.copySample("Animals.folio")
        let container = try ModelContainer(contentsOf: url)
        let context = container.mainContext
        for version in 1...3 {
            try context.insert("AnimalCategory", ["name": .string("v\(version)")])
            context.processPendingChanges()
        }
        container.sharedDocument.waitForBackgroundWrites()
        let reopened = ModelContext(try ModelContainer(contentsOf: url))
        #expect(try reopened.fetchCount(DynamicFetchDescriptor(entity: "AnimalCategory")) == 9)
        #expect(String(decoding: try Self.files(url)["manifest.xml"] ?? Data(), as: UTF8.self).contains(#"format="3""#))
    }
}

extension Format3Tests {
    @Test("a writer's history file fills and the next opens; numbers go on ascending across reopening; a save writes only its open file")
    func historyFilesRollOver() throws {
        let url = temporaryPackageURL("Zoo")
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        var numbers: [Int64] = []
        do {
            let container = try ModelContainer(for: try zooSchema(), configurations: ModelConfiguration(url: url))
            let context = ModelContext(container)
            context.undoManager = nil
            let note = String(repeating: "n", count: 2_000)
            for index in 0..<40 {
                context.author = note + "\(index)"
                try context.insert("Animal", ["name": .string("A\(index)")])
                try context.save()
            }
            numbers = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).map(\.transactionIdentifier)
        }
        let files = try Self.files(url).filter { $0.key.hasPrefix("history/") }
        #expect(files.count == 2, "40 transactions of about 2 KB: past 64 KiB once: \(files.keys.sorted())")
        #expect(Set(files.keys.map { $0.dropFirst(8).prefix(8) }).count == 1, "one writer, one lane")
        let container = try ModelContainer(for: try zooSchema(), configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        #expect(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).map(\.transactionIdentifier) == numbers)
        try context.insert("Animal", ["name": .string("Later")])
        try context.save()
        container.sharedDocument.waitForBackgroundWrites()
        let after = try Self.files(url).filter { $0.key.hasPrefix("history/") }
        #expect(after.filter { files[$0.key] != nil }.allSatisfy { files[$0.key] == $0.value }, "earlier files untouched")
        #expect(after.count == files.count + 1, "the later session writes a file of its own")
        let all = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).map(\.transactionIdentifier)
        #expect(all.count == 41 && all == all.sorted() && Array(all.prefix(40)) == numbers)
    }

    @Test("deleteAllData empties every file of the package; the next save's transaction is numbered after the last")
    func deleteAllDataEmptiesFiles() throws {
        let url = temporaryPackageURL("Zoo")
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let container = try ModelContainer(for: try zooSchema(), configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        try context.insert("Animal", ["name": .string("TOMBSTONED-VALUE")])
        try context.save()
        let last = try #require(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).last?.transactionIdentifier)
        container.deleteAllData()
        #expect(try allPackageBytes(url).range(of: Data("TOMBSTONED-VALUE".utf8)) == nil)
        #expect(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).isEmpty)
        try context.insert("Animal", ["name": .string("After")])
        try context.save()
        let next = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).map(\.transactionIdentifier)
        #expect(next.count == 1 && next[0] > last)
    }
}
