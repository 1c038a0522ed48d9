import Foundation
import Testing
import Folio
@testable import FolioCore

@Suite struct ValueTextTests {
    @Test("every edge Double reads back bit for bit", arguments: EdgeValues.doubles)
    func doubleRoundTrip(_ value: Double) throws {
        let text = ValueText.encode(.double(value), as: .double)
        let back = try #require(ValueText.decode(text, as: .double))
        #expect(back == .double(value), "\(text)")
    }

    @Test("every edge Float reads back bit for bit", arguments: EdgeValues.floats)
    func floatRoundTrip(_ value: Float) throws {
        let text = ValueText.encode(.float(value), as: .float)
        #expect(ValueText.decode(text, as: .float) == .float(value), "\(text)")
    }

    // Indices, not dates: Foundation's Date.description traps on NaN and infinite dates.
    @Test("every edge Date reads back bit for bit", arguments: EdgeValues.dates.indices)
    func dateRoundTrip(_ index: Int) throws {
        let value = EdgeValues.dates[index]
        let text = ValueText.encode(.date(value), as: .date)
        #expect(ValueText.decode(text, as: .date) == .date(value), "\(text)")
    }

    @Test(
        "a date within 1e-40 s after 2001, whose fraction would need more than 40 digits, is written raw and reads back",
        arguments: [Double.leastNonzeroMagnitude, 2.2250738585072014e-308, 1e-300, 4e-53, 1e-41])
    func tinyDates(_ interval: Double) {
        let date = Date(timeIntervalSinceReferenceDate: interval)
        let text = ValueText.encode(.date(date), as: .date)
        #expect(text.hasPrefix("@"), "\(text)")
        #expect(ValueText.decode(text, as: .date) == .date(date))
        #expect(ValueText.decode(ValueText.encode(.set([.date(date)]), as: .set(.date)), as: .set(.date)) == .set([.date(date)]))
        #expect(ValueText.encode(.date(Date(timeIntervalSinceReferenceDate: 1e-40)), as: .date).hasSuffix("1Z"), "40 digits: ISO still")
    }

    @Test("ordinary dates are written as readable ISO 8601")
    func readableDates() {
        #expect(ValueText.encode(.date(Date(timeIntervalSince1970: 0)), as: .date) == "1970-01-01T00:00:00Z")
        #expect(ValueText.encode(.date(Date(timeIntervalSince1970: 1_709_701_567.25)), as: .date) == "2024-03-06T05:06:07.25Z")
        #expect(ValueText.decode("2024-02-29", as: .date) == .date(Date(timeIntervalSince1970: 1_709_164_800)))
        #expect(ValueText.decode("2023-02-29", as: .date) == nil)
        #expect(ValueText.decode("2024-03-06T24:00:00Z", as: .date) == nil)
    }

    @Test("integers are range-checked by width")
    func integerWidths() {
        #expect(ValueText.decode("127", as: .int8) == .int(127))
        #expect(ValueText.decode("128", as: .int8) == nil)
        #expect(ValueText.decode("-9223372036854775808", as: .int64) == .int(.min))
        #expect(ValueText.decode("9223372036854775808", as: .int64) == nil)
        #expect(ValueText.decode("18446744073709551615", as: .uint64) == .uint(.max))
        #expect(ValueText.decode("-1", as: .uint8) == nil)
        #expect(ValueText.decode("+1", as: .int) == nil)
        #expect(ValueText.decode(" 1", as: .int) == nil)
        #expect(ValueText.decode("", as: .int) == nil)
    }

    @Test("numbers are parsed strictly: no hex, spaces or words")
    func strictDoubles() {
        for text in ["0x1p3", " 1", "1 ", "infinity", "NaN", "1e", "--1", ".", "", "1.2.3", "nan(0x1)"] {
            #expect(ValueText.decode(text, as: .double) == nil, "\(text)")
        }
        #expect(ValueText.decode("1e400", as: .double) == .double(.infinity))
        // More digits than the fast path takes: strtod rounds to the nearest double.
        #expect(ValueText.decode("12345678901234567890123", as: .double) == .double(Double("12345678901234567890123")!))
    }

