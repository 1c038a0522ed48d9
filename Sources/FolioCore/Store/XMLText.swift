import Foundation

/// What XML 1.0 can and cannot carry, and how Folio escapes attribute values.
enum XMLText {
    /// Characters XML 1.0 cannot carry at all, not even as character references:
    /// the ones a value's canonical text never holds raw (``ValueText``, which
    /// escapes them), defined there once so the two cannot disagree.
    @inline(__always)
    static func isForbidden(_ scalar: Unicode.Scalar) -> Bool { ValueText.isUnwritable(scalar) }

    /// What one pass over an attribute value's bytes found: whatever decides how
    /// it is quoted and escaped, so a value is scanned once, and a value with
    /// nothing to escape (most) is then copied whole.
    struct ValueScan: OptionSet {
        let rawValue: UInt8

        /// A character XML 1.0 cannot carry (``isForbidden(_:)``).
        static let forbidden = ValueScan(rawValue: 1)
        /// `&`, `<`, tab, line feed or carriage return: written as a reference.
        static let reference = ValueScan(rawValue: 2)
        static let doubleQuote = ValueScan(rawValue: 4)
        static let singleQuote = ValueScan(rawValue: 8)
    }

    /// The bytes below 0x40 that ``scan(_:)`` looks at: C0 controls, `"`, `&`, `'` and `<`.
    @inline(__always)
    private static var notableBelow64: UInt64 {
        (1 << 0x20 - 1) | 1 << 0x22 | 1 << 0x26 | 1 << 0x27 | 1 << 0x3C
    }

    /// Scans a value's UTF-8 once. C0 controls are single bytes, U+FFFE/U+FFFF
    /// are EF BF BE/EF BF BF, so bytes are enough. O(bytes): eight at a time
    /// while none of them is one that matters, then one by one.
    static func scan(_ bytes: UnsafeBufferPointer<UInt8>) -> ValueScan {
        guard let base = bytes.baseAddress else { return [] }
        let count = bytes.count
        var found: ValueScan = []
        var index = 0
        // Skips words of eight plain bytes; stops at the first word holding a byte
        // below 0x20, `"`, `&`, `'`, `<` or 0xEF (the classic SWAR tests: a byte
        // below n, or equal to c, sets its high bit in these expressions).
        // The tests are or-ed without branching: one branch a word.
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        @inline(__always) func zeroBytes(_ word: UInt64) -> UInt64 { (word &- ones) & ~word }
        while index + 8 <= count {
            let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
            let below = (word &- ones &* 0x20) & ~word
            let quotes = zeroBytes(word ^ (ones &* 0x22)) | zeroBytes(word ^ (ones &* 0x26)) | zeroBytes(word ^ (ones &* 0x27))
            let others = zeroBytes(word ^ (ones &* 0x3C)) | zeroBytes(word ^ (ones &* 0xEF))
            if (below | quotes | others) & highs != 0 { break }
            index += 8
        }
        while index < count {
            let byte = base[index]
            if byte < 0x40 {
                if notableBelow64 >> byte & 1 != 0 {
                    switch byte {
                    case 0x09, 0x0A, 0x0D, UInt8(ascii: "&"), UInt8(ascii: "<"): found.insert(.reference)
                    case UInt8(ascii: "\""): found.insert(.doubleQuote)
                    case UInt8(ascii: "'"): found.insert(.singleQuote)
                    default: found.insert(.forbidden)
                    }
                }
            } else if byte == 0xEF, index + 2 < count, base[index + 1] == 0xBF, base[index + 2] >= 0xBE {
                found.insert(.forbidden)
            }
            index += 1
        }
        return found
    }

    /// Whether a string holds a character XML 1.0 cannot carry.
    static func needsEscaping(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { scan($0).contains(.forbidden) }
    }

    /// Appends an attribute value with its quotes, escaping `&`, `<`, the quote and
    /// the whitespace characters attribute normalization would otherwise turn into spaces.
    ///
    /// The value is put between single quotes when it holds `"` but no `'`, so JSON
    /// reads as `tags='["a","b"]'` rather than a wall of `&quot;`. The choice
    /// depends only on the value, so output stays byte-stable.
    static func appendQuotedAttributeValue(_ bytes: UnsafeBufferPointer<UInt8>, to buffer: inout ByteBuffer) {
        appendQuotedAttributeValue(bytes, scan: scan(bytes), to: &buffer)
    }

    /// The quote a value is put between when it needs no reference at all
    /// (most values), or nil when it needs some; `scan` is ``scan(_:)`` of it.
    @inline(__always)
    static func plainQuote(for scan: ValueScan) -> UInt8? {
        if scan.contains(.reference) { return nil }
        guard scan.contains(.doubleQuote) else { return UInt8(ascii: "\"") }
        return scan.contains(.singleQuote) ? nil : UInt8(ascii: "'")
    }

    /// ``appendQuotedAttributeValue(_:to:)`` for a value already scanned (`scan` is ``scan(_:)`` of `bytes`).
    static func appendQuotedAttributeValue(_ bytes: UnsafeBufferPointer<UInt8>, scan: ValueScan, to buffer: inout ByteBuffer) {
        let single = scan.contains(.doubleQuote) && !scan.contains(.singleQuote)
        let quote = single ? UInt8(ascii: "'") : UInt8(ascii: "\"")
        buffer.append(quote)
        guard scan.contains(.reference) || (scan.contains(.doubleQuote) && !single) else {
            buffer.append(bytes)
            buffer.append(quote)
            return
        }
        var runStart = 0
        for index in 0..<bytes.count {
            guard let replacement = XMLAttributeEscapes.reference(for: bytes[index], doubleQuoted: !single) else { continue }
            buffer.append(UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
            buffer.append(replacement)
            runStart = index + 1
        }
        buffer.append(UnsafeBufferPointer(rebasing: bytes[runStart...]))
        buffer.append(quote)
    }

    static func appendQuotedAttributeValue(_ text: String, to buffer: inout ByteBuffer) {
        var text = text
        text.withUTF8 { appendQuotedAttributeValue($0, to: &buffer) }
    }

    /// Calls `body` with an attribute value as the application must see it.
    ///
    /// With entity substitution off (Folio never turns it on), libxml2 hands
    /// `&amp;` and `&#38;` to SAX2 as the five bytes `&#38;`, and decodes every
    /// other reference. A raw `&` cannot otherwise survive into a value, so each
    /// `&#38;` is an `&`. Values without `&` pass through untouched.
    @inline(__always)
    static func withDecodedValue<R>(_ bytes: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        guard let base = bytes.baseAddress, memchr(base, 0x26, bytes.count) != nil else { return body(bytes) }
        var decoded: [UInt8] = []
        decoded.reserveCapacity(bytes.count)
        var index = 0
        let reference = Array("&#38;".utf8)
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "&"), index + 5 <= bytes.count,
                bytes[index..<(index + 5)].elementsEqual(reference)
            {
                decoded.append(UInt8(ascii: "&"))
                index += 5
            } else {
                decoded.append(bytes[index])
                index += 1
            }
        }
        return decoded.withUnsafeBufferPointer(body)
    }
}
