/// The bytes of an undo journal being written: unsigned integers as LEB128
/// varints (small numbers, the usual case, take one byte), strings with their
/// length first.
struct JournalBytesWriter {
    private(set) var bytes: [UInt8] = []

    mutating func append(raw: [UInt8]) { bytes += raw }

    /// Empties it for the next piece, keeping its storage.
    mutating func removeAll() { bytes.removeAll(keepingCapacity: true) }

    mutating func append(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    /// A non-negative count, index or slot.
    mutating func append(_ value: Int) { append(UInt64(max(0, value))) }

    mutating func append(_ value: Bool) { bytes.append(value ? 1 : 0) }

    mutating func append(_ value: String) {
        let utf8 = Array(value.utf8)
        append(utf8.count)
        bytes += utf8
    }

    /// Eight bytes, little-endian: a hash or a time's bit pattern.
    mutating func appendFixed(_ value: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }
}
