/// An aligned table for people: a header, a rule, then rows; numeric columns
/// right-aligned, two spaces between columns. Widths are counted in terminal
/// cells (``TerminalText/cellWidth(_:)-(String)``), so CJK and emoji keep the columns straight.
struct TextTable {
    var headers: [String]
    /// Per column: whether to right-align (numbers).
    var rightAligned: [Bool]
    var rows: [[String]] = []

    /// The table's lines, without trailing spaces.
    func lines() -> [String] {
        let headers = headers.map { TerminalText.escaped($0) }  // measured as printed
        var widths = headers.map(TerminalText.cellWidth)
        for row in rows {
            for (column, cell) in row.enumerated() where column < widths.count {
                widths[column] = max(widths[column], TerminalText.cellWidth(cell))
            }
        }
        func line(_ cells: [String]) -> String {
            var text = ""
            for (column, cell) in cells.enumerated() where column < widths.count {
                if column > 0 { text += "  " }
                text += TerminalText.padded(cell, toCells: widths[column], rightAligned: rightAligned[column])
            }
            while text.last == " " { text.removeLast() }
            return text
        }
        return [line(headers), line(widths.map { String(repeating: "-", count: $0) })] + rows.map(line)
    }

    /// A cell's text, on one line and at most `limit` cells: control characters
    /// escaped (``TerminalText``), longer text cut with "…".
    static func cell(_ text: String, limit: Int = 40) -> String {
        TerminalText.truncated(TerminalText.escaped(text), toCells: limit)
    }

    /// A string value's cell, told apart from every other value: `\` `"` and
    /// control characters escaped as in JSON (`\\` `\"` `\n` `\t` `\u001b`), so
    /// a backslash-n typed as two characters differs from a line break; and
    /// between double quotes when `quoted` or when it would otherwise read as
    /// something else: empty, `null`, or with spaces at either end.
    static func stringCell(_ string: String, quoted: Bool = false, limit: Int = 40) -> String {
        let literal = JSONText.string(string).text  // "…" with JSON's escapes
        let needsQuotes =
            quoted || string.isEmpty || string == "null"
            || string.first.map { $0.isWhitespace } == true || string.last.map { $0.isWhitespace } == true
        return TerminalText.truncated(needsQuotes ? literal : String(literal.dropFirst().dropLast()), toCells: limit)
    }
}
