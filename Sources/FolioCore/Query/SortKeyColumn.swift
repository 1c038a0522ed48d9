import Foundation

/// A sort key's values for the rows being sorted, in the narrowest type that
/// holds them, and the sort both fetch paths share.
///
/// Keys are read once per row before sorting, so a comparison costs a load
/// and a compare, never a key-path projection or a column lookup.
enum SortKeyColumn {
    case int([Int64])
    case double([Double])
    /// Strings in Unicode scalar order (the dynamic API's order).
    case string([String])
    /// Strings as Swift orders them (canonical equivalence), or by a
    /// Foundation string comparator; `nil` first — what `SortDescriptor` does.
    case text([String?], comparator: String.StandardComparator?)
    case value([Value])

    /// Rows in the order of `keys`, most significant first; ties keep their order.
    static func sort(_ rows: [ObjectRef], by keys: [(column: SortKeyColumn, ascending: Bool)]) -> [ObjectRef] {
        var buffers: [UnsafeMutableRawPointer] = []
        defer { buffers.forEach { $0.deallocate() } }
        let comparators = keys.map { $0.column.comparator(ascending: $0.ascending, buffers: &buffers) }
        let order: [Int]
        // One and two keys (the common cases) without looping over an array of closures.
        switch comparators.count {
        case 0:
            return rows
        case 1:
            let first = comparators[0]
            order = rows.indices.sorted { a, b in
                let result = first(a, b)
                return result == .orderedSame ? a < b : result == .orderedAscending
            }
        case 2:
            let (first, second) = (comparators[0], comparators[1])
            order = rows.indices.sorted { a, b in
                var result = first(a, b)
                if result == .orderedSame { result = second(a, b) }
                return result == .orderedSame ? a < b : result == .orderedAscending
            }
        default:
            order = rows.indices.sorted { a, b in
                for compare in comparators {
                    let result = compare(a, b)
                    if result != .orderedSame { return result == .orderedAscending }
                }
                return a < b
            }
        }
        return order.map { rows[$0] }
    }

    /// The keys of `rows` read straight from a typed column, or `nil` when the column
    /// is not one this can read without boxing (optional, unsigned, float, NaN present).
    init?(_ column: Column, type: ValueType, rows: [ObjectRef]) {
        // Rows with a blob still on disk hold a placeholder, not their value.
        guard !column.hasBlobs else { return nil }
        switch column {
        case .int(let storage) where storage.nulls.isEmpty && type.integerRange != nil:
            self = .int(rows.map { storage.values[Int($0.row)] })
        case .double(let storage) where storage.nulls.isEmpty && (type == .double || type == .date):
            let values = rows.map { storage.values[Int($0.row)] }
            guard !values.contains(where: \.isNaN) else { return nil }
            self = .double(values)
        case .string(let storage) where storage.nulls.isEmpty:
            self = .string(rows.map { storage.values[Int($0.row)] })
        default:
            return nil
        }
    }

    init(_ values: [Value]) {
        if let ints = Self.all(values, { if case .int(let v) = $0 { v } else { nil } }) {
            self = .int(ints)
        } else if let doubles = Self.all(values, { if case .double(let v) = $0, !v.isNaN { v } else { nil } }) {
            self = .double(doubles)
        } else if let strings = Self.all(values, { if case .string(let v) = $0 { v } else { nil } }) {
            self = .string(strings)
        } else {
            self = .value(values)
        }
    }

    private static func all<T>(_ values: [Value], _ extract: (Value) -> T?) -> [T]? {
        var result: [T] = []
        result.reserveCapacity(values.count)
        for value in values {
            guard let typed = extract(value) else { return nil }
            result.append(typed)
        }
        return result
    }

    /// Copies keys into memory the comparator reads without bounds checks or
    /// reference counting; the caller frees it after sorting.
    private static func copy<T>(_ values: [T], into buffers: inout [UnsafeMutableRawPointer]) -> UnsafeMutablePointer<T> {
        let keys = UnsafeMutablePointer<T>.allocate(capacity: max(values.count, 1))
        keys.initialize(from: values, count: values.count)
        buffers.append(UnsafeMutableRawPointer(keys))
        return keys
    }

