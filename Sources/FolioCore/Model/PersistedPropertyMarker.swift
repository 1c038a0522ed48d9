/// What `@Model`'s expansion declares beside each persisted property
/// (`_name`): nothing, but a stored property, so that the compiler checks
/// that every initializer gives every persisted property a value, as it does
/// for plain stored properties.
///
/// The value itself goes to the model's backing data (``BackingData``), which
/// keeps it until the model is inserted and then reads the document: a model
/// costs no allocation per property.
public struct _PersistedPropertyMarker: Sendable {
    /// The marker; it holds nothing.
    @inlinable public init() {}
}
