/// The schema compiled for fast access: names interned to indexes, and every
/// relationship paired with an inverse slot.
///
/// A relationship the schema declares without an inverse gets a hidden to-many
/// inverse on its destination, kept in memory only. That is what lets a delete
/// cut every link to an object in time proportional to its links, never by
/// scanning the document, and leave no dangling reference behind.
struct SchemaLayout: Sendable {
    struct Link: Sendable {
        /// The declared name, or `nil` for a hidden inverse.
        var name: String?
        var destination: Int
        var isToMany: Bool
        /// Whether a to-many may hold no collection (`nil`) apart from an empty one.
        var isOptional: Bool = false
        /// The slot of the inverse link in the destination's links.
        var inverse: Int
        var deleteRule: Schema.Relationship.DeleteRule
        /// For a relationship whose destination has subentities: how its
        /// stored targets name objects of several entities. `nil` for every
        /// other relationship, whose targets are rows of `destination`.
        var hierarchy: LinkHierarchy?
        var isHidden: Bool { name == nil }

        /// The object a stored target names. A relationship into a
        /// hierarchy stores `row << shift | member` (see ``LinkHierarchy``);
        /// any other stores the destination's row, so its path is one branch.
        @inline(__always)
        func ref(_ target: Int32) -> ObjectRef {
            guard let hierarchy else { return ObjectRef(entity: Int32(truncatingIfNeeded: destination), row: target) }
            return ObjectRef(entity: hierarchy.members[Int(target & hierarchy.mask)], row: target >> hierarchy.shift)
        }

        /// What this relationship stores for `ref`, an object of its destination
        /// or of one of its subentities (``accepts(entity:)``).
        @inline(__always)
        func target(_ ref: ObjectRef) -> Int32 {
            guard let hierarchy else { return ref.row }
            return ref.row << hierarchy.shift | Int32(truncatingIfNeeded: hierarchy.member(of: Int(ref.entity)) ?? 0)
        }

        /// The slot of the inverse in the links of `entity`, the entity of
        /// an object this relationship holds: hidden inverses of a relationship
        /// into a hierarchy sit in a different slot of each member.
        @inline(__always)
        func inverse(in entity: Int32) -> Int {
            guard let hierarchy else { return inverse }
            return hierarchy.inverses[hierarchy.member(of: Int(entity)) ?? 0]
        }

        /// Whether objects of `entity` may be held: the destination or, for a
        /// relationship into a hierarchy, any entity inheriting from it.
        func accepts(entity: Int) -> Bool {
            hierarchy.map { $0.member(of: entity) != nil } ?? (entity == destination)
        }
    }

    /// How a relationship whose destination has subentities stores its
    /// targets in the `Int32` a link column holds per target: the member of
    /// the destination's hierarchy (its index in `members`) in the low
    /// `shift` bits, the row in that member's table above them. Rows are
    /// stable for a graph's life, so a stored target is too; an entity such a
    /// relationship may hold is limited to `Int32.max >> shift` rows
    /// (``SchemaLayout/maximumRows``).
    final class LinkHierarchy: Sendable {
        /// The destination and every entity inheriting from it (``Schema/hierarchy(of:)``).
        let members: [Int32]
        let shift: Int32
        let mask: Int32
        /// Parallel to `members`: the inverse's slot in each member's links.
        let inverses: [Int]

        init(members: [Int], inverses: [Int]) {
            self.members = members.map { Int32(truncatingIfNeeded: $0) }
            var bits: Int32 = 0
            while (1 << bits) < members.count { bits += 1 }
            shift = bits
            mask = (1 << bits) - 1
            self.inverses = inverses
        }

        /// The index of `entity` in `members`, or `nil`. Hierarchies are a few
        /// entities: a scan beats a dictionary.
        @inline(__always)
        func member(of entity: Int) -> Int? {
            members.firstIndex(of: Int32(truncatingIfNeeded: entity))
        }
    }

