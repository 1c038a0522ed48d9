import Foundation

/// A growable byte buffer that values' text (``ValueText``) and the package
/// writer format into.
///
/// The writer formats here rather than through libxml2's `xmlTextWriter`,
/// which does more work per call for the same output, and numbers and dates
/// are formatted in place (``append(formattedUpTo:_:)``) without allocating a
/// `String` each. The writer appends a dozen pieces per object, so the buffer
/// manages its own memory: an append is a capacity check and a copy, with
/// none of `Array.append(contentsOf:)`'s generic overhead per call.
/// A value type: a copy shares the bytes until either is appended to.
struct ByteBuffer: TextOutputStream {
    private final class Storage {
        // Unchecked: only the buffer that holds this storage uniquely writes to it.
        @exclusivity(unchecked) var base: UnsafeMutablePointer<UInt8>
        @exclusivity(unchecked) var count = 0
        @exclusivity(unchecked) var capacity: Int

        init(capacity: Int) {
            self.capacity = Swift.max(capacity, 32)
            base = .allocate(capacity: self.capacity)
        }

        deinit { base.deallocate() }
    }

    private var storage: Storage

    init(capacity: Int = 0) { storage = Storage(capacity: capacity) }

    /// How many bytes the buffer holds.
    var count: Int { storage.count }

    /// A copy of the bytes. O(count): read it once, when the buffer is complete.
    var bytes: [UInt8] { withUnsafeBytes { Array($0) } }

    /// The bytes as `Data`, without copying them: the data holds the buffer's
    /// memory until it is freed (an append to another copy of this buffer
    /// copies the bytes first, as for any copy).
    consuming func data() -> Data {
        let storage = storage
        guard storage.count > 0 else { return Data() }
        return Data(
            bytesNoCopy: storage.base, count: storage.count,
            deallocator: .custom { _, _ in
                withExtendedLifetime(storage) {}
            })
    }

    /// Calls `body` with the bytes, without copying them.
    func withUnsafeBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try body(UnsafeBufferPointer(start: storage.base, count: storage.count))
    }

    /// Removes every byte, keeping the memory for what is appended next.
    mutating func removeAll() { truncate(toCount: 0) }

    /// Drops the bytes past the first `count`.
    mutating func truncate(toCount count: Int) {
        guard count < storage.count else { return }
        _ = reserve(0)
        storage.count = Swift.max(count, 0)
    }

    /// Where the next `extra` bytes go, once the storage is this buffer's own and has room for them.
    @inline(__always)
    private mutating func reserve(_ extra: Int) -> UnsafeMutablePointer<UInt8> {
        if _slowPath(!isKnownUniquelyReferenced(&storage) || storage.capacity - storage.count < extra) { grow(extra) }
        return storage.base + storage.count
    }

    /// Moves the bytes to storage of this buffer's own with room for `extra` more,
    /// doubling the capacity so appends cost O(1) amortized.
    @inline(never)
    private mutating func grow(_ extra: Int) {
        let needed = storage.count + extra
        let capacity = storage.capacity >= needed ? storage.capacity : Swift.max(storage.capacity * 2, needed)
        let new = Storage(capacity: capacity)
        new.base.initialize(from: storage.base, count: storage.count)
        new.count = storage.count
        storage = new
    }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        reserve(1).pointee = byte
        storage.count += 1
    }

    @inline(__always)
    mutating func append(_ text: StaticString) {
        append(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Appends bytes with one copy.
    @inline(__always)
    mutating func append(_ source: UnsafeBufferPointer<UInt8>) {
        guard let from = source.baseAddress else { return }
        reserve(source.count).initialize(from: from, count: source.count)
        storage.count += source.count
    }

    /// Appends the bytes of an array with one copy.
    @inline(__always)
    mutating func append(bytes source: [UInt8]) {
        source.withUnsafeBufferPointer { append($0) }
    }

    /// Appends the bytes of another buffer with one copy.
    mutating func append(_ other: ByteBuffer) {
        other.withUnsafeBytes { append($0) }
    }

    mutating func append(string: String) {
        var string = string
        string.withUTF8 { append($0) }
    }

    /// Lets `body` write at most `maximum` bytes in place, and keeps the count it returns.
    @inline(__always)
    mutating func append(formattedUpTo maximum: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Int) {
        let written = body(reserve(maximum))
        storage.count += Swift.min(Swift.max(written, 0), maximum)
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
        var rest = value.magnitude
        var index = width
        let pairs = digitPairs.utf8Start
        while index >= 2 {
            let pair = Int(rest % 100) &* 2
            rest /= 100
            index -= 2
            target[index] = pairs[pair]
            target[index + 1] = pairs[pair &+ 1]
        }
        if index == 1 { target[0] = UInt8(truncatingIfNeeded: rest % 10) &+ 0x30 }
        return width
    }
}
