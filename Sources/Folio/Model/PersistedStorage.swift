/// Where a persisted property keeps its value while its model belongs to no
/// context; `@Model`'s expansion declares one per property (`_name`).
///
/// Once the model is inserted, reads and writes go to the context's document
/// and this storage is no longer consulted. A class, so a setter that inserts
/// the model (relating it to a model of a context) can read every property
/// while the one being set is still being written.
public final class _PersistedStorage {
    // Unchecked: read on every property access; no access overlaps another.
    @usableFromInline @exclusivity(unchecked) var value: Any? {
        didSet { isEmpty = value == nil }
    }
    /// Whether `value` is `nil`, without copying it out to check.
    @exclusivity(unchecked) private(set) var isEmpty = true

    /// The storage every property of a model made by a context shares (its
    /// values live in the document): never written, so a fetched model costs
    /// no allocation per property.
    nonisolated(unsafe) public static let unused = _PersistedStorage()

    /// Empty storage.
    public init() {}

    /// Storage holding a property's initial value.
    public init<T>(_ initialValue: T) {
        value = initialValue as Any
        isEmpty = false
    }

    /// The stored value as `V`; `nil` for an optional property left unset.
    func value<V>(as type: V.Type) -> V? {
        if let value = value as? V { return value }
        if let optional = V.self as? any OptionalType.Type { return optional.nothing as? V }
        return nil
    }
}
