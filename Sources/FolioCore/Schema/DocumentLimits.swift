import Foundation

/// The sizes a Folio document may reach: one table that the edit checks, the
/// writer and the loader share, so every document Folio writes, Folio reopens.
///
/// A value that would break a limit is refused when it is set
/// (``GraphError/limitExceeded(entity:attribute:limit:size:maximum:)``), a
/// schema that would when it is made
/// (``SchemaError/limitExceeded(entity:property:limit:size:maximum:)``), and a
/// file that breaks one when it is read
/// (``PackageError/limitExceeded(_:limit:size:maximum:)``, with file, line and
/// column) — before libxml2 buffers the offending bytes, so memory stays
/// bounded. The values of ``standard`` and why they were chosen are in
/// docs/FORMAT.md, "Limits".
public struct DocumentLimits: Hashable, Sendable {
    /// Which limit of the table a size broke.
    public enum Limit: String, Hashable, Sendable, CustomStringConvertible {
        /// ``DocumentLimits/maximumValueBytes``.
        case valueBytes
        /// ``DocumentLimits/maximumNesting``.
        case nesting
        /// ``DocumentLimits/maximumBlobBytes``.
        case blobBytes
        /// ``DocumentLimits/maximumObjects``.
        case objects
        /// ``DocumentLimits/maximumAttributesPerElement``.
        case attributesPerElement
        /// ``DocumentLimits/maximumNameBytes``.
        case nameBytes
        /// ``DocumentLimits/maximumMarkupBytes``.
        case markupBytes

        /// What the limit counts, in words, for error messages.
        public var description: String {
            switch self {
            case .valueBytes: return "bytes of one value as written in the package's XML"
            case .nesting: return "levels of nesting of a collection or composite value"
            case .blobBytes: return "bytes of one externally stored value"
            case .objects: return "objects in one document"
            case .attributesPerElement: return "XML attributes on one element (properties of an entity + 1, or entities)"
            case .nameBytes: return "bytes of a name"
            case .markupBytes: return "bytes of markup outside values (names, spaces, comments, declarations)"
            }
        }
    }

    /// The most bytes one value may take in the package's XML, counted as written
    /// between its quotes: after `\uXXXX` escaping and XML escaping (`&amp;`,
    /// `&#10;`…). 256 MiB in ``standard``.
    public let maximumValueBytes: Int
    /// How deep collections and composite (`codable`) values may nest: a flat
    /// array is 1. 64 in ``standard``.
    public let maximumNesting: Int
    /// The most bytes of one externally stored (`externalStorage`) value, a file
    /// in `blobs/`. 1 GiB in ``standard``.
    public let maximumBlobBytes: Int
    /// The most objects one document may hold. 2³⁰ in ``standard``.
    public let maximumObjects: Int
    /// The most XML attributes one element may carry. An object element carries
    /// its identifier, stored attributes and declared relationships, so an
    /// entity may have at most this many minus one; `<objects>` carries one per
    /// entity, so a schema may have at most this many entities. 10,000 in ``standard``.
    public let maximumAttributesPerElement: Int
    /// The most bytes of an entity, attribute or relationship name. 1,024 in ``standard``.
    public let maximumNameBytes: Int
    /// The most bytes of markup the loader reads outside values in one go: the
    /// names and spaces between two values of an element, a comment, a
    /// declaration. Never reached by a document Folio writes (names are at most
    /// ``maximumNameBytes``); it only bounds what libxml2 buffers for a hostile
    /// file. 64 KiB in ``standard``.
    public let maximumMarkupBytes: Int

    /// The limits every document has.
    public static let standard = DocumentLimits(
        maximumValueBytes: 1 << 28, maximumNesting: 64, maximumBlobBytes: 1 << 30, maximumObjects: 1 << 30,
        maximumAttributesPerElement: 10_000, maximumNameBytes: 1_024, maximumMarkupBytes: 1 << 16)

    /// Creates a table; tests use small ones to reach every limit quickly.
    init(
        maximumValueBytes: Int, maximumNesting: Int, maximumBlobBytes: Int, maximumObjects: Int,
        maximumAttributesPerElement: Int, maximumNameBytes: Int, maximumMarkupBytes: Int
    ) {
        self.maximumValueBytes = maximumValueBytes
        self.maximumNesting = maximumNesting
        self.maximumBlobBytes = maximumBlobBytes
        self.maximumObjects = maximumObjects
        self.maximumAttributesPerElement = maximumAttributesPerElement
        self.maximumNameBytes = maximumNameBytes
        self.maximumMarkupBytes = maximumMarkupBytes
    }

    /// The value of one limit.
    public func maximum(_ limit: Limit) -> Int {
        switch limit {
        case .valueBytes: return maximumValueBytes
        case .nesting: return maximumNesting
        case .blobBytes: return maximumBlobBytes
        case .objects: return maximumObjects
        case .attributesPerElement: return maximumAttributesPerElement
        case .nameBytes: return maximumNameBytes
        case .markupBytes: return maximumMarkupBytes
        }
    }

