/// A property marked `@Attribute(.codable)`: stored through its `Codable`
/// form whatever its type, as SwiftData's `Schema.Attribute.Option.codable`
/// does. `@Model` calls these instead of the overloads that pick the storage
/// from the type, so a type Folio could store directly (an enum with a raw
/// value, an array) or could not introspect (a class) is encoded into a
/// composite value (``ValueType/codable``) and decoded when read.
extension BackingData {
    /// ``_initialize(_:_:at:named:)`` for a `.codable` property: the value is
    /// kept as it is until the model is inserted.
    @inlinable
    public static func _initializeCodable<V: Codable>(_ backing: inout BackingData, _ value: V, at ordinal: Int, named name: String) {
        if backing === _unset { backing = BackingData() }
        guard !backing.madeByContext else { return }
        backing.keepUnmanaged(.other(value), at: ordinal, named: name)
    }

    /// Reads a `.codable` property.
    ///
    /// A stored value that no longer decodes as the type is reported once to
    /// the context's `autosaveErrorHandler` and read leniently, as for any
    /// `Codable` attribute.
    public func codableValue<Model: PersistentModel, V: Codable>(
        of model: Model, _ keyPath: () -> KeyPath<Model, V>, at ordinal: Int, named name: String
    ) -> V {
        // The getter calls this unretained (`_reading`): go on with the model's own backing data, retained.
        model.persistentBackingData.readCodable(of: model, keyPath, at: ordinal, named: name)
    }

    /// Sets a `.codable` property; undoable once the model is inserted.
    public func setCodableValue<Model: PersistentModel, V: Codable>(
        _ newValue: V, of model: Model, _ keyPath: KeyPath<Model, V>, at ordinal: Int, named name: String
    ) {
        if isShared { return model.persistentBackingData.setCodableValue(newValue, of: model, keyPath, at: ordinal, named: name) }
        mutation(of: model, keyPath) {
            store(name, ordinal, of: Swift.type(of: model), { try CodableValue.encode(newValue) }) { keepUnmanaged(.other(newValue), at: ordinal, named: name) }
        }
    }
}
