/// Something a three-way merge could not combine on its own, kept as a value
/// so that nothing either side did is lost.
///
/// The merged state always holds a choice (for two different edits of one
/// cell: ours), and the conflict holds what the merge did not keep: the base,
/// ours and theirs versions of the cell, or the whole object a delete or a
/// rule removed. A relationship's versions are identifiers
/// (``Content/related(_:)``); an object-level conflict's versions are the whole
/// object (``Content/object(_:)``). A conflict made by the reconcile pass
/// (a rule applied to the merged result, which has no sides) holds what the
/// merge had in both ``ours`` and ``theirs``, and no ``base``.
///
/// See <doc:Merging> for every rule that records one.
public struct MergeConflict: Sendable, Hashable, CustomStringConvertible {
    /// What kind of disagreement a conflict records.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// Both sides changed one cell (an attribute, a dictionary key or a
        /// to-one relationship) to different values; ours is kept.
        case value
        /// One side deleted the object and the other edited it: the delete
        /// wins, and the edited side's whole object is recorded.
        case deletedAndEdited
        /// A link reached an object the merge deleted, and the destination's
        /// delete rule (nullify, no action, or a deny with nothing to revive
        /// from) removed the link; the link as the merge had it is recorded.
        case danglingLink
        /// A link reached an object the merge deleted, and the destination's
        /// `cascade` rule removed the linking object; its values are recorded.
        case cascade
        /// A link reached an object the merge deleted, and the destination's
        /// `deny` rule brought that object back; its values are recorded.
        case deny
        /// Two objects of an entity held the same unique values after the
        /// merge: the one with the larger identifier was removed and its
        /// values are recorded.
        case uniqueness
        /// Two objects held one object through a to-one relationship whose
        /// inverse is to-one: the one with the larger identifier lost the link.
        case linkTaken
        /// A relationship holds fewer or more objects than its minimum or
        /// maximum count after the merge; the state is kept, and a context's
        /// save refuses it until resolved.
        case count
    }

    /// One version of what a conflict concerns.
    public indirect enum Content: Sendable, Hashable, CustomStringConvertible {
        /// An attribute's value (or one dictionary key's).
        case value(Value)
        /// A relationship's objects, in order.
        case related([PersistentIdentifier])
        /// A whole object: each stored attribute (``value(_:)``) and each
        /// relationship (``related(_:)``) by name.
        case object([String: Content])

        public var description: String {
            switch self {
            case .value(let value): return value.description
            case .related(let ids): return "[" + ids.map(\.description).joined(separator: ", ") + "]"
            case .object(let properties):
                return "{" + properties.keys.sorted().map { "\($0): \(properties[$0]!)" }.joined(separator: ", ") + "}"
            }
        }
    }

    /// What kind of disagreement this is.
    public var kind: Kind
    /// The entity of the object concerned.
    public var entityName: String
    /// The object concerned.
    public var id: PersistentIdentifier
    /// The attribute or relationship concerned, or `nil` for the whole object.
    public var property: String?
    /// For a conflict on one key of a string-keyed dictionary attribute: the key.
    public var key: String?
    /// The base version, or `nil` when there was none (inserted, or a key not there).
    public var base: Content?
    /// Our version, or `nil` when ours deleted it (the object, or the key).
    public var ours: Content?
    /// Their version, or `nil` when theirs deleted it.
    public var theirs: Content?

    /// Creates a conflict record.
    public init(
        kind: Kind, id: PersistentIdentifier, property: String? = nil, key: String? = nil,
        base: Content? = nil, ours: Content? = nil, theirs: Content? = nil
    ) {
        self.kind = kind
        self.entityName = id.entityName
        self.id = id
        self.property = property
        self.key = key
        self.base = base
        self.ours = ours
        self.theirs = theirs
    }

    /// The same conflict seen from the other side: ``ours`` and ``theirs`` swapped.
    public var swapped: MergeConflict {
        var copy = self
        (copy.ours, copy.theirs) = (theirs, ours)
        return copy
    }

    public var description: String {
        let place = id.description + (property.map { "." + $0 } ?? "") + (key.map { "[\($0)]" } ?? "")
        func show(_ content: Content?) -> String { content?.description ?? "none" }
        return "\(kind.rawValue) at \(place): base \(show(base)), ours \(show(ours)), theirs \(show(theirs))"
    }
}

extension MergeConflict {
    /// The order conflicts are reported in: by identifier, then property, key and kind.
    static func reportOrder(_ lhs: MergeConflict, _ rhs: MergeConflict) -> Bool {
        if lhs.id.id != rhs.id.id { return lhs.id.id < rhs.id.id }
        if (lhs.property ?? "") != (rhs.property ?? "") { return (lhs.property ?? "") < (rhs.property ?? "") }
        if (lhs.key ?? "") != (rhs.key ?? "") { return (lhs.key ?? "") < (rhs.key ?? "") }
        return lhs.kind.rawValue < rhs.kind.rawValue
    }
}