    /// The first limit a value of an attribute breaks, with the size found, or `nil`.
    ///
    /// The value's written size is computed without writing it: exactly for
    /// strings, URLs, data, integers and decimals; for doubles, floats and dates
    /// an upper bound (32 and 64 bytes). So a value accepted here always fits
    /// the loader's limit on what it reads.
    ///
    /// - Complexity: O(the value's size): one pass over its bytes.
    func violation(of value: Value, as type: ValueType, external: Bool) -> (limit: Limit, size: Int)? {
        if case .null = value { return nil }
        if external { return blobViolation(of: value, as: type) }
        switch value {
        case .string(let text) where text.utf8.count <= maximumValueBytes / 8 - 16:
            return nil  // every byte takes at most 6 written (\u0007), plus "string:"
        case .bool, .int, .uint, .double, .float, .date, .uuid:
            if maximumValueBytes >= 64 { return nil }  // at most 64 bytes
        default: break
        }
        let depth = value.nestingDepth(upTo: maximumNesting + 1)
        if depth > maximumNesting { return (.nesting, depth) }
        let size = DocumentLimits.writtenSize(of: value, as: type)
        return size > maximumValueBytes ? (.valueBytes, size) : nil
    }

    /// The first limit an externally stored value breaks. Its blob holds the
    /// bytes of data, the UTF-8 of a string, and the text form of any other
    /// value (docs/FORMAT.md, "External storage"), which its written size bounds
    /// from above; a collection or composite still may not nest deeper than the
    /// reader parses.
    private func blobViolation(of value: Value, as type: ValueType) -> (limit: Limit, size: Int)? {
        let size: Int
        switch value {
        case .data(let data) where type == .data: size = data.count
        case .string(let text) where type == .string: size = text.utf8.count
        default:
            let depth = value.nestingDepth(upTo: maximumNesting + 1)
            if depth > maximumNesting { return (.nesting, depth) }
            size = DocumentLimits.writtenSize(of: value, as: type)
        }
        return size > maximumBlobBytes ? (.blobBytes, size) : nil
    }

    // MARK: Written sizes

    /// The bytes of a value as the writer puts it between quotes in
    /// the package's XML (an upper bound where noted on ``violation(of:as:external:)``).
    static func writtenSize(of value: Value, as type: ValueType) -> Int {
        var counter = WrittenSize()
        switch (value, type) {
        case (.string(let text), .string):
            return counter.attributeText(text)
        case (_, .any):
            guard let scalar = value.scalarType else { return 0 }
            let prefix = scalar.description.utf8.count + 1
            if case .string(let text) = value { return prefix + counter.attributeText(text) }
            if case .url(let url) = value { return prefix + counter.attributeText(url.absoluteString) }
            return prefix + scalarSize(value)
        case (.array, _), (.set, _), (.dictionary, _), (_, .codable):
            counter.json(value, element: type)
            return counter.total
        case (.url(let url), _):
            return counter.attributeText(url.absoluteString)
        default:
            return scalarSize(value)
        }
    }

    /// Bytes of a scalar's text that needs no escaping (numbers, dates, base64, UUIDs).
    static func scalarSize(_ value: Value) -> Int {
        switch value {
        case .null: return 4
        case .bool(let flag): return flag ? 4 : 5
        case .int(let number): return digits(number.magnitude) + (number < 0 ? 1 : 0)
        case .uint(let number): return digits(number)
        case .double, .float: return 32  // the shortest round-trip text is at most 24; nan(0x…) 23
        case .date: return 64  // ISO 8601 with fraction, or @ + a double
        case .data(let data): return (data.count + 2) / 3 * 4
        case .uuid: return 36
        case .decimal(let decimal): return decimal.description.utf8.count
        case .string(let text): return text.utf8.count
        case .url(let url): return url.absoluteString.utf8.count
        case .array, .set, .dictionary: return 0
        }
    }

    private static func digits(_ number: UInt64) -> Int {
        var count = 1
        var rest = number
        while rest >= 10 { rest /= 10; count += 1 }
        return count
    }
}

/// Counts the bytes a value's text takes once escaped as the writer escapes it
/// (``XMLAttributeEscapes``, the writer's own table):
/// JSON escapes inside JSON strings (and for the `.esc` form of a text holding
/// characters XML 1.0 cannot carry), then XML escapes, and `&quot;` for each `"`
/// unless the value is written between single quotes (it holds `"` and no `'`).
struct WrittenSize {
    private var bytes = 0
    private var doubleQuotes = 0
    private var hasApostrophe = false

    /// The total once every part is counted.
    var total: Int {
        bytes + (hasApostrophe ? (XMLAttributeEscapes.doubleQuoteReference.utf8CodeUnitCount - 1) * doubleQuotes : 0)
    }

