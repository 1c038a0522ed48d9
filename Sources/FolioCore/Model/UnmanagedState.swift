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
}
