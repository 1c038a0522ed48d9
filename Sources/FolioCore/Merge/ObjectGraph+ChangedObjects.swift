import Foundation

/// Which objects two versions of a document hold differently, found on the
/// columns: what lets a merge build ``ObjectState``s for the edited objects
/// only, not for every object of three documents.
extension ObjectGraph {
    /// The identifiers of the objects whose ``objectState(_:)`` may differ
    /// between `base` and this graph: live in one and not the other, or live
    /// in both with a stored attribute or a declared relationship that may
    /// differ. Every object whose state differs is named; a few whose states
    /// are equal may be too (a double's `-0.0` and `0.0`, one value in two
    /// unread blobs of different names), which costs their states, never a
    /// wrong merge.
    ///
    /// Cells are compared as ``CellMerge/sameWithoutReading(_:_:)`` does, on
    /// the typed columns (no ``Value`` made per row, no blob read);
    /// relationships by their destinations' identifiers, in order, and their
    /// lack of a collection.
    ///
    /// - Returns: `nil` when the graphs cannot be compared column by column:
    ///   their layouts differ (entities, stored attributes or relationships
    ///   by name and type), or one identifier names objects of two entities.
    /// - Complexity: O(rows × (stored attributes + links)) of both graphs,
    ///   with no allocation per object.
    func changedIdentifiers(since base: ObjectGraph) -> Set<UInt64>? {
        guard layout.entities.count == base.layout.entities.count else { return nil }
        var changed = Set<UInt64>()
        for (entity, entityLayout) in layout.entities.enumerated() {
            guard let baseEntity = base.layout.entityIndex[entityLayout.name],
                let pairs = matchedRows(entity: entity, in: base, baseEntity: baseEntity, changed: &changed),
                let differs = differences(pairs, entity: entity, in: base, baseEntity: baseEntity)
            else { return nil }
            let ids = tables[entity].ids
            for index in differs.indices where differs[index] { changed.insert(ids[Int(pairs.rows[index])]) }
        }
        return changed
    }

    /// The live rows of an entity that both graphs hold (by identifier), as
    /// parallel row numbers; identifiers live in only one of them go to
    /// `changed`. `nil` when an identifier names another entity in the other graph.
    private func matchedRows(entity: Int, in base: ObjectGraph, baseEntity: Int, changed: inout Set<UInt64>)
        -> (baseRows: [Int32], rows: [Int32])?
    {
        let (table, baseTable) = (tables[entity], base.tables[baseEntity])
        var (baseRows, rows): ([Int32], [Int32]) = ([], [])
        baseRows.reserveCapacity(baseTable.liveCount)
        rows.reserveCapacity(baseTable.liveCount)
        // Two versions of one document keep their objects in one order, give or take
        // the edits: the row after the last one matched is tried before a lookup.
        var next = 0
        for baseRow in 0..<baseTable.rowCount where baseTable.isLive[baseRow] {
            let id = baseTable.ids[baseRow]
            var row = next
            if row >= table.rowCount || table.ids[row] != id {
                guard let ref = index[id] else {
                    changed.insert(id)
                    continue
                }
                guard Int(ref.entity) == entity else { return nil }
                row = Int(ref.row)
            }
            next = row + 1
            guard table.isLive[row] else {
                changed.insert(id)
                continue
            }
            baseRows.append(Int32(baseRow))
            rows.append(Int32(row))
        }
        next = 0
        for row in 0..<table.rowCount where table.isLive[row] {
            let id = table.ids[row]
            if next < baseTable.rowCount, baseTable.ids[next] == id {
                if !baseTable.isLive[next] { changed.insert(id) }
                next += 1
                continue
            }
            guard let ref = base.index[id] else {
                changed.insert(id)
                continue
            }
            guard Int(ref.entity) == baseEntity else { return nil }
            next = Int(ref.row) + 1
            if !base.isLive(ref) { changed.insert(id) }
        }
        return (baseRows, rows)
    }

    /// For each matched pair of rows, whether a stored attribute or a
    /// declared relationship may differ. `nil` when the layouts differ.
    private func differences(
        _ pairs: (baseRows: [Int32], rows: [Int32]), entity: Int, in base: ObjectGraph,
        baseEntity: Int
    ) -> [Bool]? {
        let (entityLayout, baseLayout) = (layout.entities[entity], base.layout.entities[baseEntity])
        let (table, baseTable) = (tables[entity], base.tables[baseEntity])
        guard entityLayout.attributes.count == baseLayout.attributes.count,
            entityLayout.declaredLinkCount == baseLayout.declaredLinkCount
        else { return nil }
        var differs = [Bool](repeating: false, count: pairs.rows.count)
        for (index, attribute) in entityLayout.attributes.enumerated() {
            guard let baseIndex = baseLayout.attributeIndex[attribute.name],
                baseLayout.attributes[baseIndex].type == attribute.type,
                baseLayout.attributes[baseIndex].isTransient == attribute.isTransient
            else { return nil }
            if attribute.isTransient { continue }
            guard
                ColumnDifference.mark(
                    baseTable.columns[baseIndex], pairs.baseRows, table.columns[index], pairs.rows,
                    into: &differs)
            else { return nil }
        }
        for slot in 0..<entityLayout.declaredLinkCount {
            let link = entityLayout.links[slot]
            guard let baseSlot = baseLayout.linkIndex[link.name ?? ""], baseSlot < baseLayout.declaredLinkCount else { return nil }
            let baseLink = baseLayout.links[baseSlot]
            guard link.isToMany == baseLink.isToMany, link.isOptional == baseLink.isOptional,
                layout.entities[link.destination].name == base.layout.entities[baseLink.destination].name
            else { return nil }
            if link.hierarchy == nil, baseLink.hierarchy == nil {
                ColumnDifference.mark(
                    baseTable.links[baseSlot], pairs.baseRows, base.tables[baseLink.destination].ids,
                    table.links[slot], pairs.rows, tables[link.destination].ids, into: &differs)
            } else {
                // Into a hierarchy: each target names its entity, so its identifier is looked up per target.
                ColumnDifference.mark(
                    baseTable.links[baseSlot], pairs.baseRows, { base.identifier(of: baseLink.ref($0)) },
                    table.links[slot], pairs.rows, { self.identifier(of: link.ref($0)) }, into: &differs)
            }
        }
        return differs
    }
}

