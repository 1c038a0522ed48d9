import Foundation

/// A test a declared index can answer: an attribute of the fetched entity
/// compared with a constant. A fetch hands the graph the terms of its
/// predicate's top-level conjunction; the predicate still checks every
/// candidate the index yields.
struct IndexTerm: Hashable, Sendable {
    enum Comparison: Hashable, Sendable {
        case equal, less, lessOrEqual, greater, greaterOrEqual
    }

    var attribute: Int
    var comparison: Comparison
    var constant: Value
}

/// The declared indexes (``AttributeIndex``): built on first use, then kept
/// current by the graph's primitives — the only places an attribute value or
/// an object's liveness changes — so no caller above the graph maintains them.
///
/// - ``insertObject(entity:values:id:)`` adds the new row;
/// - ``setValue(_:_:_:)`` (every attribute write: the API, the typed setters,
///   undo and redo through ``setStored(_:_:_:)``, merges) moves the row with
///   ``reindexing(_:attribute:_:)``;
/// - ``removeObjects(_:)`` takes the removed rows out (a cascade is one call);
///   ``restore(_:)``, ``restoreRebased(_:)`` and ``revive(_:)`` put them back.
///
/// A graph's copy (a save's published state, a context's checkout) shares the
/// indexes copy-on-write; the first edit of either copies one chunk.
/// Migration and loading make a new graph, whose indexes are built when first
/// used.
extension ObjectGraph {
    /// The rows of an entity that may match a conjunction containing `terms`,
    /// in row order (a scan's order), from the declared index that serves the
    /// most of them; `nil` when no index serves any.
    ///
    /// An index over `[a, b, c]` serves equality on `a`, then on `b`… and a
    /// range (one lower and one upper bound) on the first attribute not tested
    /// for equality. Every object matching the terms is among the candidates.
    ///
    /// - Parameter building: whether an index not yet built may be built now
    ///   (O(n log n)); `false` for a graph shared with other threads (a saved
    ///   state), which is never edited.
    /// - Complexity: O(log n + candidates × log candidates) once built.
    func indexedRows(entity: Int, terms: [IndexTerm], building: Bool = true) -> [ObjectRef]? {
        guard !terms.isEmpty, !layout.entities[entity].indexes.isEmpty else { return nil }
        let attributes = layout.entities[entity].attributes
        let usable = terms.filter { Self.isIndexable($0, type: attributes[$0.attribute].type) }
        var best: (plan: IndexPlan, score: Int)?
        for index in layout.entities[entity].indexes {
            let plan = IndexPlan(index: index, terms: usable)
            let score = plan.equalities.count * 2 + (plan.hasRange ? 1 : 0)
            if score > 0, score > (best?.score ?? 0) { best = (plan, score) }
        }
        guard let plan = best?.plan else { return nil }
        let key = AttributeIndexKey(entity: entity, attributes: plan.index)
        if attributeIndexes[key] == nil {
            guard building else { return nil }
            attributeIndexes[key] = scannedAttributeIndex(key)
        }
        guard let index = attributeIndexes[key] else { return nil }
        let order = AttributeOrder(graph: self, entity: entity, attributes: plan.index)
        let equalities = plan.equalities
        let ranged = equalities.count
        let start = index.partitionPoint { row in
            let prefix = order.compare(row, to: equalities)
            if prefix != 0 { return prefix > 0 }
            guard plan.hasRange else { return true }
            if order.unordered[ranged](row) { return false }
            guard let lower = plan.lower else { return true }
            let side = order.constants[ranged](row, lower.value)
            return lower.inclusive ? side >= 0 : side > 0
        }
        let end = index.partitionPoint { row in
            let prefix = order.compare(row, to: equalities)
            if prefix != 0 { return prefix > 0 }
            guard plan.hasRange else { return false }
            if order.unordered[ranged](row) { return false }
            guard let upper = plan.upper else { return false }
            let side = order.constants[ranged](row, upper.value)
            return upper.inclusive ? side > 0 : side >= 0
        }
        var rows = index.rows(from: start, to: end)
        // Rows with the whole key equal are already in row order.
        if plan.hasRange || equalities.count < plan.index.count { rows.sort() }
        return rows.map { ObjectRef(entity: entity, row: Int($0)) }
    }

    /// Whether an index can order rows against a term's constant exactly as
    /// predicates compare it: a constant of the attribute's kind (numbers of
    /// any type against numbers), never NaN; `nil` only for equality.
    static func isIndexable(_ term: IndexTerm, type: ValueType) -> Bool {
        let constant = term.constant
        if constant == .null { return term.comparison == .equal }
        if let number = constant.numeric, number.isNaN { return false }
        switch (type, constant) {
        case (_, .int), (_, .uint), (_, .double), (_, .float):
            return type.integerRange != nil || type.unsignedMax != nil || type == .double || type == .float
        case (.string, .string), (.bool, .bool), (.uuid, .uuid), (.url, .url), (.data, .data), (.decimal, .decimal):
            return true
        case (.date, .date(let date)):
            return !date.timeIntervalSinceReferenceDate.isNaN
        default:
            return false
        }
    }

