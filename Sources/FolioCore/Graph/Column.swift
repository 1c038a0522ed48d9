import Foundation

/// One attribute's values for every row of an entity, in a typed array.
///
/// Typed columns keep an object's scalars at 8 bytes each with no per-object
/// dictionary; `Value` boxes appear only for the rarer types.
final class ColumnStorage<Element> {
    // Unchecked: these arrays are appended to once per value while loading, and the
    // dynamic exclusivity checks cost more than the appends. No access overlaps another.
    @exclusivity(unchecked) var values: [Element] = []
    /// Whether each row holds `nil`; empty for non-optional attributes.
    @exclusivity(unchecked) var nulls: [Bool] = []
    /// Rows whose externally stored value is still on disk (their `values` cell
    /// holds the column's zero, not nil, as a placeholder); only external-storage
    /// columns have any.
    @exclusivity(unchecked) var blobs: [Int: LazyBlob] = [:]

    func copy() -> ColumnStorage<Element> {
        let copy = ColumnStorage<Element>()
        copy.values = values
        copy.nulls = nulls
        copy.blobs = blobs
        return copy
    }
}

enum Column {
    /// Every integer width (unsigned ones as bit patterns).
    case int(ColumnStorage<Int64>)
    /// Double, Float (its bit pattern, since widening would quiet signalling NaNs)
    /// and Date (seconds since 2001).
    case double(ColumnStorage<Double>)
    case string(ColumnStorage<String>)
    case bool(ColumnStorage<Bool>)
    /// Everything else; `nil` is `.null`.
    case value(ColumnStorage<Value>)

    init(for attribute: Schema.Attribute) {
        switch attribute.type {
        case .int, .int8, .int16, .int32, .int64, .uint, .uint8, .uint16, .uint32, .uint64: self = .int(ColumnStorage())
        case .double, .float, .date: self = .double(ColumnStorage())
        case .string: self = .string(ColumnStorage())
        case .bool: self = .bool(ColumnStorage())
        default: self = .value(ColumnStorage())
        }
    }

    func copy() -> Column {
        switch self {
        case .int(let storage): return .int(storage.copy())
        case .double(let storage): return .double(storage.copy())
        case .string(let storage): return .string(storage.copy())
        case .bool(let storage): return .bool(storage.copy())
        case .value(let storage): return .value(storage.copy())
        }
    }

    func value(at row: Int, type: ValueType) -> Value {
        switch self {
        case .int(let storage):
            if !storage.blobs.isEmpty, let blob = storage.blobs[row] { return Column.load(blob, type) }
            if !storage.nulls.isEmpty, storage.nulls[row] { return .null }
            let raw = storage.values[row]
            return type.unsignedMax != nil ? .uint(UInt64(bitPattern: raw)) : .int(raw)
        case .double(let storage):
            if !storage.blobs.isEmpty, let blob = storage.blobs[row] { return Column.load(blob, type) }
            if !storage.nulls.isEmpty, storage.nulls[row] { return .null }
            let raw = storage.values[row]
            switch type {
            case .float: return .float(Column.float(fromRaw: raw))
            case .date: return .date(Date(timeIntervalSinceReferenceDate: raw))
            default: return .double(raw)
            }
        case .string(let storage):
            if !storage.blobs.isEmpty, let blob = storage.blobs[row] { return Column.load(blob, type) }
            if !storage.nulls.isEmpty, storage.nulls[row] { return .null }
            return .string(storage.values[row])
        case .bool(let storage):
            if !storage.blobs.isEmpty, let blob = storage.blobs[row] { return Column.load(blob, type) }
            if !storage.nulls.isEmpty, storage.nulls[row] { return .null }
            return .bool(storage.values[row])
        case .value(let storage):
            if !storage.blobs.isEmpty, let blob = storage.blobs[row] { return Column.load(blob, type) }
            return storage.values[row]
        }
    }

    /// Callers that cannot throw see an unreadable blob as the type's zero value;
    /// reads that can report it go through `ObjectGraph.loadValue`.
    private static func load(_ blob: LazyBlob, _ type: ValueType) -> Value {
        (try? blob.load()) ?? .zero(of: type)
    }

    /// Whether any row holds a blob still on disk: readers that take values
    /// straight from `values` must not, since those rows hold a placeholder.
    var hasBlobs: Bool {
        switch self {
        case .int(let storage): return !storage.blobs.isEmpty
        case .double(let storage): return !storage.blobs.isEmpty
        case .string(let storage): return !storage.blobs.isEmpty
        case .bool(let storage): return !storage.blobs.isEmpty
        case .value(let storage): return !storage.blobs.isEmpty
        }
    }

