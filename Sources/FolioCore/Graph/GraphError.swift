/// Why an operation on the object graph was refused. Nothing was changed.
public enum GraphError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The schema has no entity with this name.
    case unknownEntity(String)
    /// The entity has no attribute with this name.
    case unknownAttribute(entity: String, attribute: String)
    /// The entity has no relationship with this name.
    case unknownRelationship(entity: String, relationship: String)
    /// The value does not have the attribute's type (or is nil for a non-optional attribute).
    case typeMismatch(entity: String, attribute: String, expected: String, value: String)
    /// No live object has this identifier.
    case objectNotFound(PersistentIdentifier)
    /// The target of a link is not of the relationship's destination entity.
    case wrongDestination(entity: String, relationship: String, expected: String, found: PersistentIdentifier)
    /// A to-one relationship was given more than one object.
    case tooManyDestinations(entity: String, relationship: String)
    /// A value, or the document, would break a limit of ``DocumentLimits``:
    /// the document could not be read back. `size` is what the edit needed
    /// (bytes, levels or objects), `maximum` the limit; `attribute` is empty for
    /// an insert refused because the document holds ``DocumentLimits/maximumObjects``.
    case limitExceeded(entity: String, attribute: String, limit: DocumentLimits.Limit, size: Int, maximum: Int)
    /// No lane is left for the writer's new identifiers (every lane it drew is
    /// in use): no new object can get one, since identifiers are never reused.
    /// Nothing was inserted.
    case identifiersExhausted(entity: String)
    /// An externally stored value could not be read when first used (its file is
    /// missing, not a regular file, too large, or does not match its hash);
    /// `reason` is the store's error. Contexts throw the store's error itself.
    case unreadableValue(entity: String, attribute: String, id: UInt64, reason: String)

    public var description: String {
        switch self {
        case .unknownEntity(let name): return "no entity named '\(name)'"
        case .unknownAttribute(let entity, let attribute): return "\(entity) has no attribute '\(attribute)'"
        case .unknownRelationship(let entity, let relationship): return "\(entity) has no relationship '\(relationship)'"
        case .typeMismatch(let entity, let attribute, let expected, let value):
            return "\(entity).\(attribute) expects \(expected), got \(value)"
        case .objectNotFound(let id): return "no object \(id)"
        case .wrongDestination(let entity, let relationship, let expected, let found):
            return "\(entity).\(relationship) holds \(expected) objects, not \(found)"
        case .tooManyDestinations(let entity, let relationship):
            return "\(entity).\(relationship) is to-one and holds at most one object"
        case .limitExceeded(let entity, let attribute, let limit, let size, let maximum):
            let place = attribute.isEmpty ? entity : "\(entity).\(attribute)"
            let advice: String
            switch limit {
            case .valueBytes: advice = "; split it, or keep large bytes in an externalStorage Data attribute"
            case .nesting: advice = "; flatten the value"
            case .blobBytes: advice = "; keep such files beside the document and store their path"
            default: advice = ""
            }
            return "\(place): \(size) \(limit) is over the limit of \(maximum)\(advice)"
        case .identifiersExhausted(let entity):
            return "\(entity): no identifier is left for a new object: no free lane was found for this writer "
                + "(identifiers are never reused)"
        case .unreadableValue(let entity, let attribute, let id, let reason):
            return "\(entity)#\(id).\(attribute) cannot be read: \(reason)"
        }
    }
}
