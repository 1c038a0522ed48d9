/// Shows where in a command line an error is, as psql does: the line echoed,
/// and a caret under the offending column.
///
/// ```
/// error: 3: column 18: cannot sort by 'nam': Animal has no property 'nam'; did you mean 'name'?
///   list Animal sort nam
///                    ^
/// ```
///
/// A long line is cut to a window of ``context`` characters either side of the
/// column, with `…` where it was cut, so the caret stays under the right
/// character however long the line is. Control characters are echoed escaped
/// (``TerminalText``), and the caret moves past each escape's width.
///
/// Positions count Characters (grapheme clusters): a character the terminal
/// draws two cells wide (CJK, most emoji) before the column puts the caret one
/// cell left of the spot per such character.
///
/// This is the human-readable rendering; with `--json` errors are JSON objects
/// and carry the column as a number.
public enum ErrorPointer {
    /// How many characters of the line are shown either side of the column.
    public static let context = 30
    /// How the echoed line and the caret line are indented under the error line.
    static let indent = "  "

    /// The error for people: `error: LINE: column N: message` (LINE in
    /// scripts only), then, when the error names a column, the line and the
    /// caret under it. A message that quotes a huge word is cut in its middle
    /// (`…`) to ``messageLimit`` characters.
    ///
    /// Complexity: O(*n*) in the line's length.
    /// A message longer than this many characters (it quotes a huge word of
    /// the line) is shown with its middle elided.
    static let messageLimit = 400

    public static func report(_ error: CommandError, in line: String, lineNumber: Int? = nil) -> String {
        var message = error.description
        if message.count > messageLimit {
            message = message.prefix(messageLimit / 2) + "…" + message.suffix(messageLimit / 2)
        }
        let head = "error: " + (lineNumber.map { "\($0): " } ?? "") + message
        let pointer = lines(pointingAt: error.column, in: line)
        return ([head] + pointer).joined(separator: "\n")
    }

    /// The excerpt of `line` around the 1-based `column` (counted in Unicode
    /// scalars, as ``CommandError/column`` is) and the caret line under it,
    /// each indented; empty when `column` is 0 (the error is about the whole line).
    /// A column past the end of the line points just past its last character.
    public static func lines(pointingAt column: Int, in line: String) -> [String] {
        guard column > 0 else { return [] }
        var characters: [Character] = []
        var caret: Int?
        var scalars = 0
        for character in line {
            let count = character.unicodeScalars.count
            // The character holding the column's scalar gets the caret.
            if caret == nil, scalars + count >= column { caret = characters.count }
            scalars += count
            characters.append(character)
        }
        let target = caret ?? characters.count
        let start = max(0, target - context)
        let end = min(characters.count, target + context + 1)
        var excerpt = start > 0 ? "…" : ""
        var offset = excerpt.count
        for index in start..<end {
            let shown = TerminalText.escaped(String(characters[index]))
            if index < target { offset += shown.count }
            excerpt += shown
        }
        if end < characters.count { excerpt += "…" }
        return [indent + excerpt, indent + String(repeating: " ", count: offset) + "^"]
    }
}
