/// Lightweight migration: the same objects under a compatible schema.
extension ObjectGraph {
    /// A new graph with the `target` schema holding this graph's live objects:
    /// the same identifiers, attribute values, and relationship contents in the
    /// same order, and a `nextID` at least this graph's. This graph is not changed.
    ///
    /// Entities and properties are matched by name, or by `originalName` when the
    /// target no longer has the stored name (a rename); never by position. New
    /// attributes take their default (or nil), new entities and relationships
    /// start empty, dropped attributes are discarded, an entity the target
    /// lacks is dropped with its objects and every relationship to it (as
    /// SwiftData's lightweight migration drops a model removed from the
    /// schema), a many-to-many pair the target no longer pairs keeps each
    /// side's lists, and delete rules, counts
    /// and options are taken from `target`. Everything that would lose or invent
    /// data is refused; docs/FORMAT.md ("Lightweight migration") lists the rules.
    ///
    /// - Throws: the first ``MigrationError`` found.
    /// - Complexity: O(objects × properties + links).
    func migrated(to target: Schema) throws(MigrationError) -> ObjectGraph {
        let plans = try migrationPlans(to: target)
        let result = ObjectGraph(schema: target)
        // Stored entity → stored row → row in the result (-1: not carried over).
        var rowMaps = tables.map { [Int32](repeating: -1, count: $0.rowCount) }
        for (entity, plan) in plans.enumerated() {
            guard let stored = plan.stored else { continue }
            let table = tables[stored]
            var values = [Value](repeating: .null, count: plan.attributes.count)
            for row in 0..<table.rowCount where table.isLive[row] {
                let ref = ObjectRef(entity: stored, row: row)
                for (index, source) in plan.attributes.enumerated() {
                    switch source {
                    case .stored(let attribute):
                        values[index] =
                            blob(ref, attribute) != nil && result.layout.entities[entity].attributes[index].isExternal
                            ? .data(Data()) : value(ref, attribute)
                    case .constant(let constant): values[index] = constant
                    }
                }
                let migrated = result.insertObject(entity: entity, values: values, id: table.ids[row])
                rowMaps[stored][row] = migrated.row
                // An unread blob stays unread when its attribute is still stored externally.
                for (index, source) in plan.attributes.enumerated() {
                    guard case .stored(let attribute) = source, let blob = blob(ref, attribute),
                        result.layout.entities[entity].attributes[index].isExternal
                    else { continue }
                    result.setBlob(blob, migrated, index)
                }
            }
        }
        // Stored entity → entity in the result (-1: dropped), for targets that name their entity.
        var entityMap = [Int](repeating: -1, count: tables.count)
        for (entity, plan) in plans.enumerated() { if let stored = plan.stored { entityMap[stored] = entity } }
        for (entity, plan) in plans.enumerated() {
            guard let stored = plan.stored else { continue }
            for (slot, storedSlot) in plan.links.enumerated() {
                guard let storedSlot else { continue }
                if result.layout.entities[entity].links[slot].hierarchy != nil || layout.entities[stored].links[storedSlot].hierarchy != nil {
                    copyHierarchyLinks(from: (stored, storedSlot), to: (entity, slot), of: result, rowMaps: rowMaps, entityMap: entityMap)
                    continue
                }
                copyLinks(from: (stored, storedSlot), to: (entity, slot), of: result, rowMaps: rowMaps)
                // A declared inverse is copied as a relationship of its own; a hidden
                // one is copied here, from the stored hidden inverse or, for a
                // many-to-many the target no longer pairs, from the stored declared one.
                let link = result.layout.entities[entity].links[slot]
                let storedLink = layout.entities[stored].links[storedSlot]
                if result.layout.entities[link.destination].links[link.inverse].isHidden {
                    copyLinks(
                        from: (storedLink.destination, storedLink.inverse), to: (link.destination, link.inverse),
                        of: result, rowMaps: rowMaps)
                }
            }
        }
        result.nextID = max(result.nextID, nextID)
        result.allocator = allocator
        // What a merge recorded stays to be resolved, under the names the target gives
        // (the loader refuses a record naming what the schema lacks).
        let renaming = try SchemaRenaming(from: schema, to: target)
        result.conflicts = conflicts.compactMap(renaming.renamed)
        try result.checkUniqueness()
        return result
    }

