import Foundation

extension Value {
    /// This value as the natural Swift value of an attribute type, for
    /// ``Schema/Attribute/defaultValue`` when no model class says more: each
    /// integer width as its own Swift type, collections as `[Any]`,
    /// `Set<AnyHashable>` and `[String: Any]` (which `as? [String]` and the
    /// like read), and any-values and composites as the `Value` itself, which
    /// is the Swift type a model declares for an any-value and the only
    /// faithful form of a composite without its `Codable` type.
    ///
    /// `nil` for `.null`, or for a value that does not conform to `type`.
    func swiftValue(as type: ValueType) -> Any? {
        switch (self, type) {
        case (.null, _): return nil
        case (_, .any), (_, .codable): return self
        case (.string(let value), .string): return value
        case (.bool(let value), .bool): return value
        case (.int(let value), .int): return Int(exactly: value)
        case (.int(let value), .int8): return Int8(exactly: value)
        case (.int(let value), .int16): return Int16(exactly: value)
        case (.int(let value), .int32): return Int32(exactly: value)
        case (.int(let value), .int64): return value
        case (.uint(let value), .uint): return UInt(exactly: value)
        case (.uint(let value), .uint8): return UInt8(exactly: value)
        case (.uint(let value), .uint16): return UInt16(exactly: value)
        case (.uint(let value), .uint32): return UInt32(exactly: value)
        case (.uint(let value), .uint64): return value
        case (.double(let value), .double): return value
        case (.float(let value), .float): return value
        case (.date(let value), .date): return value
        case (.data(let value), .data): return value
        case (.uuid(let value), .uuid): return value
        case (.url(let value), .url): return value
        case (.decimal(let value), .decimal): return value
        case (.array(let elements), .array(let element)):
            return elements.compactMap { $0.swiftValue(as: element) }
        case (.set(let elements), .set(let element)):
            return Set(elements.compactMap { $0.swiftValue(as: element) as? AnyHashable })
        case (.dictionary(let entries), .dictionary(let element)):
            return entries.compactMapValues { $0.swiftValue(as: element) }
        default: return nil
        }
    }
}
