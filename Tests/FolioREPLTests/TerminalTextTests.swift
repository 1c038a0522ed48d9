import Folio
import Foundation
import Testing
@testable import FolioREPL

/// No value, name or message the REPL prints can drive the terminal.
@Suite struct TerminalTextTests {
    /// ESC, BEL, a CSI sequence, DEL, an 8-bit CSI (U+009B) and a right-to-left override.
    static let hostile = "evil\u{1B}]0;pwned\u{07}\u{1B}[2J\u{7F}\u{9B}31m\u{202E}gnp.exe"

    /// Whether the text holds anything a terminal would act on.
    static func isInert(_ text: String) -> Bool {
        !text.unicodeScalars.contains { $0 != "\n" && TerminalText.needsEscape($0) }
    }

    @Test("TerminalText escapes C0, DEL, C1 and bidi controls and leaves other text alone")
    func escaping() {
        #expect(TerminalText.escaped(Self.hostile) == #"evil\u001b]0;pwned\u0007\u001b[2J\u007f\u009b31m\u202egnp.exe"#)
        #expect(TerminalText.escaped("a\nb\tc\rd") == #"a\nb\tc\rd"#)
        #expect(TerminalText.escaped("a\nb", keepingNewlines: true) == "a\nb")
        #expect(TerminalText.escaped("Zoë 🦘 日本") == "Zoë 🦘 日本")
    }

    @Test("list, show, JSON, status, errors and questions print a hostile value or name escaped")
    func everyOutputIsEscaped() throws {
        let session = try Session("Animals")
        try session.run("set 2 name=\"\(Self.hostile)\"")
        let outputs = [
            try session.run("list Animal limit 3"),
            try session.run("show 2"),
            try session.run("list Animal where name beginswith 'evil'"),
            try session.run("status"),
            try session.run("history"),
        ]
        for output in outputs {
            #expect(Self.isInert(output), "\(output.debugDescription)")
        }
        #expect(outputs[0].contains(#"evil\u001b]0;pwned"#))
        let error = try #require(session.error("show \(Self.hostile)"))
        #expect(Self.isInert(error.description))
        let unknown = try #require(session.error("list Animal where \u{1B}[2J == 1"))
        #expect(Self.isInert(unknown.description))

        let json = try Session("Animals", options: .init(json: true))
        try json.run("set 2 name=\"\(Self.hostile)\"")
        let listed = try json.run("list Animal limit 3") + json.run("show 2")
        #expect(Self.isInert(listed))
        #expect(listed.contains(#"evil\u001b]0;pwned\u0007"#))
    }

    @Test("a schema whose names and defaults hold control characters prints them escaped, and so do the prompt and questions")
    func schemaNamesAndPromptAreEscaped() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("folio-terminal-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("Z\u{1B}[2Jo\u{07}.folio")
        let schema = try Schema([Schema.Entity("Thing", attributes: [
            Schema.Attribute("label", .string, defaultValue: .string("x\u{1B}]0;t\u{07}")),
        ])])
        try DocumentPackage(url: url).write(ObjectGraph(schema: schema))
        let session = try Session(url: url)
        let output = try session.run("schema")
        #expect(Self.isInert(output))
        #expect(output.contains(#"x\u001B]0;t\u0007"#))
        #expect(Self.isInert(session.interpreter.prompt))
        try session.run("insert Thing")
        _ = try session.outcome("quit")
        #expect(session.questions.allSatisfy(Self.isInert))
        #expect(!session.questions.isEmpty)
    }
}
