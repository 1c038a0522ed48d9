/// Why a three-way merge was refused. Nothing was merged or written.
public enum MergeError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Which of the two edited versions a refusal concerns.
    public enum Side: String, Hashable, Sendable {
        case ours, theirs
    }

    /// The versions cannot be brought to one schema: both sides changed the
    /// schema differently, or `side` changed it (or kept it while the other
    /// changed it) and a version cannot be migrated to the newer schema by a
    /// lightweight migration. `difference` names the first difference (an
    /// entity, attribute or relationship only one has, or one declared
    /// differently) and, for a failed migration, why.
    case schemaMismatch(side: Side, difference: String)
    /// An externally stored value the merge had to read (two different blob
    /// files in one cell, or a conflict's record) could not be read.
    case unreadableValue(entity: String, attribute: String, id: UInt64, reason: String)
    /// The merged document would hold more objects than ``DocumentLimits/maximumObjects``.
    case tooManyObjects(count: Int, maximum: Int)

    public var description: String {
        switch self {
        case .schemaMismatch(let side, let difference):
            return "cannot merge: the schemas differ (\(side.rawValue): \(difference))"
        case .unreadableValue(let entity, let attribute, let id, let reason):
            return "cannot merge: \(entity)#\(id).\(attribute) cannot be read: \(reason)"
        case .tooManyObjects(let count, let maximum):
            return "cannot merge: the result would hold \(count) objects, more than the limit of \(maximum)"
        }
    }
}