    /// The migrated objects keep the target's uniqueness rule — every `unique`
    /// attribute and every constraint, one attribute or several — checked by
    /// the same rule the save and the loader apply, so a migration never makes
    /// a document that the next save writes and the next open refuses.
    private func checkUniqueness() throws(MigrationError) {
        guard let violation = firstUniquenessViolation() else { return }
        let layout = layout.entities[violation.entity]
        let ids = tables[violation.entity].ids
        throw .duplicateUniqueValue(
            entity: layout.name, attribute: layout.names(ofGroup: violation.group),
            value: describeValues(of: violation) { value, _ in value.description },
            ids: [ids[violation.first], ids[violation.second]])
    }

    /// ``copyLinks(from:to:of:rowMaps:)`` for a relationship into a hierarchy
    /// (stored, or in the result): each target is read as the object it
    /// names, carried to its row in the result and stored as the result's
    /// relationship stores it; a target the result's relationship may not hold
    /// is dropped. Hidden inverses (one per member of the destination's
    /// hierarchy) are filled from the copied lists. Lists keep their order.
    private func copyHierarchyLinks(
        from source: (entity: Int, slot: Int), to destination: (entity: Int, slot: Int),
        of result: ObjectGraph, rowMaps: [[Int32]], entityMap: [Int]
    ) {
        let table = tables[source.entity]
        let column = table.links[source.slot]
        let storedLink = layout.entities[source.entity].links[source.slot]
        let link = result.layout.entities[destination.entity].links[destination.slot]
        let newColumn = result.tables[destination.entity].links[destination.slot]
        for row in 0..<table.rowCount where rowMaps[source.entity][row] >= 0 {
            let newRow = Int(rowMaps[source.entity][row])
            let targets = column.targets(of: row).compactMap { target -> ObjectRef? in
                let old = storedLink.ref(target)
                let (entity, mapped) = (entityMap[Int(old.entity)], rowMaps[Int(old.entity)][Int(old.row)])
                guard entity >= 0, mapped >= 0, link.accepts(entity: entity) else { return nil }
                return ObjectRef(entity: entity, row: Int(mapped))
            }
            if newColumn.isToMany {
                newColumn.many[newRow] = targets.map(link.target)
                newColumn.setAbsent(column.isAbsent(row), row: newRow)
            } else {
                newColumn.one[newRow] = targets.first.map(link.target) ?? -1
            }
            for target in targets {
                let inverseSlot = link.inverse(in: target.entity)
                let inverse = result.layout.entities[Int(target.entity)].links[inverseSlot]
                guard inverse.isHidden else { continue }
                result.tables[Int(target.entity)].links[inverseSlot].many[Int(target.row)].append(
                    inverse.target(ObjectRef(entity: destination.entity, row: newRow)))
            }
        }
    }

    /// Copies one link column's lists, row by row, into the matching column of
    /// `result`, translating rows through `rowMaps`. Lists keep their order.
    private func copyLinks(
        from source: (entity: Int, slot: Int), to destination: (entity: Int, slot: Int),
        of result: ObjectGraph, rowMaps: [[Int32]]
    ) {
        let table = tables[source.entity]
        let column = table.links[source.slot]
        let targetMap = rowMaps[layout.entities[source.entity].links[source.slot].destination]
        let sourceMap = rowMaps[source.entity]
        let newColumn = result.tables[destination.entity].links[destination.slot]
        for row in 0..<table.rowCount where sourceMap[row] >= 0 {
            let newRow = Int(sourceMap[row])
            if newColumn.isToMany {
                newColumn.many[newRow] = column.targets(of: row).compactMap { targetMap[Int($0)] >= 0 ? targetMap[Int($0)] : nil }
                // A relationship made optional keeps every object's collection, an empty one included.
                newColumn.setAbsent(column.isAbsent(row), row: newRow)
            } else {
                newColumn.one[newRow] = column.targets(of: row).first.map { targetMap[Int($0)] } ?? -1
            }
        }
    }
}

// MARK: - Planning and checks

/// Where each attribute of a migrated object gets its value.
private enum AttributeSource {
    /// The stored attribute at this index.
    case stored(Int)
    /// The same value for every object: a new attribute's default or nil.
    case constant(Value)
}

