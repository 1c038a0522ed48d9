import Testing
@testable import FolioREPL

/// A command over several lines: a trailing backslash, an open quote or bracket.
@Suite struct CommandInputTests {
    @Test("a line ending in a backslash continues; the backslash is dropped")
    func backslash() {
        var input = CommandInput()
        let continues = input.append("list Animal name, \\")
        #expect(!continues)
        let ends = input.append("  diet")
        #expect(ends)
        #expect(input.text == "list Animal name, \n  diet")
    }

    @Test("an open quote or bracket continues, the line break part of the command")
    func openQuoteOrBracket() {
        var quote = CommandInput()
        let quoteOpen = quote.append("insert Animal name='Two")
        #expect(!quoteOpen)
        let quoteClosed = quote.append("Lines' diet=x")
        #expect(quoteClosed)
        #expect(quote.text == "insert Animal name='Two\nLines' diet=x")
        var bracket = CommandInput()
        let bracketOpen = bracket.append("list Animal where (name == 'a' or")
        #expect(!bracketOpen)
        let bracketClosed = bracket.append("  name == 'b')")
        #expect(bracketClosed)
        var escaped = CommandInput()
        let backslashInQuote = escaped.append("insert Animal name='a\\")
        #expect(!backslashInQuote)
        #expect(escaped.text == "insert Animal name='a\\")
    }

    @Test("complete lines and comments do not continue")
    func complete() {
        var input = CommandInput()
        let countEnds = input.append("count Animal")
        #expect(countEnds)
        var comment = CommandInput()
        let commentEnds = comment.append("# a note about [this \\")
        #expect(commentEnds)
    }

    @Test("an error's column maps to the line of the command it falls on and the column in that line")
    func location() {
        var input = CommandInput()
        input.append("list Animal \\")
        input.append("where nme == 1")
        #expect(input.location(ofColumn: 5) == (0, 5))
        #expect(input.location(ofColumn: 13 + 7) == (1, 7))
        var quoted = CommandInput()
        quoted.append("insert Animal name='a")
        quoted.append("b' dyet=1")
        #expect(quoted.location(ofColumn: 26) == (1, 4))
    }

    @Test("the interpreter runs a multi-line command as one")
    func interpreter() throws {
        let session = try Session("Animals")
        var input = CommandInput()
        input.append("insert Animal name='Two")
        input.append("Lines' diet=omnivorous")
        let output = try session.run(input.text)
        let id = try firstNumber(in: output)
        #expect(output == "Animal#\(id)\n")
        #expect(try session.interpreter.context.value("name", of: .init(entityName: "Animal", id: id)) == .string("Two\nLines"))
    }
}
