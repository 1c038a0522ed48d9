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
    /// The store holding the object, as SwiftData's `storeIdentifier`: the
    /// path of the package (`/dev/null` for a container stored in memory only,
    /// as its configuration's `url` says), the same string as
    /// ``DefaultHistoryTransaction/storeIdentifier``.
    ///
    /// A context sets it on the identifiers it hands out — a model's
    /// `persistentModelID` once inserted, `fetchIdentifiers`, history changes —
    /// so it is the same for every context and container on one package, and
    /// across reopening. It is `nil` for an identifier made by hand
    /// (``init(entityName:id:storeIdentifier:)`` without one), a model's
    /// temporary identifier before insertion, and one decoded from an
    /// encoding that has none.
    ///
    /// It is not part of the identity: two identifiers are equal (and hash
    /// alike) when they name the same entity and number, whatever their store
    /// identifiers, so an identifier made by hand or decoded finds its object
    /// with `model(for:)` and in a `Set`. Identifiers of two packages can be
    /// told apart by comparing `storeIdentifier` as well.
    public let storeIdentifier: String?

    /// Creates an identifier; it names an object only if the document has one with this number.
    ///
    /// - Parameters:
    ///   - entityName: the object's entity.
    ///   - id: the object's number in its document.
    ///   - storeIdentifier: the store holding it (see ``storeIdentifier``); not part of equality.
    public init(entityName: String, id: UInt64, storeIdentifier: String? = nil) {
        self.entityName = entityName
        self.id = id
        self.storeIdentifier = storeIdentifier
    }

    /// This identifier, naming `store` as the store holding the object.
    func inStore(_ store: String?) -> PersistentIdentifier {
        PersistentIdentifier(entityName: entityName, id: id, storeIdentifier: store)
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.id == rhs.id && lhs.entityName == rhs.entityName }
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.id < rhs.id }

    /// `Entity#id`, e.g. `Animal#42`.
    public var description: String { "\(entityName)#\(id)" }
}
