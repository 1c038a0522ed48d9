import Foundation

/// What to fetch through the dynamic API: an entity, a predicate, a sort order
/// and a window — `FetchDescriptor` for code without model types.
public struct DynamicFetchDescriptor: Hashable, Sendable {
    /// A sort key: an attribute name (or a to-one path such as `category.name`) and a direction.
    public struct SortKey: Hashable, Sendable {
        public var keyPath: String
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
            var keys: [(read: (ObjectRef) -> Value, ascending: Bool)] = []
            for key in descriptor.sortBy {
                do {
                    keys.append((try CompiledPredicate.reader(forSortKey: key.keyPath, entity: entity, graph: self), key.ascending))
                } catch {
                    throw .predicate(PredicateError("cannot sort by '\(key.keyPath)': \(error.message)", column: 0))
                }
            }
            // One typed array per key (not a [Value] per row): integers, doubles and
            // strings compare without boxing; strings by UTF-8 bytes, which is code point order.
            let comparators = keys.map { key in SortKeyColumn(rows.map(key.read)).comparator(ascending: key.ascending) }
            let order = rows.indices.sorted { a, b in
                for compare in comparators {
                    let result = compare(a, b)
                    if result != .orderedSame { return result == .orderedAscending }
                }
                return a < b
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

    /// A comparator over row positions that captures the typed array itself, so
    /// comparing does not re-bind (and retain) the enum's payload every time.
    func comparator(ascending: Bool) -> (Int, Int) -> ComparisonResult {
        func directed(_ order: ComparisonResult) -> ComparisonResult {
            ascending || order == .orderedSame ? order : (order == .orderedAscending ? .orderedDescending : .orderedAscending)
        }
        switch self {
        case .int(let values):
            return { a, b in directed(values[a] < values[b] ? .orderedAscending : (values[a] == values[b] ? .orderedSame : .orderedDescending)) }
        case .double(let values):
            return { a, b in directed(values[a] < values[b] ? .orderedAscending : (values[a] == values[b] ? .orderedSame : .orderedDescending)) }
        case .string(let values):
            return { a, b in directed(SortKeyColumn.compareUTF8(values[a], values[b])) }
        case .value(let values):
            return { a, b in directed(values[a].compare(to: values[b]) ?? .orderedSame) }
        }
    }

    /// Code point order: UTF-8 bytes compare the way code points do.
    static func compareUTF8(_ x: String, _ y: String) -> ComparisonResult {
        var (x, y) = (x, y)
        return x.withUTF8 { left in
            y.withUTF8 { right in
                let common = min(left.count, right.count)
                if common > 0, let l = left.baseAddress, let r = right.baseAddress {
                    let order = memcmp(l, r, common)
                    if order != 0 { return order < 0 ? .orderedAscending : .orderedDescending }
                }
                return left.count < right.count ? .orderedAscending : (left.count == right.count ? .orderedSame : .orderedDescending)
            }
        }
    }
}