    // MARK: Keeping the indexes current

    /// An index made from the live rows, as on first use; also what the
    /// invariant check compares a kept index with, there by the general order
    /// only (`fast: false`), so the fast sort is checked against it. O(n log n).
    func scannedAttributeIndex(_ key: AttributeIndexKey, fast: Bool = true) -> AttributeIndex {
        let table = tables[key.entity]
        var rows: [Int32] = []
        rows.reserveCapacity(table.liveCount)
        for row in 0..<table.rowCount where table.isLive[row] { rows.append(Int32(row)) }
        let order = AttributeOrder(graph: self, entity: key.entity, attributes: key.attributes)
        guard fast else { return AttributeIndex(rows: rows, order: order) }
        let columns = key.attributes.map { (column: table.columns[$0], type: layout.entities[key.entity].attributes[$0].type) }
        let sorted =
            columns.count == 1
            ? AttributeIndex.sortedRows(rows, column: columns[0].column, type: columns[0].type)
            : AttributeIndex.sortedRows(rows, columns: columns, rowCount: table.rowCount, order: order)
        return sorted.map(AttributeIndex.init(sorted:)) ?? AttributeIndex(rows: rows, order: order)
    }

    /// Puts a live row in every built index of its entity.
    func attributeIndexAdd(_ ref: ObjectRef) {
        for key in attributeIndexKeys(of: ref) {
            let order = AttributeOrder(graph: self, entity: key.entity, attributes: key.attributes)
            attributeIndexes[key]?.insert(ref.row, order: order)
        }
    }

    /// Takes a row out of every built index of its entity, while its values are those it went in with.
    func attributeIndexRemove(_ ref: ObjectRef) {
        for key in attributeIndexKeys(of: ref) {
            let order = AttributeOrder(graph: self, entity: key.entity, attributes: key.attributes)
            attributeIndexes[key]?.remove(ref.row, order: order)
        }
    }

    /// Runs `edit`, which changes one attribute of `ref`, moving a live object
    /// to its new place in every built index over that attribute. O(1) when
    /// none is built; else O(log n) per index.
    func reindexing(_ ref: ObjectRef, attribute: Int, _ edit: () -> Void) {
        guard !attributeIndexes.isEmpty, layout.entities[Int(ref.entity)].indexes.contains(where: { $0.contains(attribute) }),
            isLive(ref)
        else { return edit() }
        let keys = attributeIndexKeys(of: ref).filter { $0.attributes.contains(attribute) }
        guard !keys.isEmpty else { return edit() }
        for key in keys {
            attributeIndexes[key]?.remove(ref.row, order: AttributeOrder(graph: self, entity: key.entity, attributes: key.attributes))
        }
        edit()
        for key in keys {
            attributeIndexes[key]?.insert(ref.row, order: AttributeOrder(graph: self, entity: key.entity, attributes: key.attributes))
        }
    }

    /// The keys of the indexes built for the object's entity, as an array (a
    /// loop over the dictionary itself would share its storage while an index
    /// in it is edited, copying that index on every edit).
    func attributeIndexKeys(of ref: ObjectRef) -> [AttributeIndexKey] {
        attributeIndexes.isEmpty ? [] : attributeIndexes.keys.filter { $0.entity == Int(ref.entity) }
    }

    /// What is wrong with the built indexes: each must hold exactly the live
    /// rows, in the order a fresh build gives. For tests and debug checks.
    func attributeIndexViolations() -> [String] {
        attributeIndexes.compactMap { key, kept in
            guard kept.allRows != scannedAttributeIndex(key, fast: false).allRows || kept.count != tables[key.entity].liveCount
            else { return nil }
            let names = key.attributes.map { layout.entities[key.entity].attributes[$0].name }.joined(separator: ", ")
            return "the index of \(layout.entities[key.entity].name) (\(names)) disagrees with the tables"
        }
    }
}

/// What one declared index can do for a set of terms: equality on its first
/// attributes, then at most one range on the next.
private struct IndexPlan {
    var index: [Int]
    var equalities: [Value] = []
    var lower: (value: Value, inclusive: Bool)?
    var upper: (value: Value, inclusive: Bool)?
    var hasRange: Bool { lower != nil || upper != nil }

    init(index: [Int], terms: [IndexTerm]) {
        self.index = index
        for attribute in index {
            let mine = terms.filter { $0.attribute == attribute }
            if let equal = mine.first(where: { $0.comparison == .equal }) {
                equalities.append(equal.constant)
                continue
            }
            for term in mine {
                switch term.comparison {
                case .greater where lower == nil: lower = (term.constant, false)
                case .greaterOrEqual where lower == nil: lower = (term.constant, true)
                case .less where upper == nil: upper = (term.constant, false)
                case .lessOrEqual where upper == nil: upper = (term.constant, true)
                default: break
                }
            }
            break
        }
    }
}
