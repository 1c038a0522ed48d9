import Foundation

/// The values a model holds before it is inserted (set by its initializer,
/// or by its setters while it belongs to no context), the snapshot kept once
/// its object is gone, and the models that held it before its insert.
extension BackingData {
    /// A value a property holds before insertion. A type Folio stores
    /// directly is kept in its stored form, worked out where the property's
    /// type is known (the init accessor, the setter): the insert copies it
    /// instead of casting `Any` back to the type, a cast that looked up
    /// `Optional<V>`'s metadata for every value. The stored form reads back
    /// as the same value (``PersistableValue`` round-trips).
    @usableFromInline
    enum KeptValue {
        case unset
        /// A to-one set to `nil`, the default of every to-one: nothing to link,
        /// known without casting an `Any`.
        case noModel
        case stored(Value)
        /// A related model or models, or a `Codable` value.
        case other(Any)
    }

    var unmanagedState: UnmanagedState {
        if let unmanaged { return unmanaged }
        let made = UnmanagedState()
        unmanaged = made
        return made
    }

    /// Values kept when the object left its context's document (rollback).
    var snapshot: [String: Value]? {
        get { unmanaged?.snapshot }
        set { if newValue != nil || unmanaged != nil { unmanagedState.snapshot = newValue } }
    }

    /// Forgets the values held before insertion: once the document has the
    /// object, keeping them would only keep related models alive (two models
    /// related before insertion would hold each other forever).
    func dropUnmanagedValues() {
        if !unmanagedValues.isEmpty { unmanagedValues = [] }
        if let unmanaged, !unmanaged.byName.isEmpty { unmanaged.byName = [:] }
    }

    /// Called by a property's init accessor: keeps the initial value in the
    /// instance until it is inserted, making the model's own backing data first.
    @inlinable
    public static func _initialize<V>(_ backing: inout BackingData, _ value: V, at ordinal: Int, named name: String) {
        if backing === _unset { backing = BackingData() }
        // A model a context makes reads its values from the document.
        guard !backing.madeByContext else { return }
        backing.keepUnmanaged(.other(value), at: ordinal, named: name)
    }

    /// ``_initialize(_:_:at:named:)`` for a to-one relationship.
    @inlinable
    public static func _initialize<Destination: PersistentModel>(
        _ backing: inout BackingData, _ value: Destination?,
        at ordinal: Int, named name: String
    ) {
        if backing === _unset { backing = BackingData() }
        guard !backing.madeByContext else { return }
        backing.keepUnmanaged(value == nil && ordinal >= 0 ? .noModel : .other(value as Any), at: ordinal, named: name)
        if let value { backing._recordHolding(value, in: name) }
    }

    /// ``_initialize(_:_:at:named:)`` for a to-many relationship: the models
    /// it holds learn that this model holds them, so inserting any of them
    /// inserts this one too, as SwiftData does.
    @inlinable
    public static func _initialize<Destination: PersistentModel>(
        _ backing: inout BackingData, _ value: [Destination],
        at ordinal: Int, named name: String
    ) {
        if backing === _unset { backing = BackingData() }
        guard !backing.madeByContext else { return }
        backing.keepUnmanaged(.other(value), at: ordinal, named: name)
        if !value.isEmpty { backing._recordHolding(value, in: name) }
    }

    /// ``_initialize(_:_:at:named:)`` for an optional to-many relationship.
    @inlinable
    public static func _initialize<Destination: PersistentModel>(
        _ backing: inout BackingData, _ value: [Destination]?,
        at ordinal: Int, named name: String
    ) {
        if backing === _unset { backing = BackingData() }
        guard !backing.madeByContext else { return }
        backing.keepUnmanaged(.other(value as Any), at: ordinal, named: name)
        if let value, !value.isEmpty { backing._recordHolding(value, in: name) }
    }

    /// Tells each model in `destinations` that is outside any document that
    /// this backing data's model (`model`, when known) holds it in
    /// `relationship`, for its insert to insert this one too.
    @usableFromInline
    func _recordHolding<Destination: PersistentModel>(_ destinations: [Destination], in relationship: String, model: AnyObject? = nil) {
        for destination in destinations { _recordHolding(destination, in: relationship, model: model) }
    }

