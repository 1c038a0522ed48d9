import Folio
import Testing
import Foundation
@testable import FolioREPL
import FolioTestSupport

/// The checked-in sample documents (never edited by tests: they work on copies).
let sampleFolder = SampleDocuments.folder

/// A copy of `SampleDocuments/NAME.folio` in a new temporary folder.
func sampleCopy(_ name: String) throws -> URL {
    try SampleDocuments.copy(name)
}

/// An interpreter on a copy of a sample document that records its output and the questions it asks.
final class Session {
    let interpreter: Interpreter
    let url: URL
    /// Everything written so far.
    private(set) var transcript = ""
    /// Everything written to the notes stream (stderr in `folio`): previews with --yes or --json.
    private(set) var notes = ""
    /// The questions asked, in order.
    private(set) var questions: [String] = []
    /// What the next confirmations answer.
    var answer = false

    convenience init(_ sample: String, options: Interpreter.Options = .init()) throws {
        try self.init(url: try sampleCopy(sample), options: options)
    }

    init(url: URL, options: Interpreter.Options = .init()) throws {
        self.url = url
        interpreter = try Interpreter(opening: url, options: options)
        interpreter.write = { [unowned self] in self.transcript += $0 }
        interpreter.writeNote = { [unowned self] in self.notes += $0 }
        interpreter.confirm = { [unowned self] in
            self.questions.append($0)
            return self.answer
        }
    }

    /// Runs a line and returns what it wrote.
    @discardableResult
    func run(_ line: String) throws(CommandError) -> String {
        let start = transcript.endIndex
        _ = try interpreter.execute(line)
        return String(transcript[start...])
    }

    /// Runs a line and returns its outcome.
    func outcome(_ line: String) throws(CommandError) -> Interpreter.Outcome {
        try interpreter.execute(line)
    }

    /// The error a line throws, or `nil`.
    func error(_ line: String) -> CommandError? {
        do {
            _ = try interpreter.execute(line)
            return nil
        } catch {
            return error
        }
    }

    /// Counts objects through Folio's API.
    func count(_ entity: String, _ predicate: String? = nil) throws -> Int {
        try interpreter.context.fetchCount(DynamicFetchDescriptor(entity: entity, predicate: predicate.map { try ObjectPredicate($0) }))
    }
}

/// Opens a package afresh with Folio's public API, read-only (a writer may still hold it).
func reopen(_ url: URL) throws -> ModelContext {
    ModelContext(try ModelContainer(contentsOf: url, allowsSave: false))
}

/// The identifier a command's output names first (`Animal#4294967297 as $x` →
/// 4294967297): new objects get identifiers in their writer's random lane
/// (issue 30), so tests read the ones they got.
func firstNumber(in output: String) throws -> UInt64 {
    let match = try #require(output.firstMatch(of: /#(\d+)/), "no #id in \(output)")
    return try #require(UInt64(match.1))
}
