import Folio
import Foundation
import Testing
import FolioTestSupport

/// The history as the issue asks for it: another process saves, and a
/// program that had the package open asks "what changed since token T".
@Suite struct HistoryAcrossProcessesTests {
    @Test("a program with the package open sees the transactions another process saved since its token, and folio shows the program's")
    func anotherProcessSaves() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let animals = try folder.copySample("Animals.folio")

        // This program writes first, as "app", keeps its token, and closes the package (its write lock goes).
        let token: DefaultHistoryToken
        do {
            let context = ModelContext(try ModelContainer(contentsOf: animals))
            context.author = "app"
            try context.setValue(.string("Eft"), for: "name", of: PersistentIdentifier(entityName: "Animal", id: 2))
            try context.save()
            token = try #require(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).last?.token)
        }

        // A reader is open while folio, another process, saves twice.
        let reader = ModelContext(try ModelContainer(contentsOf: animals, allowsSave: false))
        let run = try runFolio([animals.path, "--yes"], input: "set 3 name=Olm\nsave\ndelete 1\nsave\n", in: folder.url)
        #expect(run.status == 0, "\(run.stderr)")
        let since = try reader.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > token }))
        // Numbered by time (docs/FORMAT.md, "History"): after the token, ascending.
        #expect(since.count == 2 && since.map(\.transactionIdentifier) == since.map(\.transactionIdentifier).sorted())
        #expect(since.allSatisfy { $0.token > token })
        #expect(since.allSatisfy { $0.author == nil && $0.processIdentifier != String(ProcessInfo.processInfo.processIdentifier) })
        #expect(since.first?.changes.map(\.changedPersistentIdentifier.description) == ["Animal#3"])

        // And folio, a later process, shows this program's transaction with its author.
        let changes = try runFolio([animals.path], input: "changes\n", in: folder.url)
        #expect(changes.status == 0)
        #expect(
            changes.stdout.hasPrefix("transaction \(token.transactionNumber)  ") && changes.stdout.contains("  by app  ("),
            "\(changes.stdout)")
        #expect(changes.stdout.contains("  update Animal #2: name\n"))
        #expect(changes.stdout.contains("transaction \(since[1].transactionIdentifier)  "))
    }
}
