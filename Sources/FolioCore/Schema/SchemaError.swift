/// Why a schema is not valid.
///
/// Each case names the entity (and property) at fault so the schema's author
/// can find it.
public enum SchemaError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A name is not an ASCII identifier, or starts with `xml`.
    case invalidName(String)
    /// Two entities share a name.
    case duplicateEntity(String)
    /// Two properties (attributes or relationships) of an entity share a name.
    case duplicateProperty(entity: String, property: String)
    /// A relationship's destination names no entity.
    case unknownDestination(entity: String, relationship: String, destination: String)
    /// A relationship's inverse names no relationship on the destination.
    case unknownInverse(entity: String, relationship: String, inverse: String)
    /// The inverse exists but does not point back at this relationship.
    case inverseMismatch(entity: String, relationship: String, inverse: String)
    /// A relationship names itself as its own inverse, which Folio does not support.
    case selfInverse(entity: String, relationship: String)
    /// Minimum and maximum counts are negative, on a to-one relationship, or min > max.
    case invalidCount(entity: String, relationship: String)
    /// A property's option does not fit its type (`unique` on a collection, or
    /// `optional` on a to-one relationship, which may always be `nil`);
    /// `attribute` names the property.
    case invalidOption(entity: String, attribute: String, option: String)
    /// An attribute's default value does not have the attribute's type.
    case invalidDefault(entity: String, attribute: String)
    /// A uniqueness constraint is empty, repeats a name, or names something
    /// other than a stored attribute of a type `.unique` allows or a to-one
    /// relationship.
    case invalidUniquenessConstraint(entity: String, attributes: [String], reason: String)
    /// An index (``Schema/Entity/indexes``) is empty, repeats a name, or names
    /// something other than a stored attribute of a scalar type: an unknown
    /// name, a relationship, a collection, `codable`, `any`, or an externally
    /// stored attribute.
    case invalidIndex(entity: String, attributes: [String], reason: String)
    /// The schema breaks a limit of ``DocumentLimits`` (too many entities or
    /// properties, a name too long, a default value too large or deep), so no
    /// document with it could be read back. `entity` and `property` are empty
    /// where they do not apply.
    case limitExceeded(entity: String, property: String, limit: DocumentLimits.Limit, size: Int, maximum: Int)
    /// A subentity's ``Schema/Entity/superentity`` names no entity, the
    /// hierarchy loops, or the subentity does not begin with its
    /// superentity's properties, in its order and unchanged; `reason` says which.
    case invalidInheritance(entity: String, superentity: String, reason: String)
    /// A relationship's inverse points at a subentity of the entity declaring
    /// it: `entity.relationship` holds `destination` objects only, so the
    /// objects of its inverse's entity that are not `destination`s could not
    /// be held back. Point the inverse at the entity that declares it (or an
    /// ancestor), or declare the relationship on the subentity (see
    /// <doc:ModelInheritance>). A relationship into a hierarchy is otherwise
    /// supported: it holds objects of its destination and of every entity
    /// inheriting from it.
    case relationshipIntoHierarchy(entity: String, relationship: String, destination: String)

    public var description: String {
        switch self {
        case .invalidName(let name):
            return "'\(name)' is not a valid name (use ASCII letters, digits and _, not starting with a digit or 'xml')"
        case .duplicateEntity(let name):
            return "entity '\(name)' is declared twice"
        case .duplicateProperty(let entity, let property):
            return "\(entity) declares '\(property)' twice"
        case .unknownDestination(let entity, let relationship, let destination):
            return "\(entity).\(relationship) points to unknown entity '\(destination)'"
        case .unknownInverse(let entity, let relationship, let inverse):
            return "\(entity).\(relationship) names inverse '\(inverse)', which its destination does not have"
        case .inverseMismatch(let entity, let relationship, let inverse):
            return "\(entity).\(relationship) names inverse '\(inverse)', which does not point back to it"
        case .selfInverse(let entity, let relationship):
            return "\(entity).\(relationship) is its own inverse, which is not supported"
        case .invalidCount(let entity, let relationship):
            return "\(entity).\(relationship) has invalid minimum/maximum model counts"
        case .invalidOption(let entity, let attribute, let option):
            return "\(entity).\(attribute) cannot have option '\(option)' for its type"
        case .invalidDefault(let entity, let attribute):
            return "\(entity).\(attribute) has a default value of the wrong type"
        case .invalidUniquenessConstraint(let entity, let attributes, let reason):
            return "\(entity)'s uniqueness constraint (\(attributes.joined(separator: ", "))) is not valid: \(reason)"
        case .invalidIndex(let entity, let attributes, let reason):
            return "\(entity)'s index (\(attributes.joined(separator: ", "))) is not valid: \(reason)"
        case .limitExceeded(let entity, let property, let limit, let size, let maximum):
            let place = entity.isEmpty ? "the schema" : property.isEmpty ? entity : "\(entity).\(property)"
            return "\(place): \(size) \(limit) is over the limit of \(maximum)"
        case .invalidInheritance(let entity, let superentity, let reason):
            return "\(entity) cannot inherit from \(superentity): \(reason)"
        case .relationshipIntoHierarchy(let entity, let relationship, let destination):
            return "\(entity).\(relationship): it holds only \(destination) objects, but its inverse is declared on an entity "
                + "\(destination) inherits from, whose other objects it could not hold; declare the inverse on \(destination)"
        }
    }
}
