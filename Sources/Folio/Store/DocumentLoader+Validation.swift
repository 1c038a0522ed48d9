/// What the schema promises about the whole document, checked once every object
/// is read and every link resolved: relationship counts and unique attributes.
///
/// A document Folio saved through a `ModelContext` already satisfies both (a
/// save validates counts, and inserts upsert on unique values); a file that
/// breaks them came from elsewhere and is refused, like any other malformed file.
extension DocumentLoader {
    /// Checks `minimum-count`/`maximum-count` of every relationship and the
    /// `unique` attributes of every entity. O(objects × constrained properties).
    func validateConstraints() throws(PackageError) {
        guard let graph else { return }
        for entity in graph.layout.entities.indices {
            try validateCounts(entity: entity, graph: graph)
            try validateUniqueness(entity: entity, graph: graph)
        }
    }

    /// A relationship with a minimum or maximum count must hold between them on
    /// every object; the same rule `ModelContext.save()` applies to the objects it
    /// saves. A to-one with `minimum-count="1"` is a required to-one.
    private func validateCounts(entity: Int, graph: ObjectGraph) throws(PackageError) {
        let declaration = graph.schema.entities[entity]
        let table = graph.tables[entity]
        for (slot, relationship) in declaration.relationships.enumerated()
        where relationship.minimumModelCount > 0 || relationship.maximumModelCount > 0 {
            let minimum = relationship.minimumModelCount
            let maximum = relationship.maximumModelCount
            let column = table.links[slot]
            for row in 0..<table.rowCount where table.isLive[row] {
                let count = column.isToMany ? column.many[row].count : (column.one[row] >= 0 ? 1 : 0)
                guard count < minimum || (maximum > 0 && count > maximum) else { continue }
                throw .countViolation(objectLocation(entity: entity, row: row), entity: declaration.name,
                                      id: table.ids[row], relationship: relationship.name,
                                      count: count, minimum: minimum, maximum: maximum)
            }
        }
    }

    /// No two objects of an entity may hold the same non-nil value of a `unique`
    /// attribute, or the same values in every attribute of a uniqueness constraint. Values compare as ``Value`` does (strings by Unicode scalars,
    /// numbers by bit pattern), the same equality `ModelContext.insert` upserts by.
    /// Transient attributes are not in the file, and externally stored ones are
    /// not read yet (their blobs come after), so neither is checked here.
    private func validateUniqueness(entity: Int, graph: ObjectGraph) throws(PackageError) {
        let attributes = graph.layout.entities[entity].attributes
        let table = graph.tables[entity]
        for group in graph.layout.entities[entity].uniqueGroups
        where !group.contains(where: { attributes[$0].isTransient || attributes[$0].isExternal }) {
            let duplicate: (first: Int, second: Int)?
            if group.count == 1 {
                switch table.columns[group[0]] {
                case .int(let storage): duplicate = firstDuplicate(storage, rows: table.rowCount) { $0 }
                case .double(let storage): duplicate = firstDuplicate(storage, rows: table.rowCount) { $0.bitPattern }
                case .bool(let storage): duplicate = firstDuplicate(storage, rows: table.rowCount) { $0 }
                case .string(let storage): duplicate = firstDuplicate(storage, rows: table.rowCount) { UTF8Key($0) }
                case .value(let storage):
                    duplicate = firstDuplicate(storage, rows: table.rowCount) { $0 == .null ? nil : $0 }
                }
            } else {
                // A constraint over several attributes: their values together, as the unique index keys them.
                var seen: [[Value]: Int] = [:]
                var found: (first: Int, second: Int)?
                for row in 0..<table.rowCount where table.isLive[row] {
                    guard let values = graph.uniqueValues(ObjectRef(entity: entity, row: row), group) else { continue }
                    if let first = seen.updateValue(row, forKey: values) { found = (first, row); break }
                }
                duplicate = found
            }
            guard let (first, second) = duplicate else { continue }
            let values = group.map { ValueText.encode(table.columns[$0].value(at: second, type: attributes[$0].type), as: attributes[$0].type) }
            throw .uniqueViolation(objectLocation(entity: entity, row: second), entity: graph.layout.entities[entity].name,
                                   attribute: group.map { attributes[$0].name }.joined(separator: ", "),
                                   value: values.joined(separator: ", "), ids: [table.ids[first], table.ids[second]])
        }
    }

    /// The first row whose key an earlier row already has (and that earlier row),
    /// skipping nil values: rows marked null, or a `nil` key.
    private func firstDuplicate<Element, Key: Hashable>(_ storage: ColumnStorage<Element>, rows: Int,
                                                        key: (Element) -> Key?) -> (first: Int, second: Int)? {
        var seen: [Key: Int] = [:]
        seen.reserveCapacity(rows)
        let hasNulls = !storage.nulls.isEmpty
        for row in 0..<rows {
            if hasNulls, storage.nulls[row] { continue }
            guard let key = key(storage.values[row]) else { continue }
            if let first = seen.updateValue(row, forKey: key) { return (first, row) }
        }
        return nil
    }
}

/// A string compared and hashed by its UTF-8 bytes, i.e. by Unicode scalars as
/// ``Value`` compares strings, not by canonical equivalence as `String` does.
private struct UTF8Key: Hashable {
    let text: String
    init(_ text: String) { self.text = text }
    static func == (lhs: UTF8Key, rhs: UTF8Key) -> Bool { lhs.text.utf8.elementsEqual(rhs.text.utf8) }
    func hash(into hasher: inout Hasher) {
        var text = text
        text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}
