import Foundation
import PropertyBased
import Testing
@testable import FolioREPL
import FolioTestSupport

@Suite struct FailureAtomicityTests {
    static let vocabulary = [
        "list", "count", "show", "insert", "set", "link", "unlink", "delete", "undo", "redo", "history", "status",
        "revert", "help", "schema", "all", "everything", "where", "sort", "limit", "offset", "desc",
        "Dog", "Person", "DogToy", "DogClub", "11", "5", "Dog#12", "#1", "0", "-1", "999", "name", "age", "==", "=", "'x'", "\"",
        "'", "[", "]", "{", "}", ",", ":", "name=Rex", "age=3", "age=", "citiesVisited=[a,", "citiesVisited=[a, b]",
        "favoriteParksByCity={a:", "favoriteParksByCity={a: b}", "companion=int:", "companion=3", "owner=5", "owner=[5]",
        "dogs=[11, 12]", "dogs=[", "clubs=[9,]", "\\", "\\u12", "\"\\u12\"", "é", "🐶", "owner", "dogs", "clubs", "favoriteToy",
        "age > 3", "and", "or", "(", ")", "@count", "dogs.@count", "in", "{1,2}", "5,", "name,", "=x",
    ]

    /// The document as it would be saved now.
    func snapshot(_ session: Session, in folder: URL) throws -> Data {
        let url = folder.appendingPathComponent("\(UUID().uuidString).folio")
        try session.interpreter.context.exportPackage(to: url)
        return try packageDocument(url)
    }

    @Test("random command lines never crash, and one that fails leaves the document and the undo history as they were", .tags(.long))
    func randomLines() async throws {
        let folder = try temporaryFolderURL("repl-atomicity")
        // A line is words by index into the vocabulary, joined with spaces or not: a failure
        // shrinks to the fewest lines, each of the fewest words, toward "list".
        let line = zip(Gen.int(in: 0...(Self.vocabulary.count - 1)).array(of: 1...6), Gen.bool)
        await checkProperty(count: TestEffort.cases(60), input: Gen.bool, Gen.bool, line.array(of: 1...19)) { assumeYes, json, lines in
            let session = try Session("Dogs", options: .init(assumeYes: assumeYes, json: json))
            for (words, spaced) in lines {
                let line = words.map { Self.vocabulary[$0] }.joined(separator: spaced ? " " : "")
                _ = session.interpreter.completions(for: line)
                let before = try snapshot(session, in: folder)
                let steps = session.interpreter.context.undoManager?.undoActionNames
                guard let error = session.error(line) else { continue }
                #expect(try snapshot(session, in: folder) == before, "'\(line)' failed (\(error)) but changed the document")
                #expect(session.interpreter.context.undoManager?.undoActionNames == steps, "'\(line)' changed the undo history")
            }
        }
    }
}
