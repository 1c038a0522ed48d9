import Folio
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
import FolioTestSupport
#endif

/// Ctrl-C stops the running command and SIGTERM ends folio mid-command, on a
/// document of 100,000 objects: the work done is counted (rows printed,
/// objects left), never timed.
@Suite struct CancelCommandTests {
    /// How many items the big document holds.
    static let itemCount = 100_000

    /// `Big.folio`: one Box holding every Item through a cascading to-many,
    /// built once through the library (100,000 REPL inserts would take minutes).
    static var template: URL { built.url }
    /// The first Item's identifier (in the lane its writer drew).
    static var firstItem: UInt64 { built.firstItem }

    static let built: (url: URL, firstItem: UInt64) = {
        let url = temporaryPackageURL("Big")
        var firstItem: UInt64 = 0
        do {
            let schema = try Schema([
                .init(
                    "Box", attributes: [.init("name", .string)],
                    relationships: [.init("items", to: "Item", toMany: true, inverse: "box", deleteRule: .cascade)]),
                .init(
                    "Item", attributes: [.init("name", .string), .init("number", .int)],
                    relationships: [.init("box", to: "Box", inverse: "items", deleteRule: .nullify)]),
            ])
            // In a scope of its own: the container and its lock are gone before folio opens the package.
            try {
                let context = ModelContext(try ModelContainer(for: schema, configurations: ModelConfiguration(url: url)))
                let box = try context.insert("Box", ["name": .string("everything")])
                var items: [PersistentIdentifier] = []
                items.reserveCapacity(itemCount)
                for number in 0..<itemCount {
                    items.append(try context.insert("Item", ["name": .string("item \(number)"), "number": .int(Int64(number))]))
                }
                try context.setRelated(items, for: "items", of: box)
                try context.save()
                firstItem = items[0].id
            }()
        } catch {
            Issue.record("could not build the big document: \(error)")
        }
        return (url, firstItem)
    }()

    /// A copy of the big document in `folder`.
    static func bigDocument(in folder: TemporaryFolder) throws -> URL {
        let copy = folder.appending("Big.folio")
        try FileManager.default.copyItem(at: template, to: copy)
        return copy
    }

    static func terminal(_ document: URL, _ folder: TemporaryFolder) throws -> PseudoTerminal {
        try PseudoTerminal(
            executable: folioBinary.path, arguments: [document.path],
            environment: [
                "FOLIO_HISTORY": folder.appending("history").path, "HOME": folder.url.path, "TERM": "xterm",
                "PATH": "/usr/bin:/bin", "XDG_STATE_HOME": folder.appending("state").path, "SWIFT_BACKTRACE": "enable=no",
            ])
    }

    /// The table rows (`  17  item 16 …`) in visible text.
    static func rowCount(_ text: String) -> Int {
        text.split(separator: "\n").filter { $0.contains("item ") }.count
    }

