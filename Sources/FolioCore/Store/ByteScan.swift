/// Searches of short byte runs sixteen, then eight bytes at a time, for the loader's hot paths.
///
/// A document's values and the markup between them are mostly shorter than
/// 32 bytes: a call to `memchr` per value cost more than the search itself, and
/// a byte-by-byte loop about one compare and branch per byte. A 64-bit word
/// tests eight bytes in a few instructions (the zero-byte trick of Mycroft:
/// `(w - 0x01…) & ~w & 0x80…` is non-zero exactly when a byte of `w` is zero, and
/// its lowest set bit marks the first such byte; higher bits may be false alarms,
/// which only the first match being asked for makes harmless).
///
/// Reads are unaligned loads of whole words inside the buffer, never past it.
enum ByteScan {
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highs: UInt64 = 0x8080_8080_8080_8080

    /// The high bit of each byte of `word` that equals `byte`, and maybe higher
    /// false alarms (see the type's comment); 0 when no byte does.
    @inline(__always)
    private static func matches(_ word: UInt64, _ byte: UInt8) -> UInt64 {
        let spread = word ^ (ones &* UInt64(byte))
        return (spread &- ones) & ~spread & highs
    }

    /// The first true lane of a mask with one (each true lane is all ones: the
    /// lowest set byte of its two halves).
    @inline(__always)
    private static func firstLane(_ mask: SIMDMask<SIMD16<Int8>>) -> Int {
        let lanes = unsafeBitCast(mask, to: SIMD2<UInt64>.self)
        let low = lanes[0].littleEndian
        return low != 0 ? low.trailingZeroBitCount >> 3 : 8 + lanes[1].littleEndian.trailingZeroBitCount >> 3
    }

    /// The index of the first byte in `start..<end` of `base` equal to `byte`, or `end`.
    @inline(__always)
    static func firstIndex(of byte: UInt8, in base: UnsafePointer<UInt8>, from start: Int, to end: Int) -> Int {
        var index = start
        let raw = UnsafeRawPointer(base)
        let bytes = SIMD16<UInt8>(repeating: byte)
        while index + 16 <= end {
            let found = raw.loadUnaligned(fromByteOffset: index, as: SIMD16<UInt8>.self) .== bytes
            if any(found) { return index + firstLane(found) }
            index += 16
        }
        while index + 8 <= end {
            let found = matches(raw.loadUnaligned(fromByteOffset: index, as: UInt64.self).littleEndian, byte)
            if found != 0 { return index + found.trailingZeroBitCount >> 3 }
            index += 8
        }
        while index < end, base[index] != byte { index += 1 }
        return index
    }

    /// The index of the first byte in `start..<end` of `base` equal to any of
    /// `first`, `second` and `third`, or `end`.
    @inline(__always)
    static func firstIndex(
        ofAny first: UInt8, _ second: UInt8, _ third: UInt8, in base: UnsafePointer<UInt8>,
        from start: Int, to end: Int
    ) -> Int {
        var index = start
        let raw = UnsafeRawPointer(base)
        // Sixteen bytes at a time first: three vector compares where a word takes
        // twelve operations for eight bytes.
        let firsts = SIMD16<UInt8>(repeating: first), seconds = SIMD16<UInt8>(repeating: second)
        let thirds = SIMD16<UInt8>(repeating: third)
        while index + 16 <= end {
            let block = raw.loadUnaligned(fromByteOffset: index, as: SIMD16<UInt8>.self)
            let found = (block .== firsts) .| (block .== seconds) .| (block .== thirds)
            if any(found) { return index + firstLane(found) }
            index += 16
        }
        while index + 8 <= end {
            let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self).littleEndian
            // Each term's lowest set bit is exact; so is the lowest of their union.
            let found = matches(word, first) | matches(word, second) | matches(word, third)
            if found != 0 { return index + found.trailingZeroBitCount >> 3 }
            index += 8
        }
        while index < end {
            let value = base[index]
            if value == first || value == second || value == third { return index }
            index += 1
        }
        return index
    }

    /// Whether `bytes` holds `byte`.
    @inline(__always)
    static func contains(_ byte: UInt8, in bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return false }
        return firstIndex(of: byte, in: base, from: 0, to: bytes.count) < bytes.count
    }
}
