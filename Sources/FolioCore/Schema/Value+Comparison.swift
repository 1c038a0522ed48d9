import Foundation

/// Folio's total order on values, which sorting uses (``DynamicFetchDescriptor``'s
/// `sortBy`, the REPL's `sort`) and `<` follows, so values sort and work in
/// Foundation predicates:
///
/// 1. `nil` (`.null`, an any-value's none) before everything;
/// 2. then by kind: booleans, numbers, strings, dates, data, UUIDs, URLs,
///    arrays, sets, dictionaries — a kind never interleaves with another;
/// 3. within a kind: `false` before `true`; numbers of every type (`int`,
///    `uint`, `double`, `float`, `decimal`) by value, NaN first, integers and
///    binary floating point compared exactly (`3` after `2.5`; `2^53 + 1`
///    after `Double(2^53)`), a decimal after a binary number of the same
///    nearest `Double`; strings by Unicode scalars (é and e + ◌́ differ);
///    dates by time; data byte by byte; UUIDs and URLs by their text;
///    collections by their text.
///
/// The order is total and transitive, so ascending and descending sorts are
/// mirror images (ties — equal values, or numbers equal across types such as
/// `3` and `3.0` — keep their rows' order in both). Predicates compare with
/// ``compare(to:caseInsensitive:)``, which agrees with this order wherever it
/// answers (it answers `nil` across kinds).
extension Value: Comparable {
    public static func < (lhs: Value, rhs: Value) -> Bool {
        lhs.totalOrder(rhs) == .orderedAscending
    }

    /// Where this value stands against `other` in the total order.
    ///
    /// - Complexity: O(1) for scalars but strings and data (O(their length));
    ///   collections are compared by their text.
    func totalOrder(_ other: Value) -> ComparisonResult {
        let (rank, otherRank) = (kindRank, other.kindRank)
        if rank != otherRank { return rank < otherRank ? .orderedAscending : .orderedDescending }
        switch (self, other) {
        case (.null, .null): return .orderedSame
        case (.string(let a), .string(let b)):
            if a.unicodeScalars.elementsEqual(b.unicodeScalars) { return .orderedSame }
            return a.unicodeScalars.lexicographicallyPrecedes(b.unicodeScalars) ? .orderedAscending : .orderedDescending
        case (.date(let a), .date(let b)):
            return Value.numberOrder(a.timeIntervalSinceReferenceDate, b.timeIntervalSinceReferenceDate)
        case (.array, .array), (.set, .set), (.dictionary, .dictionary):
            if self == other { return .orderedSame }
            let (a, b) = (description.unicodeScalars, other.description.unicodeScalars)
            if a.elementsEqual(b) { return .orderedSame }
            return a.lexicographicallyPrecedes(b) ? .orderedAscending : .orderedDescending
        default:
            if rank == Value.numberRank { return Value.numberOrder(self, other) }
            // Booleans, data, UUIDs and URLs: `compare` orders two of one kind.
            return compare(to: other) ?? .orderedSame
        }
    }

    private static let numberRank = 2

    private var kindRank: Int {
        switch self {
        case .null: return 0
        case .bool: return 1
        case .int, .uint, .double, .float, .decimal: return Value.numberRank
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

    /// Two numbers of any types: NaN first, then by their nearest `Double`;
    /// equal there, integers and binary floating point exactly, and binary
    /// numbers before decimals, decimals by value. Each step is a total order
    /// on what the one before leaves tied, so the whole is one.
    private static func numberOrder(_ a: Value, _ b: Value) -> ComparisonResult {
        let (x, y) = (a.nearestDouble, b.nearestDouble)
        if x.isNaN || y.isNaN { return x.isNaN == y.isNaN ? .orderedSame : (x.isNaN ? .orderedAscending : .orderedDescending) }
        if x != y { return x < y ? .orderedAscending : .orderedDescending }
        switch (a, b) {
        case (.decimal(let p), .decimal(let q)): return p == q ? .orderedSame : (p < q ? .orderedAscending : .orderedDescending)
        case (.decimal, _): return .orderedDescending
        case (_, .decimal): return .orderedAscending
        default: return exactOrder(a, b, nearest: x)
        }
    }

    /// Two dates' (or doubles') order with NaN first.
    private static func numberOrder(_ x: Double, _ y: Double) -> ComparisonResult {
        if x.isNaN || y.isNaN { return x.isNaN == y.isNaN ? .orderedSame : (x.isNaN ? .orderedAscending : .orderedDescending) }
        return x < y ? .orderedAscending : (x == y ? .orderedSame : .orderedDescending)
    }

    /// Two integers or binary floating-point numbers whose nearest `Double` is
    /// the same finite `nearest`: only an integer beyond 2^53 and a double can
    /// still differ, and then the double is a whole number, compared as one.
    private static func exactOrder(_ a: Value, _ b: Value, nearest: Double) -> ComparisonResult {
        func order<T: Comparable>(_ p: T, _ q: T) -> ComparisonResult {
            p < q ? .orderedAscending : (p == q ? .orderedSame : .orderedDescending)
        }
        func flipped(_ result: ComparisonResult) -> ComparisonResult {
            result == .orderedAscending ? .orderedDescending : (result == .orderedDescending ? .orderedAscending : .orderedSame)
        }
        /// An integer against the whole number `nearest` (a double equal to it as a Double).
        func integer(_ value: Value) -> ComparisonResult? {
            switch value {
            case .int(let n):
                // 2^63 is the one whole double near an Int64 that an Int64 cannot hold.
                if nearest >= 9_223_372_036_854_775_808.0 { return .orderedAscending }
                return order(n, Int64(nearest))
            case .uint(let n):
                if nearest >= 18_446_744_073_709_551_616.0 { return .orderedAscending }
                return order(n, UInt64(nearest))
            default: return nil
            }
        }
        if let result = integerOrder(a, b) { return result }
        if let result = integer(a) { return result }
        if let result = integer(b) { return flipped(result) }
        return .orderedSame  // two binary floating-point numbers equal as Doubles
    }

    /// Two integers (`int` or `uint`, either sign) exactly; `nil` unless both are integers.
    static func integerOrder(_ a: Value, _ b: Value) -> ComparisonResult? {
        func order<T: Comparable>(_ p: T, _ q: T) -> ComparisonResult {
            p < q ? .orderedAscending : (p == q ? .orderedSame : .orderedDescending)
        }
        switch (a, b) {
        case (.int(let p), .int(let q)): return order(p, q)
        case (.uint(let p), .uint(let q)): return order(p, q)
        case (.int(let p), .uint(let q)): return p < 0 ? .orderedAscending : order(UInt64(p), q)
        case (.uint(let p), .int(let q)): return q < 0 ? .orderedDescending : order(p, UInt64(q))
        default: return nil
        }
    }

    /// The nearest `Double` (NaN for NaN; `nil`'s and non-numbers' are NaN too, never asked).
    private var nearestDouble: Double { numeric ?? .nan }
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
            if let result = Value.integerOrder(self, other) { return result }
            guard let a = numeric, let b = other.numeric, !a.isNaN, !b.isNaN else { return nil }
            return order(a, b)
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
