import Foundation

/// Parses numbers straight from UTF-8 bytes, strictly: the whole buffer must be
/// the number, with no spaces, no hex, no `+` sign on the mantissa.
///
/// Foundation's conversions take a `String` (one allocation each) and accept
/// more than Folio writes; loading a million objects needs neither.
enum NumberParser {
    static func int64(_ bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard let first = bytes.first else { return nil }
        let negative = first == UInt8(ascii: "-")
        let start = negative ? 1 : 0
        guard bytes.count > start, bytes.count - start <= 19 || bytes.count - start == 20 else { return nil }
        var magnitude: UInt64 = 0
        for index in start..<bytes.count {
            let digit = bytes[index] &- 0x30
            guard digit < 10 else { return nil }
            let (times10, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(UInt64(digit))
            guard !overflow1, !overflow2 else { return nil }
            magnitude = sum
        }
        if negative {
            if magnitude == UInt64(Int64.max) + 1 { return .min }
            return magnitude <= UInt64(Int64.max) ? -Int64(magnitude) : nil
        }
        return magnitude <= UInt64(Int64.max) ? Int64(magnitude) : nil
    }

    static func uint64(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64? {
        guard !bytes.isEmpty, bytes.count <= 20 else { return nil }
        var value: UInt64 = 0
        for byte in bytes {
            let digit = byte &- 0x30
            guard digit < 10 else { return nil }
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(UInt64(digit))
            guard !overflow1, !overflow2 else { return nil }
            value = sum
        }
        return value
    }

    /// 10⁰…10²², every one exact in a `Double`. A literal, so the compiler lays it
    /// out statically: built with `map`, each read went through a lazy initializer's check.
    private static let exactPowersOf10: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]

    /// Parses a `Double` written by ``ValueText``: Swift's shortest round-trip
    /// form, `inf`, `-inf`, `nan`, or `nan(0x…)` with the exact bit pattern.
    ///
    /// Short decimals take Clinger's exact fast path; anything else goes to `strtod`.
    static func double(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        guard !bytes.isEmpty else { return nil }
        var index = 0
        let negative = bytes[0] == UInt8(ascii: "-")
        if negative { index = 1 }
        guard index < bytes.count else { return nil }
        if bytes[index] == UInt8(ascii: "i") || bytes[index] == UInt8(ascii: "n") {
            return special(bytes, from: index, negative: negative)
        }
        var mantissa: UInt64 = 0
        var digits = 0
        var scale = 0
        var sawDigit = false
        var sawPoint = false
        while index < bytes.count {
            let byte = bytes[index]
            if byte &- 0x30 < 10 {
                sawDigit = true
                if digits < 19 {
                    mantissa = mantissa &* 10 &+ UInt64(byte &- 0x30)
                    if mantissa != 0 { digits += 1 }
                    if sawPoint { scale -= 1 }
                } else if !sawPoint {
                    scale += 1
                    digits += 1
                }
            } else if byte == UInt8(ascii: "."), !sawPoint {
                sawPoint = true
            } else {
                break
            }
            index += 1
        }
        guard sawDigit else { return nil }
        if index < bytes.count {
            guard bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") else { return nil }
            index += 1
            var exponentNegative = false
            if index < bytes.count, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
                exponentNegative = bytes[index] == UInt8(ascii: "-")
                index += 1
            }
            guard index < bytes.count else { return nil }
            var exponent = 0
            while index < bytes.count {
                let digit = bytes[index] &- 0x30
                guard digit < 10 else { return nil }
                if exponent < 100_000 { exponent = exponent * 10 + Int(digit) }
                index += 1
            }
            scale += exponentNegative ? -exponent : exponent
        }
        if digits <= 15, mantissa <= (1 << 53), abs(scale) <= 22 {
            var value = Double(mantissa)
            value = scale < 0 ? value / exactPowersOf10[-scale] : value * exactPowersOf10[scale]
            return negative ? -value : value
        }
        return strtodWhole(bytes)
    }

    private static func special(_ bytes: UnsafeBufferPointer<UInt8>, from index: Int, negative: Bool) -> Double? {
        let word = String(decoding: UnsafeBufferPointer(rebasing: bytes[index...]), as: UTF8.self)
        switch word {
        case "inf": return negative ? -.infinity : .infinity
        case "nan" where !negative: return .nan
        default:
            guard !negative, word.hasPrefix("nan(0x"), word.hasSuffix(")"), word.count == 23,
                let bits = UInt64(word.dropFirst(6).dropLast(), radix: 16)
            else { return nil }
            let value = Double(bitPattern: bits)
            return value.isNaN ? value : nil
        }
    }

    private static func strtodWhole(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        guard bytes.count < 512 else { return nil }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: bytes.count + 1) { buffer -> Double? in
            guard let start = buffer.baseAddress else { return nil }
            for index in 0..<bytes.count { buffer[index] = CChar(bitPattern: bytes[index]) }
            buffer[bytes.count] = 0
            var end: UnsafeMutablePointer<CChar>?
            let value = strtod(start, &end)
            guard let end, end - start == bytes.count else { return nil }
            return value
        }
    }
}
