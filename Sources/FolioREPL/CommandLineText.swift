import FolioCore

/// A command line split into words, each knowing its place in the line, so
/// every error can name a 1-based column.
///
/// Words are separated by spaces and tabs. Quotes (`"…"`, `'…'`, with
/// backslash escapes) and brackets (`[…]`, `{…}`, `(…)`) group: a word does
/// not end inside them, so `name="Tree Frog"` and `tags=[a, b]` are one word
/// each. Columns count Unicode scalars, as ``Folio/ObjectPredicateError`` does, so a
/// predicate's columns map onto the line's by adding its start.
struct CommandLineText {
    /// One word of the line.
    struct Word: Equatable {
        /// The word as typed (quotes included).
        var text: String
        /// Index of its first scalar in the line.
        var start: Int
        /// Index just past its last scalar.
        var end: Int
        /// Its 1-based column.
        var column: Int { start + 1 }
        /// The word lowercased, for keywords.
        var keyword: String { text.lowercased() }
    }

    /// The line's scalars.
    let scalars: [Unicode.Scalar]
    /// The words, in order.
    private(set) var words: [Word] = []
    /// The column of the first unterminated quote, if any.
    private(set) var unterminatedQuote: Int?
    /// Whether a bracket (`[`, `{`, `(`) is still open at the end of the line.
    private(set) var endsInsideBrackets = false

    init(_ line: String) {
        scalars = Array(line.unicodeScalars)
        var index = 0
        while index < scalars.count {
            if Self.isSpace(scalars[index]) { index += 1; continue }
            let start = index
            var depth = 0
            while index < scalars.count {
                let scalar = scalars[index]
                if depth == 0, Self.isSpace(scalar) { break }
                let opensQuote = index == start || Self.quoteOpeners.contains(scalars[index - 1])
                switch scalar {
                case "\"" where opensQuote, "'" where opensQuote:
                    if let close = Self.closingQuote(in: scalars, from: index) {
                        index = close + 1
                    } else {
                        if unterminatedQuote == nil { unterminatedQuote = index + 1 }
                        index = scalars.count
                    }
                    continue
                case "[", "{", "(": depth += 1
                case "]", "}", ")": depth = max(0, depth - 1)
                default: break
                }
                index += 1
            }
            if depth > 0 { endsInsideBrackets = true }
            words.append(Word(text: String(String.UnicodeScalarView(scalars[start..<index])), start: start, end: index))
        }
    }

    /// The column just past the end of the line, where "missing" errors point.
    var endColumn: Int { scalars.count + 1 }

    /// Whether the line ends in a space (so the word being typed is empty).
    var endsWithSpace: Bool { scalars.last.map(Self.isSpace) ?? true }

    /// The text between two scalar indexes, as typed.
    func text(_ range: Range<Int>) -> String {
        String(String.UnicodeScalarView(scalars[range.clamped(to: 0..<scalars.count)]))
    }

    /// What may stand right before an opening quote; elsewhere (`it's`) a quote is a letter.
    static let quoteOpeners = Set("=[{(,:<>! \t".unicodeScalars)

    static func isSpace(_ scalar: Unicode.Scalar) -> Bool { scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r" }

    /// The index of the quote closing the one at `open`, skipping backslash escapes; `nil` if unterminated.
    static func closingQuote(in scalars: [Unicode.Scalar], from open: Int) -> Int? {
        LiteralSyntax.closingQuote(in: scalars, from: open)
    }

    /// The contents of a quoted word with its escapes resolved (`\"`, `\'`, `\\`, `\n`, `\t`, `\r`,
    /// `\uXXXX`), or the word itself when it is not quoted.
    static func unquoted(_ text: String) -> String {
        let scalars = Array(text.unicodeScalars)
        guard let first = scalars.first, first == "\"" || first == "'",
            let close = closingQuote(in: scalars, from: 0), close == scalars.count - 1
        else { return text }
        return (try? unescape(scalars, from: 1, to: close)) ?? text
    }

    /// Resolves the escapes of a quoted string's body, as predicates do (``Folio/LiteralSyntax``).
    ///
    /// - Throws: the index of a bad escape.
    static func unescape(_ scalars: [Unicode.Scalar], from start: Int, to end: Int) throws(BadEscape) -> String {
        do { return try LiteralSyntax.unescape(scalars, from: start, to: end) } catch { throw BadEscape(index: error.index) }
    }

    /// A backslash escape that means nothing, at `index`.
    struct BadEscape: Error { var index: Int }
}