    /// A comparator over row positions that captures the typed array itself, so
    /// comparing does not re-bind (and retain) the enum's payload every time.
    ///
    /// String keys are copied once into one UTF-8 buffer with offsets, so a
    /// comparison is a `memcmp` on raw pointers with no reference counting; the
    /// buffers are appended to `buffers` for the caller to free after sorting.
    func comparator(ascending: Bool, buffers: inout [UnsafeMutableRawPointer]) -> (Int, Int) -> ComparisonResult {
        func directed(_ order: ComparisonResult) -> ComparisonResult {
            ascending || order == .orderedSame ? order : (order == .orderedAscending ? .orderedDescending : .orderedAscending)
        }
        switch self {
        case .int(let values):
            let keys = Self.copy(values, into: &buffers)
            return { a, b in directed(keys[a] < keys[b] ? .orderedAscending : (keys[a] == keys[b] ? .orderedSame : .orderedDescending)) }
        case .double(let values):
            let keys = Self.copy(values, into: &buffers)
            return { a, b in directed(keys[a] < keys[b] ? .orderedAscending : (keys[a] == keys[b] ? .orderedSame : .orderedDescending)) }
        case .string(let values):
            let offsets = UnsafeMutablePointer<Int>.allocate(capacity: values.count + 1)
            var total = 0
            for (index, value) in values.enumerated() {
                offsets[index] = total
                total += value.utf8.count
            }
            offsets[values.count] = total
            let bytes = UnsafeMutablePointer<UInt8>.allocate(capacity: max(total, 1))
            for (index, value) in values.enumerated() {
                var value = value
                value.withUTF8 { utf8 in
                    if let base = utf8.baseAddress { (bytes + offsets[index]).initialize(from: base, count: utf8.count) }
                }
            }
            buffers.append(UnsafeMutableRawPointer(offsets))
            buffers.append(UnsafeMutableRawPointer(bytes))
            return { a, b in
                let (startA, startB) = (offsets[a], offsets[b])
                let (lengthA, lengthB) = (offsets[a + 1] - startA, offsets[b + 1] - startB)
                let order = memcmp(bytes + startA, bytes + startB, min(lengthA, lengthB))
                if order != 0 { return directed(order < 0 ? .orderedAscending : .orderedDescending) }
                return directed(lengthA < lengthB ? .orderedAscending : (lengthA == lengthB ? .orderedSame : .orderedDescending))
            }
        case .text(let values, let comparator?):
            return { a, b in
                switch (values[a], values[b]) {
                case (let x?, let y?): return directed(comparator.compare(x, y))
                case (nil, nil): return .orderedSame
                case (nil, _): return directed(.orderedAscending)
                case (_, nil): return directed(.orderedDescending)
                }
            }
        case .text(let values, nil):
            // Swift's String order is byte order on ASCII, so those take the memcmp path.
            if let strings = Self.allASCII(values) { return Self.string(strings).comparator(ascending: ascending, buffers: &buffers) }
            return { a, b in
                switch (values[a], values[b]) {
                // As Foundation's ComparableComparator: `<` both ways, since Swift's
                // String order is not total across composed and decomposed forms.
                case (let x?, let y?): return directed(x < y ? .orderedAscending : (y < x ? .orderedDescending : .orderedSame))
                case (nil, nil): return .orderedSame
                case (nil, _): return directed(.orderedAscending)
                case (_, nil): return directed(.orderedDescending)
                }
            }
        case .value(let values):
            // Folio's total order (`Value`'s `<`), so the two directions are mirror images.
            return { a, b in directed(values[a].totalOrder(values[b])) }
        }
    }

    /// The strings, when none is `nil` and every one is ASCII.
    private static func allASCII(_ values: [String?]) -> [String]? {
        var strings: [String] = []
        strings.reserveCapacity(values.count)
        for value in values {
            guard var value, value.withUTF8({ $0.allSatisfy { $0 < 0x80 } }) else { return nil }
            strings.append(value)
        }
        return strings
    }
}
