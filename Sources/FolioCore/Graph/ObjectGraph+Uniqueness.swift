/// The one uniqueness rule, which the save check, the loader and migration all
/// apply: no two live objects of an entity hold the same non-nil values in every
/// member of one of its checked unique groups — an attribute's value, or the
/// identity of the object a to-one relationship holds (none is nil).
///
/// Keeping the rule in one place is what keeps its three users from drifting
/// apart: a document that a migration or a save accepts is a document the
/// loader opens.
struct UniquenessViolation: Hashable, Sendable {
    var entity: Int
    /// The group's members (property indexes), in the group's order.
    var group: [Int]
    /// The two rows holding the same values, the earlier one first.
    var first: Int
    var second: Int
}

extension SchemaLayout.EntityLayout {
    /// The unique groups the rule checks: every group except those with a
    /// transient attribute, whose values are never saved and belong to each
    /// context, or an externally stored one (a `unique` data attribute kept in
    /// a blob — constraints cannot name one), whose bytes are read only when
    /// first used: checking it would read every blob of the document on open.
    /// Inserts still upsert on such an attribute through its index.
    static func checkedGroups(_ groups: [[Int]], attributes: [Schema.Attribute]) -> [[Int]] {
        groups.filter { group in
            !group.contains { $0 < attributes.count && (attributes[$0].isTransient || attributes[$0].isExternal) }
        }
    }
}

extension ObjectGraph {
    /// The first pair of live objects that break the rule, entity by entity and
    /// group by group, or `nil` when the whole graph keeps it.
    ///
    /// For the loader and migration, which check every object. A group of one
    /// attribute is keyed by its column's own storage (an `Int64`, a double's
    /// bit pattern, a string's UTF-8 bytes), which equals ``Value``'s equality
    /// for values of one column without making a `Value` per row.
    ///
    /// - Complexity: O(live objects × checked groups).
    func firstUniquenessViolation() -> UniquenessViolation? {
        for (entity, layout) in layout.entities.enumerated() {
            for group in layout.checkedUniqueGroups {
                if let (first, second) = firstDuplicate(entity: entity, group: group) {
                    return UniquenessViolation(entity: entity, group: group, first: first, second: second)
                }
            }
        }
        return nil
    }

    /// For each of `refs` that shares its values in a checked group with another
    /// live object, that group and the other holders, by row.
    ///
    /// For the save, which checks only what it changed; the unique indexes make
    /// it O(refs × groups) once they exist.
    func uniquenessClashes(of refs: [ObjectRef]) -> [(ref: ObjectRef, group: [Int], others: [ObjectRef])] {
        var clashes: [(ref: ObjectRef, group: [Int], others: [ObjectRef])] = []
        let byEntity = Dictionary(grouping: refs.filter(isLive), by: { Int($0.entity) })
        for entity in byEntity.keys.sorted() {
            for group in layout.entities[entity].checkedUniqueGroups {
                for ref in byEntity[entity] ?? [] {
                    let others = holders(of: group.map { uniqueValue(ref, $0) }, in: group, other: ref)
                    if !others.isEmpty { clashes.append((ref, group, others)) }
                }
            }
        }
        return clashes
    }

    /// The clashes an edit not yet made would cause: for each checked group
    /// with a member in `proposed` (member number → the value it would hold;
    /// for a to-one, ``uniqueKey(ofLinkTo:)`` of its object, or `.null`), the
    /// other live objects holding what `ref` would then hold — the rule
    /// ``uniquenessClashes(of:)`` applies at save, asked before the edit.
    /// Groups the edit does not touch are not asked: a clash it did not
    /// cause is the save's to report.
    ///
    /// - Complexity: O(groups × members) once the groups' indexes exist.
    func uniquenessClashes(of ref: ObjectRef, proposing proposed: [Int: Value]) -> [(group: [Int], others: [ObjectRef])] {
        layout.entities[Int(ref.entity)].checkedUniqueGroups.compactMap { group in
            guard group.contains(where: { proposed[$0] != nil }) else { return nil }
            let others = holders(of: group.map { proposed[$0] ?? uniqueValue(ref, $0) }, in: group, other: ref)
            return others.isEmpty ? nil : (group, others)
        }
    }

    /// The live objects other than `ref` holding `values` in `group`; none
    /// when a value is `nil`, which never clashes.
    ///
    /// A group the root of `ref`'s hierarchy declares (model inheritance: a
    /// constraint of the base class) holds across the hierarchy: the objects
    /// of every entity in it are asked too.
    private func holders(of values: [Value], in group: [Int], other ref: ObjectRef) -> [ObjectRef] {
        let entity = Int(ref.entity)
        var found = objects(of: entity, inUniqueGroup: group, holding: values).filter { $0 != ref }
        for (peer, peerGroup) in hierarchyPeers(of: entity, group: group) {
            found += objects(of: peer, inUniqueGroup: peerGroup, holding: values)
        }
        return found
    }

