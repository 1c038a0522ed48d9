import Folio
import Foundation
import FolioTestSupport
import Testing
@testable import FolioREPL

/// `Interpreter.isCancelled`: a long command stops between rows (or inside
/// the library's fetch and deletion plan), writes nothing more and changes
/// nothing. Work is counted by how often the check is asked, never timed.
@Suite struct CancellationTests {
    @Test("list stops between rows: fewer rows than asked, no total line, CommandError.cancelled")
    func listStops() throws {
        let session = try Session("Animals")
        let stopper = CancellationStopper(after: 10)
        session.interpreter.isCancelled = stopper.check
        #expect(session.error("list Animal limit 30") == .cancelled)
        #expect(session.error("list Animal limit 30")?.kind == .cancelled)
        #expect(!session.transcript.contains("30 Animal"))
        session.interpreter.isCancelled = nil
        #expect(try session.run("list Animal limit 30").hasSuffix("30 Animal\n"))
    }

    @Test("the check reaches the library: a count or a delete's preview asked to stop throws cancelled, deleting nothing")
    func libraryStops() throws {
        let session = try Session("Animals")
        session.answer = true
        session.interpreter.isCancelled = { true }
        #expect(session.interpreter.context.cancellationCheck != nil)
        #expect(session.error("delete AnimalCategory where name == 'Mammal'") == .cancelled)
        #expect(session.error("delete everything") == .cancelled)
        session.interpreter.isCancelled = nil
        #expect(try session.count("Animal") == 30)
        #expect(!session.interpreter.hasUnsavedChanges)
        #expect(session.interpreter.context.undoManager?.undoActionNames == [])
    }

    @Test("the check stays installed when save as and reopen replace the context")
    func followsTheContext() throws {
        let session = try Session("Animals")
        session.interpreter.isCancelled = { false }
        try session.run("reopen")
        #expect(session.interpreter.context.cancellationCheck?() == false)
        let copy = session.url.deletingLastPathComponent().appendingPathComponent("Copy.folio")
        try session.run("save as \"\(copy.path)\"")
        #expect(session.interpreter.context.cancellationCheck?() == false)
    }
}
