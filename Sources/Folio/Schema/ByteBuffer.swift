/// A growable byte buffer that values' text (``ValueText``) and the package
/// writer format into.
///
/// Appending bytes to an array is about twice as fast as libxml2's
/// `xmlTextWriter` for the same output, and lets numbers and dates be formatted
/// without allocating a `String` each.
struct ByteBuffer {
    var bytes: [UInt8] = []

    init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    mutating func append(_ byte: UInt8) { bytes.append(byte) }

    mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    mutating func append(string: String) {
        var string = string
        string.withUTF8 { bytes.append(contentsOf: $0) }
    }

    /// Appends a signed integer in decimal without going through `String`.
    mutating func append(int value: Int64) {
        if value < 0 {
            bytes.append(UInt8(ascii: "-"))
            append(uint: value == .min ? UInt64(Int64.max) + 1 : UInt64(-value))
        } else {
            append(uint: UInt64(value))
        }
    }

    /// Appends an unsigned integer in decimal without going through `String`.
    mutating func append(uint value: UInt64) {
        if value < 10 {
            bytes.append(UInt8(truncatingIfNeeded: value) &+ 0x30)
            return
        }
        var digits: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
                     UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        var rest = value
        withUnsafeMutableBytes(of: &digits) { raw in
            let slots = raw.bindMemory(to: UInt64.self)
            while rest > 0 {
                slots[count] = rest % 10
                rest /= 10
                count += 1
            }
            for index in stride(from: count - 1, through: 0, by: -1) {
                bytes.append(UInt8(truncatingIfNeeded: slots[index]) &+ 0x30)
            }
        }
    }

    /// Appends `count` digits of `value`, zero-padded.
    mutating func append(padded value: Int64, width: Int) {
        var divisor: Int64 = 1
        for _ in 1..<width { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            bytes.append(UInt8(truncatingIfNeeded: rest / divisor) &+ 0x30)
            rest %= divisor
            divisor /= 10
        }
    }
}