    @Test(
        "Ctrl-C stops a list of 100,000 rows and a delete of a 100,000-object cascade: the prompt comes back, fewer rows were printed, nothing was deleted",
        .tags(.long), .onlyInLongRuns)
    func ctrlCStopsTheCommand() throws {
        let folder = try TemporaryFolder()
        let document = try Self.bigDocument(in: folder)
        let terminal = try Self.terminal(document, folder)
        try #require(terminal.waitFor("Big> "), "no prompt: \(terminal.screenText)")

        // The list: read until rows flow, then Ctrl-C. folio cannot have printed them all:
        // the test stops reading, so at most a terminal's buffer more can come.
        var mark = terminal.output.count
        terminal.type("list Item limit \(Self.itemCount)\r")
        try #require(terminal.waitFor("item 100", after: mark), "no rows: \(terminal.screenText.suffix(500))")
        terminal.send("\u{3}")
        #expect(terminal.waitFor("cancelled", after: mark), "not cancelled: \(terminal.screenText.suffix(500))")
        #expect(terminal.waitFor("Big> ", after: mark), "no prompt after Ctrl-C: \(terminal.screenText.suffix(500))")
        let listed = PseudoTerminal.visibleText(Array(terminal.output[mark...]))
        #expect(Self.rowCount(listed) < Self.itemCount / 2, "\(Self.rowCount(listed)) rows printed")
        #expect(!listed.contains("\(Self.itemCount) Item"), "the list ran to its end")
        #expect(terminal.isRunning)

        // The delete: Ctrl-C while it works out the cascade (or, had that finished, at its question):
        // either way nothing is deleted and the document has no unsaved change.
        mark = terminal.output.count
        terminal.type("delete Box where name == 'everything'\r")
        usleep(100_000)
        terminal.send("\u{3}")
        #expect(terminal.waitFor("cancelled", after: mark), "not cancelled: \(terminal.screenText.suffix(500))")
        try #require(terminal.waitFor("Big> ", after: mark), "no prompt: \(terminal.screenText.suffix(500))")
        mark = terminal.output.count
        terminal.type("count Item\r")
        #expect(terminal.waitFor("\(Self.itemCount)\n", after: mark), "items lost: \(terminal.screenText.suffix(300))")
        try #require(terminal.waitFor("Big> ", after: mark), "unsaved changes after the cancelled delete: \(terminal.screenText.suffix(300))")

        // The session goes on: a command after the Ctrl-C runs whole.
        mark = terminal.output.count
        terminal.type("list Item where number < 3\r")
        #expect(terminal.waitFor("3 Item", after: mark), "\(terminal.screenText.suffix(300))")
        terminal.type("quit\r")
        #expect(terminal.waitForExit() == 0)
    }

    @Test("SIGTERM during a list of 100,000 rows ends folio by SIGTERM, the unsaved edit written to a recovery package", .tags(.long), .onlyInLongRuns)
    func sigtermEndsALongCommand() throws {
        let folder = try TemporaryFolder()
        let document = try Self.bigDocument(in: folder)
        let terminal = try Self.terminal(document, folder)
        try #require(terminal.waitFor("Big> "), "no prompt: \(terminal.screenText)")
        var mark = terminal.output.count
        terminal.type("set \(Self.firstItem) name=Recovered\r")
        try #require(terminal.waitFor("Big*> ", after: mark))
        mark = terminal.output.count
        terminal.type("list Item limit \(Self.itemCount)\r")
        try #require(terminal.waitFor("item 100", after: mark), "no rows: \(terminal.screenText.suffix(500))")
        kill(terminal.pid, SIGTERM)
        _ = terminal.waitForExit()
        #expect(terminal.terminationSignal == SIGTERM, "\(terminal.screenText.suffix(500))")
        #expect(Self.rowCount(PseudoTerminal.visibleText(Array(terminal.output[mark...]))) < Self.itemCount / 2)
        let packages = RecoveryTests.recoveryPackages(in: folder.appending("state"))
        try #require(packages.count == 1, "\(terminal.screenText.suffix(500))")
        #expect(try documentText(packages[0]).contains(#"name="Recovered""#))
    }

    @Test(
        "in a script, SIGTERM during a list of 100,000 rows ends folio by SIGTERM with the recovery package, the document untouched", .tags(.long),
        .onlyInLongRuns)
    func sigtermInAScript() throws {
        let folder = try TemporaryFolder()
        let document = try Self.bigDocument(in: folder)
        let before = try documentText(document)
        let state = folder.appending("state")
        let ended = try RecoveryTests.scriptThenSignal(
            SIGTERM, document: document, state: state,
            lines: "set \(Self.firstItem) name=Recovered\ncount Item\nlist Item limit \(Self.itemCount)\n", until: "\(Self.itemCount)\n", in: folder.url)
        #expect(ended.reason == .uncaughtSignal && ended.status == SIGTERM, "\(ended)")
        #expect(RecoveryTests.recoveryPackages(in: state).count == 1, "\(ended.stderr)")
        #expect(try documentText(document) == before)
    }
}
