/// A fast 64-bit hash of a byte stream, the same however the stream is cut
/// into pieces. Not cryptographic: it tells versions of a file apart.
struct ContentHasher {
    private var state: UInt64 = 0xcbf2_9ce4_8422_2325
    private var pending: UInt64 = 0
    private var pendingCount = 0
    private var length: UInt64 = 0

    /// Adds bytes.
    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        let count = bytes.count
        length &+= UInt64(count)
        var index = 0
        while pendingCount != 0, index < count {
            take(bytes[index])
            index += 1
        }
        while index + 8 <= count {
            mix(UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)))
            index += 8
        }
        while index < count {
            take(bytes[index])
            index += 1
        }
    }

    /// Adds bytes.
    mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// The hash of everything added.
    func finalize() -> UInt64 {
        var copy = self
        copy.mix(pending ^ (UInt64(pendingCount) << 56))
        copy.mix(length)
        return copy.state
    }

    private mutating func take(_ byte: UInt8) {
        pending |= UInt64(byte) << UInt64(8 * pendingCount)
        pendingCount += 1
        if pendingCount == 8 {
            mix(pending)
            pending = 0
            pendingCount = 0
        }
    }

    private mutating func mix(_ word: UInt64) {
        state = (state ^ word) &* 0x9e37_79b9_7f4a_7c15
        state ^= state >> 31
    }
}
