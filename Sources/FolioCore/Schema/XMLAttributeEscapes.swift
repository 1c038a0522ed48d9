/// How a byte of an attribute value is written in a package: the one table
/// the writer applies (`XMLText`, in the store) and the document limits count
/// with (``WrittenSize``), so the two cannot disagree.
enum XMLAttributeEscapes {
    /// The reference a double quote is written as between double quotes.
    static let doubleQuoteReference: StaticString = "&quot;"

    /// The reference written for `byte`, or `nil` when it is written as is:
    /// `&` and `<`, and the whitespace characters attribute normalization
    /// would otherwise turn into spaces; `"` only in a value put between
    /// double quotes (`doubleQuoted`).
    @inline(__always)
    static func reference(for byte: UInt8, doubleQuoted: Bool) -> StaticString? {
        switch byte {
        case UInt8(ascii: "&"): return "&amp;"
        case UInt8(ascii: "<"): return "&lt;"
        case UInt8(ascii: "\"") where doubleQuoted: return doubleQuoteReference
        case 0x09: return "&#9;"
        case 0x0A: return "&#10;"
        case 0x0D: return "&#13;"
        default: return nil
        }
    }
}