/// How one target entity is filled: from which stored entity (none for a new
/// one), each attribute's source, and each declared relationship's stored slot.
private struct EntityPlan {
    var stored: Int?
    var attributes: [AttributeSource] = []
    var links: [Int?] = []
}

extension ObjectGraph {
    /// Matches the target schema against this graph's and checks every rule,
    /// reading the stored values a rule depends on. Changes nothing.
    private func migrationPlans(to target: Schema) throws(MigrationError) -> [EntityPlan] {
        do { try target.validate() } catch { throw .invalidSchema(error) }
        let stored = schema
        let entityMatch = try SchemaRenaming.match(
            target.entities.map { ($0.name, $0.originalName) },
            stored: stored.entities.map(\.name), qualifier: nil)
        // A stored entity no target claims is dropped, with the relationships to it.
        let claimed = Set(entityMatch.compactMap { $0 })
        let dropped = Set(stored.entities.indices.filter { !claimed.contains($0) }.map { stored.entities[$0].name })
        // Stored entity index → its target entity index.
        var targetOfStored = [Int](repeating: -1, count: stored.entities.count)
        for (index, match) in entityMatch.enumerated() { if let match { targetOfStored[match] = index } }

        var plans = entityMatch.map { EntityPlan(stored: $0) }
        for (index, entity) in target.entities.enumerated() {
            guard let storedIndex = entityMatch[index] else { continue }
            let storedEntity = stored.entities[storedIndex]
            let propertyNames = Set(entity.attributes.map(\.name) + entity.relationships.map(\.name))
            plans[index].links = try SchemaRenaming.match(
                entity.relationships.map { ($0.name, $0.originalName) },
                stored: storedEntity.relationships.map(\.name),
                qualifier: entity.name, taken: propertyNames)
            let claimedLinks = Set(plans[index].links.compactMap { $0 })
            if let removed = storedEntity.relationships.indices.first(where: {
                !claimedLinks.contains($0) && !dropped.contains(storedEntity.relationships[$0].destination)
            }) {
                throw .relationshipRemoved(entity: entity.name, relationship: storedEntity.relationships[removed].name)
            }
        }
        for (index, entity) in target.entities.enumerated() {
            guard let storedIndex = entityMatch[index] else { continue }
            let storedEntity = stored.entities[storedIndex]
            let propertyNames = Set(entity.attributes.map(\.name) + entity.relationships.map(\.name))
            let attributeMatch = try SchemaRenaming.match(
                entity.attributes.map { ($0.name, $0.originalName) },
                stored: storedEntity.attributes.map(\.name),
                qualifier: entity.name, taken: propertyNames)
            for (attributeIndex, attribute) in entity.attributes.enumerated() {
                plans[index].attributes.append(
                    try attributeSource(attribute, entity: entity.name, stored: storedIndex, match: attributeMatch[attributeIndex]))
            }
            for (slot, relationship) in entity.relationships.enumerated() {
                try checkRelationship(
                    relationship, entity: entity.name, stored: storedIndex, storedSlot: plans[index].links[slot],
                    target: target, plans: plans, targetOfStored: targetOfStored)
            }
        }
        return plans
    }

    /// Where a target attribute's values come from, after checking the rules on
    /// type and optionality against the stored values (uniqueness is checked on
    /// the migrated objects, by ``checkUniqueness()``).
    private func attributeSource(
        _ attribute: Schema.Attribute, entity: String, stored: Int,
        match: Int?
    ) throws(MigrationError) -> AttributeSource {
        let table = tables[stored]
        guard let storedIndex = match else {
            guard attribute.isOptional || attribute.defaultStoredValue != nil || attribute.isTransient || attribute.type == .any else {
                throw .newAttributeWithoutDefault(entity: entity, attribute: attribute.name, type: attribute.type)
            }
            return .constant(attribute.initialValue)
        }
        let storedAttribute = layout.entities[stored].attributes[storedIndex]
        guard storedAttribute.type == attribute.type else {
            throw .attributeTypeChanged(entity: entity, attribute: attribute.name, from: storedAttribute.type, to: attribute.type)
        }
        if storedAttribute.isOptional, !attribute.isOptional, attribute.type != .any {
            for row in 0..<table.rowCount where table.isLive[row] {
                guard value(ObjectRef(entity: stored, row: row), storedIndex) == .null else { continue }
                throw .attributeNoLongerOptional(entity: entity, attribute: attribute.name, id: table.ids[row])
            }
        }
        return .stored(storedIndex)
    }

