/// Why a document cannot be migrated to a new schema without losing or inventing data.
///
/// A lightweight migration only carries data over: it never converts a value,
/// drops an object or a link (except those of an entity the new schema no
/// longer has, as in SwiftData), or makes up a value it cannot take from a
/// default. Each case names the entity and property at fault (by their names in
/// the new schema) and its ``description`` says what to change. When a
/// migration is refused, nothing was changed. docs/FORMAT.md lists the rules.
public enum MigrationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The new schema itself is not valid.
    case invalidSchema(SchemaError)
    /// The document has an entity the new schema does not declare. No longer
    /// thrown: a lightweight migration drops such an entity, its objects and the
    /// relationships to it, as SwiftData's does. Kept so code matching it compiles.
    case entityRemoved(entity: String)
    /// The document has a relationship the new schema does not declare (one
    /// to an entity the new schema drops is dropped with it).
    case relationshipRemoved(entity: String, relationship: String)
    /// Two entities or properties of the new schema give the same `originalName`,
    /// so it is unclear which one takes over the stored data.
    case ambiguousRename(originalName: String, claimedBy: [String])
    /// An attribute's type changed; values are never converted.
    case attributeTypeChanged(entity: String, attribute: String, from: ValueType, to: ValueType)
    /// A new attribute is neither optional nor given a default value, so the
    /// existing objects would have no value for it.
    case newAttributeWithoutDefault(entity: String, attribute: String, type: ValueType)
    /// An optional attribute became non-optional, but an object holds `nil`.
    case attributeNoLongerOptional(entity: String, attribute: String, id: UInt64)
    /// An attribute became unique (or is new, unique and filled with one default),
    /// but two objects hold the same value. For a uniqueness constraint over
    /// several attributes, `attribute` and `value` list them, comma-separated.
    case duplicateUniqueValue(entity: String, attribute: String, value: String, ids: [UInt64])
    /// A relationship now points to another entity.
    case relationshipDestinationChanged(entity: String, relationship: String, from: String, to: String)
    /// A relationship changed between to-one and to-many.
    case relationshipKindChanged(entity: String, relationship: String, wasToMany: Bool)
    /// A relationship's inverse changed: a different one, one added, or one removed.
    case inverseChanged(entity: String, relationship: String, from: String?, to: String?)
    /// A new relationship has a minimum count, which existing objects cannot meet.
    case newRelationshipRequired(entity: String, relationship: String, minimum: Int)
    /// A relationship's minimum or maximum count became stricter than what an object holds.
    case countViolation(entity: String, relationship: String, id: UInt64, count: Int, minimum: Int, maximum: Int)
    /// The document's schema is none of the migration plan's versions: the
    /// version it records (`nil`: it records none) is not in the plan, and no
    /// version's models match it. SwiftData's "unknown model version".
    case unknownModelVersion(stored: Schema.Version?)
    /// The document was saved by a later version of the models than the
    /// container's; a migration never goes backward, as it would drop what the
    /// later version added.
    case backwardMigration(stored: Schema.Version, current: Schema.Version)
    /// A custom stage's `willMigrate` or `didMigrate` (`step`) threw, or what it
    /// left could not be saved; `message` is that error's description.
    case stageFailed(from: Schema.Version, to: Schema.Version, step: String, message: String)
    /// The migration plan does not hold together (`reason` says how): two
    /// versions with one number, a stage between versions the plan does not
    /// list or going backward, or a container whose schema is not one of them.
    case invalidPlan(reason: String)

    /// What is wrong and what to change, in a sentence for the schema's author.
    public var description: String {
        switch self {
        case .invalidSchema(let error):
            return "the new schema is not valid: \(error)"
        case .entityRemoved(let entity):
            return "the document has entity '\(entity)', which the new schema does not declare; keep it, "
                + "or give the entity that replaces it originalName \"\(entity)\""
        case .relationshipRemoved(let entity, let relationship):
            return "the document has relationship \(entity).\(relationship), which the new schema does not declare; "
                + "keep it (it may stay empty), or give the relationship that replaces it originalName \"\(relationship)\""
        case .ambiguousRename(let originalName, let claimedBy):
            return "\(claimedBy.joined(separator: " and ")) give the same originalName \"\(originalName)\"; "
                + "only one of them can take over its data, so remove the others' originalName"
        case .attributeTypeChanged(let entity, let attribute, let from, let to):
            return "\(entity).\(attribute) changed type from \(from) to \(to), and values are never converted; "
                + "keep the type \(from), or add a new attribute and copy the values over yourself"
        case .newAttributeWithoutDefault(let entity, let attribute, let type):
            return "\(entity).\(attribute) is new and its type \(type) is not optional, so existing objects have no value for it; "
                + "make it optional or give it a default value"
        case .attributeNoLongerOptional(let entity, let attribute, let id):
            return "\(entity).\(attribute) is no longer optional, but \(entity)#\(id) holds nil; "
                + "keep it optional, or give every object a value first"
        case .duplicateUniqueValue(let entity, let attribute, let value, let ids):
            let objects = ids.map { "\(entity)#\($0)" }.joined(separator: " and ")
            guard attribute.contains(",") else {
                return "\(entity).\(attribute) is unique in the new schema, but \(objects) both hold \(value); "
                    + "make the values distinct first, or leave the attribute not unique"
            }
            return "\(entity)'s (\(attribute)) are unique together in the new schema, but \(objects) both hold (\(value)); "
                + "make them distinct first, or leave out the constraint"
        case .relationshipDestinationChanged(let entity, let relationship, let from, let to):
            return "\(entity).\(relationship) pointed to \(from) and now points to \(to), so its links cannot be kept; "
                + "keep the destination \(from), or add a new relationship"
        case .relationshipKindChanged(let entity, let relationship, let wasToMany):
            let (from, to) = wasToMany ? ("to-many", "to-one") : ("to-one", "to-many")
            return "\(entity).\(relationship) changed from \(from) to \(to); keep it \(from), or add a new relationship"
        case .inverseChanged(let entity, let relationship, let from, let to):
            let old = from.map { "'\($0)'" } ?? "none"
            let new = to.map { "'\($0)'" } ?? "none"
            return "\(entity).\(relationship) had inverse \(old) and now has \(new); "
                + "inverse pairs must stay as they were (rename both sides with originalName if needed)"
        case .newRelationshipRequired(let entity, let relationship, let minimum):
            return "\(entity).\(relationship) is new and requires at least \(minimum) object(s), which existing objects do not hold; "
                + "give it minimum count 0"
        case .countViolation(let entity, let relationship, let id, let count, let minimum, let maximum):
            let bounds = maximum > 0 ? "between \(minimum) and \(maximum)" : "at least \(minimum)"
            return "\(entity).\(relationship) now requires \(bounds) object(s), but \(entity)#\(id) holds \(count); "
                + "relax the count, or fix the objects first"
        case .unknownModelVersion(let stored):
            let which = stored.map { "records schema version \($0)" } ?? "records no schema version"
            return "the document \(which), and its schema matches none of the migration plan's versions; "
                + "add the version it was saved with to the plan's schemas"
        case .backwardMigration(let stored, let current):
            return "the document was saved with schema version \(stored), later than this program's \(current); "
                + "open it with a program that has version \(stored) or later"
        case .stageFailed(let from, let to, let step, let message):
            return "the migration stage from \(from) to \(to) failed in \(step): \(message); the document was left as it was"
        case .invalidPlan(let reason):
            return "the migration plan is not usable: \(reason)"
        }
    }
}
