/// Where a model its context made finds its object while it shares the
/// context's backing data: the object's number and its row in the context's
/// graph. `@Model` declares one in every class (`_$sharedRow`); the context
/// fills it in when it makes the model.
///
/// A context makes one ``BackingData`` per model class and graph and shares it
/// among the models it makes (a fetch of a million models makes one, not a
/// million): what differs per model is this row, kept in the instance. A
/// model gets backing data of its own when it needs some — an edit, a read
/// under observation tracking, its `persistentBackingData` asked for — and its
/// row is reset then (``isShared`` false).
public struct _SharedBackingRow: Sendable {
    /// The object's number (its ``PersistentIdentifier/id``).
    public var id: UInt64
    /// The object's row in its entity's table; -1 when the model does not
    /// share its context's backing data.
    public var row: Int32

    /// Not shared: the model has backing data of its own (or none yet).
    @inlinable public init() {
        id = 0
        row = -1
    }

    init(id: UInt64, row: Int32) {
        self.id = id
        self.row = row
    }

    /// Whether the model shares its context's backing data.
    @inlinable public var isShared: Bool { row >= 0 }
}
