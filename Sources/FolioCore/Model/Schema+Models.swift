extension Schema {
    /// The schema of model classes, SwiftData's `Schema([Trip.self, Accommodation.self])`.
    ///
    /// Relationship destinations are included by traversal, so listing the root
    /// types is enough; so are the superclasses of `@Model` subclasses (whose
    /// entities are subentities, ``Entity/superentity``), but not the
    /// subclasses of a listed class: list them, as SwiftData asks
    /// (`[Trip.self, BusinessTrip.self, PersonalTrip.self]`). Entities are ordered by name, properties as declared. An
    /// inverse declared on one side is set on the other; with none declared, two
    /// relationships that are the only ones between two classes are each other's
    /// inverse when at least one of them is to-one (as SwiftData infers; it
    /// infers no many-to-many, so two arrays of each other without
    /// `@Relationship(inverse:)` are two independent relationships). A schema that does not
    /// validate (say, two inverses that disagree) makes `ModelContainer` throw.
    public init(_ types: [any PersistentModel.Type]) {
        var pending = types
        var seen: [String: any PersistentModel.Type] = [:]
        while let type = pending.popLast() {
            guard seen[type.entityName] == nil else { continue }
            seen[type.entityName] = type
            // A subclass's entity is a subentity of its superclass's, which the schema needs too.
            if let superclass = type.persistentSuperclass { pending.append(superclass) }
            for property in ModelMetadata.of(type).properties {
                if case .relationship(_, let destination, _) = property.kind { pending.append(destination) }
            }
        }
        var entities = seen.keys.sorted().compactMap { name -> Entity? in
            guard let type = seen[name] else { return nil }
            var entity = Entity(name, superentity: type.persistentSuperclass?.entityName)
            let metadata = ModelMetadata.of(type)
            for property in metadata.properties {
                switch property.kind {
                case .attribute(let attribute, _): entity.attributes.append(attribute)
                case .relationship(let relationship, _, _): entity.relationships.append(relationship)
                }
            }
            // `@Relationship(.unique)`: a constraint of that one relationship.
            for property in metadata.properties where property.isUnique {
                entity.uniquenessConstraints.append([property.name])
            }
            // A key path to no persisted property keeps its description, for validation to name.
            // One attribute alone becomes its `.unique` option, as `uniquenessConstraints` stores it.
            for keyPaths in type._$uniquenessConstraints {
                entity.uniquenessConstraints.append(keyPaths.map { metadata.property(for: $0)?.name ?? String(describing: $0) })
            }
            // `#Index`: a key path to no persisted property keeps its description, for validation to name.
            entity.indexes = type._$indexes.map { keyPaths in
                keyPaths.map { metadata.property(for: $0)?.name ?? String(describing: $0) }
            }
            return entity
        }
        // An inverse named on one side only: name it on the other side too.
        for entity in entities {
            for relationship in entity.relationships {
                guard let inverse = relationship.inverse,
                    let destination = entities.firstIndex(where: { $0.name == relationship.destination }),
                    let slot = entities[destination].relationships.firstIndex(where: { $0.name == inverse }),
                    entities[destination].relationships[slot].inverse == nil
                else { continue }
                entities[destination].relationships[slot].inverse = relationship.name
            }
        }
        // No inverse named on either side: pair the two relationships when they are
        // the only ones between the two classes without an inverse, as SwiftData infers.
        // A subentity's inherited relationships (its first ones) take their inverses from
        // the superentity below, so they are never paired on their own here: paired with a
        // relationship to the subentity, they would disagree with the superentity's.
        func inheritedCount(_ index: Int) -> Int {
            guard let superName = entities[index].superentity else { return 0 }
            return entities.first(where: { $0.name == superName })?.relationships.count ?? 0
        }
        func unpaired(_ from: Int, to destination: String) -> [Int] {
            entities[from].relationships.indices.filter {
                $0 >= inheritedCount(from) && entities[from].relationships[$0].inverse == nil
                    && entities[from].relationships[$0].destination == destination
            }
        }
        for source in entities.indices {
            for slot in entities[source].relationships.indices
            where slot >= inheritedCount(source) && entities[source].relationships[slot].inverse == nil {
                let relationship = entities[source].relationships[slot]
                guard relationship.destination != entities[source].name,
                    let destination = entities.firstIndex(where: { $0.name == relationship.destination }),
                    unpaired(source, to: relationship.destination).count == 1,
                    let back = unpaired(destination, to: entities[source].name).first,
                    unpaired(destination, to: entities[source].name).count == 1,
                    // SwiftData infers no many-to-many: both sides to-many stay two relationships.
                    !(relationship.isToMany && entities[destination].relationships[back].isToMany)
                else { continue }
                entities[source].relationships[slot].inverse = entities[destination].relationships[back].name
                entities[destination].relationships[back].inverse = relationship.name
            }
        }
        // A subentity's inherited relationships are its superentity's, inverses included.
        var settled = Set(entities.filter { $0.superentity == nil }.map(\.name))
        var progressed = true
        while progressed {
            progressed = false
            for index in entities.indices where !settled.contains(entities[index].name) {
                guard let superName = entities[index].superentity, settled.contains(superName),
                    let superentity = entities.first(where: { $0.name == superName })
                else { continue }
                let inherited = superentity.relationships.count
                if entities[index].relationships.count >= inherited {
                    entities[index].relationships.replaceSubrange(0..<inherited, with: superentity.relationships)
                }
                settled.insert(entities[index].name)
                progressed = true
            }
        }
        self.init(unchecked: entities, annotation: ModelTypes(seen))
    }
}
