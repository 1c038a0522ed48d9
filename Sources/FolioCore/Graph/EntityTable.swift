/// All objects of one entity: identifiers, liveness, attribute columns and links.
///
/// Rows are never reused within a graph's life: a deleted object's row keeps
/// its values (so a deleted model can still be read) and is revived by undo.
final class EntityTable {
    // Unchecked: hot per-object paths (see ColumnStorage); no access overlaps another.
    @exclusivity(unchecked) var ids: [UInt64] = []
    @exclusivity(unchecked) var isLive: [Bool] = []
    @exclusivity(unchecked) private(set) var liveCount = 0
    let columns: [Column]
    /// Parallel to the layout's links: declared relationships, then hidden inverses.
    let links: [LinkColumn]

    init(layout: SchemaLayout.EntityLayout) {
        columns = layout.attributes.map(Column.init(for:))
        links = layout.links.map { LinkColumn(isToMany: $0.isToMany, isOptional: $0.isOptional) }
    }

    /// A deep copy (arrays copy on write).
    init(copying other: EntityTable) {
        ids = other.ids
        isLive = other.isLive
        liveCount = other.liveCount
        columns = other.columns.map { $0.copy() }
        links = other.links.map { $0.copy() }
    }

    /// The same rows with the link columns in another order (new slot `i`
    /// holds old slot `order[i]`), for a graph whose entities were reordered.
    /// Shares the storage: `other` must not be used afterwards.
    init(moving other: EntityTable, linkOrder order: [Int]) {
        ids = other.ids
        isLive = other.isLive
        liveCount = other.liveCount
        columns = other.columns
        links = order.map { other.links[$0] }
    }

    var rowCount: Int { ids.count }

    /// Adds a row with the given identifier; attribute values must be appended by the caller.
    func appendRow(id: UInt64) -> Int {
        ids.append(id)
        isLive.append(true)
        liveCount += 1
        for link in links { link.appendEmpty() }
        return ids.count - 1
    }

    /// Adds `count` live rows at once, identifiers 0 and links empty, for a
    /// loader that then writes each row's identifier and values in place (the
    /// caller appends as many cells to every column). O(count).
    func appendRows(_ count: Int) {
        guard count > 0 else { return }
        // Repeated, not a temporary array: the loader adds a million rows at once.
        ids.append(contentsOf: repeatElement(0, count: count))
        isLive.append(contentsOf: repeatElement(true, count: count))
        liveCount += count
        for link in links { link.appendEmpty(count) }
    }

    /// Removes the last `count` rows, which no index or link refers to (a
    /// loader's rows sized ahead and not filled; the caller trims the columns).
    func removeLastRows(_ count: Int) {
        guard count > 0 else { return }
        liveCount -= isLive.suffix(count).lazy.filter { $0 }.count
        ids.removeLast(count)
        isLive.removeLast(count)
        for link in links { link.removeLast(count) }
    }

    func setLive(_ live: Bool, row: Int) {
        guard isLive[row] != live else { return }
        isLive[row] = live
        liveCount += live ? 1 : -1
    }
}

/// One relationship's destinations for every row: a row number in the
/// destination table (to-one, -1 for none) or an ordered list of them (to-many).
///
/// An optional to-many (`[Tag]?`) also tells "no collection" (`nil`) from an
/// empty one: `absent` is set for a row that holds none, whose list is then
/// always empty. Linking an object into the list, from either side, gives the
/// row a collection; unlinking never takes it away.
final class LinkColumn {
    let isToMany: Bool
    let isOptional: Bool
    @exclusivity(unchecked) var one: [Int32] = []
    @exclusivity(unchecked) var many: [[Int32]] = []
    /// For an optional to-many: whether each row holds no collection. Empty otherwise.
    @exclusivity(unchecked) var absent: [Bool] = []

    init(isToMany: Bool, isOptional: Bool = false) {
        self.isToMany = isToMany
        self.isOptional = isToMany && isOptional
    }

    func copy() -> LinkColumn {
        let copy = LinkColumn(isToMany: isToMany, isOptional: isOptional)
        copy.one = one
        copy.many = many
        copy.absent = absent
        return copy
    }

    /// A new row holds nothing: no object for a to-one, no collection for an
    /// optional to-many, an empty list for any other to-many.
    func appendEmpty() {
        if isToMany { many.append([]) } else { one.append(-1) }
        if isOptional { absent.append(true) }
    }

    /// ``appendEmpty()`` for `count` rows at once.
    func appendEmpty(_ count: Int) {
        if isToMany { many.append(contentsOf: repeatElement([], count: count)) } else { one.append(contentsOf: repeatElement(-1, count: count)) }
        if isOptional { absent.append(contentsOf: repeatElement(true, count: count)) }
    }

    /// Removes the last `count` rows' links.
    func removeLast(_ count: Int) {
        if isToMany { many.removeLast(count) } else { one.removeLast(count) }
        if isOptional { absent.removeLast(count) }
    }

    func reserveCapacity(_ count: Int) {
        if isToMany { many.reserveCapacity(count) } else { one.reserveCapacity(count) }
        if isOptional { absent.reserveCapacity(count) }
    }

    /// Whether a row holds no collection (`nil`): only ever for an optional to-many.
    func isAbsent(_ row: Int) -> Bool { isOptional && absent[row] }

    /// Gives a row no collection (`true`, its list must be empty) or one; does
    /// nothing unless the relationship is an optional to-many.
    func setAbsent(_ flag: Bool, row: Int) {
        if isOptional, absent[row] != flag { absent[row] = flag }
    }

    /// Calls `body` with each destination row of a row, in order, without
    /// allocating an array for a to-one.
    @inline(__always)
    func forEachTarget(of row: Int, _ body: (Int32) -> Void) {
        if isToMany {
            for target in many[row] { body(target) }
        } else if one[row] >= 0 {
            body(one[row])
        }
    }

    /// The destination rows of a row, in order.
    func targets(of row: Int) -> [Int32] {
        if isToMany { return many[row] }
        let target = one[row]
        return target < 0 ? [] : [target]
    }

    func contains(_ target: Int32, in row: Int) -> Bool {
        isToMany ? many[row].contains(target) : one[row] == target
    }

    func add(_ target: Int32, to row: Int) {
        if isToMany { many[row].append(target) } else { one[row] = target }
        setAbsent(false, row: row)
    }

    func remove(_ target: Int32, from row: Int) {
        if isToMany {
            if let index = many[row].lastIndex(of: target) { many[row].remove(at: index) }
        } else if one[row] == target {
            one[row] = -1
        }
    }
}

extension EntityTable {
    func copy() -> EntityTable {
        EntityTable(copying: self)
    }
}
