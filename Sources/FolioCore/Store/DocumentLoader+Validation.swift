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
        }
        try validateUniqueness(graph: graph)
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
                throw .countViolation(
                    objectLocation(entity: entity, row: row), entity: declaration.name,
                    id: table.ids[row], relationship: relationship.name,
                    count: count, minimum: minimum, maximum: maximum)
            }
        }
    }

    /// No two objects of an entity may hold the same non-nil value of a `unique`
    /// attribute, or the same values in every member of a uniqueness
    /// constraint (a to-one relationship's member is its object's identity):
    /// the rule ``ObjectGraph/firstUniquenessViolation()`` applies, the same
    /// one the save check and migration apply.
    private func validateUniqueness(graph: ObjectGraph) throws(PackageError) {
        guard let violation = graph.firstUniquenessViolation() else { return }
        let layout = graph.layout.entities[violation.entity]
        let table = graph.tables[violation.entity]
        throw .uniqueViolation(
            objectLocation(entity: violation.entity, row: violation.second), entity: layout.name,
            attribute: layout.names(ofGroup: violation.group),
            value: graph.describeValues(of: violation) { ValueText.encode($0, as: $1) },
            ids: [table.ids[violation.first], table.ids[violation.second]])
    }
}