    /// Checks a target relationship against the stored one it takes over (or, for
    /// a new one, that it may start empty), and any stricter count against the data.
    private func checkRelationship(
        _ relationship: Schema.Relationship, entity: String, stored: Int, storedSlot: Int?,
        target: Schema, plans: [EntityPlan], targetOfStored: [Int]
    ) throws(MigrationError) {
        guard let storedSlot else {
            if relationship.minimumModelCount > 0 {
                throw .newRelationshipRequired(
                    entity: entity, relationship: relationship.name,
                    minimum: relationship.minimumModelCount)
            }
            return
        }
        let storedEntity = schema.entities[stored]
        let old = storedEntity.relationships[storedSlot]
        let storedDestination = schema.entityIndex(named: old.destination) ?? 0
        let destination = targetOfStored[storedDestination]
        guard destination >= 0 else {
            throw .relationshipDestinationChanged(
                entity: entity, relationship: relationship.name,
                from: old.destination, to: relationship.destination)
        }
        guard target.entities[destination].name == relationship.destination else {
            throw .relationshipDestinationChanged(
                entity: entity, relationship: relationship.name,
                from: target.entities[destination].name, to: relationship.destination)
        }
        guard old.isToMany == relationship.isToMany else {
            throw .relationshipKindChanged(entity: entity, relationship: relationship.name, wasToMany: old.isToMany)
        }
        // The stored inverse, under the name the target gives it.
        let expectedInverse = old.inverse.flatMap { inverseName -> String? in
            guard let storedInverse = schema.entities[storedDestination].relationships.firstIndex(where: { $0.name == inverseName }),
                let slot = plans[destination].links.firstIndex(of: storedInverse)
            else { return nil }
            return target.entities[destination].relationships[slot].name
        }
        // A many-to-many pair the target no longer pairs (an inverse SwiftData
        // would not infer) splits: each side keeps its lists.
        let unpairedManyToMany =
            relationship.inverse == nil && old.isToMany
            && old.inverse.flatMap { schema.entities[storedDestination].relationship(named: $0) }?.isToMany == true
        guard
            unpairedManyToMany
                || (expectedInverse == relationship.inverse && (old.inverse == nil) == (relationship.inverse == nil))
        else {
            throw .inverseChanged(entity: entity, relationship: relationship.name, from: old.inverse, to: relationship.inverse)
        }
        let minimum = relationship.minimumModelCount
        let maximum = relationship.maximumModelCount
        let stricter =
            minimum > old.minimumModelCount
            || (maximum > 0 && (old.maximumModelCount == 0 || maximum < old.maximumModelCount))
        guard stricter else { return }
        let table = tables[stored]
        let column = table.links[storedSlot]
        for row in 0..<table.rowCount where table.isLive[row] {
            let count = column.isToMany ? column.many[row].count : (column.one[row] >= 0 ? 1 : 0)
            if count < minimum || (maximum > 0 && count > maximum) {
                throw .countViolation(
                    entity: entity, relationship: relationship.name, id: table.ids[row],
                    count: count, minimum: minimum, maximum: maximum)
            }
        }
    }
}

extension Schema {
    /// Whether the two schemas differ at most in their attributes' default
    /// values and their entities' indexes.
    ///
    /// Neither shapes stored data (defaults only fill attributes a later insert
    /// or migration leaves out; an index is built from the objects when first
    /// used), so such a document needs no migration — as in SwiftData, where
    /// adding an index is a lightweight change. Models whose defaults are
    /// expressions (`Date.now`) differ this way every run. With `inAnyOrder`,
    /// the entities may also be declared in another order: the graph of one is
    /// then the other's with its tables reordered.
    func differsOnlyInDefaultsOrIndexes(from other: Schema, inAnyOrder: Bool = false) -> Bool {
        guard entities.count == other.entities.count else { return false }
        func stripped(_ schema: Schema) -> [Entity] {
            (inAnyOrder ? schema.entities.sorted { $0.name < $1.name } : schema.entities).map { entity in
                var entity = entity
                for index in entity.attributes.indices { entity.attributes[index].defaultStoredValue = nil }
                entity.indexes = []
                return entity
            }
        }
        return stripped(self) == stripped(other)
    }
}

