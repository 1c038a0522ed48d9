import PropertyBased
import FolioTestSupport
import Testing
import Folio
@testable import FolioCore

/// ByteBuffer's number formatting: decimal as `String` spells it, straight into the buffer.
@Suite struct ByteBufferTests {
    @Test("integers are appended as their decimal text, extremes included")
    func integers() async {
        var buffer = ByteBuffer()
        for value: Int64 in [0, 9, 10, 99, 100, -1, -10, .min, .max, .min + 1] {
            buffer.removeAll()
            buffer.append(int: value)
            #expect(String(decoding: buffer.bytes, as: UTF8.self) == String(value))
        }
        for value: UInt64 in [0, 9, 10, 99, 100, 101, 999, 1000, .max] {
            buffer.removeAll()
            buffer.append(uint: value)
            #expect(String(decoding: buffer.bytes, as: UTF8.self) == String(value))
        }
        await checkProperty(input: Gen.int64(), Gen.uint64(in: 0...UInt64.max), Gen.int(in: 0...18)) { signed, unsigned, digits in
            // Magnitudes of every digit count, not just the large ones a uniform draw gives.
            var scale: UInt64 = 1
            for _ in 0..<digits { scale *= 10 }
            var buffer = ByteBuffer()
            buffer.append(int: signed / Int64(scale))
            buffer.append(UInt8(ascii: " "))
            buffer.append(uint: unsigned / scale)
            #expect(String(decoding: buffer.bytes, as: UTF8.self) == "\(signed / Int64(scale)) \(unsigned / scale)")
        }
    }

    @Test("padded numbers have exactly their width, leading zeros included")
    func padded() {
        var buffer = ByteBuffer()
        buffer.append(padded: 7, width: 4)
        buffer.append(padded: 2024, width: 4)
        buffer.append(padded: 0, width: 2)
        buffer.append(padded: 59, width: 2)
        buffer.append(padded: 5, width: 3)
        #expect(String(decoding: buffer.bytes, as: UTF8.self) == "000720240059005")
    }
}
