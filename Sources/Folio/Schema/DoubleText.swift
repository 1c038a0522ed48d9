/// Text for `Double` and `Float` that reads back bit for bit.
enum DoubleText {
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
           let bits = UInt32(text.dropFirst(6).dropLast(), radix: 16), Float(bitPattern: bits).isNaN {
            return Float(bitPattern: bits)
        }
        switch text {
        case "nan": return .nan
        case "inf": return .infinity
        case "-inf": return -.infinity
        default:
            guard !text.isEmpty, text.utf8.allSatisfy({ ($0 &- 0x30) < 10 || "-.eE+".utf8.contains($0) }),
                  text.first != "+" else { return nil }
            return Float(text)
        }
    }

    /// The shortest decimal digits of a fraction in [0, 1) as ".ddd", never in exponent form.
    static func plainFraction(_ fraction: Double) -> String {
        let text = fraction.description
        guard let e = text.firstIndex(of: "e") else { return String(text.dropFirst()) }  // "0.25" -> ".25"
        let exponent = Int(text[text.index(after: e)...]) ?? 0
        let digits = text[..<e].filter { $0 != "." }
        return "." + String(repeating: "0", count: max(0, -exponent - 1)) + digits
    }

    private static func hex(_ value: UInt64, width: Int) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
