import Foundation

/// A Swift type a model attribute can have, stored as one of the document's
/// value types without a detour through an encoder.
///
/// Folio conforms the scalar types (`String`, `Bool`, every integer width,
/// `Double`, `Float`, `Date`, `Data`, `UUID`, `URL`, `Decimal`), `Value` (the
/// any-value type), optionals of these, and arrays, sets and string-keyed
/// dictionaries of them. Any other `Codable` type is stored as a composite value.
public protocol PersistableValue: Codable {
    /// The attribute type this Swift type is stored as.
    static var valueType: ValueType { get }
    /// The stored form of this value.
    var persistentValue: Value { get }
    /// Reads a stored value; `nil` when it is not of this type.
    init?(persistentValue: Value)
    /// Reads a cell of the document straight from its column, without making
    /// a ``Value``; `nil` when the cell does not hold this type (the caller
    /// then takes the general path). Folio implements it; a conforming type
    /// of your own gets a default that goes through ``init(persistentValue:)``.
    static func _read(_ cell: _StoredCell) -> Self?
}

extension PersistableValue {
    /// Reads the cell as a ``Value``, then converts it.
    public static func _read(_ cell: _StoredCell) -> Self? { Self(persistentValue: cell.value) }
}

/// Whether a type is `Optional`, seen through a generic parameter.
protocol OptionalType {
    static var wrappedType: Any.Type { get }
    static var nothing: Self { get }
    /// The wrapped value, if any, as `Any`.
    var wrappedValue: Any? { get }
}

extension Optional: OptionalType {
    static var wrappedType: Any.Type { Wrapped.self }
    static var nothing: Self { nil }
    var wrappedValue: Any? { self.map { $0 as Any } }
}

extension Optional: PersistableValue where Wrapped: PersistableValue {
    public static var valueType: ValueType { Wrapped.valueType }
    public var persistentValue: Value { self?.persistentValue ?? .null }
    public init?(persistentValue: Value) {
        if case .null = persistentValue { self = nil; return }
        guard let wrapped = Wrapped(persistentValue: persistentValue) else { return nil }
        self = wrapped
    }
    @inlinable
    public static func _read(_ cell: _StoredCell) -> Self? {
        if cell.isNull { return .some(nil) }
        return Wrapped._read(cell).map { .some($0) }
    }
}

extension String: PersistableValue {
    public static var valueType: ValueType { .string }
    public var persistentValue: Value { .string(self) }
    public init?(persistentValue: Value) {
        guard case .string(let value) = persistentValue else { return nil }
        self = value
    }
    public static func _read(_ cell: _StoredCell) -> Self? {
        guard cell.kind == .string else { return Self(persistentValue: cell.value) }
        return cell.cell(String.self)
    }
}

extension Bool: PersistableValue {
    public static var valueType: ValueType { .bool }
    public var persistentValue: Value { .bool(self) }
    public init?(persistentValue: Value) {
        guard case .bool(let value) = persistentValue else { return nil }
        self = value
    }
    public static func _read(_ cell: _StoredCell) -> Self? {
        guard cell.kind == .bool else { return Self(persistentValue: cell.value) }
        return cell.cell(Bool.self)
    }
}

/// Integers share one conversion: every signed width is `.int`, every unsigned `.uint`.
protocol PersistableInteger: PersistableValue, FixedWidthInteger {}

extension PersistableInteger {
    public var persistentValue: Value { Self.isSigned ? .int(Int64(self)) : .uint(UInt64(self)) }
    public init?(persistentValue: Value) {
        switch persistentValue {
        case .int(let value): guard let exact = Self(exactly: value) else { return nil }; self = exact
        case .uint(let value): guard let exact = Self(exactly: value) else { return nil }; self = exact
        default: return nil
        }
    }
    @inlinable
    public static func _read(_ cell: _StoredCell) -> Self? {
        // Nil for a null or a cell of another type: the caller takes the general path.
        guard let (raw, isUnsigned) = cell.integer() else { return nil }
        // Unsigned widths are stored as bit patterns.
        return isUnsigned ? Self(exactly: UInt64(bitPattern: raw)) : Self(exactly: raw)
    }
}

extension Int: PersistableInteger { public static var valueType: ValueType { .int } }
extension Int8: PersistableInteger { public static var valueType: ValueType { .int8 } }
extension Int16: PersistableInteger { public static var valueType: ValueType { .int16 } }
extension Int32: PersistableInteger { public static var valueType: ValueType { .int32 } }
extension Int64: PersistableInteger { public static var valueType: ValueType { .int64 } }
extension UInt: PersistableInteger { public static var valueType: ValueType { .uint } }
extension UInt8: PersistableInteger { public static var valueType: ValueType { .uint8 } }
extension UInt16: PersistableInteger { public static var valueType: ValueType { .uint16 } }
extension UInt32: PersistableInteger { public static var valueType: ValueType { .uint32 } }
extension UInt64: PersistableInteger { public static var valueType: ValueType { .uint64 } }

