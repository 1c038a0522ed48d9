/// The stable identity of an object: its entity and a number unique in its document.
///
/// Mirrors SwiftData's `PersistentIdentifier`. Identifiers are assigned at
/// insert, saved in the package, and survive save and reopen. They are never
/// reused: an identifier once handed out — to an object deleted since, or to
/// an insert that was undone — is never given to another object of the same
/// document, in this session or after the document is reopened (each save
/// records the counter; an insert undone in a session that ends with no save
/// after it leaves its number free). So undoing a delete brings back the same
/// identifiers, and an identifier in the history names one object only.
public struct PersistentIdentifier: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// The name of the object's entity.
    public let entityName: String
    /// The object's number, unique across all entities of its document.
    public let id: UInt64

    /// Creates an identifier; it names an object only if the document has one with this number.
    public init(entityName: String, id: UInt64) {
        self.entityName = entityName
        self.id = id
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.id == rhs.id && lhs.entityName == rhs.entityName }
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.id < rhs.id }

    /// `Entity#id`, e.g. `Animal#42`.
    public var description: String { "\(entityName)#\(id)" }
}
