import Foundation

/// Which index: an entity and the attributes it orders by, most significant first.
struct AttributeIndexKey: Hashable, Sendable {
    var entity: Int
    var attributes: [Int]
}

/// The live rows of one entity in the order of their values in some
/// attributes (a declared index, `#Index`), ties by row: what lets a fetch
/// find the objects whose values equal, or fall in a range of, constants
/// without reading every object.
///
/// The index holds row numbers only; their values are read from the graph's
/// columns when rows are compared (``AttributeOrder``), so it costs 4 bytes
/// per object and never goes stale by holding a copy of a value. That is also
/// why a row must leave the index *before* its value changes and re-enter
/// after (``ObjectGraph/reindexing(_:attribute:_:)``).
///
/// Rows are kept in chunks of at most ``chunkCapacity``, in order: inserting
/// or removing a row moves at most one chunk's tail, and the first edit after
/// the graph was copied (copy-on-write: a saved state, a context's checkout)
/// copies one chunk and the list of chunks, never the whole index.
struct AttributeIndex {
    /// How many rows a chunk holds at most; a full chunk splits in two.
    static let chunkCapacity = 1024

    /// The rows in order, in chunks none of which is empty.
    private(set) var chunks: [[Int32]] = []
    /// How many rows the index holds.
    private(set) var count = 0

    /// A place in the index: a chunk and an offset in it, or (`chunks.count`, 0) past the end.
    struct Position: Comparable {
        var chunk: Int
        var offset: Int
        static func < (lhs: Position, rhs: Position) -> Bool {
            (lhs.chunk, lhs.offset) < (rhs.chunk, rhs.offset)
        }
    }

    /// An index of the given rows, sorted by `order` (ties by row).
    ///
    /// - Complexity: O(n log n) comparisons of n rows.
    init(rows: [Int32], order: AttributeOrder) {
        var sorted = rows
        sorted.sort { order.compare($0, $1) < 0 }
        self.init(sorted: sorted)
    }

    /// An index of rows already in the index's order.
    init(sorted: [Int32]) {
        count = sorted.count
        chunks.reserveCapacity(sorted.count / Self.chunkCapacity + 1)
        var start = 0
        // Chunks start half full, so early inserts rarely split one.
        let fill = Self.chunkCapacity / 2
        while start < sorted.count {
            let end = min(start + fill, sorted.count)
            chunks.append(Array(sorted[start..<end]))
            start = end
        }
    }

    /// The first position whose row satisfies `isAfter`, which must be false
    /// for a prefix of the index and true for the rest. O(log n) calls.
    func partitionPoint(_ isAfter: (Int32) -> Bool) -> Position {
        var low = 0
        var high = chunks.count
        // The first chunk whose last row is after: the point is in it.
        while low < high {
            let middle = (low + high) / 2
            if let last = chunks[middle].last, isAfter(last) { high = middle } else { low = middle + 1 }
        }
        guard low < chunks.count else { return Position(chunk: chunks.count, offset: 0) }
        let chunk = chunks[low]
        var first = 0
        var end = chunk.count
        while first < end {
            let middle = (first + end) / 2
            if isAfter(chunk[middle]) { end = middle } else { first = middle + 1 }
        }
        return Position(chunk: low, offset: first)
    }

    /// The rows from `start` up to `end` (excluded), in index order.
    func rows(from start: Position, to end: Position) -> [Int32] {
        guard start < end else { return [] }
        var result: [Int32] = []
        var position = start
        while position < end, position.chunk < chunks.count {
            let chunk = chunks[position.chunk]
            let stop = position.chunk == end.chunk ? end.offset : chunk.count
            result.append(contentsOf: chunk[position.offset..<stop])
            position = Position(chunk: position.chunk + 1, offset: 0)
        }
        return result
    }

    /// Every row, in index order. O(n).
    var allRows: [Int32] { chunks.flatMap { $0 } }