    /// The facts about an attribute that every value set or written asks for,
    /// kept apart from ``Schema/Attribute``: reading them from it copies the
    /// attribute with its strings, and asks its options set (a hash) each time.
    struct AttributeTraits: Sendable {
        var isOptional: Bool
        var isTransient: Bool
        var isExternal: Bool

        init(_ attribute: Schema.Attribute) {
            isOptional = attribute.isOptional
            isTransient = attribute.isTransient
            isExternal = attribute.isExternal
        }
    }

    /// One entity's layout. A class, and immutable once ``SchemaLayout`` has
    /// made it: the hot paths of edits, saves and loads read it per object,
    /// and reading a struct of this many arrays and dictionaries out of the
    /// layout copied every one of them (a retain and a release each).
    final class EntityLayout: Sendable {
        let name: String
        let attributes: [Schema.Attribute]
        /// Parallel to `attributes`.
        let traits: [AttributeTraits]
        let attributeIndex: [String: Int]
        /// Declared relationships first, in declaration order, then hidden inverses.
        let links: [Link]
        let linkIndex: [String: Int]
        let declaredLinkCount: Int
        /// The groups of properties whose values no two objects may share:
        /// each `.unique` attribute alone, then each other uniqueness
        /// constraint (as a set of members, each group once). Members are
        /// property indexes, numbered as change tracking numbers them: an
        /// attribute's index, or `attributes.count` + the slot of a to-one
        /// relationship (whose value is the identity of the object it holds).
        let uniqueGroups: [[Int]]
        /// The unique groups the rule checks (see ``checkedUniqueGroups``), worked out once.
        let checkedUniqueGroups: [[Int]]
        /// The declared indexes (`#Index`, the document's `<index>`), each as
        /// attribute indexes, most significant first; each list once.
        let indexes: [[Int]]

        init(_ entity: Schema.Entity, links: [Link]) {
            name = entity.name
            attributes = entity.attributes
            traits = entity.attributes.map(AttributeTraits.init)
            attributeIndex = Dictionary(uniqueKeysWithValues: entity.attributes.enumerated().map { ($1.name, $0) })
            self.links = links
            linkIndex = Dictionary(uniqueKeysWithValues: entity.relationships.enumerated().map { ($1.name, $0) })
            declaredLinkCount = entity.relationships.count
            let groups = SchemaLayout.uniqueGroups(of: entity)
            uniqueGroups = groups
            checkedUniqueGroups = Self.checkedGroups(groups, attributes: entity.attributes)
            indexes = SchemaLayout.indexes(of: entity)
        }

        /// The relationship slot a unique-group member names, or `nil` for an attribute.
        func linkSlot(ofMember member: Int) -> Int? {
            member >= attributes.count ? member - attributes.count : nil
        }

        /// The name of a unique-group member.
        func name(ofMember member: Int) -> String {
            linkSlot(ofMember: member).map { links[$0].name ?? "" } ?? attributes[member].name
        }

        /// A group's member names as messages list them: `city, day`.
        func names(ofGroup group: [Int]) -> String {
            group.map(name(ofMember:)).joined(separator: ", ")
        }
    }

    let entities: [EntityLayout]
    let entityIndex: [String: Int]
    /// Each entity followed by the entities that inherit from it, directly or
    /// not (``Schema/hierarchy(of:)``): the tables a fetch of it reads.
    let hierarchies: [[Int]]
    /// Each entity's topmost superentity (itself when it has none).
    let roots: [Int]
    /// The most rows each entity's table may have: `Int32.max`, or less when
    /// a relationship into a hierarchy may hold the entity's objects and
    /// keeps the member in the low bits of its targets (``LinkHierarchy``).
    let maximumRows: [Int]

