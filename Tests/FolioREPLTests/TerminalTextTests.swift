import Folio
import Foundation
import Testing
@testable import FolioREPL
import FolioTestSupport

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
        let folder = try temporaryFolderURL("terminal")
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("Z\u{1B}[2Jo\u{07}.folio")
        let schema = try Schema([
            Schema.Entity(
                "Thing",
                attributes: [
                    Schema.Attribute("label", .string, defaultValue: .string("x\u{1B}]0;t\u{07}"))
                ])
        ])
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

/// Terminal cell widths, by Unicode properties.
@Suite struct CellWidthTests {
    @Test("ASCII and Latin take one cell; CJK, kana, Hangul, fullwidth forms and emoji two; marks and joiners none")
    func widths() {
        #expect(TerminalText.cellWidth("Zoë") == 3)
        #expect(TerminalText.cellWidth("日本語") == 6)
        #expect(TerminalText.cellWidth("ひらがなカタカナ") == 16)
        #expect(TerminalText.cellWidth("한국어") == 6)
        #expect(TerminalText.cellWidth("ｱｲｳ") == 3)  // halfwidth katakana
        #expect(TerminalText.cellWidth("ＡＢ") == 4)  // fullwidth Latin
        #expect(TerminalText.cellWidth("🦘🐕") == 4)
        #expect(TerminalText.cellWidth("e\u{301}") == 1)  // combining acute
        #expect(TerminalText.cellWidth("\u{20DD}") == 0)  // enclosing circle alone
        #expect(TerminalText.cellWidth("a\u{200D}b") == 2)  // a zero-width joiner between letters
        #expect(TerminalText.cellWidth("\u{200B}") == 0)  // zero-width space
        #expect(TerminalText.cellWidth("👨‍👩‍👧") == 2)  // a ZWJ family is one emoji
        #expect(TerminalText.cellWidth("🇯🇵") == 2)  // a flag
        #expect(TerminalText.cellWidth("❤") == 1)  // text presentation…
        #expect(TerminalText.cellWidth("❤️") == 2)  // …and emoji presentation
        #expect(TerminalText.cellWidth("1️⃣") == 2)  // keycap
        #expect(TerminalText.cellWidth("𠀋") == 2)  // CJK extension B, outside the BMP
        #expect(TerminalText.cellWidth("") == 0)
    }

    @Test("a scalar's width follows its East Asian Width and general category")
    func scalars() {
        #expect(TerminalText.cellWidth(Unicode.Scalar(0x3000)!) == 2)  // ideographic space (F)
        #expect(TerminalText.cellWidth(Unicode.Scalar(0x303F)!) == 1)  // ideographic half fill space (N)
        #expect(TerminalText.cellWidth(Unicode.Scalar(0xAC00)!) == 2)  // Hangul syllable
        #expect(TerminalText.cellWidth(Unicode.Scalar(0x1160)!) == 0)  // Hangul medial vowel filler
        #expect(TerminalText.cellWidth(Unicode.Scalar(0x0300)!) == 0)  // combining grave
        #expect(TerminalText.cellWidth(Unicode.Scalar(0x00AD)!) == 1)  // soft hyphen is drawn
        #expect(TerminalText.cellWidth(Unicode.Scalar(0xFEFF)!) == 0)  // byte order mark
        #expect(TerminalText.cellWidth(Unicode.Scalar(0x1B)!) == 0)  // control: escaped before it is measured
        // The wide table is sorted and disjoint, so the binary search finds every range.
        let ranges = TerminalText.wideRanges
        #expect(zip(ranges, ranges.dropFirst()).allSatisfy { $0.upperBound < $1.lowerBound })
        for range in ranges {
            #expect(TerminalText.isWide(range.lowerBound) && TerminalText.isWide(range.upperBound))
        }
    }
}