    /// Puts a row in its place. The row must not be in the index.
    ///
    /// - Complexity: O(log n) comparisons, and O(``chunkCapacity``) moves.
    mutating func insert(_ row: Int32, order: AttributeOrder) {
        count += 1
        guard !chunks.isEmpty else {
            chunks = [[row]]
            return
        }
        var position = partitionPoint { order.compare($0, row) > 0 }
        // Past the end: the last chunk takes it.
        if position.chunk == chunks.count {
            position = Position(chunk: chunks.count - 1, offset: chunks[chunks.count - 1].count)
        }
        chunks[position.chunk].insert(row, at: position.offset)
        if chunks[position.chunk].count > Self.chunkCapacity {
            let chunk = chunks[position.chunk]
            let half = chunk.count / 2
            chunks[position.chunk] = Array(chunk[..<half])
            chunks.insert(Array(chunk[half...]), at: position.chunk + 1)
        }
    }

    /// Takes a row out; its values must still be those it was put in with.
    ///
    /// - Returns: whether the row was found.
    /// - Complexity: O(log n) comparisons, and O(``chunkCapacity``) moves.
    @discardableResult
    mutating func remove(_ row: Int32, order: AttributeOrder) -> Bool {
        let position = partitionPoint { order.compare($0, row) >= 0 }
        guard position.chunk < chunks.count, chunks[position.chunk][position.offset] == row else { return false }
        count -= 1
        chunks[position.chunk].remove(at: position.offset)
        if chunks[position.chunk].isEmpty { chunks.remove(at: position.chunk) }
        return true
    }
}

extension AttributeIndex {
    /// The rows of a one-attribute index in its order, sorted by the column's
    /// own values, with no closure call per comparison as
    /// ``init(rows:order:)`` makes; `nil` for a column of boxed
    /// values, which only the general order sorts. The order is
    /// ``AttributeOrder``'s: `nil` first, then NaN, then values, ties by row.
    static func sortedRows(_ rows: [Int32], column: Column, type: ValueType) -> [Int32]? {
        func sorted<Element, Key: Comparable>(
            _ storage: ColumnStorage<Element>, isNaN: (Element) -> Bool,
            key: (Element) -> Key
        ) -> [Int32] {
            var unordered: [Int32] = []
            var nans: [Int32] = []
            var keyed: [(key: Key, row: Int32)] = []
            keyed.reserveCapacity(rows.count)
            let hasNulls = !storage.nulls.isEmpty
            for row in rows {
                if hasNulls, storage.nulls[Int(row)] { unordered.append(row); continue }
                let value = storage.values[Int(row)]
                if isNaN(value) { nans.append(row); continue }
                keyed.append((key(value), row))
            }
            // Ties by row: equal keys (0 and -0, canonically equal strings) keep row order.
            keyed.sort { $0.key < $1.key || (!($1.key < $0.key) && $0.row < $1.row) }
            return unordered.sorted() + nans.sorted() + keyed.map(\.row)
        }
        switch column {
        case .int(let storage) where type.unsignedMax != nil:
            return sorted(storage, isNaN: { _ in false }) { UInt64(bitPattern: $0) }
        case .int(let storage):
            return sorted(storage, isNaN: { _ in false }) { $0 }
        case .double(let storage) where type == .float:
            return sorted(storage, isNaN: { Column.float(fromRaw: $0).isNaN }) { Column.float(fromRaw: $0) }
        case .double(let storage):
            return sorted(storage, isNaN: { $0.isNaN }) { $0 }
        case .string(let storage):
            return sorted(storage, isNaN: { _ in false }) { $0 }
        case .bool(let storage):
            return sorted(storage, isNaN: { _ in false }) { $0 ? 1 : 0 }
        case .value:
            return nil
        }
    }

