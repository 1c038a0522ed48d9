import Foundation
import PropertyBased
import Testing
import Folio
@testable import FolioCore
import FolioTestSupport

/// The word-at-a-time searches against a byte-by-byte search, on random runs
/// of every length around the word size, with the sought bytes rare, common,
/// next to each other and at the ends.
@Suite struct ByteScanTests {
    /// Bytes that make false alarms of the zero-byte trick likely: the sought
    /// ones, their neighbours, 0x00, 0x01, 0x80 and 0xFF.
    static let alphabet: [UInt8] = [0x22, 0x27, 0x3E, 0x26, 0x21, 0x23, 0x3D, 0x3F, 0x00, 0x01, 0x7F, 0x80, 0xFF, 0x41, 0x61, 0x20]

    static func bytes(_ seed: UInt64) -> [UInt8] {
        var rng = SeededGenerator(seed: seed)
        let count = Int.random(in: 0...40, using: &rng)
        // Sometimes mostly one filler byte, so matches are rare and fall in any word.
        let filler = alphabet.randomElement(using: &rng) ?? 0x41
        let density = Int.random(in: 1...8, using: &rng)
        return (0..<count).map { _ in
            Int.random(in: 0..<8, using: &rng) < density ? (alphabet.randomElement(using: &rng) ?? 0) : filler
        }
    }

    @Test("the first index of a byte is the one a byte-by-byte search finds, in any range")
    func firstIndexOfOneByte() async {
        await checkProperty(count: 2000, input: Gen.uint64(in: 0...UInt64.max)) { seed in
            let bytes = Self.bytes(seed)
            var rng = SeededGenerator(seed: seed ^ 0x9E37_79B9_7F4A_7C15)
            let start = Int.random(in: 0...bytes.count, using: &rng)
            let end = Int.random(in: start...bytes.count, using: &rng)
            for byte in Self.alphabet {
                let expected = (start..<end).first { bytes[$0] == byte } ?? end
                let found = bytes.withUnsafeBufferPointer { buffer in
                    buffer.baseAddress.map { ByteScan.firstIndex(of: byte, in: $0, from: start, to: end) } ?? end
                }
                #expect(found == expected, "\(byte) in \(bytes)[\(start)..<\(end)]")
                let contained = bytes.withUnsafeBufferPointer { ByteScan.contains(byte, in: $0) }
                #expect(contained == bytes.contains(byte))
            }
        }
    }

    @Test("the first index of any of three bytes is the one a byte-by-byte search finds, in any range")
    func firstIndexOfAnyOfThree() async {
        await checkProperty(count: 2000, input: Gen.uint64(in: 0...UInt64.max)) { seed in
            let bytes = Self.bytes(seed)
            var rng = SeededGenerator(seed: seed ^ 0xD1B5_4A32_D192_ED03)
            let start = Int.random(in: 0...bytes.count, using: &rng)
            let end = Int.random(in: start...bytes.count, using: &rng)
            let sought = (0..<3).map { _ in Self.alphabet.randomElement(using: &rng) ?? 0 }
            let expected = (start..<end).first { sought.contains(bytes[$0]) } ?? end
            let found = bytes.withUnsafeBufferPointer { buffer in
                buffer.baseAddress.map {
                    ByteScan.firstIndex(ofAny: sought[0], sought[1], sought[2], in: $0, from: start, to: end)
                } ?? end
            }
            #expect(found == expected, "\(sought) in \(bytes)[\(start)..<\(end)]")
        }
    }

    @Test("a search never reads past the end of its range: a match just beyond it is not found")
    func stopsAtTheEnd() {
        // 17 bytes: two whole words and one byte, the sought byte right after the range.
        let bytes = [UInt8](repeating: 0x41, count: 16) + [0x22]
        bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            #expect(ByteScan.firstIndex(of: 0x22, in: base, from: 0, to: 16) == 16)
            #expect(ByteScan.firstIndex(of: 0x22, in: base, from: 3, to: 17) == 16)
            #expect(ByteScan.firstIndex(ofAny: 0x22, 0x27, 0x3E, in: base, from: 1, to: 16) == 16)
            #expect(!ByteScan.contains(0x22, in: UnsafeBufferPointer(rebasing: buffer[0..<16])))
        }
    }
}
