import Folio
import Foundation
@testable import FolioREPL
import Testing

/// Errors shown as psql shows them: the line echoed, a caret under the offending column.
@Suite struct ErrorPointerTests {
    @Test("the caret stands under the column the error names")
    func caretUnderColumn() throws {
        let session = try Session("Animals")
        let line = "list Animal sort nam"
        let error = try #require(session.error(line))
        #expect(error.column == 18)
        let lines = ErrorPointer.lines(pointingAt: error.column, in: line)
        #expect(lines == ["  list Animal sort nam", "                   ^"])
        let caret = try #require(lines.last?.firstIndex(of: "^"))
        let echoed = try #require(lines.first)
        #expect(echoed[caret] == "n", "the caret is under the first letter of 'nam'")
    }

    @Test("the report is error, line number, column and message, then the line and the caret")
    func report() {
        let error = CommandError("unknown command 'lst'; did you mean 'list'?", column: 3)
        #expect(
            ErrorPointer.report(error, in: "  lst Animal", lineNumber: 4) == """
                error: 4: column 3: unknown command 'lst'; did you mean 'list'?
                    lst Animal
                    ^
                """)
        #expect(
            ErrorPointer.report(error, in: "  lst Animal") == """
                error: column 3: unknown command 'lst'; did you mean 'list'?
                    lst Animal
                    ^
                """)
    }

    @Test("a message quoting a huge word is cut in its middle; its start and end stay")
    func longMessage() throws {
        let session = try Session("Animals")
        let line = "bogus" + String(repeating: "x", count: 100_000)
        let error = try #require(session.error(line))
        let report = ErrorPointer.report(error, in: line, lineNumber: 1)
        let head = try #require(report.split(separator: "\n").first)
        #expect(head.hasPrefix("error: 1: column 1: unknown command 'bogusxxx"))
        #expect(head.hasSuffix("xxx'; try 'help'"))
        #expect(head.contains("…"))
        #expect(head.count < ErrorPointer.messageLimit + 30)
    }

    @Test("an error about the whole line has no caret")
    func wholeLine() {
        #expect(ErrorPointer.lines(pointingAt: 0, in: "save") == [])
        #expect(ErrorPointer.report(CommandError("nothing to undo"), in: "undo", lineNumber: 2) == "error: 2: nothing to undo")
    }

    @Test("a column past the end of the line points just after its last character")
    func pastTheEnd() throws {
        let session = try Session("Animals")
        let error = try #require(session.error("list Animal where"))
        #expect(
            ErrorPointer.lines(pointingAt: error.column, in: "list Animal where")
                == ["  list Animal where", "                   ^"])
    }

    @Test("a long line is cut to a window around the column, with … at each cut end, the caret under the right character")
    func window() {
        let line = String(repeating: "a", count: 500) + "X" + String(repeating: "b", count: 500)
        let lines = ErrorPointer.lines(pointingAt: 501, in: line)
        let context = ErrorPointer.context
        #expect(lines[0] == "  …" + String(repeating: "a", count: context) + "X" + String(repeating: "b", count: context) + "…")
        #expect(lines[1] == "  " + String(repeating: " ", count: context + 1) + "^")
        // Near the start nothing is cut on the left.
        let early = ErrorPointer.lines(pointingAt: 3, in: line)
        #expect(early[0] == "  " + String(repeating: "a", count: 3 + context) + "…")
        #expect(early[1] == "    ^")
        // At the very end nothing is cut on the right.
        let late = ErrorPointer.lines(pointingAt: 1002, in: line)
        #expect(late[0] == "  …" + String(repeating: "b", count: context))
        #expect(late[1] == "  " + String(repeating: " ", count: context + 1) + "^")
    }

    @Test("the caret counts characters: accents and emoji made of several scalars are one column of the echo")
    func characters() throws {
        // "é" written as e + combining acute: two scalars, one character.
        let line = "set 2 name=\"Zoe\u{301}\" 👩‍👩‍👧 dietx=1"
        let session = try Session("Animals")
        let error = try #require(session.error(line))
        let lines = ErrorPointer.lines(pointingAt: error.column, in: line)
        let echoed = Array(lines[0]), caretLine = Array(lines[1])
        let caret = try #require(caretLine.firstIndex(of: "^"))
        #expect(error.message.hasPrefix("expected name=value"))
        #expect(echoed[caret] == "👩‍👩‍👧", "\(lines)")
    }

    @Test("control characters are echoed escaped, and the caret moves past the escape's width")
    func escapes() {
        let lines = ErrorPointer.lines(pointingAt: 7, in: "a\tb\u{1B}c bad")
        #expect(lines[0] == "  a\\tb\\u001bc bad")
        #expect(lines[1] == "  " + String(repeating: " ", count: 12) + "^")
    }

    @Test("property: the caret is under the character holding the column's scalar, for any line and column")
    func caretProperty() {
        var generator = SystemRandomNumberGenerator()
        let alphabet: [Character] = ["a", "b", " ", "é", "漢", "e\u{301}", "'"]
        for _ in 0..<300 {
            let length = Int.random(in: 0...200, using: &generator)
            let characters = (0..<length).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] }
            let line = String(characters)
            let scalarCount = line.unicodeScalars.count
            let column = Int.random(in: 1...(scalarCount + 1), using: &generator)
            let lines = ErrorPointer.lines(pointingAt: column, in: line)
            let echoed = Array(lines[0].dropFirst(2)), caretLine = Array(lines[1].dropFirst(2))
            #expect(caretLine.last == "^" && caretLine.dropLast().allSatisfy { $0 == " " })
            let caret = caretLine.count - 1
            // The character the column falls in, found by counting scalars.
            var scalars = 0
            var expected: Character?
            for character in characters {
                scalars += character.unicodeScalars.count
                if scalars >= column { expected = character; break }
            }
            if let expected {
                #expect(echoed[caret] == expected, "\(line) column \(column)")
            } else {
                #expect(caret == echoed.count || echoed[caret] == "…", "\(line) column \(column)")
            }
            #expect(echoed.count <= 2 * ErrorPointer.context + 3)
        }
    }
}
