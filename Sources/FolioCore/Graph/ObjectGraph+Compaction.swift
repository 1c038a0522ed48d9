/// A graph's rows put in the order a graph read from a package has: live
/// objects only, each entity's by ascending identifier.
extension ObjectGraph {
    /// Rewrites the tables to hold the live objects only, each entity's rows
    /// in ascending identifier order, as a graph built by inserting its
    /// objects in that order holds them (a merge edits a copy of ours in
    /// place, then gives the rows the merge of every object gives).
    ///
    /// Values, relationship lists (in their order) and collections kept as
    /// they are; deleted objects are forgotten (their identifiers no longer
    /// found); hidden inverses list their objects in ascending order, as links
    /// made object by object in identifier order leave them. Unique and
    /// declared indexes are dropped, to be built again on first use.
    ///
    /// - Complexity: O(rows + links) of each entity whose rows move or whose
    ///   links reach rows that move, plus O(rows) to index the identifiers
    ///   when any moved; nothing when every table is already in that order.
    func compactInIdentifierOrder() {
        // Per entity: its live rows in their new order, `nil` for a table already in it.
        let orders = tables.map { table -> [Int32]? in
            if table.liveCount == table.rowCount, Self.isAscending(table.ids) { return nil }
            var rows = (0..<table.rowCount).filter { table.isLive[$0] }.map { Int32($0) }
            let ids = table.ids
            rows.sort { ids[Int($0)] < ids[Int($1)] }
            return rows
        }
        // Per entity that moves: each old row's new row (-1 for a deleted one).
        let newRows = orders.enumerated().map { entity, order -> [Int32]? in
            guard let order else { return nil }
            var map = [Int32](repeating: -1, count: tables[entity].rowCount)
            for (new, old) in order.enumerated() { map[Int(old)] = Int32(new) }
            return map
        }
        let moved = newRows.contains { $0 != nil }
        for entity in tables.indices {
            let links = layout.entities[entity].links
            let maps = links.map { link in
                link.hierarchy.flatMap { hierarchyMap($0, newRows) } ?? newRows[link.destination]
            }
            if let order = orders[entity] {
                tables[entity] = gathered(entity, rows: order, linkMaps: maps)
            } else {
                for (slot, map) in maps.enumerated() {
                    if let map { Self.remap(tables[entity].links[slot], map) }
                }
            }
            for (slot, link) in links.enumerated() where link.isHidden {
                let column = tables[entity].links[slot]
                for row in column.many.indices where !Self.isAscending(column.many[row]) { column.many[row].sort() }
            }
        }
        guard moved else { return }
        var index = IdentifierIndex()
        for (entity, table) in tables.enumerated() {
            for (row, id) in table.ids.enumerated() { index[id] = ObjectRef(entity: entity, row: row) }
        }
        self.index = index
        uniqueIndexes = [:]
        attributeIndexes = [:]
    }

    /// For a relationship into a hierarchy, each stored target's new stored
    /// target (indexed by the old one), or `nil` when no member's rows move:
    /// the member bits stay, the row is renumbered.
    private func hierarchyMap(_ hierarchy: SchemaLayout.LinkHierarchy, _ newRows: [[Int32]?]) -> [Int32]? {
        guard hierarchy.members.contains(where: { newRows[Int($0)] != nil }) else { return nil }
        let rows = hierarchy.members.map { tables[Int($0)].rowCount }.max() ?? 0
        var map = [Int32](repeating: -1, count: rows << Int(hierarchy.shift))
        for (member, entity) in hierarchy.members.enumerated() {
            let memberRows = newRows[Int(entity)]
            for row in 0..<tables[Int(entity)].rowCount {
                let new = memberRows.map { $0[row] } ?? Int32(row)
                map[row << Int(hierarchy.shift) | member] = new < 0 ? -1 : new << hierarchy.shift | Int32(member)
            }
        }
        return map
    }

    /// A new table of an entity holding `rows` of its table, in that order,
    /// each link's destination rows renumbered by `linkMaps` (nil: unchanged).
    private func gathered(_ entity: Int, rows: [Int32], linkMaps: [[Int32]?]) -> EntityTable {
        let old = tables[entity]
        let table = EntityTable(layout: layout.entities[entity])
        table.appendRows(rows.count)
        table.ids = rows.map { old.ids[Int($0)] }
        for (index, column) in old.columns.enumerated() { column.gather(rows, into: table.columns[index]) }
        for (slot, column) in old.links.enumerated() {
            let (target, map) = (table.links[slot], linkMaps[slot])
            if column.isToMany {
                target.many = rows.map { row in
                    let list = column.many[Int(row)]
                    guard let map else { return list }
                    return list.map { map[Int($0)] }
                }
            } else {
                target.one = rows.map { row in
                    let destination = column.one[Int(row)]
                    guard destination >= 0, let map else { return destination }
                    return map[Int(destination)]
                }
            }
            if column.isOptional { target.absent = rows.map { column.absent[Int($0)] } }
        }
        return table
    }

    /// Renumbers a link column's destination rows in place.
    private static func remap(_ column: LinkColumn, _ map: [Int32]) {
        if column.isToMany {
            for row in column.many.indices where !column.many[row].isEmpty {
                column.many[row] = column.many[row].map { map[Int($0)] }
            }
        } else {
            for row in column.one.indices where column.one[row] >= 0 { column.one[row] = map[Int(column.one[row])] }
        }
    }

    private static func isAscending<T: Comparable>(_ values: [T]) -> Bool {
        var previous: T?
        for value in values {
            if let previous, previous >= value { return false }
            previous = value
        }
        return true
    }
}

extension Column {
    /// Fills `target`, an empty column of the same kind, with the cells of
    /// `rows`, in that order: values, nil marks and blobs still on disk.
    func gather(_ rows: [Int32], into target: Column) {
        switch (self, target) {
        case (.int(let a), .int(let b)): Self.gather(a, rows, into: b)
        case (.double(let a), .double(let b)): Self.gather(a, rows, into: b)
        case (.string(let a), .string(let b)): Self.gather(a, rows, into: b)
        case (.bool(let a), .bool(let b)): Self.gather(a, rows, into: b)
        case (.value(let a), .value(let b)): Self.gather(a, rows, into: b)
        default: break  // one attribute's columns are always of one kind
        }
    }

    private static func gather<Element>(_ source: ColumnStorage<Element>, _ rows: [Int32], into target: ColumnStorage<Element>) {
        target.values = rows.map { source.values[Int($0)] }
        if !source.nulls.isEmpty { target.nulls = rows.map { source.nulls[Int($0)] } }
        if !source.blobs.isEmpty {
            var blobs: [Int: LazyBlob] = [:]
            for (new, old) in rows.enumerated() { if let blob = source.blobs[Int(old)] { blobs[new] = blob } }
            target.blobs = blobs
        }
    }
}