    /// The rows of a compound index in its order: each attribute's rows
    /// sorted on their own (``sortedRows(_:column:type:)``) and numbered by
    /// value (equal values, equal number), then the rows sorted by those
    /// numbers, attribute by attribute, then by row — integer comparisons
    /// only. `nil` when an attribute's column holds boxed values.
    ///
    /// - Parameter rowCount: the table's row count (the rows are some of them).
    static func sortedRows(
        _ rows: [Int32], columns: [(column: Column, type: ValueType)], rowCount: Int,
        order: AttributeOrder
    ) -> [Int32]? {
        var ranks: [[Int32]] = []
        for (attribute, (column, type)) in columns.enumerated() {
            guard let sorted = sortedRows(rows, column: column, type: type) else { return nil }
            var rank = [Int32](repeating: 0, count: rowCount)
            var current: Int32 = 0
            for position in sorted.indices {
                if position > 0, order.rows[attribute](sorted[position - 1], sorted[position]) != 0 { current += 1 }
                rank[Int(sorted[position])] = current
            }
            ranks.append(rank)
        }
        if ranks.count == 2 {
            // Two numbers and the row in one key: the common compound index sorts as plain integers.
            let (first, second) = (ranks[0], ranks[1])
            var keyed = rows.map { row in (key: UInt64(first[Int(row)]) << 32 | UInt64(second[Int(row)]), row: row) }
            keyed.sort { $0.key < $1.key || ($0.key == $1.key && $0.row < $1.row) }
            return keyed.map(\.row)
        }
        var result = rows
        result.sort { a, b in
            for rank in ranks where rank[Int(a)] != rank[Int(b)] { return rank[Int(a)] < rank[Int(b)] }
            return a < b
        }
        return result
    }
}

/// How an index orders rows: by each attribute's value in turn, then by row.
///
/// Built for one graph at the moment of use (it reads that graph's columns),
/// never kept. Within an attribute, `nil` comes first, then a floating-point
/// NaN, then the values in the order predicates compare them: numbers by
/// value, dates by time, `Bool` false first, others as ``Value`` compares them —
/// and strings as Swift compares them (canonical equivalence, as a typed
/// `#Predicate` does): a string equal by Unicode scalars, as the dynamic
/// predicates compare, is equal here too, so equality finds every match, and
/// the predicate then checks each candidate.
struct AttributeOrder {
    /// Compares two rows' values in one attribute: negative, zero or positive.
    typealias RowComparison = (Int32, Int32) -> Int
    /// Compares a row's value in one attribute with a constant (never NaN).
    typealias ConstantComparison = (Int32, Value) -> Int

    let rows: [RowComparison]
    let constants: [ConstantComparison]
    /// Whether a row holds `nil` or NaN in an attribute: what no range matches.
    let unordered: [(Int32) -> Bool]

    init(graph: ObjectGraph, entity: Int, attributes: [Int]) {
        var rows: [RowComparison] = []
        var constants: [ConstantComparison] = []
        var unordered: [(Int32) -> Bool] = []
        for attribute in attributes {
            let type = graph.layout.entities[entity].attributes[attribute].type
            let column = graph.tables[entity].columns[attribute]
            let (isNull, isNaN) = Self.unorderedTests(column, type: type)
            rows.append(Self.rowComparison(column, type: type))
            constants.append(
                Self.constantComparison(
                    column, isNull: isNull, isNaN: isNaN, graph: graph, entity: entity,
                    attribute: attribute))
            unordered.append { isNull($0) || isNaN($0) }
        }
        self.rows = rows
        self.constants = constants
        self.unordered = unordered
    }

    /// Orders two rows: attribute by attribute, then by row. Zero only for the same row.
    func compare(_ a: Int32, _ b: Int32) -> Int {
        for comparison in rows {
            let order = comparison(a, b)
            if order != 0 { return order }
        }
        return a < b ? -1 : (a > b ? 1 : 0)
    }

    /// Orders a row against constants for the first `values.count` attributes:
    /// negative when the row comes before every row holding them, zero when it
    /// holds them, positive when after.
    func compare(_ row: Int32, to values: [Value]) -> Int {
        for (index, value) in values.enumerated() {
            let order = constants[index](row, value)
            if order != 0 { return order }
        }
        return 0
    }

    private static func sign<T: Comparable>(_ a: T, _ b: T) -> Int { a < b ? -1 : (a == b ? 0 : 1) }

