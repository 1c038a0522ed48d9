import Foundation

/// The canonical text of every value: how a package's XML attributes hold it,
/// how `Value.description` and `Value(text:as:)` spell it, and what the
/// predicates and the REPL read. A schema-level concept, so it knows nothing
/// of XML or files; the store writes it into attributes, escaped as XML needs.
///
/// Scalars are plain text (`12.5`, `true`, ISO 8601 dates, base64 data).
/// Collections and composite values use JSON with three extensions: the
/// number tokens `inf`, `-inf`, `nan`; dates, UUIDs, URLs, decimals and data
/// as JSON strings of their scalar text; and object keys written sorted, set
/// elements written sorted, so saves are stable. Any-values are tagged
/// `type:text` (`int:5`, `string:hello`). The full grammar is in docs/FORMAT.md.
enum ValueText {
    /// How deep collections and composite values may nest.
    static let maximumNesting = DocumentLimits.standard.maximumNesting

    // MARK: Encoding

    /// The text of a non-null value of the given type.
    static func encode(_ value: Value, as type: ValueType) -> String {
        var buffer = ByteBuffer()
        append(value, as: type, to: &buffer)
        return String(decoding: buffer.bytes, as: UTF8.self)
    }

    static func append(_ value: Value, as type: ValueType, to buffer: inout ByteBuffer) {
        switch (value, type) {
        case (_, .any):
            guard let scalar = value.scalarType else { return }
            buffer.append(string: scalar.description)
            buffer.append(UInt8(ascii: ":"))
            appendScalar(value, to: &buffer)
        case (.array, _), (.set, _), (.dictionary, _):
            appendJSON(value, element: type, to: &buffer)
        case (_, .codable):
            appendJSON(value, element: .codable, to: &buffer)
        default:
            appendScalar(value, to: &buffer)
        }
    }

    static func appendScalar(_ value: Value, to buffer: inout ByteBuffer) {
        switch value {
        case .null: buffer.append("null")
        case .bool(let v): v ? buffer.append("true") : buffer.append("false")
        case .int(let v): buffer.append(int: v)
        case .uint(let v): buffer.append(uint: v)
        case .double(let v): DoubleText.append(v, to: &buffer)
        case .float(let v): DoubleText.append(v, to: &buffer)
        case .string(let v): buffer.append(string: v)
        case .date(let v): DateText.append(v, to: &buffer)
        case .data(let v): buffer.append(string: v.base64EncodedString())
        case .uuid(let v): buffer.append(string: v.uuidString)
        case .url(let v): buffer.append(string: v.absoluteString)
        case .decimal(let v): buffer.append(string: v.description)
        case .array, .set, .dictionary: appendJSON(value, element: .codable, to: &buffer)
        }
    }

    private static func appendJSON(_ value: Value, element type: ValueType, to buffer: inout ByteBuffer) {
        if case .optional(let wrapped) = type {
            // An element that may be absent: null for none.
            if case .null = value { buffer.append("null") } else { appendJSON(value, element: wrapped, to: &buffer) }
            return
        }
        if type == .any {
            // An element of array(any), set(any) or dictionary(any): "type:text" as the
            // reader expects it (written bare, it would be refused on reading; Fuzz/'s
            // round-trip check holds the two together), or null for none.
            if value.scalarType == nil { buffer.append("null") } else { appendJSONString(encode(value, as: .any), to: &buffer) }
            return
        }
        switch value {
        case .array(let elements), .set(let elements):
            let elementType = type.listElement
            var texts = elements.map { element -> [UInt8] in
                var inner = ByteBuffer()
                appendJSON(element, element: elementType, to: &inner)
                return inner.bytes
            }
            if case .set = value { texts.sort { $0.lexicographicallyPrecedes($1) } }
            buffer.append(UInt8(ascii: "["))
            for (index, text) in texts.enumerated() {
                if index > 0 { buffer.append(UInt8(ascii: ",")) }
                buffer.append(bytes: text)
            }
            buffer.append(UInt8(ascii: "]"))
        case .dictionary(let entries):
            var valueType = ValueType.codable
            if case .dictionary(let inner) = type { valueType = inner }
            buffer.append(UInt8(ascii: "{"))
            let keys = entries.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            for (index, key) in keys.enumerated() {
                if index > 0 { buffer.append(UInt8(ascii: ",")) }
                appendJSONString(key, to: &buffer)
                buffer.append(UInt8(ascii: ":"))
                appendJSON(entries[key] ?? .null, element: valueType, to: &buffer)
            }
            buffer.append(UInt8(ascii: "}"))
        case .string(let text):
            appendJSONString(text, to: &buffer)
        case .null, .bool, .int, .uint, .double, .float:
            appendScalar(value, to: &buffer)
        case .date, .data, .uuid, .url, .decimal:
            var inner = ByteBuffer()
            appendScalar(value, to: &inner)
            appendJSONString(String(decoding: inner.bytes, as: UTF8.self), to: &buffer)
        }
    }

    /// Appends a JSON string literal; every character XML 1.0 cannot carry is escaped as `\uXXXX`.
    static func appendJSONString(_ text: String, to buffer: inout ByteBuffer) {
        buffer.append(UInt8(ascii: "\""))
        appendJSONEscaped(text, to: &buffer)
        buffer.append(UInt8(ascii: "\""))
    }

