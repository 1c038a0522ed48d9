import Foundation
import Testing
import FolioTestSupport

/// The README's tour is a real session: typed into `folio` on a terminal, it
/// prints every line the README shows, in order.
@Suite struct ReadmeTourTests {
    static let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("README.md")

    /// The tour's lines: the fenced block under "A short tour of `folio`".
    static func tourLines() throws -> [String] {
        let text = try String(contentsOf: readme, encoding: .utf8)
        guard let heading = text.range(of: "## A short tour of `folio`"),
            let open = text.range(of: "```\n", range: heading.upperBound..<text.endIndex),
            let close = text.range(of: "```\n", range: open.upperBound..<text.endIndex)
        else { return [] }
        return text[open.upperBound..<close.lowerBound].split(separator: "\n", omittingEmptySubsequences: false)
            .dropLast().map(String.init)
    }

    @Test("the README's tour, typed into folio on a terminal, prints every line the README shows")
    func tourIsARealSession() throws {
        let lines = try Self.tourLines()
        try #require(lines.first?.hasPrefix("$ swift run folio ") == true, "the tour starts with its command: \(lines.first ?? "none")")
        let documentPath = String(lines[0].dropFirst("$ swift run folio ".count))
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        try FileManager.default.createDirectory(at: folder.url.appendingPathComponent("SampleDocuments"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: SampleDocuments.folder.appendingPathComponent("Animals.folio"),
            to: folder.url.appendingPathComponent(documentPath))
        // In the folder, so the package is named as the README names it.
        let terminal = try PseudoTerminal(
            executable: "/bin/sh",
            arguments: [
                "-c", "cd \"$0\" && exec \"$1\" \"$2\"",
                folder.url.path, folioBinary.path, documentPath,
            ],
            environment: [
                "FOLIO_HISTORY": folder.url.appendingPathComponent("history").path,
                "HOME": folder.url.path, "TERM": "xterm", "PATH": "/usr/bin:/bin",
            ])
        // What a person types: the text after each prompt, and the answer to each question.
        let prompt = #/^(\w+\*?> |[^?]+\? \[y/N\] )(.*)$/#
        var mark = 0
        for line in lines.dropFirst() {
            guard let match = line.wholeMatch(of: prompt) else { continue }
            let shown = String(match.1)
            try #require(terminal.waitFor(shown, after: mark), "no \(shown.debugDescription): \(terminal.screenText)")
            mark = terminal.output.count
            terminal.type(String(match.2) + "\r")
        }
        #expect(terminal.waitForExit() == 0, "folio did not quit: \(terminal.screenText)")
        // Every README line appears on the screen, in the README's order. The echo of
        // the `quit` that ends the session may be lost as the terminal closes: its
        // prompt must be there.
        let screen = terminal.screenText.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var expected = Array(lines.dropFirst())
        if let last = expected.last, let match = last.wholeMatch(of: prompt), match.2 == "quit" { expected[expected.count - 1] = String(match.1) }
        var position = 0
        for line in expected {
            guard let found = screen[position...].firstIndex(where: { $0 == line || (line.hasSuffix("> ") && $0.hasPrefix(line)) }) else {
                Issue.record("README line \(line.debugDescription) not printed (in order); the screen:\n\(terminal.screenText)")
                return
            }
            position = found + 1
        }
    }
}
