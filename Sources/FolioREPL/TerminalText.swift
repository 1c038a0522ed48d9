/// Makes text from a document safe to print on a terminal: the one function
/// every piece of REPL output goes through.
///
/// A value, a name or a file name may hold control characters; printed raw, ESC
/// and BEL sequences would clear the screen, set the window title or rewrite
/// what the user sees, and bidi overrides would reorder it. They are shown
/// instead as escapes: `\n`, `\t`, `\r`, and `\u001b` (four hex digits) for
/// the rest of C0, DEL, C1, and the bidi controls (U+061C, U+200E, U+200F,
/// U+202A–U+202E, U+2066–U+2069), plus the line and paragraph separators.
public enum TerminalText {
    /// Whether a scalar is shown as an escape.
    public static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0..<0x20, 0x7F...0x9F, 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069, 0x2028, 0x2029: return true
        default: return false
        }
    }

    /// `text` with every control character escaped. With `keepingNewlines`,
    /// line feeds stay (for output that is several lines on purpose).
    public static func escaped(_ text: String, keepingNewlines: Bool = false) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            guard needsEscape(scalar) else { result.append(scalar); continue }
            switch scalar {
            case "\n" where keepingNewlines: result.append(scalar)
            case "\n": result.append(contentsOf: "\\n".unicodeScalars)
            case "\t": result.append(contentsOf: "\\t".unicodeScalars)
            case "\r": result.append(contentsOf: "\\r".unicodeScalars)
            default: result.append(contentsOf: hexEscape(scalar).unicodeScalars)
            }
        }
        return String(result)
    }

    /// `\u001b`: the scalar's value in at least four hex digits, as JSON writes it.
    static func hexEscape(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16)
        return "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}
