/// One object as the merge sees it, apart from any graph: its entity and one
/// cell per stored attribute and per declared relationship.
///
/// A part file's objects read as states can be merged without building an
/// ``ObjectGraph`` (a Git merge driver merges one part file at a time).
/// Attribute cells are ``StoredValue``s, so an externally stored value is
/// carried as its blob and never read unless the merge must compare two
/// different files.
struct ObjectState: Equatable {
    /// One relationship's content: destination identifiers in order, and
    /// whether an optional to-many holds no collection (then `ids` is empty).
    struct Link: Equatable {
        var ids: [UInt64]
        var absent = false

        init(_ ids: [UInt64], absent: Bool = false) {
            self.ids = ids
            self.absent = absent
        }
    }

    /// The entity's name.
    var entity: String
    /// Each stored (non-transient) attribute's cell, by name.
    var attributes: [String: StoredValue]
    /// Each declared relationship, by name.
    var links: [String: Link]
}

extension ObjectGraph {
    /// Every live object as a state, by identifier. Blobs are carried unread.
    /// O(objects × properties + links).
    func objectStates() -> [UInt64: ObjectState] {
        var states: [UInt64: ObjectState] = [:]
        states.reserveCapacity(count)
        for (entityIndex, table) in tables.enumerated() {
            for row in 0..<table.rowCount where table.isLive[row] {
                let ref = ObjectRef(entity: entityIndex, row: row)
                states[table.ids[row]] = objectState(ref)
            }
        }
        return states
    }

    /// The states of the live objects among `ids`, by identifier: a merge
    /// restricted to some objects. O(ids × properties + their links).
    func objectStates(of ids: some Sequence<UInt64>) -> [UInt64: ObjectState] {
        var states: [UInt64: ObjectState] = [:]
        for id in ids {
            guard let ref = index[id], isLive(ref) else { continue }
            states[id] = objectState(ref)
        }
        return states
    }

    /// `ids` and every live object their relationships hold here: what a
    /// merge restricted to `ids` must also see, since a derived list (a
    /// category's animals) is derived again from its members' facts.
    /// O(ids × links).
    func reachedIdentifiers(from ids: some Sequence<UInt64>) -> Set<UInt64> {
        var reached = Set(ids)
        for id in ids {
            guard let ref = index[id], isLive(ref) else { continue }
            let entityLayout = layout.entities[Int(ref.entity)]
            for slot in 0..<entityLayout.declaredLinkCount {
                let link = entityLayout.links[slot]
                for target in tables[Int(ref.entity)].links[slot].targets(of: Int(ref.row)) {
                    let targetRef = link.ref(target)
                    reached.insert(tables[Int(targetRef.entity)].ids[Int(targetRef.row)])
                }
            }
        }
        return reached
    }

    /// One live or deleted object's state.
    func objectState(_ ref: ObjectRef) -> ObjectState {
        let entityLayout = layout.entities[Int(ref.entity)]
        let table = tables[Int(ref.entity)]
        var attributes: [String: StoredValue] = [:]
        for (index, attribute) in entityLayout.attributes.enumerated() where !attribute.isTransient {
            attributes[attribute.name] = stored(ref, index)
        }
        var links: [String: ObjectState.Link] = [:]
        for slot in 0..<entityLayout.declaredLinkCount {
            let link = entityLayout.links[slot]
            let ids = table.links[slot].targets(of: Int(ref.row)).map { target in
                let targetRef = link.ref(target)
                return tables[Int(targetRef.entity)].ids[Int(targetRef.row)]
            }
            links[entityLayout.links[slot].name ?? ""] = .init(ids, absent: table.links[slot].isAbsent(Int(ref.row)))
        }
        return ObjectState(entity: entityLayout.name, attributes: attributes, links: links)
    }
}
