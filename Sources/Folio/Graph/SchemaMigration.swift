/// Why a document cannot be migrated to a new schema without losing or inventing data.
///
/// A lightweight migration only carries data over: it never converts a value,
/// drops an object or a link, or makes up a value it cannot take from a
/// default. Each case names the entity and property at fault (by their names in
/// the new schema) and its ``description`` says what to change. When a
/// migration is refused, nothing was changed. docs/FORMAT.md lists the rules.
public enum MigrationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The new schema itself is not valid.
    case invalidSchema(SchemaError)
    /// The document has an entity the new schema does not declare (even an empty
    /// one: a migration never drops an entity silently).
    case entityRemoved(entity: String)
    /// The document has a relationship the new schema does not declare.
    case relationshipRemoved(entity: String, relationship: String)
    /// Two entities or properties of the new schema give the same `originalName`,
    /// so it is unclear which one takes over the stored data.
    case ambiguousRename(originalName: String, claimedBy: [String])
    /// An attribute's type changed; values are never converted.
    case attributeTypeChanged(entity: String, attribute: String, from: ValueType, to: ValueType)
    /// A new attribute is neither optional nor given a default value, so the
    /// existing objects would have no value for it.
    case newAttributeWithoutDefault(entity: String, attribute: String, type: ValueType)
    /// An optional attribute became non-optional, but an object holds `nil`.
    case attributeNoLongerOptional(entity: String, attribute: String, id: UInt64)
    /// An attribute became unique (or is new, unique and filled with one default),
    /// but two objects hold the same value. For a uniqueness constraint over
    /// several attributes, `attribute` and `value` list them, comma-separated.
    case duplicateUniqueValue(entity: String, attribute: String, value: String, ids: [UInt64])
    /// A relationship now points to another entity.
    case relationshipDestinationChanged(entity: String, relationship: String, from: String, to: String)
    /// A relationship changed between to-one and to-many.
    case relationshipKindChanged(entity: String, relationship: String, wasToMany: Bool)
    /// A relationship's inverse changed: a different one, one added, or one removed.
    case inverseChanged(entity: String, relationship: String, from: String?, to: String?)
    /// A new relationship has a minimum count, which existing objects cannot meet.
    case newRelationshipRequired(entity: String, relationship: String, minimum: Int)
    /// A relationship's minimum or maximum count became stricter than what an object holds.
    case countViolation(entity: String, relationship: String, id: UInt64, count: Int, minimum: Int, maximum: Int)
    /// The document's schema is none of the migration plan's versions: the
    /// version it records (`nil`: it records none) is not in the plan, and no
    /// version's models match it. SwiftData's "unknown model version".
    case unknownModelVersion(stored: Schema.Version?)
    /// The document was saved by a later version of the models than the
    /// container's; a migration never goes backward, as it would drop what the
    /// later version added.
    case backwardMigration(stored: Schema.Version, current: Schema.Version)
    /// A custom stage's `willMigrate` or `didMigrate` (`step`) threw, or what it
    /// left could not be saved; `message` is that error's description.
    case stageFailed(from: Schema.Version, to: Schema.Version, step: String, message: String)
    /// The migration plan does not hold together (`reason` says how): two
    /// versions with one number, a stage between versions the plan does not
    /// list or going backward, or a container whose schema is not one of them.
    case invalidPlan(reason: String)

    /// What is wrong and what to change, in a sentence for the schema's author.
    public var description: String {
        switch self {
        case .invalidSchema(let error):
            return "the new schema is not valid: \(error)"
        case .entityRemoved(let entity):
            return "the document has entity '\(entity)', which the new schema does not declare; keep it, "
                + "or give the entity that replaces it originalName \"\(entity)\""
        case .relationshipRemoved(let entity, let relationship):
            return "the document has relationship \(entity).\(relationship), which the new schema does not declare; "
                + "keep it (it may stay empty), or give the relationship that replaces it originalName \"\(relationship)\""
        case .ambiguousRename(let originalName, let claimedBy):
            return "\(claimedBy.joined(separator: " and ")) give the same originalName \"\(originalName)\"; "
                + "only one of them can take over its data, so remove the others' originalName"
        case .attributeTypeChanged(let entity, let attribute, let from, let to):
            return "\(entity).\(attribute) changed type from \(from) to \(to), and values are never converted; "
                + "keep the type \(from), or add a new attribute and copy the values over yourself"
        case .newAttributeWithoutDefault(let entity, let attribute, let type):
            return "\(entity).\(attribute) is new and its type \(type) is not optional, so existing objects have no value for it; "
                + "make it optional or give it a default value"
        case .attributeNoLongerOptional(let entity, let attribute, let id):
            return "\(entity).\(attribute) is no longer optional, but \(entity)#\(id) holds nil; "
                + "keep it optional, or give every object a value first"
        case .duplicateUniqueValue(let entity, let attribute, let value, let ids):
            let objects = ids.map { "\(entity)#\($0)" }.joined(separator: " and ")
            guard attribute.contains(",") else {
                return "\(entity).\(attribute) is unique in the new schema, but \(objects) both hold \(value); "
                    + "make the values distinct first, or leave the attribute not unique"
            }
            return "\(entity)'s (\(attribute)) are unique together in the new schema, but \(objects) both hold (\(value)); "
                + "make them distinct first, or leave out the constraint"
        case .relationshipDestinationChanged(let entity, let relationship, let from, let to):
            return "\(entity).\(relationship) pointed to \(from) and now points to \(to), so its links cannot be kept; "
                + "keep the destination \(from), or add a new relationship"
        case .relationshipKindChanged(let entity, let relationship, let wasToMany):
            let (from, to) = wasToMany ? ("to-many", "to-one") : ("to-one", "to-many")
            return "\(entity).\(relationship) changed from \(from) to \(to); keep it \(from), or add a new relationship"
        case .inverseChanged(let entity, let relationship, let from, let to):
            let old = from.map { "'\($0)'" } ?? "none"
            let new = to.map { "'\($0)'" } ?? "none"
            return "\(entity).\(relationship) had inverse \(old) and now has \(new); "
                + "inverse pairs must stay as they were (rename both sides with originalName if needed)"
        case .newRelationshipRequired(let entity, let relationship, let minimum):
            return "\(entity).\(relationship) is new and requires at least \(minimum) object(s), which existing objects do not hold; "
                + "give it minimum count 0"
        case .countViolation(let entity, let relationship, let id, let count, let minimum, let maximum):
            let bounds = maximum > 0 ? "between \(minimum) and \(maximum)" : "at least \(minimum)"
            return "\(entity).\(relationship) now requires \(bounds) object(s), but \(entity)#\(id) holds \(count); "
                + "relax the count, or fix the objects first"
        case .unknownModelVersion(let stored):
            let which = stored.map { "records schema version \($0)" } ?? "records no schema version"
            return "the document \(which), and its schema matches none of the migration plan's versions; "
                + "add the version it was saved with to the plan's schemas"
        case .backwardMigration(let stored, let current):
            return "the document was saved with schema version \(stored), later than this program's \(current); "
                + "open it with a program that has version \(stored) or later"
        case .stageFailed(let from, let to, let step, let message):
            return "the migration stage from \(from) to \(to) failed in \(step): \(message); the document was left as it was"
        case .invalidPlan(let reason):
            return "the migration plan is not usable: \(reason)"
        }
    }
}

