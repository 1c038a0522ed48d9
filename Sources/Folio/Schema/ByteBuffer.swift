/// A growable byte buffer that values' text (``ValueText``) and the package
/// writer format into.
///
/// Appending bytes to an array is about twice as fast as libxml2's
/// `xmlTextWriter` for the same output, and lets numbers and dates be formatted
/// without allocating a `String` each. The writer appends a few values per
/// object property, so every append here is one copy into the array: a number
/// or a date is formatted on the stack first (``append(formattedUpTo:_:)``)
/// rather than byte by byte, each byte paying the array's uniqueness and
/// capacity checks.
struct ByteBuffer: TextOutputStream {
    var bytes: [UInt8] = []

    init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    @inline(__always)
    mutating func append(_ byte: UInt8) { bytes.append(byte) }

    @inline(__always)
    mutating func append(_ text: StaticString) {
        append(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Appends bytes with one copy.
    @inline(__always)
    mutating func append(_ source: UnsafeBufferPointer<UInt8>) {
        bytes.append(contentsOf: source)
    }

    /// Appends the bytes of an array with one copy.
    @inline(__always)
    mutating func append(bytes source: [UInt8]) {
        source.withUnsafeBufferPointer { append($0) }
    }

    mutating func append(string: String) {
        var string = string
        string.withUTF8 { append($0) }
    }

    /// Formats at most `maximum` bytes on the stack with `body`, which returns
    /// how many it wrote, and appends them with one copy.
    @inline(__always)
    mutating func append(formattedUpTo maximum: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Int) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: maximum) { scratch in
            guard let start = scratch.baseAddress else { return }
            append(UnsafeBufferPointer(start: start, count: body(start)))
        }
    }

    // `TextOutputStream`, so `Double.write(to:)` and `Float.write(to:)` hand over
    // their shortest round-trip digits, the bytes of `description`, without a `String`.
    mutating func write(_ string: String) { append(string: string) }

    mutating func _writeASCII(_ buffer: UnsafeBufferPointer<UInt8>) { append(buffer) }

    /// Appends a signed integer in decimal without going through `String`.
    mutating func append(int value: Int64) {
        append(formattedUpTo: 20) { ByteBuffer.format(int: value, at: $0) }
    }

    /// Appends an unsigned integer in decimal without going through `String`.
    mutating func append(uint value: UInt64) {
        append(formattedUpTo: 20) { ByteBuffer.format(uint: value, at: $0) }
    }

    /// Appends `count` digits of `value`, zero-padded.
    mutating func append(padded value: Int64, width: Int) {
        append(formattedUpTo: Swift.max(width, 1)) { ByteBuffer.format(padded: value, width: width, at: $0) }
    }

    /// Two ASCII digits for each number below 100, so integers are formatted two digits per division.
    /// Two ASCII digits for each number below 100, so integers are formatted two digits per division.
    @inline(__always)
    private static var digitPairs: StaticString {
        "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"
    }

    /// Writes a signed integer in decimal at `target` (at most 20 bytes); returns how many bytes.
    @inline(__always)
    static func format(int value: Int64, at target: UnsafeMutablePointer<UInt8>) -> Int {
        guard value < 0 else { return format(uint: UInt64(value), at: target) }
        target.pointee = UInt8(ascii: "-")
        return 1 + format(uint: value.magnitude, at: target + 1)
    }

    /// Writes an unsigned integer in decimal at `target` (at most 20 bytes); returns how many bytes.
    @inline(__always)
    static func format(uint value: UInt64, at target: UnsafeMutablePointer<UInt8>) -> Int {
        if value < 10 {
            target.pointee = UInt8(truncatingIfNeeded: value) &+ 0x30
            return 1
        }
        var count = 1
        var probe = value
        while probe >= 100 {
            probe /= 100
            count += 2
        }
        if probe >= 10 { count += 1 }
        var rest = value
        var end = target + count
        let pairs = digitPairs.utf8Start
        while rest >= 100 {
            let pair = Int(rest % 100) &* 2
            rest /= 100
            end -= 2
            end[0] = pairs[pair]
            end[1] = pairs[pair &+ 1]
        }
        if rest >= 10 {
            let pair = Int(rest) &* 2
            end -= 2
            end[0] = pairs[pair]
            end[1] = pairs[pair &+ 1]
        } else {
            end -= 1
            end[0] = UInt8(truncatingIfNeeded: rest) &+ 0x30
        }
        return count
    }

    /// Writes the last `width` digits of a non-negative `value`, zero-padded, at `target`; returns `width`.
    @inline(__always)
    static func format(padded value: Int64, width: Int, at target: UnsafeMutablePointer<UInt8>) -> Int {
        var rest = value
        var index = width
        while index > 0 {
            index -= 1
            target[index] = UInt8(truncatingIfNeeded: rest % 10) &+ 0x30
            rest /= 10
        }
        return width
    }
}
