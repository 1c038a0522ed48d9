import Foundation

/// A value of any attribute type, as the dynamic API reads and writes it.
///
/// Equality is identity: two values are equal when they are the same value bit
/// for bit, so `.double(-0.0) != .double(0.0)` and `.double(.nan) == .double(.nan)`.
/// That is what round trips, sets and change tracking need; predicates compare
/// numerically instead.
public enum Value: Sendable, CustomStringConvertible {
    /// No value: `nil` for optionals, `.none` for any-values.
    case null
    /// A `Bool`.
    case bool(Bool)
    /// Every signed integer width.
    case int(Int64)
    /// Every unsigned integer width.
    case uint(UInt64)
    /// A `Double`, kept bit for bit.
    case double(Double)
    /// A `Float`, kept bit for bit.
    case float(Float)
    /// A `String`; compared by Unicode scalars, so é and e + ◌́ differ.
    case string(String)
    /// A `Date`, kept to the bit of its time interval.
    case date(Date)
    /// Bytes.
    case data(Data)
    /// A `UUID`.
    case uuid(UUID)
    /// A `URL`, compared by its absolute string.
    case url(URL)
    /// A `Decimal`.
    case decimal(Decimal)
    /// An ordered array (also the nodes of composite `codable` values).
    case array([Value])
    /// A set: unique elements, order not significant.
    case set([Value])
    /// A string-keyed dictionary (also the keyed nodes of composite values).
    case dictionary([String: Value])

    public var description: String { ValueText.display(self) }

    /// The value a non-optional attribute of the given type starts with.
    public static func zero(of type: ValueType) -> Value {
        switch type {
        case .string: return .string("")
        case .bool: return .bool(false)
        case .int, .int8, .int16, .int32, .int64: return .int(0)
        case .uint, .uint8, .uint16, .uint32, .uint64: return .uint(0)
        case .double: return .double(0)
        case .float: return .float(0)
        case .date: return .date(Date(timeIntervalSinceReferenceDate: 0))
        case .data: return .data(Data())
        case .uuid: return .uuid(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
        case .url: return .url(URL(string: "about:blank")!)
        case .decimal: return .decimal(0)
        case .array: return .array([])
        case .set: return .set([])
        case .dictionary: return .dictionary([:])
        case .codable: return .dictionary([:])
        case .any, .optional: return .null
        }
    }

    /// Whether this (non-null) value can be stored in an attribute of the given type.
    ///
    /// Integers must fit the type's width; composite (`codable`) values are trees of
    /// null, bool, int, uint, double, string, array and dictionary.
    public func conforms(to type: ValueType) -> Bool {
        // The scalars every insert stores, matched without making a tuple of the two enums.
        switch self {
        case .string: if case .string = type { return true }
        case .double: if case .double = type { return true }
        case .date: if case .date = type { return true }
        case .bool: if case .bool = type { return true }
        case .int:
            // Any 64-bit value fits these two; narrower types check their range below.
            if case .int = type { return true }
            if case .int64 = type { return true }
        default: break
        }
        switch (self, type) {
        case (_, .codable):
            return isCompositeNode
        case (.null, .any), (.null, .optional):
            return true
        case (_, .optional(let wrapped)):
            return conforms(to: wrapped)
        case (_, .any):
            return scalarType != nil
        case (.decimal(let value), .decimal):
            return !value.isNaN  // a NaN decimal has no text the format can read back
        case (.string, .string), (.bool, .bool), (.double, .double), (.float, .float),
            (.date, .date), (.data, .data), (.uuid, .uuid), (.url, .url):
            return true
        case (.int(let value), _):
            return type.integerRange?.contains(value) ?? false
        case (.uint(let value), _):
            return type.unsignedMax.map { value <= $0 } ?? false
        case (.array(let elements), .array(let element)):
            return elements.allSatisfy { $0.conforms(to: element) }
        case (.set(let elements), .set(let element)):
            return elements.allSatisfy { $0.conforms(to: element) } && Set(elements).count == elements.count
        case (.dictionary(let entries), .dictionary(let element)):
            return entries.values.allSatisfy { $0.conforms(to: element) }
        default:
            return false
        }
    }

    /// The scalar type this value naturally has, or `nil` for null and collections.
    public var scalarType: ValueType? {
        switch self {
        case .string: return .string
        case .bool: return .bool
        case .int: return .int
        case .uint: return .uint
        case .double: return .double
        case .float: return .float
        case .date: return .date
        case .data: return .data
        case .uuid: return .uuid
        case .url: return .url
        case .decimal: return .decimal
        case .null, .array, .set, .dictionary: return nil
        }
    }

    private var isCompositeNode: Bool {
        switch self {
        case .null, .bool, .int, .double, .string: return true
        case .uint(let value): return value > UInt64(Int64.max)
        case .array(let elements): return elements.allSatisfy(\.isCompositeNode)
        case .dictionary(let entries): return entries.values.allSatisfy(\.isCompositeNode)
        default: return false
        }
    }
}

extension Value: Hashable {
    public static func == (lhs: Value, rhs: Value) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.int(let a), .int(let b)): return a == b
        case (.uint(let a), .uint(let b)): return a == b
        case (.double(let a), .double(let b)): return a.bitPattern == b.bitPattern
        case (.float(let a), .float(let b)): return a.bitPattern == b.bitPattern
        case (.string(let a), .string(let b)): return a.unicodeScalars.elementsEqual(b.unicodeScalars)
        case (.date(let a), .date(let b)):
            return a.timeIntervalSinceReferenceDate.bitPattern == b.timeIntervalSinceReferenceDate.bitPattern
        case (.data(let a), .data(let b)): return a == b
        case (.uuid(let a), .uuid(let b)): return a == b
        case (.url(let a), .url(let b)): return a.absoluteString == b.absoluteString
        case (.decimal(let a), .decimal(let b)): return a == b
        case (.array(let a), .array(let b)): return a == b
        case (.set(let a), .set(let b)): return a.count == b.count && Set(a) == Set(b)
        case (.dictionary(let a), .dictionary(let b)): return a == b
        default: return false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let v): hasher.combine(v)
        case .int(let v): hasher.combine(v)
        case .uint(let v): hasher.combine(v)
        case .double(let v): hasher.combine(v.bitPattern)
        case .float(let v): hasher.combine(v.bitPattern)
        case .string(let v): v.unicodeScalars.forEach { hasher.combine($0.value) }
        case .date(let v): hasher.combine(v.timeIntervalSinceReferenceDate.bitPattern)
        case .data(let v): hasher.combine(v)
        case .uuid(let v): hasher.combine(v)
        case .url(let v): hasher.combine(v.absoluteString)
        case .decimal(let v): hasher.combine(v)
        case .array(let v): hasher.combine(v)
        case .set(let v): hasher.combine(Set(v))
        case .dictionary(let v): hasher.combine(v)
        }
    }
}
