/// A strict recursive-descent parser for the JSON dialect of ``ValueText``,
/// bounded in depth so hostile input cannot exhaust the stack.
struct JSONParser {
    private let bytes: [UInt8]
    private var index = 0
    private var depth = 0
    private let maximumNesting: Int

    init(_ text: String, maximumNesting: Int = ValueText.maximumNesting) {
        bytes = Array(text.utf8)
        self.maximumNesting = maximumNesting
    }

    mutating func parseDocument(as type: ValueType) -> Value? {
        guard let value = parse(as: type), skipSpace(), index == bytes.count else { return nil }
        return value
    }

    private mutating func skipSpace() -> Bool {
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x09 || bytes[index] == 0x0D {
            index += 1
        }
        return true
    }

    private mutating func expect(_ byte: Unicode.Scalar) -> Bool {
        _ = skipSpace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: byte) else { return false }
        index += 1
        return true
    }

    private mutating func parse(as type: ValueType) -> Value? {
        _ = skipSpace()
        guard index < bytes.count else { return nil }
        switch type {
        case .array(let element):
            return parseList(of: element).map(Value.array)
        case .set(let element):
            guard let elements = parseList(of: element), Set(elements).count == elements.count else { return nil }
            return .set(elements)
        case .dictionary(let element):
            return parseObject(of: element).map(Value.dictionary)
        case .codable:
            return parseComposite()
        case .string:
            return parseString().map(Value.string)
        case .date, .data, .uuid, .url, .decimal:
            return parseString().flatMap { ValueText.decodeScalar($0, as: type) }
        case .optional(let wrapped):
            // null for an absent element; no value of the wrapped type is spelled so
            // (strings are quoted, numbers are not "null").
            let start = index
            if bytes[index] == UInt8(ascii: "n"), parseBareToken() == "null" { return .null }
            index = start
            return parse(as: wrapped)
        case .any:
            if bytes[index] == UInt8(ascii: "n") { return parseBareToken() == "null" ? .null : nil }
            return parseString().flatMap { ValueText.decode($0, as: .any) }
        default:
            return parseBareToken().flatMap { ValueText.decodeScalar($0, as: type) }
        }
    }

    private mutating func parseList(of element: ValueType) -> [Value]? {
        guard expect("["), depth < maximumNesting else { return nil }
        depth += 1
        defer { depth -= 1 }
        var elements: [Value] = []
        if expect("]") { return elements }
        repeat {
            guard let value = parse(as: element) else { return nil }
            elements.append(value)
        } while expect(",")
        return expect("]") ? elements : nil
    }

    private mutating func parseObject(of element: ValueType) -> [String: Value]? {
        guard expect("{"), depth < maximumNesting else { return nil }
        depth += 1
        defer { depth -= 1 }
        var entries: [String: Value] = [:]
        if expect("}") { return entries }
        repeat {
            _ = skipSpace()
            guard let key = parseString(), expect(":"), entries[key] == nil, let value = parse(as: element) else {
                return nil
            }
            entries[key] = value
        } while expect(",")
        return expect("}") ? entries : nil
    }

    private mutating func parseComposite() -> Value? {
        _ = skipSpace()
        guard index < bytes.count else { return nil }
        switch bytes[index] {
        case UInt8(ascii: "["): return parseList(of: .codable).map(Value.array)
        case UInt8(ascii: "{"): return parseObject(of: .codable).map(Value.dictionary)
        case UInt8(ascii: "\""): return parseString().map(Value.string)
        default:
            guard let token = parseBareToken() else { return nil }
            switch token {
            case "null": return .null
            case "true": return .bool(true)
            case "false": return .bool(false)
            default:
                if let int = ValueText.decodeScalar(token, as: .int64) { return int }
                if let uint = ValueText.decodeScalar(token, as: .uint64) { return uint }
                return ValueText.decodeScalar(token, as: .double)
            }
        }
    }

    private mutating func parseBareToken() -> String? {
        _ = skipSpace()
        let start = index
        while index < bytes.count, !"[]{},:\" \n\t\r".utf8.contains(bytes[index]) { index += 1 }
        guard index > start else { return nil }
        // A "nan(0x…)" token contains no delimiters, so it is read whole.
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    private mutating func parseString() -> String? {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
        index += 1
        var scalars = String.UnicodeScalarView()
        var runStart = index
        func flush(_ end: Int) {
            scalars.append(contentsOf: String(decoding: bytes[runStart..<end], as: UTF8.self).unicodeScalars)
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                flush(index)
                index += 1
                return String(scalars)
            }
            guard byte == UInt8(ascii: "\\") else {
                index += 1
                continue
            }
            flush(index)
            index += 1
            guard index < bytes.count else { return nil }
            let escape = bytes[index]
            index += 1
            switch escape {
            case UInt8(ascii: "\""): scalars.append("\"")
            case UInt8(ascii: "\\"): scalars.append("\\")
            case UInt8(ascii: "/"): scalars.append("/")
            case UInt8(ascii: "n"): scalars.append("\n")
            case UInt8(ascii: "t"): scalars.append("\t")
            case UInt8(ascii: "r"): scalars.append("\r")
            case UInt8(ascii: "b"): scalars.append("\u{8}")
            case UInt8(ascii: "f"): scalars.append("\u{C}")
            case UInt8(ascii: "u"):
                guard let unit = hex4() else { return nil }
                if (0xD800..<0xDC00).contains(unit) {
                    guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                    else { return nil }
                    index += 2
                    guard let low = hex4(), (0xDC00..<0xE000).contains(low),
                        let scalar = Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))
                    else { return nil }
                    scalars.append(scalar)
                } else {
                    guard let scalar = Unicode.Scalar(unit) else { return nil }
                    scalars.append(scalar)
                }
            default:
                return nil
            }
            runStart = index
        }
        return nil
    }

    private mutating func hex4() -> UInt32? {
        guard index + 4 <= bytes.count,
            let value = UInt32(String(decoding: bytes[index..<(index + 4)], as: UTF8.self), radix: 16)
        else { return nil }
        index += 4
        return value
    }
}
