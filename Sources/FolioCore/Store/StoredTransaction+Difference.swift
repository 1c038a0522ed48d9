import Foundation

/// A transaction made from two versions of a document rather than from a
/// context's change tracking: what a package merge records (docs/FORMAT.md,
/// "History", merge transactions).
extension StoredTransaction {
    /// The transaction that turns `old` into `new`: the objects only `new`
    /// holds as inserts, those only `old` holds as deletes (with their
    /// tombstones, from `old`), and the objects both hold whose stored
    /// attributes or declared relationships differ as updates naming those
    /// properties. `nil` when nothing differs.
    ///
    /// Laid out as a context's save lays its transaction out: entities in
    /// `schema`'s order, identifiers ascending, an entity's updates grouped by
    /// the properties they changed (in declaration order: attributes, then
    /// relationships), so a reader cannot tell a merge's transaction from a
    /// save's but by its author. Only what `schema` declares is named: a
    /// history names nothing else (an entity or property only `old` has, as
    /// after a migration, is left out; one only `new` has counts as changed
    /// when it holds other than what the migration gives it, its default).
    ///
    /// Cells compare as a merge compares them (``CellMerge/same(_:_:)``): two
    /// blobs of one name hold one value and are not read.
    ///
    /// - Parameters:
    ///   - old: the objects before, by identifier (ours, for a merge).
    ///   - new: the objects after, by identifier (the merged result).
    ///   - schema: the schema of `new`, whose names the transaction uses.
    /// - Complexity: O(objects of both × their properties and links).
    static func difference(
        from old: [UInt64: ObjectState], to new: [UInt64: ObjectState], schema: Schema,
        timestamp: Date, author: String?
    ) -> StoredTransaction? {
        let entities = schema.entities
        let entityIndex = Dictionary(entities.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
        var inserted = [[UInt64]](repeating: [], count: entities.count)
        var deleted = [[UInt64]](repeating: [], count: entities.count)
        var updated = [[[Int]: [UInt64]]](repeating: [:], count: entities.count)
        for (id, state) in new {
            guard let entity = entityIndex[state.entity] else { continue }
            guard let before = old[id], before.entity == state.entity else {
                inserted[entity].append(id)
                continue
            }
            let changed = changedProperties(before, state, entities[entity])
            if !changed.isEmpty { updated[entity][changed, default: []].append(id) }
        }
        for (id, state) in old {
            guard let entity = entityIndex[state.entity], new[id]?.entity != state.entity else { continue }
            deleted[entity].append(id)
        }
        var transaction = StoredTransaction(
            number: 0, timestamp: recordedTimestamp(timestamp), author: author,
            bundleIdentifier: currentBundleIdentifier,
            processIdentifier: currentProcessIdentifier)
        for (index, entity) in entities.enumerated() {
            let names = entity.attributes.map(\.name) + entity.relationships.map(\.name)
            let preserved = entity.attributes.indices.filter {
                entity.attributes[$0].options.contains(.preserveValueOnDeletion) && !entity.attributes[$0].isTransient
            }
            transaction.appendChanges(
                of: entity.name, inserted: IdentifierRuns(inserted[index].sorted()), updated: updated[index],
                propertyName: { names[$0] }, deleted: deleted[index],
                preserved: preserved.map { (entity.attributes[$0].name, entity.attributes[$0].type) }
            ) { id, slot in
                // A blob that cannot be read is left out, as a save leaves out what it cannot load.
                old[id]?.attributes[entity.attributes[preserved[slot]].name].flatMap { try? CellMerge.value($0) }
            }
        }
        return transaction.isEmpty ? nil : transaction
    }

    /// The properties of `entity` whose cells differ between two states of
    /// one object, as indexes: an attribute's index, or the attribute count
    /// plus a relationship's index (how change tracking numbers them).
    private static func changedProperties(_ before: ObjectState, _ after: ObjectState, _ entity: Schema.Entity) -> [Int] {
        var changed: [Int] = []
        for (index, attribute) in entity.attributes.enumerated() where !attribute.isTransient {
            switch (before.attributes[attribute.name], after.attributes[attribute.name]) {
            case (nil, nil): continue
            case (let a?, let b?):
                // A blob that cannot be read is counted changed: over-inclusive, never silent.
                if (try? CellMerge.same(a, b)) != true { changed.append(index) }
            case (nil, let b?):
                // A property the old version's schema lacks (the new one added it): what a
                // migration gives it (its default) is no edit; any other value is.
                if (try? CellMerge.same(.value(attribute.defaultStoredValue ?? .null), b)) != true { changed.append(index) }
            case (_?, nil): changed.append(index)
            }
        }
        for (slot, relationship) in entity.relationships.enumerated() {
            let old = before.links[relationship.name], new = after.links[relationship.name]
            // A relationship the old version lacks counts as changed once it holds an object.
            if old.map({ $0 != new }) ?? (new.map { !$0.ids.isEmpty } ?? false) { changed.append(entity.attributes.count + slot) }
        }
        return changed
    }

    /// Appends one entity's changes as every transaction lays them out (a
    /// context's save, a merge's difference): its inserts; its updates, one
    /// element per list of changed properties (indexes in declaration order:
    /// attributes, then relationships), lists in that order, identifiers
    /// ascending; its deletes, ascending, each with its tombstone — the
    /// `preserved` attributes' values `value` gives (by identifier and index
    /// into `preserved`), `nil` and `.null` left out. Call entity by entity,
    /// in schema order.
    ///
    /// - Complexity: O(changes of the entity × log of them) to sort, plus
    ///   `value` called once per deleted object and preserved attribute.
    mutating func appendChanges(
        of entity: String, inserted: IdentifierRuns, updated: [[Int]: [UInt64]],
        propertyName: (Int) -> String, deleted: [UInt64],
        preserved: [(name: String, type: ValueType)],
        value: (_ id: UInt64, _ preserved: Int) -> Value?
    ) {
        if !inserted.isEmpty { self.inserted.append(Objects(entity: entity, ids: inserted)) }
        for (properties, ids) in updated.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) {
            self.updated.append(Update(entity: entity, properties: properties.map(propertyName), ids: ids.sorted()))
        }
        guard !deleted.isEmpty else { return }
        let ids = deleted.sorted()
        self.deleted.append(Objects(entity: entity, ids: ids))
        guard !preserved.isEmpty else { return }
        for id in ids {
            var tombstone = Tombstone(entity: entity, id: id, values: [])
            for (slot, attribute) in preserved.enumerated() {
                guard let held = value(id, slot), held != .null else { continue }
                tombstone.values.append((attribute.name, attribute.type, held))
            }
            tombstones.append(tombstone)
        }
    }
}
