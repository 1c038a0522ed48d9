/// What deleting some objects would do, before it is done: what cascades,
/// which links are cut on objects that survive, and what would deny the save.
/// The REPL shows it before asking for confirmation.
public struct DeletionPreview: Hashable, Sendable {
    /// A link the delete would cut on a surviving object.
    public struct Nullification: Hashable, Sendable {
        /// The surviving object.
        public var object: PersistentIdentifier
        /// Its relationship that loses objects.
        public var relationship: String
        /// How many objects it loses.
        public var count: Int
    }

    /// The objects asked for (live ones).
    public var requested: [PersistentIdentifier]
    /// Every object that would be deleted, requested and cascaded, in identifier order.
    public var deleted: [PersistentIdentifier]
    /// Objects deleted only because of cascade rules.
    public var cascaded: [PersistentIdentifier]
    /// Links cut on survivors (nullify, and noAction, which Folio also cuts rather than leave dangling).
    public var nullified: [Nullification]
    /// Deny rules the delete breaks; `save()` would throw these.
    public var denials: [ValidationIssue]

    /// Cascaded objects counted by entity, e.g. `["Animal": 12]`.
    public var cascadedCounts: [String: Int] {
        Dictionary(grouping: cascaded, by: \.entityName).mapValues(\.count)
    }

    /// One line for people, e.g. "deletes 1 AnimalCategory, also deletes 12 Animal".
    public var summary: String {
        func counts(_ ids: [PersistentIdentifier]) -> String {
            Dictionary(grouping: ids, by: \.entityName).sorted { $0.key < $1.key }
                .map { "\($0.value.count) \($0.key)" }.joined(separator: ", ")
        }
        var parts = ["deletes \(counts(requested))"]
        if !cascaded.isEmpty { parts.append("also deletes \(counts(cascaded))") }
        if !nullified.isEmpty { parts.append("unlinks \(nullified.count) surviving object\(nullified.count == 1 ? "" : "s")") }
        if !denials.isEmpty { parts.append("DENIED by \(denials.count) rule\(denials.count == 1 ? "" : "s")") }
        return parts.joined(separator: ", ")
    }
}
