/// Text for `Double` and `Float` that reads back bit for bit.
enum DoubleText {
    /// Appends the bytes of ``string(_:)-(Double)`` without making the `String`:
    /// the standard library hands its shortest round-trip digits straight to
    /// the buffer (``ByteBuffer`` is a `TextOutputStream`).
    static func append(_ value: Double, to buffer: inout ByteBuffer) {
        if value.isNaN { return buffer.append(string: string(value)) }
        if appendShortDecimal(value, to: &buffer) { return }
        value.write(to: &buffer)
    }

    /// Appends a double that is a decimal of at most four places between 0.001
    /// and 2^31 (or zero), as its description spells it (`12.5`, `-3.0`), at a
    /// tenth of the shortest-digits algorithm's cost: prices, weights, scores.
    /// Returns false, appending nothing, for any other value.
    ///
    /// Why the text is the description's: the first `d` for which `m / 10^d`
    /// (exact operands, one correctly rounded division) gives back the value is
    /// the fewest decimals that round-trip, so the fewest significant digits;
    /// and below 2^31 one unit in the last place is under 10^-6, so no other
    /// decimal of `d` places round-trips to choose from. The description writes
    /// such magnitudes without an exponent, with at least one decimal.
    private static func appendShortDecimal(_ value: Double, to buffer: inout ByteBuffer) -> Bool {
        let magnitude = value.magnitude
        guard magnitude < 2_147_483_648, magnitude >= 0.001 || magnitude == 0 else { return false }
        var scale = 1.0
        for decimals in 0...4 {
            let scaled = (magnitude * scale).rounded()
            if scaled / scale == magnitude {
                let units = UInt64(scaled)
                var divisor: UInt64 = 1
                for _ in 0..<decimals { divisor *= 10 }
                let negative = value.sign == .minus
                buffer.append(formattedUpTo: 1 + 10 + 1 + 4) { text in
                    var count = 0
                    if negative {
                        text[0] = UInt8(ascii: "-")
                        count = 1
                    }
                    count += ByteBuffer.format(uint: units / divisor, at: text + count)
                    text[count] = UInt8(ascii: ".")
                    count += 1
                    if decimals == 0 {
                        text[count] = UInt8(ascii: "0")
                        return count + 1
                    }
                    return count + ByteBuffer.format(padded: Int64(units % divisor), width: decimals, at: text + count)
                }
                return true
            }
            scale *= 10
        }
        return false
    }

    /// Appends the bytes of ``string(_:)-(Float)`` without making the `String`.
    static func append(_ value: Float, to buffer: inout ByteBuffer) {
        if value.isNaN { return buffer.append(string: string(value)) }
        value.write(to: &buffer)
    }

    static func string(_ value: Double) -> String {
        if value.isNaN {
            return value.bitPattern == Double.nan.bitPattern
                ? "nan" : "nan(0x" + hex(value.bitPattern, width: 16) + ")"
        }
        return value.description
    }

    static func string(_ value: Float) -> String {
        if value.isNaN {
            return value.bitPattern == Float.nan.bitPattern
                ? "nan" : "nan(0x" + hex(UInt64(value.bitPattern), width: 8) + ")"
        }
        return value.description
    }

    static func float(_ text: String) -> Float? {
        if text.hasPrefix("nan(0x"), text.hasSuffix(")"), text.count == 15,
            let bits = UInt32(text.dropFirst(6).dropLast(), radix: 16), Float(bitPattern: bits).isNaN
        {
            return Float(bitPattern: bits)
        }
        switch text {
        case "nan": return .nan
        case "inf": return .infinity
        case "-inf": return -.infinity
        default:
            guard !text.isEmpty, text.utf8.allSatisfy({ ($0 &- 0x30) < 10 || "-.eE+".utf8.contains($0) }),
                text.first != "+"
            else { return nil }
            return Float(text)
        }
    }

    /// The shortest decimal digits of a fraction in [0, 1) as ".ddd", never in exponent form.
    static func plainFraction(_ fraction: Double) -> String {
        var buffer = ByteBuffer(capacity: 32)
        _ = appendPlainFraction(fraction, maximumCount: .max, to: &buffer)
        return String(decoding: buffer.bytes, as: UTF8.self)
    }

    /// Appends ``plainFraction(_:)`` of a fraction in (0, 1) if it is at most
    /// `maximumCount` bytes long; otherwise appends nothing and returns false.
    /// Formats on the stack: no `String` is made.
    static func appendPlainFraction(_ fraction: Double, maximumCount: Int, to buffer: inout ByteBuffer) -> Bool {
        // A Double's description is at most 24 bytes ("-2.2250738585072014e-308").
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { scratch in
            guard let start = scratch.baseAddress else { return false }
            var text = StackText(start: start, capacity: 32)
            fraction.write(to: &text)
            let count = text.count
            guard let e = (0..<count).first(where: { start[$0] == UInt8(ascii: "e") }) else {
                // "0.25" -> ".25"
                guard count - 1 <= maximumCount else { return false }
                buffer.append(UnsafeBufferPointer(start: start + 1, count: count - 1))
                return true
            }
            // "1.5e-07" -> ".00000015": the mantissa's digits after -exponent - 1 zeros.
            var exponent = 0
            var negative = false
            for index in (e + 1)..<count {
                let byte = start[index]
                if byte == UInt8(ascii: "-") { negative = true } else if byte &- 0x30 < 10 { exponent = exponent &* 10 &+ Int(byte &- 0x30) }
            }
            if negative { exponent = -exponent }
            let zeros = max(0, -exponent - 1)
            let digits = (0..<e).filter { start[$0] != UInt8(ascii: ".") }
            guard 1 + zeros + digits.count <= maximumCount else { return false }
            buffer.append(UInt8(ascii: "."))
            for _ in 0..<zeros { buffer.append(UInt8(ascii: "0")) }
            for index in digits { buffer.append(start[index]) }
            return true
        }
    }

    /// A fixed stack area the standard library writes a number's text into.
    private struct StackText: TextOutputStream {
        let start: UnsafeMutablePointer<UInt8>
        let capacity: Int
        var count = 0

        mutating func write(_ string: String) {
            var string = string
            string.withUTF8 { _writeASCII($0) }
        }

        mutating func _writeASCII(_ buffer: UnsafeBufferPointer<UInt8>) {
            guard let base = buffer.baseAddress else { return }
            let copied = min(buffer.count, capacity - count)
            (start + count).update(from: base, count: copied)
            count += copied
        }
    }

    private static func hex(_ value: UInt64, width: Int) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
