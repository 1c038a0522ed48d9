import Foundation

/// A total order, so values sort and work in Foundation predicates: values that
/// ``compare(to:caseInsensitive:)`` can order are ordered that way; others
/// (a string and a date, or NaN) by kind, then by their text.
extension Value: Comparable {
    public static func < (lhs: Value, rhs: Value) -> Bool {
        if let order = lhs.compare(to: rhs) { return order == .orderedAscending }
        if lhs.kindRank != rhs.kindRank { return lhs.kindRank < rhs.kindRank }
        return lhs.description.unicodeScalars.lexicographicallyPrecedes(rhs.description.unicodeScalars)
    }

    private var kindRank: Int {
        switch self {
        case .null: return 0
        case .bool: return 1
        case .int, .uint, .double, .float, .decimal: return 2
        case .string: return 3
        case .date: return 4
        case .data: return 5
        case .uuid: return 6
        case .url: return 7
        case .array: return 8
        case .set: return 9
        case .dictionary: return 10
        }
    }
}

extension Value {
    /// Orders two values for predicates and sorting: numbers of any type by
    /// value, strings by Unicode scalars (or case-insensitively), dates by time,
    /// `nil` before everything. `nil` when the two cannot be compared.
    func compare(to other: Value, caseInsensitive: Bool = false) -> ComparisonResult? {
        switch (self, other) {
        case (.null, .null): return .orderedSame
        case (.null, _): return .orderedAscending
        case (_, .null): return .orderedDescending
        case (.string(let a), .string(let b)):
            let (x, y) = caseInsensitive ? (a.lowercased(), b.lowercased()) : (a, b)
            if x.unicodeScalars.elementsEqual(y.unicodeScalars) { return .orderedSame }
            return x.unicodeScalars.lexicographicallyPrecedes(y.unicodeScalars) ? .orderedAscending : .orderedDescending
        case (.bool(let a), .bool(let b)): return a == b ? .orderedSame : (!a ? .orderedAscending : .orderedDescending)
        case (.date(let a), .date(let b)): return order(a.timeIntervalSinceReferenceDate, b.timeIntervalSinceReferenceDate)
        case (.uuid(let a), .uuid(let b)): return order(a.uuidString, b.uuidString)
        case (.url(let a), .url(let b)): return order(a.absoluteString, b.absoluteString)
        case (.data(let a), .data(let b)):
            if a == b { return .orderedSame }
            return a.lexicographicallyPrecedes(b) ? .orderedAscending : .orderedDescending
        case (.decimal(let a), .decimal(let b)): return order(a, b)
        default:
            if case .decimal(let a) = self, let b = other.numeric { return order(a, Decimal(b)) }
            if case .decimal(let b) = other, let a = numeric { return order(Decimal(a), b) }
            switch (self, other) {
            case (.int(let a), .int(let b)): return order(a, b)
            case (.uint(let a), .uint(let b)): return order(a, b)
            case (.int(let a), .uint(let b)): return a < 0 ? .orderedAscending : order(UInt64(a), b)
            case (.uint(let a), .int(let b)): return b < 0 ? .orderedDescending : order(a, UInt64(b))
            default:
                guard let a = numeric, let b = other.numeric, !a.isNaN, !b.isNaN else { return nil }
                return order(a, b)
            }
        }
    }

    /// The value as a Double, for comparing numbers of different types.
    var numeric: Double? {
        switch self {
        case .int(let v): return Double(v)
        case .uint(let v): return Double(v)
        case .double(let v): return v
        case .float(let v): return Double(v)
        case .decimal(let v): return NSDecimalNumber(decimal: v).doubleValue
        default: return nil
        }
    }

    private func order<T: Comparable>(_ a: T, _ b: T) -> ComparisonResult {
        a < b ? .orderedAscending : (a == b ? .orderedSame : .orderedDescending)
    }
}
