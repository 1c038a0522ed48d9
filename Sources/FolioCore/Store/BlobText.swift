import Foundation

/// The bytes of an externally stored value's blob, and back.
///
/// A `data` value's blob is its bytes and a `string`'s its UTF-8, so a blob
/// is the file a person would expect. Every other value's blob is the UTF-8 of
/// the text the XML would otherwise hold for it (``ValueText``: decimal
/// integers, ISO 8601 dates, JSON for collections and composites, `type:text`
/// for any-values) before XML escaping, since a blob needs none. `nil` has no
/// blob. docs/FORMAT.md, "External storage", is the reference.
enum BlobText {
    /// The blob of a non-nil value of an attribute of `type`.
    ///
    /// - Complexity: O(the value's size).
    static func bytes(of value: Value, as type: ValueType) -> Data {
        switch (value, type) {
        case (.data(let data), .data): return data
        case (.string(let text), .string): return Data(text.utf8)
        default:
            var buffer = ByteBuffer()
            ValueText.append(value, as: type, to: &buffer)
            return Data(buffer.bytes)
        }
    }

    /// The value a blob holds, or `nil` when its bytes are not a value of
    /// `type` (a string's must be valid UTF-8).
    ///
    /// - Complexity: O(the blob's size).
    static func value(of data: Data, as type: ValueType, maximumNesting: Int) -> Value? {
        switch type {
        case .data: return .data(data)
        case .string: return String(validating: data, as: UTF8.self).map(Value.string)
        default:
            guard let text = String(validating: data, as: UTF8.self) else { return nil }
            return ValueText.decode(text, as: type, maximumNesting: maximumNesting)
        }
    }
}
