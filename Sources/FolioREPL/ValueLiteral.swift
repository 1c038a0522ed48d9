import FolioCore

/// Reads a value typed in a command line, by the type of the attribute it is for.
///
/// ```
/// name="Tree Frog"   name='it\'s'   name=Newt          strings: quoted or bare
/// born=2024-03-06    born=2024-03-06T05:06:07Z          dates (ISO 8601)
/// age=5  weight=2.5  visited=true  notes=null           numbers, booleans, no value
/// cities=[Boston, "New York"]   cities=["Boston"]       arrays and sets
/// parks={Boston: Boston Common}  parks={"a":"b"}        dictionaries
/// companion=3  companion="Rex"  companion=int:3         any-values: inferred, or tagged
/// ```
///
/// Inside brackets a bare word ends at `,`, `]` or `}` (and a dictionary key at
/// `:`), so `[New York, Boston]` holds two strings. Scalars go through
/// `Value(text:as:)`, the package's own parser, after the quotes and brackets
/// are taken off; quoted strings' escapes and bare numbers and dates are
/// ``Folio/LiteralSyntax``'s, which predicates (`where`) read too. Every error
/// names the offending token's column.
struct ValueLiteral {
    private let scalars: [Unicode.Scalar]
    private var index: Int
    private let end: Int
    /// What the value is for, in messages: `Dog.age`.
    private let subject: String
    /// How many brackets are open: lists and dictionaries nest at most
    /// ``maximumNesting`` deep, as a package may hold them, so a crafted line
    /// cannot exhaust the stack.
    private var depth = 0

    /// How deep lists and dictionaries may nest (64, the package format's limit).
    static let maximumNesting = 64

    /// Parses the scalars `range` of a line as a value of `type`; `.null` for a bare `null`.
    static func parse(
        _ scalars: [Unicode.Scalar], _ range: Range<Int>, as type: ValueType,
        for subject: String
    ) throws(CommandError) -> Value {
        var parser = ValueLiteral(scalars: scalars, index: range.lowerBound, end: range.upperBound, subject: subject, depth: 0)
        return try parser.parseWhole(type)
    }

    /// Parses a whole text (columns counted from 1 at its start).
    static func parse(_ text: String, as type: ValueType, for subject: String = "the value") throws(CommandError) -> Value {
        let scalars = Array(text.unicodeScalars)
        return try parse(scalars, 0..<scalars.count, as: type, for: subject)
    }

    /// Opens one more level of brackets, refusing past ``maximumNesting``.
    private mutating func enter(at column: Int) throws(CommandError) {
        guard depth < Self.maximumNesting else {
            throw CommandError("\(subject) nests lists and dictionaries more than \(Self.maximumNesting) deep", column: column)
        }
        depth += 1
    }

    private var column: Int { index + 1 }
    private var current: Unicode.Scalar? { index < end ? scalars[index] : nil }

    private mutating func parseWhole(_ type: ValueType) throws(CommandError) -> Value {
        guard let first = current else {
            if type == .string { return .string("") }
            throw CommandError("missing value for \(subject) (\(type))", column: column)
        }
        let value: Value
        if first == "\"" || first == "'" || first == "[" || first == "{" {
            value = try parseValue(type, terminators: [])
            skipSpace()
            if let extra = current {
                throw CommandError("unexpected '\(extra)' after the value for \(subject)", column: column)
            }
        } else {
            // A bare value takes the rest of the word: URLs and strings may hold ',' ':' '='.
            let start = index
            let text = String(String.UnicodeScalarView(scalars[index..<end]))
            index = end
            value = try convert(text, type, quoted: false, column: start + 1)
        }
        return value
    }

    private mutating func skipSpace() {
        while let scalar = current, CommandLineText.isSpace(scalar) { index += 1 }
    }