    /// The order of one column's rows: the typed array itself where there is one.
    private static func rowComparison(_ column: Column, type: ValueType) -> RowComparison {
        func typed<Element>(
            _ storage: ColumnStorage<Element>, rank: @escaping (Element) -> Int,
            _ compare: @escaping (Element, Element) -> Int
        ) -> RowComparison {
            { a, b in
                if !storage.nulls.isEmpty {
                    let (nullA, nullB) = (storage.nulls[Int(a)], storage.nulls[Int(b)])
                    if nullA || nullB { return nullA == nullB ? 0 : (nullA ? -1 : 1) }
                }
                let (x, y) = (storage.values[Int(a)], storage.values[Int(b)])
                let (rankX, rankY) = (rank(x), rank(y))
                if rankX != rankY { return rankX < rankY ? -1 : 1 }
                return rankX == 0 ? 0 : compare(x, y)
            }
        }
        switch column {
        case .int(let storage) where type.unsignedMax != nil:
            return typed(storage, rank: { _ in 1 }) { sign(UInt64(bitPattern: $0), UInt64(bitPattern: $1)) }
        case .int(let storage):
            return typed(storage, rank: { _ in 1 }) { sign($0, $1) }
        case .double(let storage) where type == .float:
            return typed(storage, rank: { Column.float(fromRaw: $0).isNaN ? 0 : 1 }) {
                sign(Column.float(fromRaw: $0), Column.float(fromRaw: $1))
            }
        case .double(let storage):
            return typed(storage, rank: { $0.isNaN ? 0 : 1 }) { sign($0, $1) }
        case .string(let storage):
            return typed(storage, rank: { _ in 1 }) { sign($0, $1) }
        case .bool(let storage):
            return typed(storage, rank: { _ in 1 }) { $0 == $1 ? 0 : ($0 ? 1 : -1) }
        case .value(let storage):
            return { a, b in valueOrder(storage.values[Int(a)], storage.values[Int(b)]) }
        }
    }

    /// `nil` first, then values as predicates compare them.
    private static func valueOrder(_ x: Value, _ y: Value) -> Int {
        if x == .null || y == .null { return x == y ? 0 : (x == .null ? -1 : 1) }
        switch x.compare(to: y) {
        case .orderedAscending?: return -1
        case .orderedDescending?: return 1
        case .orderedSame?: return 0
        case nil: return x < y ? -1 : (y < x ? 1 : 0)
        }
    }

    /// Which rows hold `nil`, and which NaN (in a floating-point column).
    private static func unorderedTests(_ column: Column, type: ValueType) -> (isNull: (Int32) -> Bool, isNaN: (Int32) -> Bool) {
        func nulls<Element>(_ storage: ColumnStorage<Element>) -> (Int32) -> Bool {
            { !storage.nulls.isEmpty && storage.nulls[Int($0)] }
        }
        switch column {
        case .int(let storage): return (nulls(storage), { _ in false })
        case .double(let storage) where type == .float:
            return (nulls(storage), { Column.float(fromRaw: storage.values[Int($0)]).isNaN })
        case .double(let storage): return (nulls(storage), { storage.values[Int($0)].isNaN })
        case .string(let storage): return (nulls(storage), { _ in false })
        case .bool(let storage): return (nulls(storage), { _ in false })
        case .value(let storage): return ({ storage.values[Int($0)] == .null }, { _ in false })
        }
    }

    private static func constantComparison(
        _ column: Column, isNull: @escaping (Int32) -> Bool,
        isNaN: @escaping (Int32) -> Bool, graph: ObjectGraph, entity: Int,
        attribute: Int
    ) -> ConstantComparison {
        // Strings as Swift compares them, like the rows; everything else as predicates compare values.
        if case .string(let storage) = column {
            return { row, constant in
                if isNull(row) { return constant == .null ? 0 : -1 }
                guard case .string(let text) = constant else { return 1 }
                return sign(storage.values[Int(row)], text)
            }
        }
        return { row, constant in
            if isNull(row) { return constant == .null ? 0 : -1 }
            if constant == .null { return 1 }
            // NaN sorts right after nil: before every number.
            if isNaN(row) { return -1 }
            let value = graph.value(ObjectRef(entity: entity, row: Int(row)), attribute)
            switch value.compare(to: constant) {
            case .orderedAscending?: return -1
            case .orderedSame?: return 0
            case .orderedDescending?: return 1
            case nil: return -1
            }
        }
    }
}
