import Foundation

/// Exact ISO 8601 text for dates: `2024-03-06T05:06:07Z`, with as many
/// fractional digits as the `Double` needs to come back bit for bit.
///
/// A date is split into whole seconds and a fraction; both parts are exact,
/// so their sum on reading is exactly the original. Dates that cannot be
/// written that way (outside years 1–9999, non-finite, whose split is not
/// exact, or whose fraction needs more than 40 digits) are written as `@`
/// followed by the raw time interval since 2001.
enum DateText {
    private static let referenceDaysFrom1970: Int64 = 11_323
    /// The most fractional digits a date's text has (and the reader parses).
    static let maximumFractionDigits = 40

    static func append(_ date: Date, to buffer: inout ByteBuffer) {
        append(interval: date.timeIntervalSinceReferenceDate, to: &buffer)
    }

    /// Appends the text of the date `interval` seconds after 2001-01-01 00:00 UTC
    /// (what a date column holds), formatted on the stack: no `Date`, no `String`.
    static func append(interval: Double, to buffer: inout ByteBuffer) {
        let whole = interval.rounded(.down)
        let fraction = interval - whole
        guard interval.isFinite, abs(interval) < 3.0e11,
            (whole + fraction).bitPattern == interval.bitPattern, fraction < 1
        else {
            return appendRaw(interval, to: &buffer)
        }
        let seconds = Int64(whole)
        let days = floorDiv(seconds, 86_400) + referenceDaysFrom1970
        let secondOfDay = seconds - floorDiv(seconds, 86_400) * 86_400
        let (year, month, day) = civil(fromDays: days)
        guard (1...9999).contains(year) else { return appendRaw(interval, to: &buffer) }
        let start = buffer.count
        buffer.append(formattedUpTo: 19) { text in
            _ = ByteBuffer.format(padded: year, width: 4, at: text)
            text[4] = UInt8(ascii: "-")
            _ = ByteBuffer.format(padded: month, width: 2, at: text + 5)
            text[7] = UInt8(ascii: "-")
            _ = ByteBuffer.format(padded: day, width: 2, at: text + 8)
            text[10] = UInt8(ascii: "T")
            _ = ByteBuffer.format(padded: secondOfDay / 3600, width: 2, at: text + 11)
            text[13] = UInt8(ascii: ":")
            _ = ByteBuffer.format(padded: secondOfDay / 60 % 60, width: 2, at: text + 14)
            text[16] = UInt8(ascii: ":")
            _ = ByteBuffer.format(padded: secondOfDay % 60, width: 2, at: text + 17)
            return 19
        }
        // A fraction of more than 40 digits (a date within 1e-40 s after 2001) is past
        // what the reader parses: such a date is written raw, like the others above.
        if fraction != 0,
            !DoubleText.appendPlainFraction(fraction, maximumCount: DateText.maximumFractionDigits + 1, to: &buffer)
        {
            buffer.truncate(toCount: start)
            return appendRaw(interval, to: &buffer)
        }
        buffer.append(UInt8(ascii: "Z"))
    }

    /// `@` and the raw interval, for a date the calendar text cannot carry exactly.
    private static func appendRaw(_ interval: Double, to buffer: inout ByteBuffer) {
        buffer.append(UInt8(ascii: "@"))
        DoubleText.append(interval, to: &buffer)
    }

    static func string(_ date: Date) -> String {
        var buffer = ByteBuffer(capacity: 32)
        append(date, to: &buffer)
        return String(decoding: buffer.bytes, as: UTF8.self)
    }

    /// Parses what ``append(_:to:)`` writes; also accepts a bare `YYYY-MM-DD`
    /// (midnight UTC), which people type.
    ///
    /// Reads the fixed positions straight from the buffer, after one length
    /// check: a document holds a date per object, so a bounds check and a call
    /// per field would cost more than the parse itself.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        guard let base = bytes.baseAddress, bytes.count >= 10 else {
            return bytes.first == UInt8(ascii: "@") ? raw(bytes) : nil
        }
        if base[0] == UInt8(ascii: "@") { return raw(bytes) }
        // Each digit checked (a byte minus "0" below 10), then combined.
        @inline(__always) func digit(_ index: Int) -> Int64? {
            let value = base[index] &- 0x30
            return value < 10 ? Int64(value) : nil
        }
        @inline(__always) func twoDigits(_ index: Int) -> Int64? {
            guard let tens = digit(index), let ones = digit(index + 1) else { return nil }
            return tens * 10 + ones
        }
        guard let century = twoDigits(0), let yearOfCentury = twoDigits(2), base[4] == UInt8(ascii: "-"),
            let month = twoDigits(5), base[7] == UInt8(ascii: "-"), let day = twoDigits(8)
        else { return nil }
        let year = century * 100 + yearOfCentury
        guard (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year) else { return nil }
        var seconds = (days(fromCivil: year, month, day) - referenceDaysFrom1970) * 86_400
        let count = bytes.count
        if count == 10 { return Date(timeIntervalSinceReferenceDate: Double(seconds)) }
        guard count >= 20, base[10] == UInt8(ascii: "T"), let hour = twoDigits(11), base[13] == UInt8(ascii: ":"),
            let minute = twoDigits(14), base[16] == UInt8(ascii: ":"), let second = twoDigits(17),
            hour < 24, minute < 60, second < 60, base[count - 1] == UInt8(ascii: "Z")
        else { return nil }
        seconds += hour * 3600 + minute * 60 + second
        var fraction = 0.0
        if count > 20 {
            guard base[19] == UInt8(ascii: "."), count > 21 else { return nil }
            // "0.xxx": parse the fraction digits with a leading "0" so the number parser sees 0.xxx.
            let digits = UnsafeBufferPointer(rebasing: bytes[20..<(count - 1)])
            guard digits.allSatisfy({ $0 &- 0x30 < 10 }), digits.count <= DateText.maximumFractionDigits else { return nil }
            let parsed: Double? = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: digits.count + 2) { text in
                text[0] = UInt8(ascii: "0")
                text[1] = UInt8(ascii: ".")
                for index in 0..<digits.count { text[index + 2] = digits[index] }
                return NumberParser.double(UnsafeBufferPointer(text))
            }
            guard let parsed, parsed < 1 else { return nil }
            fraction = parsed
        }
        return Date(timeIntervalSinceReferenceDate: Double(seconds) + fraction)
    }

    /// `@` and the raw time interval since 2001 (``append(_:to:)``'s form for the dates ISO text cannot hold exactly).
    private static func raw(_ bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        NumberParser.double(UnsafeBufferPointer(rebasing: bytes[1...])).map(Date.init(timeIntervalSinceReferenceDate:))
    }

    static func parse(_ text: String) -> Date? {
        var text = text
        return text.withUTF8 { parse($0) }
    }

    private static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        a >= 0 ? a / b : -((-a + b - 1) / b)
    }

    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    // Howard Hinnant's civil-calendar algorithms (proleptic Gregorian, days since 1970-01-01).
    private static func days(fromCivil year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
