import PropertyBased
import Testing
import Folio
@testable import FolioCore
import FolioTestSupport

/// DoubleText: the text of doubles and floats, appended without a `String`, is
/// byte for byte what it was (ReferenceDocumentWriter) and reads back bit for bit.
@Suite struct DoubleTextTests {
    static func appended(_ value: Double) -> String {
        var buffer = ByteBuffer()
        DoubleText.append(value, to: &buffer)
        return String(decoding: buffer.bytes, as: UTF8.self)
    }

    static func appended(_ value: Float) -> String {
        var buffer = ByteBuffer()
        DoubleText.append(value, to: &buffer)
        return String(decoding: buffer.bytes, as: UTF8.self)
    }

    @Test("edge doubles and floats are appended as before: NaN payloads, infinities, signed zeros, subnormals")
    func edgeValues() {
        for value in EdgeValues.doubles {
            #expect(Self.appended(value) == ReferenceDocumentWriter.string(value), "\(value.bitPattern)")
            #expect(Self.appended(value) == DoubleText.string(value))
        }
        for value in EdgeValues.floats {
            #expect(Self.appended(value) == ReferenceDocumentWriter.string(value), "\(value.bitPattern)")
        }
    }

    @Test("any bit pattern is appended as before and parses back to the same bits")
    func randomBitPatterns() async {
        await checkProperty(count: 500, input: Gen.uint64(in: 0...UInt64.max)) { bits in
            let double = Double(bitPattern: bits)
            let text = Self.appended(double)
            #expect(text == ReferenceDocumentWriter.string(double))
            #expect(
                ValueText.decodeScalar(text, as: .double).map { if case .double(let back) = $0 { back.bitPattern == bits } else { false } } == true
                    || double.isNaN)
            let float = Float(bitPattern: UInt32(truncatingIfNeeded: bits))
            #expect(Self.appended(float) == ReferenceDocumentWriter.string(float))
            #expect(DoubleText.float(Self.appended(float))?.bitPattern == float.bitPattern || float.isNaN)
        }
    }

    @Test("short decimals (prices, weights: at most four places) are appended as their description, near every boundary")
    func shortDecimals() async {
        for value: Double in [
            0, -0.0, 0.001, -0.001, 0.000_999, 0.0001, 1, -1, 0.1, 0.25, 99.99, 2_147_483_647.999_9,
            2_147_483_648, -2_147_483_648.5, 1e9 + 0.5, 123_456.789_1, 0.3, 1.0 / 3.0,
        ] {
            #expect(Self.appended(value) == ReferenceDocumentWriter.string(value), "\(value)")
        }
        await checkProperty(count: 1000, input: Gen.int64(in: -30_000_000_000_000...30_000_000_000_000), Gen.int(in: 0...7)) { units, places in
            var scale = 1.0
            for _ in 0..<places { scale *= 10 }
            let value = Double(units) / scale
            #expect(Self.appended(value) == ReferenceDocumentWriter.string(value), "\(units) / 10^\(places)")
            #expect(Self.appended(value.nextUp) == ReferenceDocumentWriter.string(value.nextUp))
        }
    }

    @Test("a fraction's plain digits are as before, tiny fractions included, and too long a fraction appends nothing")
    func plainFractions() async {
        await checkProperty(count: 500, input: Gen.double(in: 0..<1), Gen.int(in: 0...330)) { mantissa, scale in
            let fraction = max(mantissa * .pow10(-scale), .leastNonzeroMagnitude)
            let reference = ReferenceDocumentWriter.plainFraction(fraction)
            #expect(DoubleText.plainFraction(fraction) == reference)
            var buffer = ByteBuffer()
            let fits = DoubleText.appendPlainFraction(fraction, maximumCount: 41, to: &buffer)
            #expect(fits == (reference.utf8.count <= 41))
            #expect(String(decoding: buffer.bytes, as: UTF8.self) == (fits ? reference : ""))
        }
    }
}

extension Double {
    fileprivate static func pow10(_ exponent: Int) -> Double {
        var result = 1.0
        for _ in 0..<(-exponent) { result /= 10 }
        return result
    }
}