    /// The other entities of `entity`'s hierarchy sharing `group`, with its
    /// members as each numbers them, when the hierarchy's root declares the
    /// group (subentities inherit their properties first, so inherited members
    /// name the same properties); none for an entity outside any hierarchy.
    ///
    /// - Complexity: O(entities of the hierarchy × their groups).
    func hierarchyPeers(of entity: Int, group: [Int]) -> [(entity: Int, group: [Int])] {
        let root = layout.roots[entity]
        let family = layout.hierarchies[root]
        guard family.count > 1 else { return [] }
        let names = group.map { layout.entities[entity].name(ofMember: $0) }
        func matching(_ member: Int) -> [Int]? {
            let here = layout.entities[member]
            return here.checkedUniqueGroups.first { $0.map(here.name(ofMember:)) == names }
        }
        guard matching(root) != nil else { return [] }
        return family.compactMap { member in
            guard member != entity, let peerGroup = matching(member) else { return nil }
            return (member, peerGroup)
        }
    }

    /// The first row whose values in `group` an earlier live row already holds.
    private func firstDuplicate(entity: Int, group: [Int]) -> (first: Int, second: Int)? {
        let table = tables[entity]
        guard group.count == 1, layout.entities[entity].linkSlot(ofMember: group[0]) == nil else {
            var seen: [[Value]: Int] = [:]
            for row in 0..<table.rowCount where table.isLive[row] {
                guard let values = uniqueValues(ObjectRef(entity: entity, row: row), group) else { continue }
                if let first = seen.updateValue(row, forKey: values) { return (first, row) }
            }
            return nil
        }
        let live = table.isLive
        switch table.columns[group[0]] {
        case .int(let storage): return Self.firstDuplicate(storage, live: live) { $0 }
        case .double(let storage): return Self.firstDuplicate(storage, live: live) { $0.bitPattern }
        case .bool(let storage): return Self.firstDuplicate(storage, live: live) { $0 }
        case .string(let storage): return Self.firstDuplicate(storage, live: live) { UTF8Key($0) }
        case .value(let storage): return Self.firstDuplicate(storage, live: live) { $0 == .null ? nil : $0 }
        }
    }

    /// A violation's values as messages show them, comma-separated: each
    /// attribute's value through `describe`, each relationship's object by
    /// its identifier (`Snapshot#7`).
    func describeValues(of violation: UniquenessViolation, _ describe: (Value, ValueType) -> String) -> String {
        let layout = layout.entities[violation.entity]
        let ref = ObjectRef(entity: violation.entity, row: violation.second)
        return violation.group.map { member in
            guard let slot = layout.linkSlot(ofMember: member) else {
                return describe(value(ref, member), layout.attributes[member].type)
            }
            return targets(ref, slot).first.map { identifier(for: $0).description } ?? ""
        }.joined(separator: ", ")
    }

    /// The first live row whose key an earlier live row already has, skipping
    /// nil values (rows marked null, or a `nil` key).
    private static func firstDuplicate<Element, Key: Hashable>(
        _ storage: ColumnStorage<Element>, live: [Bool],
        key: (Element) -> Key?
    ) -> (first: Int, second: Int)? {
        var seen: [Key: Int] = [:]
        seen.reserveCapacity(live.count)
        let hasNulls = !storage.nulls.isEmpty
        for row in 0..<live.count where live[row] {
            if hasNulls, storage.nulls[row] { continue }
            guard let key = key(storage.values[row]) else { continue }
            if let first = seen.updateValue(row, forKey: key) { return (first, row) }
        }
        return nil
    }
}

/// The unique indexes: one per checked group, built on first use, kept
/// current by every edit that can change a key, serving upserts and the rule.
extension ObjectGraph {
    /// The live object of an entity whose members of a unique group hold
    /// `values` (one per member, in the group's order; a relationship's is
    /// ``uniqueKey(ofLinkTo:)``), if any; `nil` when a value is `nil`, which
    /// matches nothing. The index is built on first use (O(rows)) and kept up
    /// to date after (O(1) per edit).
    func firstObject(of entity: Int, inUniqueGroup group: [Int], holding values: [Value]) -> ObjectRef? {
        guard !values.contains(.null) else { return nil }
        return uniqueIndex(entity: entity, group: group).row(for: values).map { ObjectRef(entity: entity, row: Int($0)) }
    }

