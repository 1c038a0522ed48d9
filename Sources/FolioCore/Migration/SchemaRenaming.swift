/// How a migration carries a stored schema's names over to a new one: which
/// entity and which property each stored name became, and which were dropped.
///
/// The objects move by ``ObjectGraph/migrated(to:)``; what names them outside
/// the graph — the history's transactions and tombstones — moves by this, so a
/// document names only what its schema declares (docs/FORMAT.md, "History").
struct SchemaRenaming: Equatable, Sendable {
    /// Stored entity name → its name in the new schema; a stored entity
    /// missing here was dropped.
    private(set) var entities: [String: String] = [:]
    /// Stored entity name → (stored property name → its name in the new
    /// schema); a stored property missing here was dropped.
    private(set) var properties: [String: [String: String]] = [:]

    /// What each name of `stored` becomes under `target`, matched as the
    /// lightweight migration matches them: by name first, then by
    /// `originalName` when the stored name is not taken in the target.
    ///
    /// - Throws: ``MigrationError/ambiguousRename(originalName:claimedBy:)``
    ///   when two target names claim one stored name.
    init(from stored: Schema, to target: Schema) throws(MigrationError) {
        let entityMatch = try Self.match(
            target.entities.map { ($0.name, $0.originalName) },
            stored: stored.entities.map(\.name), qualifier: nil)
        for (index, entity) in target.entities.enumerated() {
            guard let storedIndex = entityMatch[index] else { continue }
            let storedEntity = stored.entities[storedIndex]
            entities[storedEntity.name] = entity.name
            let taken = Set(entity.attributes.map(\.name) + entity.relationships.map(\.name))
            let attributes = try Self.match(
                entity.attributes.map { ($0.name, $0.originalName) },
                stored: storedEntity.attributes.map(\.name), qualifier: entity.name, taken: taken)
            let relationships = try Self.match(
                entity.relationships.map { ($0.name, $0.originalName) },
                stored: storedEntity.relationships.map(\.name), qualifier: entity.name,
                taken: taken)
            var names: [String: String] = [:]
            for (targetIndex, match) in attributes.enumerated() {
                if let match { names[storedEntity.attributes[match].name] = entity.attributes[targetIndex].name }
            }
            for (targetIndex, match) in relationships.enumerated() {
                if let match { names[storedEntity.relationships[match].name] = entity.relationships[targetIndex].name }
            }
            properties[storedEntity.name] = names
        }
    }

    private init(entities: [String: String], properties: [String: [String: String]]) {
        self.entities = entities
        self.properties = properties
    }

    /// Whether every stored name is kept as it is (no rename, nothing dropped) in `schema`.
    func keepsEveryName(of schema: Schema) -> Bool {
        schema.entities.allSatisfy { entity in
            entities[entity.name] == entity.name
                && (entity.attributes.map(\.name) + entity.relationships.map(\.name))
                    .allSatisfy { properties[entity.name]?[$0] == $0 }
        }
    }

    /// The name a stored entity has now, `nil` when it was dropped.
    func entity(_ name: String) -> String? { entities[name] }

    /// The name a stored entity's property has now, `nil` when it (or its entity) was dropped.
    func property(_ name: String, of entity: String) -> String? { properties[entity]?[name] }

    /// A merge's conflict record under the new names: its object's entity, its
    /// property, and what its versions name (an object's properties, related
    /// objects' entities); `nil` when it concerns a dropped entity or property.
    /// A dropped property leaves a whole-object version without it, and a
    /// related object of a dropped entity leaves a relationship's version.
    func renamed(_ conflict: MergeConflict) -> MergeConflict? {
        guard let entity = entity(conflict.entityName) else { return nil }
        var renamed = MergeConflict(
            kind: conflict.kind,
            id: PersistentIdentifier(
                entityName: entity, id: conflict.id.id,
                storeIdentifier: conflict.id.storeIdentifier),
            key: conflict.key)
        if let property = conflict.property {
            guard let name = self.property(property, of: conflict.entityName) else { return nil }
            renamed.property = name
        }
        func renamedContent(_ content: MergeConflict.Content?) -> MergeConflict.Content? {
            switch content {
            case nil, .value?: return content
            case .related(let ids)?:
                return .related(
                    ids.compactMap { id in
                        self.entity(id.entityName).map { PersistentIdentifier(entityName: $0, id: id.id, storeIdentifier: id.storeIdentifier) }
                    })
            case .object(let properties)?:
                var named: [String: MergeConflict.Content] = [:]
                for (property, version) in properties {
                    if let name = self.property(property, of: conflict.entityName), let version = renamedContent(version) {
                        named[name] = version
                    }
                }
                return .object(named)
            }
        }
        renamed.base = renamedContent(conflict.base)
        renamed.ours = renamedContent(conflict.ours)
        renamed.theirs = renamedContent(conflict.theirs)
        return renamed
    }

    /// This renaming, then `next` (a migration through several versions).
    func followed(by next: SchemaRenaming) -> SchemaRenaming {
        var entities: [String: String] = [:], properties: [String: [String: String]] = [:]
        for (stored, middle) in self.entities {
            guard let final = next.entities[middle] else { continue }
            entities[stored] = final
            var names: [String: String] = [:]
            for (property, middleProperty) in self.properties[stored] ?? [:] {
                if let finalProperty = next.properties[middle]?[middleProperty] { names[property] = finalProperty }
            }
            properties[stored] = names
        }
        return SchemaRenaming(entities: entities, properties: properties)
    }

    /// Matches target names to stored names: by name first, then by `originalName`
    /// when the stored name is not `taken` in the target (a rename).
    ///
    /// - Returns: for each target, the index of the stored name it takes over, if any.
    /// - Throws: ``MigrationError/ambiguousRename(originalName:claimedBy:)`` when
    ///   two targets rename the same stored name.
    static func match(
        _ targets: [(name: String, originalName: String?)], stored: [String], qualifier: String?,
        taken: Set<String>? = nil
    ) throws(MigrationError) -> [Int?] {
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
            throw .ambiguousRename(
                originalName: original,
                claimedBy: claimants.map { index in
                    qualifier.map { "\($0).\(targets[index].name)" } ?? targets[index].name
                })
        }
        return result
    }
}
