import Foundation
import PropertyBased
import Testing
@testable import Folio
import FolioTestSupport

/// DateText's writing side: a date's text, formatted on the stack, is byte for
/// byte what it was (ReferenceDocumentWriter) and parses back to the same instant.
@Suite struct DateTextTests {
    static func appended(_ interval: Double) -> String {
        var buffer = ByteBuffer()
        buffer.append("x")  // text before the date stays, even when a date falls back to raw
        DateText.append(interval: interval, to: &buffer)
        return String(decoding: buffer.bytes.dropFirst(), as: UTF8.self)
    }

    @Test("edge dates are written as before: negative, before year 1, past 9999, non-finite, within 1e-20 s of 2001")
    func edgeDates() {
        let intervals = EdgeValues.dates.map(\.timeIntervalSinceReferenceDate)
            + [-1e-50, 1e-45, -63_113_904_000, -63_113_904_001, 252_423_993_599.5, 252_423_993_600, -0.5, 0.999_999_999_999]
        for interval in intervals {
            #expect(Self.appended(interval) == ReferenceDocumentWriter.dateString(Date(timeIntervalSinceReferenceDate: interval)),
                    "\(interval)")
            #expect(DateText.string(Date(timeIntervalSinceReferenceDate: interval)) == Self.appended(interval))
        }
    }

    @Test("random dates, whole and fractional, are written as before and parse back bit for bit")
    func randomDates() async {
        let whole = Gen.int64(in: -70_000_000_000...300_000_000_000).map(Double.init)
        await propertyCheck(count: 500, input: whole, Gen.double(in: 0..<1), Gen.uint64(in: 0...UInt64.max)) { seconds, fraction, bits in
            for interval in [seconds, seconds + fraction, Double(bitPattern: bits)] {
                let text = Self.appended(interval)
                #expect(text == ReferenceDocumentWriter.dateString(Date(timeIntervalSinceReferenceDate: interval)), "\(interval)")
                if !interval.isNaN {
                    #expect(DateText.parse(text)?.timeIntervalSinceReferenceDate.bitPattern == interval.bitPattern, "\(text)")
                }
            }
        }
    }
}
