import Foundation
import PropertyBased
import Testing
import Folio
@testable import FolioCore
import FolioTestSupport

/// DateText both ways. Writing: a date's text, formatted on the stack, is byte
/// for byte what it was (ReferenceDocumentWriter) and parses back to the same
/// instant. Reading: ``DateText/parse(_:)`` reads fixed positions straight
/// from the bytes, and must accept exactly the texts, and give exactly the
/// dates, of a parser that takes the text field by field (`fieldByField` below).
@Suite struct DateTextTests {
    static func appended(_ interval: Double) -> String {
        var buffer = ByteBuffer()
        buffer.append("x")  // text before the date stays, even when a date falls back to raw
        DateText.append(interval: interval, to: &buffer)
        return String(decoding: buffer.bytes.dropFirst(), as: UTF8.self)
    }

    @Test("edge dates are written as before: negative, before year 1, past 9999, non-finite, within 1e-20 s of 2001")
    func edgeDates() {
        let intervals =
            EdgeValues.dates.map(\.timeIntervalSinceReferenceDate)
            + [-1e-50, 1e-45, -63_113_904_000, -63_113_904_001, 252_423_993_599.5, 252_423_993_600, -0.5, 0.999_999_999_999]
        for interval in intervals {
            #expect(
                Self.appended(interval) == ReferenceDocumentWriter.dateString(Date(timeIntervalSinceReferenceDate: interval)),
                "\(interval)")
            #expect(DateText.string(Date(timeIntervalSinceReferenceDate: interval)) == Self.appended(interval))
        }
    }

    @Test("random dates, whole and fractional, are written as before and parse back bit for bit")
    func randomDates() async {
        let whole = Gen.int64(in: -70_000_000_000...300_000_000_000).map(Double.init)
        await checkProperty(count: 500, input: whole, Gen.double(in: 0..<1), Gen.uint64(in: 0...UInt64.max)) { seconds, fraction, bits in
            for interval in [seconds, seconds + fraction, Double(bitPattern: bits)] {
                let text = Self.appended(interval)
                #expect(text == ReferenceDocumentWriter.dateString(Date(timeIntervalSinceReferenceDate: interval)), "\(interval)")
                if !interval.isNaN {
                    #expect(DateText.parse(text)?.timeIntervalSinceReferenceDate.bitPattern == interval.bitPattern, "\(text)")
                }
            }
        }
    }

    /// A field-by-field reading of the format (docs/FORMAT.md), through
    /// Swift's own integer and floating-point conversions. The raw form (`@`
    /// and a number) goes to the number grammar Folio writes, as the parser's does.
    static func fieldByField(_ bytes: [UInt8]) -> Date? {
        if bytes.first == UInt8(ascii: "@") {
            return Array(bytes.dropFirst()).withUnsafeBufferPointer { NumberParser.double($0) }
                .map(Date.init(timeIntervalSinceReferenceDate:))
        }
        func number(_ range: Range<Int>) -> Int64? {
            guard range.upperBound <= bytes.count,
                bytes[range].allSatisfy({ (0x30...0x39).contains($0) })
            else { return nil }
            return Int64(String(decoding: bytes[range], as: UTF8.self))
        }
        func byte(_ index: Int, is character: Character) -> Bool {
            index < bytes.count && Character(Unicode.Scalar(bytes[index])) == character
        }
        guard let year = number(0..<4), byte(4, is: "-"), let month = number(5..<7), byte(7, is: "-"),
            let day = number(8..<10), (1...12).contains(month), day >= 1
        else { return nil }
        let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
        let monthDays: [Int64] = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard day <= monthDays[Int(month) - 1] else { return nil }
        // Days from 0001-01-01 in the proleptic Gregorian calendar (year 0 is a leap year before it).
        func floorDivision(_ a: Int64, _ b: Int64) -> Int64 { a >= 0 ? a / b : -((-a + b - 1) / b) }
        let yearsBefore = year - 1
        var days =
            yearsBefore * 365 + floorDivision(yearsBefore, 4) - floorDivision(yearsBefore, 100)
            + floorDivision(yearsBefore, 400)
        days += monthDays.prefix(Int(month) - 1).reduce(0, +) + day - 1
        // 0001-01-01 is 730 485 days before 2001-01-01.
        var seconds = (days - 730_485) * 86_400
        if bytes.count == 10 { return Date(timeIntervalSinceReferenceDate: Double(seconds)) }
        guard byte(10, is: "T"), let hour = number(11..<13), byte(13, is: ":"), let minute = number(14..<16),
            byte(16, is: ":"), let second = number(17..<19), hour < 24, minute < 60, second < 60,
            byte(bytes.count - 1, is: "Z")
        else { return nil }
        seconds += hour * 3600 + minute * 60 + second
        guard bytes.count > 20 else { return bytes.count == 20 ? Date(timeIntervalSinceReferenceDate: Double(seconds)) : nil }
        let digits = bytes[20..<(bytes.count - 1)]
        guard byte(19, is: "."), !digits.isEmpty, digits.count <= DateText.maximumFractionDigits,
            digits.allSatisfy({ (0x30...0x39).contains($0) }),
            let fraction = Double("0." + String(decoding: digits, as: UTF8.self)), fraction < 1
        else { return nil }
        return Date(timeIntervalSinceReferenceDate: Double(seconds) + fraction)
    }

    static func same(_ a: Date?, _ b: Date?) -> Bool {
        a?.timeIntervalSinceReferenceDate.bitPattern == b?.timeIntervalSinceReferenceDate.bitPattern
    }

    /// A date Folio writes: whole seconds or a fraction, years 1–9999, or a raw interval.
    static func date(_ rng: inout SeededGenerator) -> Date {
        let seconds = Double(Int64.random(in: -63_113_904_000...252_423_993_599, using: &rng))
        switch Int.random(in: 0..<4, using: &rng) {
        case 0: return Date(timeIntervalSinceReferenceDate: seconds)
        case 1: return Date(timeIntervalSinceReferenceDate: seconds + Double(Int.random(in: 1...999, using: &rng)) / 1000)
        case 2: return Date(timeIntervalSinceReferenceDate: Double.random(in: -1e9...1e9, using: &rng))
        default: return Date(timeIntervalSinceReferenceDate: [Double.nan, .infinity, 1e-300, 5e11].randomElement(using: &rng) ?? 0)
        }
    }

    @Test("every date written reads back bit for bit")
    func roundTrip() async {
        await checkProperty(count: 2000, input: Gen.uint64(in: 0...UInt64.max)) { seed in
            var rng = SeededGenerator(seed: seed)
            let date = Self.date(&rng)
            let text = DateText.string(date)
            let back = DateText.parse(text)
            #expect(
                Self.same(back, date)
                    || (date.timeIntervalSinceReferenceDate.isNaN
                        && back?.timeIntervalSinceReferenceDate.isNaN == true),
                "\(text)")
        }
    }

    @Test("a written date with bytes changed, dropped or added reads as the field-by-field parser reads it")
    func mutatedTextsAgree() async {
        // Digits, separators and bytes next to them: edits that keep the shape are the interesting ones.
        let replacements = Array("0123456789-:T.Z@/ e".utf8) + [0x00, 0x80]
        await checkProperty(count: 3000, input: Gen.uint64(in: 0...UInt64.max)) { seed in
            var rng = SeededGenerator(seed: seed)
            var bytes = Array(DateText.string(Self.date(&rng)).utf8)
            if Bool.random(using: &rng) { bytes = Array(bytes.prefix(10)) }
            for _ in 0..<Int.random(in: 1...2, using: &rng) where !bytes.isEmpty {
                let position = Int.random(in: 0..<bytes.count, using: &rng)
                let replacement = replacements.randomElement(using: &rng) ?? 0
                switch Int.random(in: 0..<3, using: &rng) {
                case 0: bytes[position] = replacement
                case 1: bytes.remove(at: position)
                default: bytes.insert(replacement, at: position)
                }
            }
            let parsed = bytes.withUnsafeBufferPointer { DateText.parse($0) }
            #expect(Self.same(parsed, Self.fieldByField(bytes)), "\(bytes)")
        }
    }

    @Test("short and empty texts are refused, and a bare day is midnight UTC")
    func shortTexts() {
        for text in ["", "@", "2", "2024-03-0", "2024-03-06T", "2024-03-06T05:06:07", "2024-03-06T05:06:07.Z"] {
            #expect(DateText.parse(text) == nil, "\(text)")
        }
        #expect(DateText.parse("2024-02-29") == Date(timeIntervalSince1970: 1_709_164_800))
        #expect(DateText.parse("0001-01-01T00:00:00Z") == Date(timeIntervalSinceReferenceDate: -63_113_904_000))
    }
}