    /// Appends the body of a JSON string literal (no quotes).
    static func appendJSONEscaped(_ text: String, to buffer: inout ByteBuffer) {
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": buffer.append("\\\"")
            case "\\": buffer.append("\\\\")
            case "\n": buffer.append("\\n")
            case "\t": buffer.append("\\t")
            case "\r": buffer.append("\\r")
            default:
                if isUnwritable(scalar) {
                    buffer.append("\\u")
                    let hex = String(scalar.value, radix: 16, uppercase: true)
                    buffer.append(string: String(repeating: "0", count: 4 - hex.count) + hex)
                } else {
                    buffer.append(string: String(scalar))
                }
            }
        }
    }

    /// Characters a value's text never holds raw, escaping them in JSON
    /// strings (`\u0001`): the C0 controls but tab, line feed and carriage
    /// return, and U+FFFE and U+FFFF. They are what XML 1.0 cannot carry, not
    /// even as character references, so every value's text can be stored in a
    /// document; the store's XML escaping uses this same test.
    @inline(__always)
    static func isUnwritable(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        if value < 0x20 { return value != 0x09 && value != 0x0A && value != 0x0D }
        return value == 0xFFFE || value == 0xFFFF
    }

    // MARK: Decoding

    /// Parses the text of a value of the given type; `nil` if it is not one.
    static func decode(_ text: String, as type: ValueType, maximumNesting: Int = ValueText.maximumNesting) -> Value? {
        switch type {
        case .any:
            // Split on the first ":" scalar, not Character: a value starting with a
            // combining mark (U+0301) joins the colon into one grapheme.
            let scalars = text.unicodeScalars
            guard let colon = scalars.firstIndex(of: ":"), let scalar = ValueType(String(scalars[..<colon])),
                scalar != .any, scalar != .codable, !scalar.isCollection, !scalar.isOptionalElement
            else { return nil }
            return decode(String(scalars[scalars.index(after: colon)...]), as: scalar)
        case .array, .set, .dictionary, .codable:
            var parser = JSONParser(text, maximumNesting: maximumNesting)
            guard let value = parser.parseDocument(as: type) else { return nil }
            return value
        default:
            return decodeScalar(text, as: type)
        }
    }

    static func decodeScalar(_ text: String, as type: ValueType) -> Value? {
        var text = text
        switch type {
        case .string: return .string(text)
        case .bool:
            switch text {
            case "true": return .bool(true)
            case "false": return .bool(false)
            default: return nil
            }
        case .int, .int8, .int16, .int32, .int64:
            guard let value = text.withUTF8({ NumberParser.int64($0) }), type.integerRange?.contains(value) == true
            else { return nil }
            return .int(value)
        case .uint, .uint8, .uint16, .uint32, .uint64:
            guard let value = text.withUTF8({ NumberParser.uint64($0) }), value <= (type.unsignedMax ?? 0)
            else { return nil }
            return .uint(value)
        case .double: return text.withUTF8({ NumberParser.double($0) }).map(Value.double)
        case .float: return DoubleText.float(text).map(Value.float)
        case .date: return DateText.parse(text).map(Value.date)
        case .data: return Data(base64Encoded: text).map(Value.data)
        case .uuid: return UUID(uuidString: text).map(Value.uuid)
        case .url: return URL(string: text).map(Value.url)
        case .decimal:
            // Decimal(string:) reads a prefix ("1.2.3" is 1.2) and takes "-", "." or "e"
            // for 0 and "-.e" for NaN, which would be written back as "NaN": only
            // whole decimal numbers pass (found by Fuzz/, its round-trip check).
            guard isDecimalNumber(text), let value = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")),
                !value.isNaN
            else { return nil }
            return .decimal(value)
        case .array, .set, .dictionary, .codable, .any:
            return decode(text, as: type)
        case .optional(let wrapped):
            // Only an element's type (inside JSON): bare null for none.
            return text == "null" ? .null : decodeScalar(text, as: wrapped)
        }
    }

    /// Whether the text is a whole decimal number: `-?`, digits with at most one
    /// `.` (at least one digit), then optionally `e` or `E`, a sign and digits.
    static func isDecimalNumber(_ text: String) -> Bool {
        var bytes = Substring(text).utf8[...]
        if bytes.first == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
        let mantissa = bytes.prefix { $0 != UInt8(ascii: "e") && $0 != UInt8(ascii: "E") }
        let digits = mantissa.filter { ($0 &- 0x30) < 10 }.count
        guard digits > 0, mantissa.count - digits <= 1,
            mantissa.allSatisfy({ ($0 &- 0x30) < 10 || $0 == UInt8(ascii: ".") })
        else { return false }
        var exponent = bytes.dropFirst(mantissa.count)
        guard !exponent.isEmpty else { return true }
        exponent = exponent.dropFirst()
        if exponent.first == UInt8(ascii: "+") || exponent.first == UInt8(ascii: "-") { exponent = exponent.dropFirst() }
        return !exponent.isEmpty && exponent.allSatisfy { ($0 &- 0x30) < 10 }
    }

    /// A literal people can read and the REPL can parse back: strings quoted,
    /// other values as in the package.
    static func display(_ value: Value) -> String {
        switch value {
        case .null: return "null"
        case .string(let text):
            var buffer = ByteBuffer()
            appendJSONString(text, to: &buffer)
            return String(decoding: buffer.bytes, as: UTF8.self)
        default:
            var buffer = ByteBuffer()
            appendScalar(value, to: &buffer)
            return String(decoding: buffer.bytes, as: UTF8.self)
        }
    }
}
