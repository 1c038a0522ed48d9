/// One rule an object breaks at save.
public struct ValidationIssue: Hashable, Sendable, CustomStringConvertible {
    /// Which rule.
    public enum Kind: String, Hashable, Sendable {
        /// A deleted object still reaches live objects through a `deny` relationship.
        case deny
        /// A to-many relationship holds fewer objects than its minimum.
        case minimumCount
        /// A to-many relationship holds more objects than its maximum.
        case maximumCount
        /// Another live object has the same value of a unique attribute, or the
        /// same values in every member of a uniqueness constraint — for a
        /// to-one relationship, the same related object (`relationship` then
        /// names the members, comma-separated; `related` the other objects).
        case unique
    }

    /// Which rule is broken.
    public var kind: Kind
    /// The object that breaks it.
    public var object: PersistentIdentifier
    /// The relationship concerned.
    public var relationship: String
    /// The live objects involved (for `deny`: those that deny the delete).
    public var related: [PersistentIdentifier]

    public var description: String {
        switch kind {
        case .deny:
            return "\(object) cannot be deleted: \(relationship) still holds \(related.map(\.description).joined(separator: ", "))"
        case .minimumCount:
            return "\(object).\(relationship) holds \(related.count), fewer than its minimum"
        case .maximumCount:
            return "\(object).\(relationship) holds \(related.count), more than its maximum"
        case .unique:
            let others = related.map(\.description).joined(separator: ", ")
            guard relationship.contains(",") else {
                return "\(object).\(relationship) has the same value as \(others), and it is unique"
            }
            return "\(object) has the same (\(relationship)) as \(others), and together they are unique"
        }
    }
}
