/// Stands for the entities of a document that no model class declares, in
/// typed API that needs a class: the history of a container opened without
/// model types (as the REPL opens packages) has `DefaultHistoryInsert<DynamicModel>`
/// and so on. Read such changes by name (``HistoryUpdate/updatedAttributeNames``,
/// ``HistoryTombstone/subscript(_:)-(String)``) and identifier. Never fetched or inserted.
public final class DynamicModel: PersistentModel {
    /// The backing data (a ``DynamicModel`` is never made by a context).
    public var persistentBackingData: BackingData
    /// No properties: the entity's are known by name only.
    public static var schemaMetadata: [Schema.PropertyMetadata] { [] }
    /// Creates a dynamic model on backing data.
    public init(backingData: BackingData) { persistentBackingData = backingData }
}
