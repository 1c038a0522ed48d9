/// An aligned table for people: a header, a rule, then rows; numeric columns
/// right-aligned, two spaces between columns.
struct TextTable {
    var headers: [String]
    /// Per column: whether to right-align (numbers).
    var rightAligned: [Bool]
    var rows: [[String]] = []

    /// The table's lines, without trailing spaces.
    func lines() -> [String] {
        var widths = headers.map(\.count)
        for row in rows {
            for (column, cell) in row.enumerated() where column < widths.count { widths[column] = max(widths[column], cell.count) }
        }
        func line(_ cells: [String]) -> String {
            var text = ""
            for (column, cell) in cells.enumerated() {
                let pad = String(repeating: " ", count: widths[column] - cell.count)
                if column > 0 { text += "  " }
                text += rightAligned[column] ? pad + cell : cell + pad
            }
            while text.last == " " { text.removeLast() }
            return text
        }
        return [line(headers), line(widths.map { String(repeating: "-", count: $0) })] + rows.map(line)
    }

    /// A cell's text, on one line and at most `limit` characters: control characters
    /// escaped (``TerminalText``), longer text cut with "…".
    static func cell(_ text: String, limit: Int = 40) -> String {
        let flat = TerminalText.escaped(text)
        return flat.count > limit ? String(flat.prefix(limit - 1)) + "…" : flat
    }
}