/// The column comparisons of ``ObjectGraph/changedIdentifiers(since:)``:
/// typed arrays compared in place, by the rules of ``Value``'s equality.
enum ColumnDifference {
    /// Marks each pair of rows (`rows` of `column` against `baseRows` of
    /// `baseColumn`) whose cells may differ, skipping pairs already marked.
    /// Returns `false` when the columns are of different kinds.
    static func mark(
        _ baseColumn: Column, _ baseRows: [Int32], _ column: Column, _ rows: [Int32],
        into differs: inout [Bool]
    ) -> Bool {
        switch (baseColumn, column) {
        case (.int(let a), .int(let b)): mark(a, baseRows, b, rows, &differs) { $0 == $1 }
        // Bit patterns, as Value compares doubles, floats and dates.
        case (.double(let a), .double(let b)): mark(a, baseRows, b, rows, &differs) { $0.bitPattern == $1.bitPattern }
        case (.string(let a), .string(let b)): mark(a, baseRows, b, rows, &differs, same: sameScalars)
        case (.bool(let a), .bool(let b)): mark(a, baseRows, b, rows, &differs) { $0 == $1 }
        case (.value(let a), .value(let b)): mark(a, baseRows, b, rows, &differs) { $0 == $1 }
        default: return false
        }
        return true
    }

    private static func mark<Element>(
        _ a: ColumnStorage<Element>, _ baseRows: [Int32], _ b: ColumnStorage<Element>,
        _ rows: [Int32], _ differs: inout [Bool], same: (Element, Element) -> Bool
    ) {
        let (aNulls, bNulls) = (!a.nulls.isEmpty, !b.nulls.isEmpty)
        let blobs = !a.blobs.isEmpty || !b.blobs.isEmpty
        for index in differs.indices where !differs[index] {
            let (x, y) = (Int(baseRows[index]), Int(rows[index]))
            if blobs {
                let (p, q) = (a.blobs[x], b.blobs[y])
                if p != nil || q != nil {
                    // One file (or one name, which carries the content's hash): equal without reading.
                    if let p, let q, p === q || p.name == q.name { continue }
                    differs[index] = true
                    continue
                }
            }
            let (xNull, yNull) = (aNulls && a.nulls[x], bNulls && b.nulls[y])
            if xNull || yNull {
                if xNull != yNull { differs[index] = true }
                continue
            }
            if !same(a.values[x], b.values[y]) { differs[index] = true }
        }
    }

    /// Whether two strings hold the same Unicode scalars, as ``Value`` compares
    /// them (`String`'s `==` compares by canonical equivalence): their UTF-8 bytes.
    static func sameScalars(_ a: String, _ b: String) -> Bool {
        var (a, b) = (a, b)
        return a.withUTF8 { x in
            b.withUTF8 { y in
                guard x.count == y.count else { return false }
                guard let p = x.baseAddress, let q = y.baseAddress else { return true }
                return memcmp(p, q, x.count) == 0
            }
        }
    }

    /// The link `mark` below, for a relationship whose stored targets name objects of several entities:
    /// `baseID` and `id` give the identifier a stored target names.
    static func mark(
        _ baseColumn: LinkColumn, _ baseRows: [Int32], _ baseID: (Int32) -> UInt64, _ column: LinkColumn,
        _ rows: [Int32], _ id: (Int32) -> UInt64, into differs: inout [Bool]
    ) {
        for index in differs.indices where !differs[index] {
            let (x, y) = (Int(baseRows[index]), Int(rows[index]))
            if baseColumn.isAbsent(x) != column.isAbsent(y) {
                differs[index] = true
            } else if column.isToMany {
                let (a, b) = (baseColumn.many[x], column.many[y])
                if a.count != b.count || !zip(a, b).allSatisfy({ baseID($0) == id($1) }) { differs[index] = true }
            } else {
                let (a, b) = (baseColumn.one[x], column.one[y])
                if (a < 0) != (b < 0) || (a >= 0 && baseID(a) != id(b)) { differs[index] = true }
            }
        }
    }

    /// Marks each pair of rows whose relationship holds other destinations
    /// (by identifier, in order) or differs in holding a collection at all.
    static func mark(
        _ baseColumn: LinkColumn, _ baseRows: [Int32], _ baseIDs: [UInt64], _ column: LinkColumn,
        _ rows: [Int32], _ ids: [UInt64], into differs: inout [Bool]
    ) {
        for index in differs.indices where !differs[index] {
            let (x, y) = (Int(baseRows[index]), Int(rows[index]))
            if baseColumn.isAbsent(x) != column.isAbsent(y) {
                differs[index] = true
            } else if column.isToMany {
                let (a, b) = (baseColumn.many[x], column.many[y])
                if a.count != b.count || !zip(a, b).allSatisfy({ baseIDs[Int($0)] == ids[Int($1)] }) { differs[index] = true }
            } else {
                let (a, b) = (baseColumn.one[x], column.one[y])
                if (a < 0) != (b < 0) || (a >= 0 && baseIDs[Int(a)] != ids[Int(b)]) { differs[index] = true }
            }
        }
    }
}
