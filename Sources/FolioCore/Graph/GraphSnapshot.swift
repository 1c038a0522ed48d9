/// Everything a graph saves, in a form that compares by value: two graphs with
/// equal snapshots write byte-identical packages.
///
/// Tests compare graphs through snapshots; the property tests compare a graph
/// against a plain reference model the same way.
struct GraphSnapshot: Equatable, CustomStringConvertible {
    struct Object: Equatable {
        /// Saved attribute values, by name (transient attributes excluded).
        var values: [String: Value]
        /// Declared relationships, by name: destination numbers in order.
        var links: [String: [UInt64]]
        /// The optional to-many relationships that hold no collection (`nil`,
        /// not an empty one), by name; their `links` are empty.
        var absent: Set<String> = []
    }

    /// Live objects by entity name, then by number.
    var objects: [String: [UInt64: Object]]

    var description: String {
        objects.keys.sorted().map { entity in
            let byID = objects[entity, default: [:]]
            return byID.keys.sorted().compactMap { id -> String? in
                guard let object = byID[id] else { return nil }
                let values = object.values.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
                let links = object.links.sorted { $0.key < $1.key }
                    .map { "\($0.key)->" + (object.absent.contains($0.key) ? "nil" : "\($0.value)") }
                return "\(entity)#\(id) " + (values + links).joined(separator: " ")
            }.joined(separator: "\n")
        }.joined(separator: "\n")
    }
}

extension ObjectGraph {
    /// A value snapshot of every live object. O(objects × properties).
    func snapshot() -> GraphSnapshot {
        var objects: [String: [UInt64: GraphSnapshot.Object]] = [:]
        for (entityIndex, table) in tables.enumerated() {
            let entityLayout = layout.entities[entityIndex]
            var byID: [UInt64: GraphSnapshot.Object] = [:]
            for row in 0..<table.rowCount where table.isLive[row] {
                let ref = ObjectRef(entity: entityIndex, row: row)
                var values: [String: Value] = [:]
                for (index, attribute) in entityLayout.attributes.enumerated() where !attribute.isTransient {
                    values[attribute.name] = value(ref, index)
                }
                var links: [String: [UInt64]] = [:]
                var absent: Set<String> = []
                for slot in 0..<entityLayout.declaredLinkCount {
                    let name = entityLayout.links[slot].name ?? ""
                    links[name] = targets(ref, slot).map { tables[Int($0.entity)].ids[Int($0.row)] }
                    if table.links[slot].isAbsent(row) { absent.insert(name) }
                }
                byID[table.ids[row]] = GraphSnapshot.Object(values: values, links: links, absent: absent)
            }
            objects[entityLayout.name] = byID
        }
        return GraphSnapshot(objects: objects)
    }

    /// Checks the graph's invariants and returns what is broken (empty when sound):
    /// every link has its inverse, no link reaches a deleted object, the index
    /// matches the tables, no to-many holds an object twice, a to-many with no
    /// collection holds nothing (only an optional one may have none), and each
    /// unique index built holds exactly the live objects' keys, and each
    /// declared index built exactly the live rows, in order.
    ///
    /// O(objects × (1 + unique indexes) + links), indexes' sorts aside: a long
    /// list's inverses are looked up in a set of its relationship's pairs, built
    /// once, so that the debug builds' check after every mutation
    /// (``_checkInvariants()``) stays linear. For tests and debug checks.
    func invariantViolations() -> [String] {
        var problems: [String] = []
        // (row, target) pairs of each to-many column with a long list, keyed by entity and slot.
        var pairs: [Int: Set<UInt64>] = [:]
        func holds(_ entity: Int, _ slot: Int, _ row: Int, _ target: Int32) -> Bool {
            let column = tables[entity].links[slot]
            guard column.isToMany, column.many[row].count > 16 else { return column.contains(target, in: row) }
            let key = entity << 20 | slot
            if pairs[key] == nil {
                var set = Set<UInt64>()
                for (source, list) in column.many.enumerated() where list.count > 16 {
                    for element in list { set.insert(UInt64(source) << 32 | UInt64(UInt32(bitPattern: element))) }
                }
                pairs[key] = set
            }
            return pairs[key]?.contains(UInt64(row) << 32 | UInt64(UInt32(bitPattern: target))) ?? false
        }
        for (entityIndex, table) in tables.enumerated() {
            let entityLayout = layout.entities[entityIndex]
            for row in 0..<table.rowCount {
                let ref = ObjectRef(entity: entityIndex, row: row)
                if index[table.ids[row]] != ref { problems.append("index does not point at \(identifier(for: ref))") }
                if table.ids[row] >= nextID { problems.append("\(identifier(for: ref)) is not below nextID \(nextID)") }
                for (slot, link) in entityLayout.links.enumerated() {
                    let rows = table.links[slot].targets(of: row)
                    if !table.isLive[row], !rows.isEmpty {
                        problems.append("deleted \(identifier(for: ref)) still links through \(link.name ?? "hidden")")
                    }
                    let column = table.links[slot]
                    if column.isOptional != link.isOptional || (column.isOptional && column.absent.count != table.rowCount) {
                        problems.append("\(entityLayout.name).\(link.name ?? "hidden") keeps no collection flag per row")
                    } else if column.isAbsent(row), !rows.isEmpty {
                        problems.append("\(identifier(for: ref)).\(link.name ?? "hidden") holds objects but no collection")
                    }
                    if rows.count > 1, Set(rows).count != rows.count {
                        problems.append("\(identifier(for: ref)).\(link.name ?? "hidden") holds an object twice")
                    }
                    for target in rows {
                        let targetRef = link.ref(target)
                        guard link.accepts(entity: Int(targetRef.entity)), Int(targetRef.row) < tables[Int(targetRef.entity)].rowCount else {
                            problems.append("\(identifier(for: ref)).\(link.name ?? "hidden") holds a target of no row (\(target))")
                            continue
                        }
                        if !isLive(targetRef) {
                            problems.append("\(identifier(for: ref)).\(link.name ?? "hidden") reaches deleted \(identifier(for: targetRef))")
                        }
                        let inverseSlot = link.inverse(in: targetRef.entity)
                        let back = layout.entities[Int(targetRef.entity)].links[inverseSlot].target(ref)
                        if !holds(Int(targetRef.entity), inverseSlot, Int(targetRef.row), back) {
                            problems.append("\(identifier(for: ref)).\(link.name ?? "hidden") → \(identifier(for: targetRef)) has no inverse")
                        }
                    }
                }
            }
        }
        // Each unique index built so far holds exactly the live rows' keys.
        for (key, kept) in uniqueIndexes where kept.holders != scannedUniqueIndex(entity: key.entity, group: key.attributes).holders {
            problems.append("the unique index of \(layout.entities[key.entity].names(ofGroup: key.attributes)) disagrees with the tables")
        }
        problems += attributeIndexViolations()
        return problems
    }
}
