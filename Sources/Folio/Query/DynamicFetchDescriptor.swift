import Foundation

/// What to fetch through the dynamic API: an entity, a predicate, a sort order
/// and a window — `FetchDescriptor` for code without model types.
public struct DynamicFetchDescriptor: Hashable, Sendable {
    /// A sort key: an attribute name (or a to-one path such as `category.name`) and a direction.
    public struct SortKey: Hashable, Sendable {
        /// An attribute, a to-one path such as `category.name`, or `animals.@count`.
        public var keyPath: String
        /// Whether smaller values come first.
        public var ascending: Bool
        /// Creates a sort key.
        public init(_ keyPath: String, ascending: Bool = true) {
            self.keyPath = keyPath
            self.ascending = ascending
        }
    }

    /// The entity to fetch.
    public var entity: String
    /// Which objects match; `nil` matches all.
    public var predicate: ObjectPredicate?
    /// Sort keys, most significant first; ties keep insertion order.
    public var sortBy: [SortKey]
    /// The most objects to return; `nil` for no limit.
    public var fetchLimit: Int?
    /// How many matching objects to skip first.
    public var fetchOffset: Int?
    /// Whether unsaved changes are included (default `true`); `false` reads the last saved state.
    public var includePendingChanges: Bool

    /// Creates a descriptor.
    public init(entity: String, predicate: ObjectPredicate? = nil, sortBy: [SortKey] = [],
                fetchLimit: Int? = nil, fetchOffset: Int? = nil, includePendingChanges: Bool = true) {
        self.entity = entity
        self.predicate = predicate
        self.sortBy = sortBy
        self.fetchLimit = fetchLimit
        self.fetchOffset = fetchOffset
        self.includePendingChanges = includePendingChanges
    }
}

extension ObjectGraph {
    /// Rows of an entity matching a descriptor, sorted and windowed.
    /// O(rows of the entity) to filter, O(m log m) to sort m matches.
    func fetchRows(_ descriptor: DynamicFetchDescriptor) throws(ModelError) -> [ObjectRef] {
        let entity: Int
        do { entity = try entityIndex(descriptor.entity) } catch { throw .graph(error) }
        let table = tables[entity]
        var rows: [ObjectRef] = []
        if let predicate = descriptor.predicate {
            let compiled: CompiledPredicate
            do { compiled = try CompiledPredicate(predicate, entity: entity, graph: self) } catch { throw .predicate(error) }
            for row in 0..<table.rowCount where table.isLive[row] {
                let ref = ObjectRef(entity: entity, row: row)
                if compiled.matches(ref) { rows.append(ref) }
            }
        } else {
            rows.reserveCapacity(table.liveCount)
            for row in 0..<table.rowCount where table.isLive[row] { rows.append(ObjectRef(entity: entity, row: row)) }
        }
        if !descriptor.sortBy.isEmpty {
            var comparators: [(Int, Int) -> ComparisonResult] = []
            var buffers: [UnsafeMutableRawPointer] = []
            defer { buffers.forEach { $0.deallocate() } }
            for key in descriptor.sortBy {
                let reader: (read: (ObjectRef) -> Value, attribute: Int?)
                do {
                    reader = try CompiledPredicate.reader(forSortKey: key.keyPath, entity: entity, graph: self)
                } catch {
                    throw .predicate(PredicateError("cannot sort by '\(key.keyPath)': \(error.message)", column: 0))
                }
                // A direct attribute in a typed column is read straight from its array;
                // anything else (paths, optionals, other types) through Values.
                let column = reader.attribute.flatMap { attribute in
                    SortKeyColumn(table.columns[attribute], type: layout.entities[entity].attributes[attribute].type, rows: rows)
                } ?? SortKeyColumn(rows.map(reader.read))
                comparators.append(column.comparator(ascending: key.ascending, buffers: &buffers))
            }
            let order: [Int]
            // One and two keys (the common cases) without looping over an array of closures.
            switch comparators.count {
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
            rows = order.map { rows[$0] }
        }
        let offset = min(max(descriptor.fetchOffset ?? 0, 0), rows.count)
        let end = descriptor.fetchLimit.map { min(rows.count, offset + max($0, 0)) } ?? rows.count
        return Array(rows[offset..<end])
    }
}

/// A sort key's values for the rows being sorted, in the narrowest type that holds them.
enum SortKeyColumn {
    case int([Int64])
    case double([Double])
    case string([String])
    case value([Value])

    /// The keys of `rows` read straight from a typed column, or `nil` when the column
    /// is not one this can read without boxing (optional, unsigned, float, NaN present).
    init?(_ column: Column, type: ValueType, rows: [ObjectRef]) {
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
        case .value(let values):
            return { a, b in directed(values[a].compare(to: values[b]) ?? .orderedSame) }
        }
    }

}
