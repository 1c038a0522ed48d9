/// One entity's objects that a history transaction inserted, updated (the
/// same properties of each) or deleted, with their identifiers as ranges —
/// the history as it is stored, for code that summarises it.
///
/// ```swift
/// for group in transaction.changeGroups {
///     let ids = group.identifierRanges.map { "\($0.lowerBound)-\($0.upperBound)" }
///     print(group.kind, group.entityName, group.count, ids)
/// }
/// ```
///
/// A bulk insert of a million objects is one group holding one range, however
/// many objects it names: reading groups costs what the history file holds,
/// whereas ``DefaultHistoryTransaction/changes`` makes one ``HistoryChange``
/// per object.
public struct HistoryChangeGroup: Hashable, Sendable {
    /// What happened to the group's objects.
    public enum Kind: String, Hashable, Sendable {
        /// The objects were inserted.
        case insert
        /// Some of the objects' attributes or relationships were changed.
        case update
        /// The objects were deleted.
        case delete
    }

    /// What happened to the objects.
    public let kind: Kind
    /// The entity of every object in the group.
    public let entityName: String
    /// For an update, the attributes and relationships changed, in declaration order; empty otherwise.
    public let updatedAttributeNames: [String]
    /// The objects' identifiers, ascending, as ranges of consecutive identifiers (never adjacent).
    public let identifierRanges: [ClosedRange<UInt64>]
    /// How many objects the group names: the ranges' identifiers together.
    public let count: Int
}