    /// A value inside brackets (or a quoted/bracketed one at the top), ending before a terminator.
    private mutating func parseValue(_ type: ValueType, terminators: Set<Unicode.Scalar>) throws(CommandError) -> Value {
        skipSpace()
        guard let first = current else {
            throw CommandError("expected a value for \(subject), found the end of the line", column: column)
        }
        let start = column
        switch first {
        case "\"", "'":
            return try convert(try parseQuoted(), type, quoted: true, column: start)
        case "[":
            return try parseList(type)
        case "{":
            return try parseDictionary(type)
        default:
            let text = try parseBare(terminators: terminators)
            return try convert(text, type, quoted: false, column: start)
        }
    }

    private mutating func parseQuoted() throws(CommandError) -> String {
        let open = index
        guard let close = CommandLineText.closingQuote(in: scalars, from: open), close < end else {
            throw CommandError("unterminated string", column: open + 1)
        }
        index = close + 1
        do {
            return try CommandLineText.unescape(scalars, from: open + 1, to: close)
        } catch {
            throw CommandError("unknown escape '\\\(scalars[min(error.index + 1, close)])'", column: error.index + 1)
        }
    }

    private mutating func parseBare(terminators: Set<Unicode.Scalar>) throws(CommandError) -> String {
        let start = index
        while let scalar = current, !terminators.contains(scalar), !"[]{}".unicodeScalars.contains(scalar) { index += 1 }
        var text = String(String.UnicodeScalarView(scalars[start..<index]))
        while let last = text.unicodeScalars.last, CommandLineText.isSpace(last) { text.unicodeScalars.removeLast() }
        guard !text.isEmpty else {
            let found = current.map { "'\($0)'" } ?? "the end of the line"
            throw CommandError("expected a value for \(subject), found \(found)", column: column)
        }
        return text
    }

    private mutating func parseList(_ type: ValueType) throws(CommandError) -> Value {
        let open = column
        let element: ValueType
        let isSet: Bool
        switch type {
        case .array(let inner): (element, isSet) = (inner, false)
        case .set(let inner): (element, isSet) = (inner, true)
        case .codable: (element, isSet) = (.codable, false)
        default: throw CommandError("\(subject) holds \(Self.describe(type)), not a list", column: open)
        }
        try enter(at: open)
        defer { depth -= 1 }
        index += 1
        var elements: [Value] = []
        var seen = Set<Value>()
        skipSpace()
        if current == "]" {
            index += 1
            return isSet ? .set([]) : .array([])
        }
        while true {
            skipSpace()
            let elementColumn = column
            let value = try parseValue(element, terminators: [",", "]"])
            if value == .null, element != .codable {
                throw CommandError("null cannot be an element of \(subject)", column: elementColumn)
            }
            if isSet, !seen.insert(value).inserted {
                throw CommandError("\(value) is in the set twice", column: elementColumn)
            }
            elements.append(value)
            skipSpace()
            switch current {
            case ",": index += 1
            case "]":
                index += 1
                return isSet ? .set(elements) : .array(elements)
            case nil: throw CommandError("'[' is not closed", column: open)
            case let other?: throw CommandError("expected ',' or ']', found '\(other)'", column: column)
            }
        }
    }

    private mutating func parseDictionary(_ type: ValueType) throws(CommandError) -> Value {
        let open = column
        let element: ValueType
        switch type {
        case .dictionary(let inner): element = inner
        case .codable: element = .codable
        default: throw CommandError("\(subject) holds \(Self.describe(type)), not a dictionary", column: open)
        }
        try enter(at: open)
        defer { depth -= 1 }
        index += 1
        var entries: [String: Value] = [:]
        skipSpace()
        if current == "}" {
            index += 1
            return .dictionary([:])
        }
        while true {
            skipSpace()
            let keyColumn = column
            let key: String
            if current == "\"" || current == "'" { key = try parseQuoted() } else { key = try parseBare(terminators: [":", ",", "}"]) }
            guard entries[key] == nil else { throw CommandError("key '\(key)' appears twice", column: keyColumn) }
            skipSpace()
            guard current == ":" else {
                let found = current.map { "'\($0)'" } ?? "the end of the line"
                throw CommandError("expected ':' after key '\(key)', found \(found)", column: column)
            }
            index += 1
            let valueColumn = column
            let value = try parseValue(element, terminators: [",", "}"])
            if value == .null, element != .codable {
                throw CommandError("null cannot be a value of \(subject)", column: valueColumn)
            }
            entries[key] = value
            skipSpace()
            switch current {
            case ",": index += 1
            case "}": index += 1; return .dictionary(entries)
            case nil: throw CommandError("'{' is not closed", column: open)
            case let other?: throw CommandError("expected ',' or '}', found '\(other)'", column: column)
            }
        }
    }

