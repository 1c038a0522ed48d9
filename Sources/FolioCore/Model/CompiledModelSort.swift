import Foundation

/// `SortDescriptor`s over a model class, applied to the graph's rows instead
/// of to model instances.
///
/// Foundation's `sort(using:)` projects both key paths through the models'
/// getters on every comparison. Compiled, each key is read once per row
/// from the attribute's column, then compared as `SortDescriptor` compares:
/// `Comparable` order (Swift's String order, not byte order), or the
/// descriptor's string comparator, `nil` first, ties in insertion order.
/// A descriptor on anything else (a relationship path, a `Codable`
/// composite, a computed property) leaves the whole sort to Foundation:
/// `init` returns `nil`.
struct CompiledModelSort {
    private enum Comparison {
        case comparable
        case string(String.StandardComparator)
    }

    private let entity: Int
    private let keys: [(attribute: Int, type: ValueType, isOptional: Bool, comparison: Comparison, ascending: Bool)]

    init?<T: PersistentModel>(_ descriptors: [SortDescriptor<T>], entity: Int, graph: ObjectGraph) {
        let metadata = ModelMetadata.of(T.self)
        let layout = graph.layout.entities[entity]
        var keys: [(attribute: Int, type: ValueType, isOptional: Bool, comparison: Comparison, ascending: Bool)] = []
        for descriptor in descriptors {
            guard let keyPath = descriptor.keyPath, let property = metadata.property(for: keyPath),
                property.accepts == nil, case .attribute = property.kind,
                let attribute = layout.attributeIndex[property.name]
            else { return nil }
            let declared = layout.attributes[attribute]
            let comparison: Comparison
            if var comparator = descriptor.stringComparator {
                guard declared.type == .string else { return nil }
                // The descriptor's order is applied once, below.
                comparator.order = .forward
                comparison = .string(comparator)
            } else {
                // Types whose Swift `<` is the order `Value.compare` gives.
                guard
                    declared.type.integerRange != nil || declared.type.unsignedMax != nil
                        || [.double, .float, .date, .string, .decimal, .uuid].contains(declared.type)
                else { return nil }
                comparison = .comparable
            }
            keys.append((attribute, declared.type, declared.isOptional, comparison, descriptor.order == .forward))
        }
        self.entity = entity
        self.keys = keys
    }

    /// The rows in the descriptors' order, or `nil` when a stored value is not
    /// what the property's type reads (only the getter can say how it reads).
    func sorted(_ rows: [ObjectRef], graph: ObjectGraph) -> [ObjectRef]? {
        guard let columns = keyColumns(rows, graph: graph) else { return nil }
        return SortKeyColumn.sort(rows, by: columns)
    }

    /// How `a` and `b` compare under the descriptors (`.orderedSame` for a tie),
    /// read and compared exactly as ``sorted(_:graph:)`` does; `nil` when a
    /// stored value is not what the property's type reads. O(keys).
    func order(_ a: ObjectRef, _ b: ObjectRef, graph: ObjectGraph) -> ComparisonResult? {
        guard let columns = keyColumns([a, b], graph: graph) else { return nil }
        var buffers: [UnsafeMutableRawPointer] = []
        defer { buffers.forEach { $0.deallocate() } }
        for key in columns {
            let result = key.column.comparator(ascending: key.ascending, buffers: &buffers)(0, 1)
            if result != .orderedSame { return result }
        }
        return .orderedSame
    }

    /// The attributes the descriptors read, by index in the entity.
    var attributes: Set<Int> { Set(keys.map(\.attribute)) }

    /// The sort keys of `rows`, one column per descriptor.
    private func keyColumns(_ rows: [ObjectRef], graph: ObjectGraph) -> [(column: SortKeyColumn, ascending: Bool)]? {
        var columns: [(column: SortKeyColumn, ascending: Bool)] = []
        for key in keys {
            let column: SortKeyColumn
            if key.type == .string {
                var strings: [String?] = []
                strings.reserveCapacity(rows.count)
                for ref in rows {
                    switch graph.value(ref, key.attribute) {
                    case .string(let text): strings.append(text)
                    case .null where key.isOptional: strings.append(nil)
                    default: return nil
                    }
                }
                if case .string(let comparator) = key.comparison {
                    column = .text(strings, comparator: comparator)
                } else {
                    column = .text(strings, comparator: nil)
                }
            } else if let typed = SortKeyColumn(graph.tables[entity].columns[key.attribute], type: key.type, rows: rows) {
                column = typed
            } else {
                let values = rows.map { graph.value($0, key.attribute) }
                if !key.isOptional, values.contains(.null) { return nil }
                column = SortKeyColumn(values)
            }
            columns.append((column, key.ascending))
        }
        return columns
    }
}