    /// Every live object of an entity holding `values` in a unique group, by
    /// row: more than one only between saves, when an edit made them clash.
    func objects(of entity: Int, inUniqueGroup group: [Int], holding values: [Value]) -> [ObjectRef] {
        guard !values.contains(.null) else { return [] }
        return uniqueIndex(entity: entity, group: group).rows(for: values).sorted().map { ObjectRef(entity: entity, row: Int($0)) }
    }

    /// The group's index, built from the live rows on first use.
    private func uniqueIndex(entity: Int, group: [Int]) -> UniqueIndex {
        let key = UniqueKey(entity: entity, attributes: group)
        if let index = uniqueIndexes[key] { return index }
        let index = scannedUniqueIndex(entity: entity, group: group)
        uniqueIndexes[key] = index
        return index
    }

    /// A group's index made from the tables, as on first use; also what the
    /// invariant check compares a kept index with.
    func scannedUniqueIndex(entity: Int, group: [Int]) -> UniqueIndex {
        var index = UniqueIndex()
        let table = tables[entity]
        for row in 0..<table.rowCount where table.isLive[row] {
            if let stored = uniqueValues(ObjectRef(entity: entity, row: row), group) { index.add(stored, row: Int32(row)) }
        }
        return index
    }

    /// The key value of a relationship member holding `target`: the object's
    /// identity, which within one graph is its entity and row (rows are never
    /// reused; a relationship into a hierarchy holds objects of several entities).
    func uniqueKey(ofLinkTo target: ObjectRef) -> Value { .int(Int64(target.entity) << 32 | Int64(target.row)) }

    /// An object's values in a unique group, or `nil` when one of them is `nil`
    /// (an attribute without a value, a to-one holding nothing).
    func uniqueValues(_ ref: ObjectRef, _ group: [Int]) -> [Value]? {
        var values: [Value] = []
        values.reserveCapacity(group.count)
        for member in group {
            let value = uniqueValue(ref, member)
            guard value != .null else { return nil }
            values.append(value)
        }
        return values
    }

    /// An object's value in one member of a unique group: an attribute's
    /// value, or ``uniqueKey(ofLinkTo:)`` of the object a to-one holds;
    /// `.null` for none.
    func uniqueValue(_ ref: ObjectRef, _ member: Int) -> Value {
        let layout = layout.entities[Int(ref.entity)]
        guard let slot = layout.linkSlot(ofMember: member) else { return value(ref, member) }
        let target = tables[Int(ref.entity)].links[slot].one[Int(ref.row)]
        guard target >= 0 else { return .null }
        return uniqueKey(ofLinkTo: layout.links[slot].ref(target))
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

    /// Runs `edit`, which changes one member of `ref` — an attribute, or the
    /// to-one relationship in `slot` — and moves a live object to its new key
    /// in every built index over a group holding that member. O(1) when no
    /// such index is built.
    func rekeying(_ ref: ObjectRef, member: Int, _ edit: () -> Void) {
        let indexed = isLive(ref) ? uniqueIndexKeys(of: ref).filter { $0.attributes.contains(member) } : []
        for key in indexed {
            if let old = uniqueValues(ref, key.attributes) { uniqueIndexes[key]?.remove(old, row: ref.row) }
        }
        edit()
        for key in indexed {
            if let new = uniqueValues(ref, key.attributes) { uniqueIndexes[key]?.add(new, row: ref.row) }
        }
    }

    /// ``rekeying(_:member:_:)`` for a relationship slot; only a declared
    /// to-one can be a member, so other slots, and every slot while no index
    /// is built, cost a comparison or two.
    func rekeying(_ ref: ObjectRef, slot: Int, _ edit: () -> Void) {
        let layout = layout.entities[Int(ref.entity)]
        let member = layout.attributes.count + slot
        guard !uniqueIndexes.isEmpty, slot < layout.declaredLinkCount, !layout.links[slot].isToMany,
            layout.uniqueGroups.contains(where: { $0.contains(member) })
        else { return edit() }
        rekeying(ref, member: member, edit)
    }

    /// The keys of the indexes built for the object's entity, as an array: a
    /// loop over the dictionary itself would keep its storage shared while the
    /// loop updates an index, copying that whole index on every update.
    func uniqueIndexKeys(of ref: ObjectRef) -> [UniqueKey] {
        uniqueIndexes.isEmpty ? [] : uniqueIndexes.keys.filter { $0.entity == Int(ref.entity) }
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
