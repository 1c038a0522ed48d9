import FolioCore

/// A JSON value written with its keys in a chosen order, for `--json` output
/// (Foundation's serializer sorts or scrambles keys; ids and schema order read better first).
public enum JSONText: Sendable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number, already spelled as JSON.
    case number(String)
    /// A string, escaped when written.
    case string(String)
    /// An array.
    case array([JSONText])
    /// An object, keys in order.
    case object([(String, JSONText)])

    /// An integer.
    public static func int(_ value: some BinaryInteger) -> JSONText { .number(Interpreter.number(value)) }

    /// A value as JSON: numbers and booleans as such; dates (ISO 8601), data (base64),
    /// UUIDs, URLs and decimals as strings; non-finite numbers as the strings "nan", "inf", "-inf".
    public init(_ value: Value) {
        switch value {
        case .null: self = .null
        case .bool(let v): self = .bool(v)
        // Numbers as the table and the package spell them: the library's one text of a value.
        case .int, .uint: self = .number(value.description)
        case .double(let v): self = v.isFinite ? .number(value.description) : .string(value.description)
        case .float(let v): self = v.isFinite ? .number(value.description) : .string(value.description)
        case .string(let v): self = .string(v)
        case .date: self = .string(value.text(as: .date) ?? "")
        case .data: self = .string(value.text(as: .data) ?? "")
        case .uuid: self = .string(value.text(as: .uuid) ?? "")
        case .url: self = .string(value.text(as: .url) ?? "")
        case .decimal: self = .string(value.text(as: .decimal) ?? "")
        case .array(let elements): self = .array(elements.map(JSONText.init))
        case .set(let elements):
            self = .array(elements.map { ($0, JSONText($0).text) }.sorted { $0.1 < $1.1 }.map { JSONText($0.0) })
        case .dictionary(let entries):
            self = .object(entries.sorted { $0.key < $1.key }.map { ($0.key, JSONText($0.value)) })
        }
    }

    /// The JSON text, on one line, with every control character escaped (``TerminalText``).
    public var text: String {
        var out = ""
        write(to: &out)
        return out
    }

    private func write(to out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let v): out += v ? "true" : "false"
        case .number(let v): out += v
        case .string(let v): Self.writeString(v, to: &out)
        case .array(let elements):
            out += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { out += "," }
                element.write(to: &out)
            }
            out += "]"
        case .object(let entries):
            out += "{"
            for (index, (key, value)) in entries.enumerated() {
                if index > 0 { out += "," }
                Self.writeString(key, to: &out)
                out += ":"
                value.write(to: &out)
            }
            out += "}"
        }
    }

    private static func writeString(_ string: String, to out: inout String) {
        out += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                // Every control character TerminalText escapes (C0, DEL, C1, bidi) is a \\u escape here.
                if TerminalText.needsEscape(scalar) {
                    out += TerminalText.hexEscape(scalar)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}
