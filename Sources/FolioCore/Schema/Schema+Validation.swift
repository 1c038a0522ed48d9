extension Schema {
    /// Checks names, destinations, inverses, counts, options and inheritance
    /// (``Entity/superentity``).
    ///
    /// - Throws: the first ``SchemaError`` found, in declaration order.
    /// - Complexity: O(entities × properties).
    public func validate() throws(SchemaError) {
        try validateLimits(DocumentLimits.standard)
        var entityNames = Set<String>()
        for entity in entities {
            guard Schema.isValidName(entity.name) else { throw .invalidName(entity.name) }
            guard entityNames.insert(entity.name).inserted else { throw .duplicateEntity(entity.name) }
        }
        try validateInheritance()
        for entity in entities {
            var propertyNames = Set<String>()
            for attribute in entity.attributes {
                guard Schema.isValidName(attribute.name) else { throw .invalidName(attribute.name) }
                guard propertyNames.insert(attribute.name).inserted else {
                    throw .duplicateProperty(entity: entity.name, property: attribute.name)
                }
                // `string?` is an element's type; an attribute that may be absent is optional.
                if attribute.type.isOptionalElement {
                    throw .invalidOption(entity: entity.name, attribute: attribute.name, option: "type \(attribute.type)")
                }
                if attribute.isUnique && (attribute.type.isCollection || attribute.type == .codable || attribute.type == .any) {
                    throw .invalidOption(entity: entity.name, attribute: attribute.name, option: "unique")
                }
                // Stored through its Codable form: a composite value, whatever the Swift type.
                if attribute.isCodable && attribute.type != .codable {
                    throw .invalidOption(entity: entity.name, attribute: attribute.name, option: "codable")
                }
                if let value = attribute.defaultStoredValue,
                    !(value == .null ? attribute.isOptional : value.conforms(to: attribute.type))
                {
                    throw .invalidDefault(entity: entity.name, attribute: attribute.name)
                }
            }
            try validateUniquenessConstraints(of: entity)
            try validateIndexes(of: entity)
            for relationship in entity.relationships {
                guard Schema.isValidName(relationship.name) else { throw .invalidName(relationship.name) }
                guard propertyNames.insert(relationship.name).inserted else {
                    throw .duplicateProperty(entity: entity.name, property: relationship.name)
                }
                guard let destination = self.entity(named: relationship.destination) else {
                    throw .unknownDestination(
                        entity: entity.name, relationship: relationship.name,
                        destination: relationship.destination)
                }
                if relationship.isOptional && !relationship.isToMany {
                    throw .invalidOption(entity: entity.name, attribute: relationship.name, option: "optional")
                }
                let counts = (relationship.minimumModelCount, relationship.maximumModelCount)
                if counts.0 < 0 || counts.1 < 0 || (counts.1 > 0 && counts.0 > counts.1)
                    || (!relationship.isToMany && (counts.0 > 1 || counts.1 > 1))
                {
                    throw .invalidCount(entity: entity.name, relationship: relationship.name)
                }
                guard let inverseName = relationship.inverse else { continue }
                guard let inverse = destination.relationship(named: inverseName) else {
                    throw .unknownInverse(entity: entity.name, relationship: relationship.name, inverse: inverseName)
                }
                if destination.name == entity.name && inverseName == relationship.name {
                    throw .selfInverse(entity: entity.name, relationship: relationship.name)
                }
                // An inherited relationship's inverse points at the entity declaring it, an ancestor.
                guard self.entity(entity.name, isKindOf: inverse.destination), inverse.inverse == relationship.name else {
                    if inverse.inverse == relationship.name, self.entity(inverse.destination, isKindOf: entity.name) {
                        // The inverse holds only some of this entity's objects (a subentity's).
                        throw .relationshipIntoHierarchy(
                            entity: destination.name,
                            relationship: inverseName, destination: inverse.destination)
                    }
                    throw .inverseMismatch(entity: entity.name, relationship: relationship.name, inverse: inverseName)
                }
            }
        }
    }

    /// Checks what ``DocumentLimits`` bounds in a schema: entities (one XML
    /// attribute each on `<objects>`), the properties of an entity (one each on
    /// an object element, with its identifier), name lengths, and default
    /// values (written in the schema like any value).
    func validateLimits(_ limits: DocumentLimits) throws(SchemaError) {
        func refuse(_ entity: String, _ property: String, _ limit: DocumentLimits.Limit, _ size: Int) -> SchemaError {
            .limitExceeded(entity: entity, property: property, limit: limit, size: size, maximum: limits.maximum(limit))
        }
        if entities.count > limits.maximumAttributesPerElement {
            throw refuse("", "", .attributesPerElement, entities.count)
        }
        for entity in entities {
            if entity.name.utf8.count > limits.maximumNameBytes { throw refuse(entity.name, "", .nameBytes, entity.name.utf8.count) }
            let stored = entity.attributes.count(where: { !$0.isTransient }) + entity.relationships.count
            if stored + 1 > limits.maximumAttributesPerElement {
                throw refuse(entity.name, "", .attributesPerElement, stored + 1)
            }
            // The `.esc` suffix makes a written attribute name 4 bytes longer.
            for name in entity.attributes.map(\.name) + entity.relationships.map(\.name)
            where name.utf8.count + 4 > limits.maximumNameBytes {
                throw refuse(entity.name, name, .nameBytes, name.utf8.count + 4)
            }
            for attribute in entity.attributes {
                if let value = attribute.defaultStoredValue,
                    let (limit, size) = limits.violation(of: value, as: attribute.type, external: false)
                {
                    throw refuse(entity.name, attribute.name, limit, size)
                }
            }
        }
    }

    /// Each group names distinct stored attributes that `.unique` could mark,
    /// or to-one relationships (a to-many holds no one identity to compare).
    /// (A `.unique` attribute is checked as an option, above: it may be
    /// transient or external, which a constraint may not.)
    private func validateUniquenessConstraints(of entity: Entity) throws(SchemaError) {
        for constraint in entity.declaredConstraints {
            func refuse(_ reason: String) -> SchemaError {
                .invalidUniquenessConstraint(entity: entity.name, attributes: constraint, reason: reason)
            }
            guard !constraint.isEmpty else { throw refuse("it names no attributes") }
            guard Set(constraint).count == constraint.count else { throw refuse("it names an attribute twice") }
            for name in constraint {
                if let relationship = entity.relationship(named: name) {
                    if relationship.isToMany {
                        throw refuse("'\(name)' is a to-many relationship; only attributes and to-one relationships can be unique")
                    }
                    continue
                }
                guard let attribute = entity.attribute(named: name) else {
                    throw refuse(
                        "\(entity.name) has no attribute or relationship '\(name)'"
                            + NameSuggestions.hint(for: name, among: entity.attributes.map(\.name) + entity.relationships.map(\.name)))
                }
                if attribute.isTransient || attribute.isExternal {
                    throw refuse("'\(name)' is \(attribute.isTransient ? "transient" : "stored externally")")
                }
                if attribute.type.isCollection || attribute.type == .codable || attribute.type == .any {
                    throw refuse("'\(name)' is of type \(attribute.type), which cannot be unique")
                }
            }
        }
    }

    /// Each index names distinct stored attributes whose values have one order:
    /// scalars kept in the document's text (an externally stored value is a
    /// file read on first use, which ordering every object would read).
    private func validateIndexes(of entity: Entity) throws(SchemaError) {
        for index in entity.indexes {
            func refuse(_ reason: String) -> SchemaError {
                .invalidIndex(entity: entity.name, attributes: index, reason: reason)
            }
            guard !index.isEmpty else { throw refuse("it names no attributes") }
            guard Set(index).count == index.count else { throw refuse("it names an attribute twice") }
            for name in index {
                if entity.relationship(named: name) != nil {
                    throw refuse("'\(name)' is a relationship; an index orders attributes")
                }
                guard let attribute = entity.attribute(named: name) else {
                    throw refuse("\(entity.name) has no attribute '\(name)'" + NameSuggestions.hint(for: name, among: entity.attributes.map(\.name)))
                }
                if attribute.isExternal { throw refuse("'\(name)' is stored externally") }
                if attribute.type.isCollection || attribute.type == .codable || attribute.type == .any {
                    throw refuse("'\(name)' is of type \(attribute.type), which has no order to index")
                }
            }
        }
    }

    /// Whether a name can be an entity or property name: an ASCII identifier not
    /// starting with a digit, and not starting with `xml` in any case (reserved by XML).
    static func isValidName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard let first = bytes.first, !(0x30...0x39).contains(first) else { return false }
        if name.lowercased().hasPrefix("xml") { return false }
        return bytes.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == 0x5F
        }
    }
}