/// Lightweight migration: the same objects under a compatible schema.
extension ObjectGraph {
    /// A new graph with the `target` schema holding this graph's live objects:
    /// the same identifiers, attribute values, and relationship contents in the
    /// same order, and a `nextID` at least this graph's. This graph is not changed.
    ///
    /// Entities and properties are matched by name, or by `originalName` when the
    /// target no longer has the stored name (a rename); never by position. New
    /// attributes take their default (or nil), new entities and relationships
    /// start empty, dropped attributes are discarded, and delete rules, counts
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
                        values[index] = blob(ref, attribute) != nil && result.layout.entities[entity].attributes[index].isExternal
                            ? .data(Data()) : value(ref, attribute)
                    case .constant(let constant): values[index] = constant
                    }
                }
                let migrated = result.insertObject(entity: entity, values: values, id: table.ids[row])
                rowMaps[stored][row] = migrated.row
                // An unread blob stays unread when its attribute is still stored externally.
                for (index, source) in plan.attributes.enumerated() {
                    guard case .stored(let attribute) = source, let blob = blob(ref, attribute),
                          result.layout.entities[entity].attributes[index].isExternal else { continue }
                    result.setBlob(blob, migrated, index)
                }
            }
        }
        for (entity, plan) in plans.enumerated() {
            guard let stored = plan.stored else { continue }
            for (slot, storedSlot) in plan.links.enumerated() {
                guard let storedSlot else { continue }
                copyLinks(from: (stored, storedSlot), to: (entity, slot), of: result, rowMaps: rowMaps)
                // A declared inverse is copied as a relationship of its own; a hidden
                // one (no inverse on either side, as the plan checked) is copied here.
                let link = result.layout.entities[entity].links[slot]
                let storedLink = layout.entities[stored].links[storedSlot]
                if result.layout.entities[link.destination].links[link.inverse].isHidden,
                   layout.entities[storedLink.destination].links[storedLink.inverse].isHidden {
                    copyLinks(from: (storedLink.destination, storedLink.inverse), to: (link.destination, link.inverse),
                              of: result, rowMaps: rowMaps)
                }
            }
        }
        result.nextID = max(result.nextID, nextID)
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
        throw .duplicateUniqueValue(entity: layout.name, attribute: layout.names(ofGroup: violation.group),
                                    value: describeValues(of: violation) { value, _ in value.description },
                                    ids: [ids[violation.first], ids[violation.second]])
    }

    /// Copies one link column's lists, row by row, into the matching column of
    /// `result`, translating rows through `rowMaps`. Lists keep their order.
    private func copyLinks(from source: (entity: Int, slot: Int), to destination: (entity: Int, slot: Int),
                           of result: ObjectGraph, rowMaps: [[Int32]]) {
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
        let entityMatch = try Self.match(target.entities.map { ($0.name, $0.originalName) },
                                         stored: stored.entities.map(\.name), qualifier: nil)
        if let removed = Self.unclaimed(entityMatch, count: stored.entities.count) {
            throw .entityRemoved(entity: stored.entities[removed].name)
        }
        // Stored entity index → its target entity index.
        var targetOfStored = [Int](repeating: -1, count: stored.entities.count)
        for (index, match) in entityMatch.enumerated() { if let match { targetOfStored[match] = index } }

        var plans = entityMatch.map { EntityPlan(stored: $0) }
        for (index, entity) in target.entities.enumerated() {
            guard let storedIndex = entityMatch[index] else { continue }
            let storedEntity = stored.entities[storedIndex]
            let propertyNames = Set(entity.attributes.map(\.name) + entity.relationships.map(\.name))
            plans[index].links = try Self.match(entity.relationships.map { ($0.name, $0.originalName) },
                                                stored: storedEntity.relationships.map(\.name),
                                                qualifier: entity.name, taken: propertyNames)
            if let removed = Self.unclaimed(plans[index].links, count: storedEntity.relationships.count) {
                throw .relationshipRemoved(entity: entity.name, relationship: storedEntity.relationships[removed].name)
            }
        }
        for (index, entity) in target.entities.enumerated() {
            guard let storedIndex = entityMatch[index] else { continue }
            let storedEntity = stored.entities[storedIndex]
            let propertyNames = Set(entity.attributes.map(\.name) + entity.relationships.map(\.name))
            let attributeMatch = try Self.match(entity.attributes.map { ($0.name, $0.originalName) },
                                                stored: storedEntity.attributes.map(\.name),
                                                qualifier: entity.name, taken: propertyNames)
            for (attributeIndex, attribute) in entity.attributes.enumerated() {
                plans[index].attributes.append(
                    try attributeSource(attribute, entity: entity.name, stored: storedIndex, match: attributeMatch[attributeIndex]))
            }
            for (slot, relationship) in entity.relationships.enumerated() {
                try checkRelationship(relationship, entity: entity.name, stored: storedIndex, storedSlot: plans[index].links[slot],
                                      target: target, plans: plans, targetOfStored: targetOfStored)
            }
        }
        return plans
    }

    /// Where a target attribute's values come from, after checking the rules on
    /// type and optionality against the stored values (uniqueness is checked on
    /// the migrated objects, by ``checkUniqueness()``).
    private func attributeSource(_ attribute: Schema.Attribute, entity: String, stored: Int,
                                 match: Int?) throws(MigrationError) -> AttributeSource {
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
    private func checkRelationship(_ relationship: Schema.Relationship, entity: String, stored: Int, storedSlot: Int?,
                                   target: Schema, plans: [EntityPlan], targetOfStored: [Int]) throws(MigrationError) {
        guard let storedSlot else {
            if relationship.minimumModelCount > 0 {
                throw .newRelationshipRequired(entity: entity, relationship: relationship.name,
                                               minimum: relationship.minimumModelCount)
            }
            return
        }
        let storedEntity = schema.entities[stored]
        let old = storedEntity.relationships[storedSlot]
        let storedDestination = schema.entityIndex(named: old.destination) ?? 0
        let destination = targetOfStored[storedDestination]
        guard target.entities[destination].name == relationship.destination else {
            throw .relationshipDestinationChanged(entity: entity, relationship: relationship.name,
                                                  from: target.entities[destination].name, to: relationship.destination)
        }
        guard old.isToMany == relationship.isToMany else {
            throw .relationshipKindChanged(entity: entity, relationship: relationship.name, wasToMany: old.isToMany)
        }
        // The stored inverse, under the name the target gives it.
        let expectedInverse = old.inverse.flatMap { inverseName -> String? in
            guard let storedInverse = schema.entities[storedDestination].relationships.firstIndex(where: { $0.name == inverseName }),
                  let slot = plans[destination].links.firstIndex(of: storedInverse) else { return nil }
            return target.entities[destination].relationships[slot].name
        }
        guard expectedInverse == relationship.inverse, (old.inverse == nil) == (relationship.inverse == nil) else {
            throw .inverseChanged(entity: entity, relationship: relationship.name, from: old.inverse, to: relationship.inverse)
        }
        let minimum = relationship.minimumModelCount
        let maximum = relationship.maximumModelCount
        let stricter = minimum > old.minimumModelCount
            || (maximum > 0 && (old.maximumModelCount == 0 || maximum < old.maximumModelCount))
        guard stricter else { return }
        let table = tables[stored]
        let column = table.links[storedSlot]
        for row in 0..<table.rowCount where table.isLive[row] {
            let count = column.isToMany ? column.many[row].count : (column.one[row] >= 0 ? 1 : 0)
            if count < minimum || (maximum > 0 && count > maximum) {
                throw .countViolation(entity: entity, relationship: relationship.name, id: table.ids[row],
                                      count: count, minimum: minimum, maximum: maximum)
            }
        }
    }

    /// Matches target names to stored names: by name first, then by `originalName`
    /// when the stored name is not `taken` in the target (a rename).
    ///
    /// - Returns: for each target, the index of the stored name it takes over, if any.
    /// - Throws: ``MigrationError/ambiguousRename(originalName:claimedBy:)`` when
    ///   two targets rename the same stored name.
    private static func match(_ targets: [(name: String, originalName: String?)], stored: [String], qualifier: String?,
                              taken: Set<String>? = nil) throws(MigrationError) -> [Int?] {
        let storedIndex = Dictionary(stored.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        let taken = taken ?? Set(targets.map(\.name))
        var result = targets.map { storedIndex[$0.name] }
        var claims: [String: [Int]] = [:]
        for (index, target) in targets.enumerated() where result[index] == nil {
            guard let original = target.originalName, !taken.contains(original), let match = storedIndex[original] else { continue }
            result[index] = match
            claims[original, default: []].append(index)
        }
        for (original, claimants) in claims.sorted(by: { $0.key < $1.key }) where claimants.count > 1 {
            throw .ambiguousRename(originalName: original, claimedBy: claimants.map { index in
                qualifier.map { "\($0).\(targets[index].name)" } ?? targets[index].name
            })
        }
        return result
    }

    /// The first stored index no target takes over, if any.
    private static func unclaimed(_ matches: [Int?], count: Int) -> Int? {
        var claimed = [Bool](repeating: false, count: count)
        for match in matches { if let match { claimed[match] = true } }
        return claimed.firstIndex(of: false)
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
        // different order of model classes): a copy of every object was most of an open.
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
        let newLayout = SchemaLayout(target)
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
                    guard let slot = oldEntity.links.indices.first(where: {
                        oldEntity.links[$0].isHidden && oldEntity.links[$0].destination == source
                            && oldEntity.links[$0].inverse == link.inverse
                    }) else { return nil }
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
        graph.limits = limits
        return graph
    }
}