extension ObjectGraph {
    /// The same objects under a schema that differs from this graph's only in
    /// defaults (``Schema/differsOnlyInDefaultsOrIndexes(from:)``); nothing is copied, so
    /// this graph must not be used afterwards.
    func adopting(_ target: Schema) -> ObjectGraph {
        let graph = ObjectGraph(schema: target, layout: SchemaLayout(target))
        graph.tables = tables
        graph.index = index
        graph.nextID = nextID
        graph.allocator = allocator
        graph.conflicts = conflicts
        return graph
    }

    /// This graph under `target`: the same tables when the schemas differ only
    /// in defaults (``adopting(_:)``), else a lightweight migration
    /// (``migrated(to:)``). This graph must not be used afterwards.
    ///
    /// - Throws: what ``migrated(to:)`` throws.
    func brought(to target: Schema) throws(MigrationError) -> ObjectGraph {
        if schema.differsOnlyInDefaultsOrIndexes(from: target) { return adopting(target) }
        // A package written with the entities in another order (a dynamic schema, a
        // different order of model classes): moving tables costs O(identifiers), where a
        // migration copies every object.
        if schema.differsOnlyInDefaultsOrIndexes(from: target, inAnyOrder: true), let reordered = reordering(to: target) {
            return reordered
        }
        return try migrated(to: target)
    }

    /// The same objects under a schema declaring this graph's entities in another
    /// order (``Schema/differsOnlyInDefaultsOrIndexes(from:inAnyOrder:)``): the tables are
    /// moved, not copied, with their link columns in the new layout's order, and
    /// the index renumbered. This graph must not be used afterwards. `nil` if the
    /// layouts do not match slot for slot (not expected for such schemas).
    ///
    /// - Complexity: O(identifiers ever indexed), with no copy of any column.
    func reordering(to target: Schema) -> ObjectGraph? {
        // A relationship into a hierarchy stores each target's place in the hierarchy,
        // which the entities' order decides: such a graph is migrated, target by target.
        guard !layout.entities.contains(where: { $0.links.contains { $0.hierarchy != nil } }) else { return nil }
        let newLayout = SchemaLayout(target)
        guard !newLayout.entities.contains(where: { $0.links.contains { $0.hierarchy != nil } }) else { return nil }
        var oldOf: [Int] = []
        for entity in newLayout.entities {
            guard let old = layout.entityIndex[entity.name] else { return nil }
            oldOf.append(old)
        }
        guard oldOf.count == layout.entities.count else { return nil }
        var newOf = [Int32](repeating: -1, count: oldOf.count)
        for (new, old) in oldOf.enumerated() { newOf[old] = Int32(new) }
        var reordered: [EntityTable] = []
        for (new, old) in oldOf.enumerated() {
            let oldEntity = layout.entities[old], newEntity = newLayout.entities[new]
            guard oldEntity.links.count == newEntity.links.count else { return nil }
            var order: [Int] = []
            for link in newEntity.links {
                if let name = link.name {
                    guard let slot = oldEntity.linkIndex[name] else { return nil }
                    order.append(slot)
                } else {
                    // A hidden inverse: the one of the same relationship of the same source entity.
                    let source = oldOf[link.destination]
                    guard
                        let slot = oldEntity.links.indices.first(where: {
                            oldEntity.links[$0].isHidden && oldEntity.links[$0].destination == source
                                && oldEntity.links[$0].inverse == link.inverse
                        })
                    else { return nil }
                    order.append(slot)
                }
            }
            reordered.append(EntityTable(moving: tables[old], linkOrder: order))
        }
        let graph = ObjectGraph(schema: target, layout: newLayout)
        graph.tables = reordered
        graph.index = index
        graph.index.renumberEntities(newOf)
        graph.nextID = nextID
        graph.allocator = allocator
        graph.limits = limits
        graph.conflicts = conflicts
        return graph
    }
}