    /// The same for one model (a to-one), with no array made.
    @usableFromInline
    func _recordHolding(_ destination: any PersistentModel, in relationship: String, model: AnyObject? = nil) {
        // A model sharing its context's backing data is in a document (and asking
        // for its backing data would give it its own).
        if destination._$sharedRow.isShared { return }
        let held = destination.persistentBackingData
        guard held !== self, held.context == nil, !held.madeByContext, held.snapshot == nil else { return }
        let state = held.unmanagedState
        // Only the last record is compared: that is the one a relationship set
        // again (`notebook.pages.append(page)` in a loop sets every page once
        // per append) repeats, and looking further would make one new model
        // held by many (a new category of a hundred thousand new animals)
        // quadratic. A holder recorded twice is inserted once; gone ones are
        // dropped as the list doubles.
        if let last = state.holders.indices.last, state.holders[last].backing === self,
            state.holders[last].relationship == relationship
        {
            if let model { state.holders[last].model = model }
            return
        }
        if state.holders.count >= 16, state.holders.count & (state.holders.count - 1) == 0 {
            state.holders.removeAll { $0.backing == nil }
        }
        state.holders.append(UnmanagedHolder(backing: self, model: model, relationship: relationship))
    }

    /// The models that held this one before its insert (see
    /// ``UnmanagedState/holders``), forgotten here: the insert inserts them.
    func takeHolders() -> [UnmanagedHolder] {
        guard let unmanaged, !unmanaged.holders.isEmpty else { return [] }
        defer { unmanaged.holders = [] }
        return unmanaged.holders
    }

    /// Whether the model is being inserted and is not yet a view of its
    /// object (see ``UnmanagedState/isBeingInserted``).
    var isBeingInserted: Bool {
        get { unmanaged?.isBeingInserted ?? false }
        set { if newValue || unmanaged != nil { unmanagedState.isBeingInserted = newValue } }
    }

    /// Whether the value a relationship of this model outside a document
    /// holds (`name`, at `ordinal`) includes the model whose backing data is `held`.
    func holds(_ held: BackingData, at ordinal: Int, named name: String) -> Bool {
        guard let value = unmanagedValue(at: ordinal, named: name) else { return false }
        if let models = value as? [any PersistentModel] { return models.contains { $0.persistentBackingData === held } }
        if let model = value as? any PersistentModel { return model.persistentBackingData === held }
        return false
    }

    /// ``_initialize(_:_:at:named:)`` for a type Folio stores directly: keeps
    /// the stored form too, for the insert.
    @inlinable
    public static func _initialize<V: PersistableValue>(_ backing: inout BackingData, _ value: V, at ordinal: Int, named name: String) {
        if backing === _unset { backing = BackingData() }
        guard !backing.madeByContext else { return }
        backing.keepUnmanaged(ordinal >= 0 ? .stored(value.persistentValue) : .other(value), at: ordinal, named: name)
    }

    /// A related model or models, or a `Codable` value, a property holds
    /// before insertion, or any value of a property without an ordinal (see
    /// ``unmanagedStoredValue(at:)`` for the rest).
    func unmanagedValue(at ordinal: Int, named name: String) -> Any? {
        guard ordinal >= 0 else { return unmanaged?.byName[name] }
        guard ordinal < unmanagedValues.count, case .other(let value) = unmanagedValues[ordinal] else { return nil }
        return value
    }

    /// Whether a to-one holds no model before insertion.
    func keepsNoModel(at ordinal: Int) -> Bool {
        guard ordinal >= 0, ordinal < unmanagedValues.count, case .noModel = unmanagedValues[ordinal] else { return false }
        return true
    }

    /// The stored form of the value a property of a type Folio stores
    /// directly holds before insertion.
    func unmanagedStoredValue(at ordinal: Int) -> Value? {
        guard ordinal >= 0, ordinal < unmanagedValues.count, case .stored(let value) = unmanagedValues[ordinal] else { return nil }
        return value
    }

    @usableFromInline
    func keepUnmanaged(_ value: KeptValue, at ordinal: Int, named name: String) {
        guard ordinal >= 0 else {
            // Without an ordinal a value is kept as it was set (`.other`), for reads by name.
            if case .other(let other) = value { unmanagedState.byName[name] = other }
            return
        }
        if ordinal >= unmanagedValues.count {
            // One allocation for a typical model's properties, set one by one by its initializer.
            if unmanagedValues.isEmpty { unmanagedValues.reserveCapacity(max(8, ordinal + 1)) }
            while unmanagedValues.count <= ordinal { unmanagedValues.append(.unset) }
        }
        unmanagedValues[ordinal] = value
    }

    /// The value held before insertion as `V`; `nil` when unset, or for an
    /// optional property left unset.
    func unmanagedValue<V>(at ordinal: Int, named name: String, as type: V.Type) -> V? {
        if let value = unmanagedValue(at: ordinal, named: name) as? V { return value }
        if let stored = unmanagedStoredValue(at: ordinal), let persistable = V.self as? any PersistableValue.Type,
            let value = persistable.init(persistentValue: stored) as? V
        {
            return value
        }
        if let optional = V.self as? any OptionalType.Type { return optional.nothing as? V }
        return nil
    }
}