    /// Turns a token (quotes already removed) into a value of `type`.
    private func convert(_ text: String, _ type: ValueType, quoted: Bool, column: Int) throws(CommandError) -> Value {
        if !quoted, text == "null" { return .null }
        switch type {
        case .string:
            return .string(text)
        case .any:
            return quoted ? .string(text) : try Self.inferAny(text, subject: subject, column: column)
        case .codable:
            return quoted ? .string(text) : Self.inferComposite(text)
        case .array, .set, .dictionary:
            // A quoted collection is read as the package writes it: JSON.
            if quoted, let value = Value(text: text, as: type) { return value }
            throw CommandError("'\(text)' is not a valid \(type) for \(subject); write [a, b] or {key: value}", column: column)
        default:
            guard let value = Value(text: text, as: type) else {
                throw CommandError("'\(text)' is not a valid \(type) for \(subject)", column: column)
            }
            return value
        }
    }

    /// A bare any-value: `type:text`, a boolean, a number, a date, or else a string.
    static func inferAny(_ text: String, subject: String, column: Int) throws(CommandError) -> Value {
        // The first ":" scalar: a text starting with a combining mark joins the colon into one Character.
        let scalars = text.unicodeScalars
        if let colon = scalars.firstIndex(of: ":"), let type = ValueType(String(scalars[..<colon])), !type.isCollection, !type.isOptionalElement,
            type != .codable, type != .any
        {
            guard let value = Value(text: text, as: .any) else {
                throw CommandError(
                    "'\(String(scalars[scalars.index(after: colon)...]))' is not a valid \(type) for \(subject)",
                    column: column)
            }
            return value
        }
        // `integer:3` meant a tag: a type another language names so (or a slip
        // from one), followed by a value that type reads. Read as a string it
        // would be stored wrong without a word. (A string's aliases are left
        // alone: anything reads as a string.)
        if let colon = scalars.firstIndex(of: ":") {
            let tag = String(scalars[..<colon])
            if let suggestion = ValueType.suggestion(for: tag), let type = ValueType(suggestion), type != .string,
                Value(text: String(scalars[scalars.index(after: colon)...]), as: type) != nil
            {
                throw CommandError(
                    "'\(tag)' is not a type; did you mean '\(suggestion)'? (write \(suggestion):…, or quote the "
                        + "value for a string)", column: column)
            }
        }
        if text == "true" || text == "false" { return .bool(text == "true") }
        // A number or a date as predicates read one (the library's one rule), else a string.
        if let first = text.unicodeScalars.first, ("0"..."9").contains(first) || first == "-" || first == "+" || first == ".",
            let value = LiteralSyntax.bareValue(text)
        {
            return value
        }
        return .string(text)
    }

    /// A bare composite node: a boolean, a number, or else a string.
    static func inferComposite(_ text: String) -> Value {
        if text == "true" || text == "false" { return .bool(text == "true") }
        if let int = Value(text: text, as: .int) { return int }
        if let uint = Value(text: text, as: .uint) { return uint }
        if let first = text.unicodeScalars.first, ("0"..."9").contains(first) || first == "-" || first == ".",
            let double = Value(text: text, as: .double)
        {
            return double
        }
        return .string(text)
    }

    static func describe(_ type: ValueType) -> String {
        switch type {
        case .any: return "one value of any scalar type"
        case .array: return "an \(type)"
        case .set, .dictionary: return "a \(type)"
        default: return "one \(type)"
        }
    }
}
