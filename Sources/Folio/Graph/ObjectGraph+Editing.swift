/// Primitives the editing context builds deletes, undo and redo from.
extension ObjectGraph {
    /// Removes a set of live objects at once and returns what it changed.
    ///
    /// Links among the removed objects are dropped with their lists; each
    /// survivor list that pointed into the set is filtered once. The cost is
    /// O(removed objects + their links + the survivor lists they touch), never
    /// O(document), and never quadratic in a large list.
    func removeObjects(_ refs: [ObjectRef]) -> DeletionRecord {
        var record = DeletionRecord()
        record.removed.reserveCapacity(refs.count)
        record.links.reserveCapacity(refs.count)
        let doomed = Set(refs)
        var survivorSlots = Set<SurvivorSlot>()
        for ref in refs where isLive(ref) {
            record.removed.append(ref)
            let table = tables[Int(ref.entity)]
            for (slot, link) in layout.entities[Int(ref.entity)].links.enumerated() {
                let column = table.links[slot]
                let row = Int(ref.row)
                column.forEachTarget(of: row) { target in
                    let targetRef = ObjectRef(entity: link.destination, row: Int(target))
                    if !doomed.contains(targetRef) {
                        survivorSlots.insert(SurvivorSlot(ref: targetRef, slot: Int32(link.inverse), from: ref.entity))
                    }
                }
                if column.isToMany {
                    if !column.many[row].isEmpty {
                        record.links.append(.init(ref: ref, slot: Int32(slot), one: -1, many: column.many[row]))
                        column.many[row] = []
                    }
                } else if column.one[row] >= 0 {
                    record.links.append(.init(ref: ref, slot: Int32(slot), one: column.one[row], many: []))
                    column.one[row] = -1
                }
            }
        }
        for survivor in survivorSlots {
            let column = tables[Int(survivor.ref.entity)].links[Int(survivor.slot)]
            let row = Int(survivor.ref.row)
            if column.isToMany {
                let before = column.many[row]
                record.links.append(.init(ref: survivor.ref, slot: survivor.slot, one: -1, many: before))
                column.many[row] = before.filter { !doomed.contains(ObjectRef(entity: Int(survivor.from), row: Int($0))) }
            } else {
                record.links.append(.init(ref: survivor.ref, slot: survivor.slot, one: column.one[row], many: []))
                column.one[row] = -1
            }
        }
        for ref in record.removed {
            tables[Int(ref.entity)].setLive(false, row: Int(ref.row))
            uniqueIndexRemove(ref)
        }
        return record
    }

    /// Puts back exactly what ``removeObjects(_:)`` changed. The graph must be as
    /// the removal left it (the undo stack guarantees this).
    func restore(_ record: DeletionRecord) {
        for ref in record.removed {
            tables[Int(ref.entity)].setLive(true, row: Int(ref.row))
            uniqueIndexAdd(ref)
        }
        for saved in record.links { restore(saved) }
    }

    /// Puts one captured list back as it was, its collection or lack of one included.
    func restore(_ saved: DeletionRecord.SavedLinks) {
        let column = tables[Int(saved.ref.entity)].links[Int(saved.slot)]
        let row = Int(saved.ref.row)
        if column.isToMany { column.many[row] = saved.many } else { column.one[row] = saved.one }
        column.setAbsent(saved.absent, row: row)
    }

    /// Captures what one list holds, for ``restore(_:)``; costs no copy.
    func capture(_ ref: ObjectRef, _ slot: Int) -> DeletionRecord.SavedLinks {
        let column = tables[Int(ref.entity)].links[slot]
        let row = Int(ref.row)
        return .init(ref: ref, slot: Int32(slot), one: column.isToMany ? -1 : column.one[row],
                     many: column.isToMany ? column.many[row] : [], absent: column.isAbsent(row))
    }

    /// A deep copy: later edits to either graph do not show in the other.
    /// Arrays are copied lazily (copy-on-write), so this is cheap until edited.
    func copy() -> ObjectGraph {
        let graph = ObjectGraph(schema: schema, layout: layout)
        graph.tables = tables.map { $0.copy() }
        graph.index = index
        graph.nextID = nextID
        graph.limits = limits
        return graph
    }

    // MARK: Unique index

    /// The live object of an entity whose attributes in a unique group hold
    /// `values` (one per attribute of the group, in its order), if any; `nil`
    /// when a value is `nil`, which matches nothing. The index is built on
    /// first use (O(rows)) and kept up to date after (O(1) per edit).
    func object(entity: Int, uniqueGroup group: [Int], values: [Value]) -> ObjectRef? {
        guard !values.contains(.null) else { return nil }
        return uniqueIndex(entity: entity, group: group).row(for: values).map { ObjectRef(entity: entity, row: Int($0)) }
    }

    /// Every live object of an entity holding `values` in a unique group, by
    /// row: more than one only between saves, when an edit made them clash.
    func objects(entity: Int, uniqueGroup group: [Int], values: [Value]) -> [ObjectRef] {
        guard !values.contains(.null) else { return [] }
        return uniqueIndex(entity: entity, group: group).rows(for: values).sorted().map { ObjectRef(entity: entity, row: Int($0)) }
    }

    /// The group's index, built from the live rows on first use.
    private func uniqueIndex(entity: Int, group: [Int]) -> UniqueIndex {
        let key = UniqueKey(entity: entity, attributes: group)
        if let index = uniqueIndexes[key] { return index }
        var index = UniqueIndex()
        let table = tables[entity]
        for row in 0..<table.rowCount where table.isLive[row] {
            if let stored = uniqueValues(ObjectRef(entity: entity, row: row), group) { index.add(stored, row: Int32(row)) }
        }
        uniqueIndexes[key] = index
        return index
    }

    /// An object's values in a unique group, or `nil` when one of them is `nil`.
    func uniqueValues(_ ref: ObjectRef, _ group: [Int]) -> [Value]? {
        let values = group.map { value(ref, $0) }
        return values.contains(.null) ? nil : values
    }

    func uniqueIndexAdd(_ ref: ObjectRef) {
        for key in uniqueIndexKeys(of: ref) {
            if let stored = uniqueValues(ref, key.attributes) { uniqueIndexes[key]?.add(stored, row: ref.row) }
        }
    }

    func uniqueIndexRemove(_ ref: ObjectRef) {
        for key in uniqueIndexKeys(of: ref) {
            if let stored = uniqueValues(ref, key.attributes) { uniqueIndexes[key]?.remove(stored, row: ref.row) }
        }
    }

    /// The keys of the indexes built for the object's entity, as an array: a
    /// loop over the dictionary itself would keep its storage shared while the
    /// loop updates an index, copying that whole index on every update.
    func uniqueIndexKeys(of ref: ObjectRef) -> [UniqueKey] {
        uniqueIndexes.isEmpty ? [] : uniqueIndexes.keys.filter { $0.entity == Int(ref.entity) }
    }
}

/// A survivor's list that a removal must filter: which object, which slot, and
/// the entity of the removed objects it may hold.
struct SurvivorSlot: Hashable {
    var ref: ObjectRef
    var slot: Int32
    var from: Int32
}

extension EntityTable {
    func copy() -> EntityTable {
        EntityTable(copying: self)
    }
}