    /// The bytes of a whole attribute value that is this text: plain, or in the
    /// `.esc` form when it holds a character XML 1.0 cannot carry.
    mutating func attributeText(_ text: String) -> Int {
        var plain = WrittenSize()
        var escaped = WrittenSize()
        var needsEscaping = false
        var text = text
        text.withUTF8 { utf8 in
            var index = 0
            let count = utf8.count
            while index < count {
                let byte = utf8[index]
                plain.xmlByte(byte)
                if byte == 0xEF, index + 2 < count, utf8[index + 1] == 0xBF, utf8[index + 2] >= 0xBE {
                    needsEscaping = true
                    plain.bytes += 2
                    escaped.bytes += 6
                    index += 3
                    continue
                }
                if byte < 0x20, byte != 0x09, byte != 0x0A, byte != 0x0D { needsEscaping = true }
                escaped.jsonByte(byte)
                index += 1
            }
        }
        self = needsEscaping ? escaped : plain
        return total
    }

    /// A byte written as is, or XML-escaped.
    @inline(__always)
    private mutating func xmlByte(_ byte: UInt8) {
        switch byte {
        // Counted apart: escaped only when the value is put between double quotes (see `total`).
        case UInt8(ascii: "\""): bytes += 1; doubleQuotes += 1
        case UInt8(ascii: "'"): bytes += 1; hasApostrophe = true
        default: bytes += XMLAttributeEscapes.reference(for: byte, doubleQuoted: false)?.utf8CodeUnitCount ?? 1
        }
    }

    /// A byte of a JSON string's body (one scalar of U+FFFE/U+FFFF is counted by the caller).
    @inline(__always)
    private mutating func jsonByte(_ byte: UInt8) {
        switch byte {
        case UInt8(ascii: "\""): bytes += 2; doubleQuotes += 1
        case UInt8(ascii: "\\"), 0x0A, 0x09, 0x0D: bytes += 2
        case 0..<0x20: bytes += 6
        default: xmlByte(byte)
        }
    }

    /// A JSON string literal holding this text.
    private mutating func jsonString(_ text: String) {
        bytes += 2
        doubleQuotes += 2
        var text = text
        text.withUTF8 { utf8 in
            var index = 0
            let count = utf8.count
            while index < count {
                let byte = utf8[index]
                if byte == 0xEF, index + 2 < count, utf8[index + 1] == 0xBF, utf8[index + 2] >= 0xBE {
                    bytes += 6
                    index += 3
                    continue
                }
                jsonByte(byte)
                index += 1
            }
        }
    }

    /// A value as JSON, as `ValueText` writes collections and composite values.
    mutating func json(_ value: Value, element type: ValueType) {
        if case .optional(let wrapped) = type {
            // null for an absent element; otherwise as the wrapped type writes it.
            if case .null = value { bytes += 4 } else { json(value, element: wrapped) }
            return
        }
        if type == .any {
            guard let scalar = value.scalarType else { bytes += 4; return }
            // A JSON string of "type:text".
            bytes += scalar.description.utf8.count + 1
            switch value {
            case .string(let text): jsonString(text)
            case .url(let url): jsonString(url.absoluteString)
            default: bytes += 2 + DocumentLimits.scalarSize(value); doubleQuotes += 2
            }
            return
        }
        switch value {
        case .array(let elements), .set(let elements):
            let elementType = type.listElement
            bytes += 2 + max(0, elements.count - 1)
            for element in elements { json(element, element: elementType) }
        case .dictionary(let entries):
            var valueType = ValueType.codable
            if case .dictionary(let inner) = type { valueType = inner }
            bytes += 2 + max(0, entries.count - 1) + entries.count
            for (key, element) in entries {
                jsonString(key)
                json(element, element: valueType)
            }
        case .string(let text): jsonString(text)
        case .url(let url): jsonString(url.absoluteString)
        case .null, .bool, .int, .uint, .double, .float: bytes += DocumentLimits.scalarSize(value)
        case .date, .data, .uuid, .decimal: bytes += 2 + DocumentLimits.scalarSize(value); doubleQuotes += 2
        }
    }
}

extension Value {
    /// How deep collections nest in this value: 0 for a scalar, 1 for a flat
    /// array, set or dictionary; counting stops at `cap`, so a hostile tree
    /// costs no more stack than the limit allows.
    func nestingDepth(upTo cap: Int) -> Int {
        guard cap > 0 else { return 0 }
        var deepest = 0
        switch self {
        case .array(let elements), .set(let elements):
            for element in elements where deepest < cap - 1 { deepest = max(deepest, element.nestingDepth(upTo: cap - 1)) }
        case .dictionary(let entries):
            for element in entries.values where deepest < cap - 1 { deepest = max(deepest, element.nestingDepth(upTo: cap - 1)) }
        default:
            return 0
        }
        return 1 + deepest
    }
}
