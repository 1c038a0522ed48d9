import Foundation
import Testing
#if canImport(Glibc)
import Glibc
import FolioTestSupport
#endif

/// The recovery package folio writes when it is ended with unsaved edits
/// (SIGTERM, SIGHUP, a trap) carries the session's undo steps: opening it,
/// `undo` takes back the session's edits one step at a time, as it would
/// have before the signal, and `redo` brings them back.
@Suite struct RecoveryUndoTests {
    @Test(
        "a recovered document undoes the session's edits one step at a time, the saved one and the unsaved ones, and redoes them, after SIGTERM and after a trap"
    )
    func recoveryKeepsTheSessionsUndo() throws {
        for signal in [SIGTERM, SIGSEGV] {
            let folder = try TemporaryFolder()
            defer { folder.remove() }
            let animals = try folder.copySample("Animals.folio")
            let state = folder.url.appendingPathComponent("state")
            // One saved edit, then two unsaved ones: an edit and a delete with its cascade.
            let ended = try RecoveryTests.scriptThenSignal(
                signal, arguments: [animals.path, "--yes"], state: state,
                lines: "set 2 name=First\nsave\nset 3 name=Second\ndelete 1\ncount Animal\n", until: "26\n", in: folder.url)
            #expect(ended.reason == .uncaughtSignal && ended.status == signal, "signal \(signal): \(ended)")
            let packages = RecoveryTests.recoveryPackages(in: state)
            try #require(packages.count == 1, "signal \(signal): \(ended.stderr)")
            let recovery = packages[0]
            #expect(
                FileManager.default.fileExists(atPath: recovery.appendingPathComponent(".folio-undo").path),
                "signal \(signal): the recovery package holds the undo journal")

            let script = [
                "history", "count Animal",
                "undo", "count Animal", "show 3",
                "undo", "show 3",
                "undo", "show 2",
                "history",
                "redo", "redo", "redo", "count Animal",
            ]
            let run = try runFolio(
                [recovery.path, "--discard-at-end"], input: script.joined(separator: "\n") + "\n", in: folder.url,
                environment: ["XDG_STATE_HOME": state.path])
            #expect(run.status == 0, "signal \(signal): \(run.stderr)")
            let expected = [
                // history: the three steps of the last session (brought back), the last one the state saved.
                "  1  Set Animal#2.name  (last session", "  2  Set Animal#3.name  (last session",
                "  3  Delete AnimalCategory#1 (5 objects)  (last session", "> you are here (saved)",
                "26",
                "undid Delete AnimalCategory#1 (5 objects)", "30", #""Second""#,
                "undid Set Animal#3.name", #""Tree Frog""#,
                "undid Set Animal#2.name", #""Newt""#,
                // Nothing older than the session: every step undone, each to redo.
                "> you are here", "(undone; redo)", "(undone; redo)", "(undone; redo)",
                "redid Set Animal#2.name", "redid Set Animal#3.name", "redid Delete AnimalCategory#1 (5 objects)", "26",
            ]
            var rest = Substring(run.stdout)
            for text in expected {
                guard let range = rest.range(of: text) else {
                    Issue.record("signal \(signal): \"\(text)\" missing, in order, from:\n\(run.stdout)")
                    break
                }
                rest = rest[range.upperBound...]
            }
        }
    }
}
