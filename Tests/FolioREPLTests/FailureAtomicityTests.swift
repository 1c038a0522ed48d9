import Foundation
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

    @Test("random command lines never crash, and one that fails leaves the document and the undo history as they were")
    func randomLines() throws {
        var generator = SeededGenerator(seed: 42)
        let folder = try temporaryFolderURL("repl-atomicity")
        for round in 0..<60 {
            let session = try Session("Dogs", options: .init(assumeYes: round % 2 == 0, json: round % 3 == 0))
            for _ in 0..<10 {
                let words = (0..<Int.random(in: 1...6, using: &generator)).map { _ in
                    Self.vocabulary[Int.random(in: 0..<Self.vocabulary.count, using: &generator)]
                }
                let line = words.joined(separator: Bool.random(using: &generator) ? " " : "")
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