extension Double: PersistableValue {
    public static var valueType: ValueType { .double }
    public var persistentValue: Value { .double(self) }
    public init?(persistentValue: Value) {
        guard case .double(let value) = persistentValue else { return nil }
        self = value
    }
    public static func _read(_ cell: _StoredCell) -> Self? {
        guard cell.kind == .double else { return Self(persistentValue: cell.value) }
        return cell.cell(Double.self)
    }
}

extension Float: PersistableValue {
    public static var valueType: ValueType { .float }
    public var persistentValue: Value { .float(self) }
    public init?(persistentValue: Value) {
        guard case .float(let value) = persistentValue else { return nil }
        self = value
    }
    public static func _read(_ cell: _StoredCell) -> Self? {
        guard cell.kind == .float else { return Self(persistentValue: cell.value) }
        return cell.cell(Double.self).map(Column.float(fromRaw:))
    }
}

extension Date: PersistableValue {
    public static var valueType: ValueType { .date }
    public var persistentValue: Value { .date(self) }
    public init?(persistentValue: Value) {
        guard case .date(let value) = persistentValue else { return nil }
        self = value
    }
    public static func _read(_ cell: _StoredCell) -> Self? {
        guard cell.kind == .date else { return Self(persistentValue: cell.value) }
        return cell.cell(Double.self).map(Date.init(timeIntervalSinceReferenceDate:))
    }
}

extension Data: PersistableValue {
    public static var valueType: ValueType { .data }
    public var persistentValue: Value { .data(self) }
    public init?(persistentValue: Value) {
        guard case .data(let value) = persistentValue else { return nil }
        self = value
    }
}

extension UUID: PersistableValue {
    public static var valueType: ValueType { .uuid }
    public var persistentValue: Value { .uuid(self) }
    public init?(persistentValue: Value) {
        guard case .uuid(let value) = persistentValue else { return nil }
        self = value
    }
}

extension URL: PersistableValue {
    public static var valueType: ValueType { .url }
    public var persistentValue: Value { .url(self) }
    public init?(persistentValue: Value) {
        guard case .url(let value) = persistentValue else { return nil }
        self = value
    }
}

extension Decimal: PersistableValue {
    public static var valueType: ValueType { .decimal }
    public var persistentValue: Value { .decimal(self) }
    public init?(persistentValue: Value) {
        guard case .decimal(let value) = persistentValue else { return nil }
        self = value
    }
}

extension Value: PersistableValue {
    /// `Value` itself is the any-value type (Realm's `AnyRealmValue`).
    public static var valueType: ValueType { .any }
    public var persistentValue: Value { self }
    public init?(persistentValue: Value) { self = persistentValue }
}

extension PersistableValue {
    /// The type of this type as an element of an array, set or dictionary:
    /// an optional's elements may be absent (`[String?]` is `array(string?)`).
    static var elementValueType: ValueType {
        Self.self is any OptionalType.Type ? .optional(valueType) : valueType
    }
}

extension Array: PersistableValue where Element: PersistableValue {
    public static var valueType: ValueType { .array(Element.elementValueType) }
    public var persistentValue: Value { .array(map(\.persistentValue)) }
    public init?(persistentValue: Value) {
        guard case .array(let elements) = persistentValue else { return nil }
        var result: [Element] = []
        result.reserveCapacity(elements.count)
        for element in elements {
            guard let value = Element(persistentValue: element) else { return nil }
            result.append(value)
        }
        self = result
    }
}

extension Set: PersistableValue where Element: PersistableValue {
    public static var valueType: ValueType { .set(Element.elementValueType) }
    public var persistentValue: Value { .set(map(\.persistentValue)) }
    public init?(persistentValue: Value) {
        guard case .set(let elements) = persistentValue else { return nil }
        var result = Set<Element>()
        for element in elements {
            guard let value = Element(persistentValue: element) else { return nil }
            result.insert(value)
        }
        self = result
    }
}

extension Dictionary: PersistableValue where Key == String, Value: PersistableValue {
    public static var valueType: ValueType { .dictionary(Value.elementValueType) }
    public var persistentValue: FolioCore.Value { .dictionary(mapValues(\.persistentValue)) }
    public init?(persistentValue: FolioCore.Value) {
        guard case .dictionary(let elements) = persistentValue else { return nil }
        var result: [String: Value] = [:]
        for (key, element) in elements {
            guard let value = Value(persistentValue: element) else { return nil }
            result[key] = value
        }
        self = result
    }
}