    init(_ schema: Schema) {
        let entityIndex = Dictionary(uniqueKeysWithValues: schema.entities.enumerated().map { ($1.name, $0) })
        // Each entity's subentities found once, so the hierarchies cost O(entities) in all
        // (asking ``Schema/hierarchy(of:)`` of each entity walks every entity each time).
        var children = [[Int]](repeating: [], count: schema.entities.count)
        for (index, entity) in schema.entities.enumerated() {
            if let parent = entity.superentity.flatMap({ entityIndex[$0] }) { children[parent].append(index) }
        }
        let hierarchies = schema.entities.indices.map { index in
            // Depth first in the schema's order, as ``Schema/hierarchy(of:)``; a loop
            // (refused by the schema's validation) cannot make it run forever.
            var result: [Int] = [], visited = Set<Int>()
            func visit(_ entity: Int) {
                guard visited.insert(entity).inserted else { return }
                result.append(entity)
                for child in children[entity] { visit(child) }
            }
            visit(index)
            return result
        }
        self.hierarchies = hierarchies
        // The links of every entity first (a relationship without an inverse adds a
        // hidden one to its destination), then the layouts, which never change.
        var links = schema.entities.map { entity in
            entity.relationships.map { relationship in
                Link(
                    name: relationship.name, destination: entityIndex[relationship.destination] ?? 0,
                    isToMany: relationship.isToMany, isOptional: relationship.isToMany && relationship.isOptional,
                    inverse: -1, deleteRule: relationship.deleteRule)
            }
        }
        for (index, entity) in schema.entities.enumerated() {
            for (slot, relationship) in entity.relationships.enumerated() {
                let destination = links[index][slot].destination
                // The destination and, when it has subentities, each of them holds the inverse:
                // a declared one is inherited (the same slot in each), a hidden one is added to each.
                let members = hierarchies[destination]
                var inverses: [Int] = []
                for member in members {
                    let memberNames = schema.entities[member].relationships.map(\.name)
                    if let inverseName = relationship.inverse, let inverse = memberNames.firstIndex(of: inverseName) {
                        inverses.append(inverse)
                    } else {
                        let hidden = Link(name: nil, destination: index, isToMany: true, inverse: slot, deleteRule: .nullify)
                        links[member].append(hidden)
                        inverses.append(links[member].count - 1)
                    }
                }
                links[index][slot].inverse = inverses[0]
                if members.count > 1 { links[index][slot].hierarchy = LinkHierarchy(members: members, inverses: inverses) }
            }
        }
        var maximumRows = [Int](repeating: Int(Int32.max), count: schema.entities.count)
        for entityLinks in links {
            for link in entityLinks {
                guard let hierarchy = link.hierarchy else { continue }
                for member in hierarchy.members {
                    maximumRows[Int(member)] = min(maximumRows[Int(member)], Int(Int32.max >> hierarchy.shift))
                }
            }
        }
        self.maximumRows = maximumRows
        entities = schema.entities.enumerated().map { index, entity in EntityLayout(entity, links: links[index]) }
        self.entityIndex = entityIndex
        roots = schema.entities.enumerated().map { index, entity in
            var root = index
            var current = entity.superentity
            var steps = 0
            // A loop (refused by validation) ends the walk.
            while let name = current, let next = entityIndex[name], steps < schema.entities.count {
                root = next
                current = schema.entities[next].superentity
                steps += 1
            }
            return root
        }
    }

    /// The entity's indexes that name attributes only (validation refuses the others).
    fileprivate static func indexes(of entity: Schema.Entity) -> [[Int]] {
        var result: [[Int]] = []
        for names in entity.indexes {
            let attributes = names.compactMap { name in entity.attributes.firstIndex { $0.name == name } }
            guard attributes.count == names.count, !attributes.isEmpty, !result.contains(attributes) else { continue }
            result.append(attributes)
        }
        return result
    }

    fileprivate static func uniqueGroups(of entity: Schema.Entity) -> [[Int]] {
        var groups: [[Int]] = []
        for constraint in entity.uniquenessConstraints {
            let group = constraint.compactMap { name in
                entity.attributes.firstIndex { $0.name == name }
                    ?? entity.relationships.firstIndex { $0.name == name && !$0.isToMany }.map { entity.attributes.count + $0 }
            }
            guard group.count == constraint.count, !group.isEmpty,
                !groups.contains(where: { Set($0) == Set(group) })
            else { continue }
            groups.append(group)
        }
        return groups
    }
}
