/// What a model outside a context's document may need beyond its values by
/// ordinal: values of properties `@Model` gave no ordinal, the values kept
/// when its object left the document (rollback), and its temporary
/// identifier's number. A model a fetch makes never needs it, so it lives
/// apart from ``BackingData``.
final class UnmanagedState {
    /// The values before insertion of properties `@Model` gave no ordinal.
    var byName: [String: Any] = [:]
    /// Values kept when the object left its context's document (rollback).
    var snapshot: [String: Value]?
    /// Drawn once, so the temporary identifier stays the same for the model's life.
    lazy var temporaryNumber = BackingData.nextTemporaryNumber()
    /// The models outside a document that hold this one in a relationship:
    /// SwiftData inserts them with it (`Folder(notes: [note])`, then
    /// `insert(note)`), but an initializer sets a relationship where only the
    /// holder's backing data is at hand, not the holder, so only this model
    /// can lead the insert to them. Held weakly: a holder nothing else keeps
    /// is gone, and holding it here would make every pair of models related
    /// before insertion keep each other alive.
    var holders: [UnmanagedHolder] = []
    /// Set while ``ModelContext`` inserts the model and has not yet made it a
    /// view of its object: a model met again meanwhile (through the
    /// relationships of a model its insert inserts first) is linked by its
    /// own insert, not inserted a second time.
    var isBeingInserted = false
}

/// A model outside a document that held another in a relationship when it
/// was set (see ``UnmanagedState/holders``).
struct UnmanagedHolder {
    /// The holder's backing data, which has the value it was given.
    weak var backing: BackingData?
    /// The holder itself, when it was known (a setter called after its
    /// initializer); an initializer's assignment gives its backing data only.
    weak var model: AnyObject?
    /// The holder's relationship.
    let relationship: String
}
