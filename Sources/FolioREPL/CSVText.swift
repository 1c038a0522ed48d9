import Foundation

/// CSV as RFC 4180 writes it, for `export` and `import`: fields separated by
/// commas, rows by line breaks (LF or CRLF), a field quoted with `"` when it
/// holds a comma, a quote, a line break or space at either end, a quote inside
/// doubled. As psql's CSV, an unquoted empty field is null and `""` an empty string.
enum CSVText {
    /// One field of a row read from a file.
    struct Field: Equatable {
        var text: String
        /// Whether it was quoted: `""` is an empty string, an empty unquoted field is null.
        var quoted: Bool
        /// Its 1-based line and column (Unicode scalars) in the file.
        var line: Int
        var column: Int
    }

    /// A row read from a file: its fields and the line it starts on.
    struct Row {
        var fields: [Field]
        var line: Int
        /// The column just past its last character, where "missing field" errors point.
        var endColumn: Int
    }

    /// A file that is not CSV, at a line and column.
    struct SyntaxError: Error {
        var message: String
        var line: Int
        var column: Int
    }

    /// The rows of `text`. A line holding nothing is skipped; a byte order mark is ignored.
    static func rows(_ text: String) throws(SyntaxError) -> [Row] {
        var scalars = Array(text.unicodeScalars)
        if scalars.first == "\u{FEFF}" { scalars.removeFirst() }
        var rows: [Row] = []
        var fields: [Field] = []
        var line = 1, column = 1, index = 0
        var rowLine = 1
        func endRow() {
            let blank = fields.count == 1 && fields[0].text.isEmpty && !fields[0].quoted
            if !blank { rows.append(Row(fields: fields, line: rowLine, endColumn: column)) }
            fields = []
        }
        while index <= scalars.count {
            // One field starts here.
            let start = (line, column)
            var value = String.UnicodeScalarView()
            var quoted = false
            if index < scalars.count, scalars[index] == "\"" {
                quoted = true
                index += 1; column += 1
                var closed = false
                while index < scalars.count {
                    let scalar = scalars[index]
                    if scalar == "\"" {
                        if index + 1 < scalars.count, scalars[index + 1] == "\"" {
                            value.append("\""); index += 2; column += 2
                            continue
                        }
                        index += 1; column += 1
                        closed = true
                        break
                    }
                    value.append(scalar)
                    index += 1
                    if scalar == "\n" { line += 1; column = 1 } else { column += 1 }
                }
                guard closed else { throw SyntaxError(message: "the quoted field is not closed", line: start.0, column: start.1) }
            } else {
                while index < scalars.count, !["," as Unicode.Scalar, "\n", "\r"].contains(scalars[index]) {
                    if scalars[index] == "\"" {
                        throw SyntaxError(
                            message: "a quote inside an unquoted field (quote the field and double the quote: \"a \"\"b\"\"\")",
                            line: line, column: column)
                    }
                    value.append(scalars[index])
                    index += 1; column += 1
                }
            }
            fields.append(Field(text: String(value), quoted: quoted, line: start.0, column: start.1))
            guard index < scalars.count else {
                endRow()
                break
            }
            switch scalars[index] {
            case ",":
                index += 1; column += 1
            case "\r", "\n":
                if scalars[index] == "\r" { index += 1 }
                if index < scalars.count, scalars[index] == "\n" { index += 1 }
                endRow()
                line += 1; column = 1
                rowLine = line
                if index == scalars.count { return rows }
            default:
                throw SyntaxError(
                    message: "expected ',' or the end of the line after the quoted field, found '\(scalars[index])'",
                    line: line, column: column)
            }
        }
        return rows
    }

    /// One field for a file: `nil` (null) as nothing, text quoted when it must be.
    static func field(_ text: String?) -> String {
        guard let text else { return "" }
        let needsQuotes =
            text.isEmpty || text.unicodeScalars.contains { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }
            || text.first?.isWhitespace == true || text.last?.isWhitespace == true
        guard needsQuotes else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// One row for a file, ending in a line feed.
    static func line(_ fields: [String?]) -> String {
        fields.map(field).joined(separator: ",") + "\n"
    }
}