    /// The blob still on disk at a row, if any.
    @inline(__always)
    func blob(at row: Int) -> LazyBlob? {
        switch self {
        case .int(let storage): return storage.blobs.isEmpty ? nil : storage.blobs[row]
        case .double(let storage): return storage.blobs.isEmpty ? nil : storage.blobs[row]
        case .string(let storage): return storage.blobs.isEmpty ? nil : storage.blobs[row]
        case .bool(let storage): return storage.blobs.isEmpty ? nil : storage.blobs[row]
        case .value(let storage): return storage.blobs.isEmpty ? nil : storage.blobs[row]
        }
    }

    /// Puts a blob still on disk at a row (an external-storage column). The
    /// value it stands for is never nil: nil is stored as no blob.
    func setBlob(_ blob: LazyBlob, at row: Int) {
        switch self {
        case .int(let storage): Column.place(blob, placeholder: 0, in: storage, at: row)
        case .double(let storage): Column.place(blob, placeholder: 0, in: storage, at: row)
        case .string(let storage): Column.place(blob, placeholder: "", in: storage, at: row)
        case .bool(let storage): Column.place(blob, placeholder: false, in: storage, at: row)
        case .value(let storage): Column.place(blob, placeholder: .data(Data()), in: storage, at: row)
        }
    }

    private static func place<T>(_ blob: LazyBlob, placeholder: T, in storage: ColumnStorage<T>, at row: Int) {
        storage.values[row] = placeholder
        if !storage.nulls.isEmpty { storage.nulls[row] = false }
        storage.blobs[row] = blob
    }

    /// Stores a value that has already been checked against the attribute's type.
    func set(_ value: Value, at row: Int) {
        switch self {
        case .int(let storage): Column.store(value, raw: Column.rawInt(value), in: storage, at: row)
        case .double(let storage): Column.store(value, raw: Column.rawDouble(value), in: storage, at: row)
        case .string(let storage):
            if case .string(let text) = value {
                Column.store(value, raw: text, in: storage, at: row)
            } else {
                Column.store(value, raw: "", in: storage, at: row)
            }
        case .bool(let storage):
            if case .bool(let flag) = value {
                Column.store(value, raw: flag, in: storage, at: row)
            } else {
                Column.store(value, raw: false, in: storage, at: row)
            }
        case .value(let storage):
            storage.values[row] = value
            if !storage.blobs.isEmpty { storage.blobs[row] = nil }
        }
    }

    /// Appends a checked value for a new row; `optional` says whether the column tracks nulls.
    func append(_ value: Value, optional: Bool) {
        switch self {
        case .int(let storage): Column.append(value, raw: Column.rawInt(value), to: storage, optional: optional)
        case .double(let storage): Column.append(value, raw: Column.rawDouble(value), to: storage, optional: optional)
        case .string(let storage):
            if case .string(let text) = value {
                Column.append(value, raw: text, to: storage, optional: optional)
            } else {
                Column.append(value, raw: "", to: storage, optional: optional)
            }
        case .bool(let storage):
            if case .bool(let flag) = value {
                Column.append(value, raw: flag, to: storage, optional: optional)
            } else {
                Column.append(value, raw: false, to: storage, optional: optional)
            }
        case .value(let storage):
            storage.values.append(value)
        }
    }

    func reserveCapacity(_ count: Int, optional: Bool) {
        switch self {
        case .int(let storage): storage.values.reserveCapacity(count); if optional { storage.nulls.reserveCapacity(count) }
        case .double(let storage): storage.values.reserveCapacity(count); if optional { storage.nulls.reserveCapacity(count) }
        case .string(let storage): storage.values.reserveCapacity(count); if optional { storage.nulls.reserveCapacity(count) }
        case .bool(let storage): storage.values.reserveCapacity(count); if optional { storage.nulls.reserveCapacity(count) }
        case .value(let storage): storage.values.reserveCapacity(count)
        }
    }

    private static func rawInt(_ value: Value) -> Int64 {
        switch value {
        case .int(let v): return v
        case .uint(let v): return Int64(bitPattern: v)
        default: return 0
        }
    }

    /// A Float kept bit for bit in a Double slot.
    static func raw(float: Float) -> Double { Double(bitPattern: UInt64(float.bitPattern)) }
    static func float(fromRaw raw: Double) -> Float { Float(bitPattern: UInt32(truncatingIfNeeded: raw.bitPattern)) }

    private static func rawDouble(_ value: Value) -> Double {
        switch value {
        case .double(let v): return v
        case .float(let v): return Column.raw(float: v)
        case .date(let v): return v.timeIntervalSinceReferenceDate
        default: return 0
        }
    }

    private static func store<T>(_ value: Value, raw: T, in storage: ColumnStorage<T>, at row: Int) {
        storage.values[row] = raw
        if !storage.nulls.isEmpty { storage.nulls[row] = value == .null }
        if !storage.blobs.isEmpty { storage.blobs[row] = nil }
    }

    private static func append<T>(_ value: Value, raw: T, to storage: ColumnStorage<T>, optional: Bool) {
        storage.values.append(raw)
        if optional { storage.nulls.append(value == .null) }
    }
}
