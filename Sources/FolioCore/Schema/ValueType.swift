/// The type of an attribute's value, as the schema records it.
///
/// Scalar types map one to one onto Swift types. Collections hold scalar or
/// composite elements; `codable` holds any composite value (what a `Codable`
/// struct or enum encodes to); `any` holds a value of any scalar type, or
/// nothing (Realm's `AnyRealmValue`, whose deleted state is `.none`).
public indirect enum ValueType: Hashable, Sendable, CustomStringConvertible {
    /// `String`.
    case string
    /// `Bool`.
    case bool
    /// `Int` (64-bit).
    case int
    /// `Int8`.
    case int8
    /// `Int16`.
    case int16
    /// `Int32`.
    case int32
    /// `Int64`.
    case int64
    /// `UInt` (64-bit).
    case uint
    /// `UInt8`.
    case uint8
    /// `UInt16`.
    case uint16
    /// `UInt32`.
    case uint32
    /// `UInt64`.
    case uint64
    /// `Double`.
    case double
    /// `Float`.
    case float
    /// `Date`.
    case date
    /// `Data`.
    case data
    /// `UUID`.
    case uuid
    /// `URL`.
    case url
    /// `Decimal`.
    case decimal
    /// An ordered array whose elements have the given type.
    case array(ValueType)
    /// A set of unique elements of the given type; order is not significant.
    case set(ValueType)
    /// A dictionary with `String` keys and values of the given type.
    case dictionary(ValueType)
    /// A composite value: what a `Codable` struct or enum encodes to.
    case codable
    /// A value of any scalar type, or none.
    case any
    /// An element that may be absent (null), of the given type: only inside an
    /// array, set or dictionary, as `[String?]` stores as `array(string?)`. An
    /// attribute that may be absent as a whole is an optional attribute instead.
    case optional(ValueType)

    /// The spelling used in schema files, e.g. `int32`, `array(string)`.
    public var description: String {
        switch self {
        case .array(let element): return "array(\(element))"
        case .set(let element): return "set(\(element))"
        case .dictionary(let element): return "dictionary(\(element))"
        case .optional(let wrapped): return "\(wrapped)?"
        default: return ValueType.scalarNames.first { $0.1 == self }?.0 ?? "?"
        }
    }

    /// Parses a type spelling such as `string` or `dictionary(array(int))`.
    ///
    /// - Returns: `nil` when the text names no type.
    public init?(_ text: some StringProtocol) {
        let text = String(text)
        if let scalar = ValueType.scalarNames.first(where: { $0.0 == text }) {
            self = scalar.1
            return
        }
        if text.hasSuffix("?") {
            guard let wrapped = ValueType(text.dropLast()), !wrapped.isOptionalElement else { return nil }
            self = .optional(wrapped)
            return
        }
        for (prefix, make) in [("array(", ValueType.array), ("set(", ValueType.set), ("dictionary(", ValueType.dictionary)]
        where text.hasPrefix(prefix) && text.hasSuffix(")") {
            guard let inner = ValueType(text.dropFirst(prefix.count).dropLast()) else { return nil }
            self = make(inner)
            return
        }
        return nil
    }

    /// The type a name from another language or database means, for a "did
    /// you mean" hint where a type is spelled: `integer` → `int`, `boolean` →
    /// `bool`, `text` → `string`, `timestamp` → `date`, `blob` → `data`; or a
    /// type name one slip away (`strng` → `string`). `nil` for a type's own
    /// name and for names that suggest none.
    ///
    /// ```swift
    /// ValueType.suggestion(for: "integer")   // "int"
    /// ValueType.suggestion(for: "int")       // nil: it is a type
    /// ```
    public static func suggestion(for name: String) -> String? {
        guard ValueType(name) == nil else { return nil }
        if let alias = aliases[name.lowercased()] { return alias }
        return NameSuggestions.closest(to: name, among: scalarNames.map(\.0), limit: 1).first
    }

    /// What other languages and SQL call Folio's scalar types.
    static let aliases: [String: String] = [
        "integer": "int", "long": "int64", "short": "int16", "byte": "uint8", "bigint": "int64", "smallint": "int16",
        "tinyint": "int8", "boolean": "bool", "real": "double", "number": "double", "numeric": "decimal",
        "str": "string", "text": "string", "varchar": "string", "char": "string",
        "datetime": "date", "timestamp": "date", "blob": "data", "bytes": "data", "guid": "uuid", "uri": "url",
    ]

    static let scalarNames: [(String, ValueType)] = [
        ("string", .string), ("bool", .bool),
        ("int", .int), ("int8", .int8), ("int16", .int16), ("int32", .int32), ("int64", .int64),
        ("uint", .uint), ("uint8", .uint8), ("uint16", .uint16), ("uint32", .uint32), ("uint64", .uint64),
        ("double", .double), ("float", .float),
        ("date", .date), ("data", .data), ("uuid", .uuid), ("url", .url), ("decimal", .decimal),
        ("codable", .codable), ("any", .any),
    ]

    /// Whether this is an element type that may be absent (`string?`).
    public var isOptionalElement: Bool {
        if case .optional = self { return true }
        return false
    }

    /// Whether this type is a collection (array, set or dictionary).
    public var isCollection: Bool {
        switch self {
        case .array, .set, .dictionary: return true
        default: return false
        }
    }

    /// Whether values of this type have an order a fetch can sort by: every
    /// scalar type and any-values do; arrays, sets, dictionaries and `codable`
    /// composites do not (a sort by one is refused with
    /// ``ModelError/unsortable(entity:attribute:)``).
    public var isSortable: Bool {
        !isCollection && self != .codable
    }

    /// The inclusive range a fixed-width integer type accepts, or `nil` for other types.
    var integerRange: ClosedRange<Int64>? {
        switch self {
        case .int, .int64: return Int64.min...Int64.max
        case .int8: return Int64(Int8.min)...Int64(Int8.max)
        case .int16: return Int64(Int16.min)...Int64(Int16.max)
        case .int32: return Int64(Int32.min)...Int64(Int32.max)
        default: return nil
        }
    }

    /// The largest value an unsigned integer type accepts, or `nil` for other types.
    var unsignedMax: UInt64? {
        switch self {
        case .uint, .uint64: return UInt64.max
        case .uint8: return UInt64(UInt8.max)
        case .uint16: return UInt64(UInt16.max)
        case .uint32: return UInt64(UInt32.max)
        default: return nil
        }
    }
}

extension ValueType {
    /// The type of a list's elements: an array's or a set's element type, and
    /// `.codable` (any JSON value) for a list whose type does not say, as in a
    /// composite value. The JSON text of values and its measure both read lists so.
    var listElement: ValueType {
        switch self {
        case .array(let element), .set(let element): element
        default: .codable
        }
    }
}
