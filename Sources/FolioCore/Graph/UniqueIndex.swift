/// A unique group of an entity: the key of one unique index.
struct UniqueKey: Hashable {
    var entity: Int
    var attributes: [Int]
}

/// The live rows of one entity by their values in a unique group.
///
/// Values are unique once saved, but between saves an edit may give two
/// objects the same values (the save then refuses). The index keeps every
/// holder, so that when one of them changes or goes, the other is still
/// found and an insert still updates it: one row per key in `first`, the
/// rare extra holders in `others`.
struct UniqueIndex {
    private var first: [[Value]: Int32] = [:]
    private var others: [[Value]: [Int32]] = [:]

    /// A live row holding `values`, if any.
    func row(for values: [Value]) -> Int32? { first[values] }

    /// Every live row holding `values`.
    func rows(for values: [Value]) -> [Int32] {
        guard let holder = first[values] else { return [] }
        return [holder] + (others[values] ?? [])
    }

    /// Every key with its holders, order aside: what two indexes over the
    /// same rows agree on (the invariant check compares a kept index with a
    /// fresh scan). O(keys).
    var holders: [[Value]: Set<Int32>] {
        first.reduce(into: [:]) { result, entry in
            result[entry.key] = Set([entry.value] + (others[entry.key] ?? []))
        }
    }

    mutating func add(_ values: [Value], row: Int32) {
        // One hash on the common path (a new key); a clash puts the first holder back.
        guard let holder = first.updateValue(row, forKey: values), holder != row else { return }
        first[values] = holder
        if others[values]?.contains(row) != true { others[values, default: []].append(row) }
    }

    mutating func remove(_ values: [Value], row: Int32) {
        if first[values] == row {
            if var rest = others[values], !rest.isEmpty {
                first[values] = rest.removeFirst()
                others[values] = rest.isEmpty ? nil : rest
            } else {
                first[values] = nil
            }
        } else if var rest = others[values], let position = rest.firstIndex(of: row) {
            rest.remove(at: position)
            others[values] = rest.isEmpty ? nil : rest
        }
    }
}
