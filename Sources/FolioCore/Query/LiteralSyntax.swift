/// How values are written in text people type, shared by ``ObjectPredicate``'s
/// literals and by front ends that read values (the REPL's `insert` and `set`),
/// so a value is spelled the same everywhere:
///
/// ```
/// "Tree Frog"  'it\'s'  "tab\there"  "\u00e9"     quoted strings, with escapes
/// 42  -7  2.5  1e-3                                 numbers
/// 2025-07-01  2025-07-01T09:30:00Z  …T09:30:00.25Z  dates (ISO 8601, UTC)
/// true  false  null                                 booleans, no value
/// ```
///
/// A bare literal that starts with a digit (or `-` or `.` then a digit) is a
/// number or a date: it runs on through digits, `.`, `:`, `+`, `-`, `e`, `E`,
/// `T` and `Z`. What it means depends on what it is compared with or stored
/// in: a date attribute reads it as a date, a string attribute as its text,
/// any other as a number — and an any-value as the first that fits of an
/// integer, an unsigned integer, a double and a date (``bareValue(_:)``).
public enum LiteralSyntax {
    /// A backslash escape that means nothing (`\q`, a short `\u`), at `index`
    /// of the scalars given to ``unescape(_:from:to:)``.
    public struct BadEscape: Error, Hashable, Sendable {
        /// Where the backslash is.
        public var index: Int
        /// Creates an error.
        public init(index: Int) { self.index = index }
    }

    /// Resolves the escapes of a quoted string's body, `scalars[start..<end]`:
    /// `\n`, `\t`, `\r`, `\0`, `\"`, `\'`, `\\`, `\/` and `\uXXXX` (four hex digits).
    ///
    /// - Throws: ``BadEscape`` at the first backslash that starts none of them.
    /// - Complexity: O(end − start).
    public static func unescape(_ scalars: [Unicode.Scalar], from start: Int, to end: Int) throws(BadEscape) -> String {
        var result = String.UnicodeScalarView()
        var index = start
        while index < end {
            let scalar = scalars[index]
            guard scalar == "\\", index + 1 < end else {
                result.append(scalar)
                index += 1
                continue
            }
            let escape = scalars[index + 1]
            switch escape {
            case "n": result.append("\n")
            case "t": result.append("\t")
            case "r": result.append("\r")
            case "0": result.append("\0")
            case "\"", "'", "\\", "/": result.append(escape)
            case "u":
                let hex = index + 2 + 4 <= end ? String(String.UnicodeScalarView(scalars[(index + 2)..<(index + 6)])) : ""
                // UInt32(_:radix:) also takes a leading sign ("+052"): only hex digits count.
                guard hex.unicodeScalars.allSatisfy(\.properties.isASCIIHexDigit),
                    let code = UInt32(hex, radix: 16), let decoded = Unicode.Scalar(code)
                else { throw BadEscape(index: index) }
                result.append(decoded)
                index += 6
                continue
            default:
                throw BadEscape(index: index)
            }
            index += 2
        }
        return String(result)
    }

    /// The index of the quote closing the one at `open`, skipping backslash
    /// escapes; `nil` when the string is not closed.
    public static func closingQuote(in scalars: [Unicode.Scalar], from open: Int) -> Int? {
        let quote = scalars[open]
        var index = open + 1
        while index < scalars.count {
            if scalars[index] == "\\" { index += 2; continue }
            if scalars[index] == quote { return index }
            index += 1
        }
        return nil
    }

    /// A bare number or date as an any-value reads it: the first of an
    /// integer, an unsigned integer, a double and a date that the text is,
    /// each as a document package writes it; `nil` when it is none.
    public static func bareValue(_ text: String) -> Value? {
        for type in [ValueType.int, .uint, .double, .date] {
            if let value = Value(text: text, as: type) { return value }
        }
        return nil
    }

    /// Where a bare number or date that starts at `start` ends (the index
    /// past its last scalar), or `nil` when none starts there: the one lexer
    /// rule for bare literals.
    static func bareLiteralEnd(in scalars: [Unicode.Scalar], from start: Int) -> Int? {
        func isDigit(_ index: Int) -> Bool { index < scalars.count && ("0"..."9").contains(scalars[index]) }
        guard isDigit(start) || ((scalars[start] == "-" || scalars[start] == ".") && isDigit(start + 1)) else { return nil }
        var index = start + 1
        while index < scalars.count, isDigit(index) || ".:+-eETZ".unicodeScalars.contains(scalars[index]) { index += 1 }
        return index
    }
}