    @Test("strings in collections escape what XML cannot carry", arguments: EdgeValues.strings)
    func collectionStrings(_ text: String) throws {
        let value = Value.array([.string(text), .string(text + "!")])
        let encoded = ValueText.encode(value, as: .array(.string))
        #expect(!XMLText.needsEscaping(encoded))
        #expect(ValueText.decode(encoded, as: .array(.string)) == value)
    }

    @Test("sets and dictionaries are written in a stable sorted order")
    func stableCollections() {
        let set = Value.set([.string("b"), .string("a"), .string("c")])
        #expect(ValueText.encode(set, as: .set(.string)) == #"["a","b","c"]"#)
        let dictionary = Value.dictionary(["z": .int(1), "a": .int(2)])
        #expect(ValueText.encode(dictionary, as: .dictionary(.int)) == #"{"a":2,"z":1}"#)
        #expect(ValueText.decode(#"["a","a"]"#, as: .set(.string)) == nil)
        #expect(ValueText.decode(#"{"a":1,"a":2}"#, as: .dictionary(.int)) == nil)
    }

    @Test("composite values keep ints, doubles and nesting apart")
    func composites() {
        let value = Value.dictionary([
            "name": .string("x"), "count": .int(3), "ratio": .double(3), "big": .uint(.max),
            "items": .array([.null, .bool(true), .double(-0.0), .double(.infinity), .dictionary([:])]),
        ])
        let text = ValueText.encode(value, as: .codable)
        #expect(ValueText.decode(text, as: .codable) == value, "\(text)")
    }

    @Test("typed collections of every scalar type round-trip")
    func typedCollections() throws {
        let samples: [(ValueType, Value)] = [
            (.array(.date), .array(EdgeValues.dates.map(Value.date))),
            (.array(.double), .array(EdgeValues.doubles.map(Value.double))),
            (.set(.uuid), .set([.uuid(UUID()), .uuid(UUID())])),
            (.array(.data), .array([.data(Data()), .data(Data([0, 255, 7]))])),
            (.dictionary(.url), .dictionary(["home": .url(URL(string: "https://example.com/a?b=c&d")!)])),
            (.array(.decimal), .array([.decimal(Decimal(string: "3.14159265358979323846")!), .decimal(-0)])),
            (.dictionary(.array(.int)), .dictionary(["a": .array([.int(1), .int(-2)]), "": .array([])])),
            (.array(.bool), .array([.bool(true), .bool(false)])),
        ]
        for (type, value) in samples {
            let text = ValueText.encode(value, as: type)
            #expect(ValueText.decode(text, as: type) == value, "\(type): \(text)")
        }
    }

    @Test("any-values are tagged with their type and none is absent")
    func anyValues() {
        #expect(ValueText.encode(.int(5), as: .any) == "int:5")
        #expect(ValueText.encode(.string("a:b"), as: .any) == "string:a:b")
        #expect(ValueText.decode("string:a:b", as: .any) == .string("a:b"))
        #expect(ValueText.decode("date:2024-01-01T00:00:00Z", as: .any) != nil)
        #expect(ValueText.decode("array:[1]", as: .any) == nil)
        #expect(ValueText.decode("nonsense", as: .any) == nil)
    }

    @Test("hostile nesting inside a composite value is refused, not recursed into")
    func deepComposite() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(ValueText.decode(deep, as: .codable) == nil)
        let fine = String(repeating: "[", count: 60) + String(repeating: "]", count: 60)
        #expect(ValueText.decode(fine, as: .codable) != nil)
    }

    @Test("an any-value whose text starts with a combining mark round-trips: its type ends at the first colon scalar, not grapheme")
    func anyValueWithLeadingCombiningMark() {
        // ":" followed by U+0301 is one Character; the colon is still the separator.
        for text in ["\u{301}\n:", "\u{301}", "\u{20DD}x", ":\u{301}"] {
            var buffer = ByteBuffer()
            ValueText.append(.string(text), as: .any, to: &buffer)
            let written = String(decoding: buffer.bytes, as: UTF8.self)
            #expect(ValueText.decode(written, as: .any) == .string(text), "\(written.debugDescription)")
        }
    }
}
