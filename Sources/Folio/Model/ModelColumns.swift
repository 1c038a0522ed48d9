import Foundation

/// A model class's persisted properties resolved against one graph's layout:
/// each property's column or relationship slot, by the ordinal `@Model` gives
/// it (its position in `schemaMetadata`).
///
/// Resolved once per class and graph (see ``ModelContext/columns(for:)``), so a
/// property read indexes arrays instead of looking names up; a graph replaced
/// (rollback) makes a new one.
final class ModelColumns {
    /// Where one property lives in its entity's table.
    enum Slot {
        /// An attribute column, and how its cells are stored.
        case attribute(Int, CellKind)
        /// A to-one relationship's link slot and its destination entity.
        case toOne(slot: Int, destination: Int)
        /// A to-many relationship's link slot.
        case toMany(slot: Int)
        /// The layout has no such property (a schema that does not match the class).
        case missing
    }

    /// The class these columns are for.
    let modelType: ObjectIdentifier
    /// The context's ``ModelContext/graphEpoch`` they were resolved in.
    let epoch: Int
    let entity: Int
    let metadata: ModelMetadata
    /// By ordinal.
    let slots: [Slot]
    /// The undo action name of setting each property, by ordinal ("Set Animal.age").
    let actionNames: [String]
    /// Every attribute's initial value, in column order, for a typed insert to fill in.
    let initialValues: [Value]
    /// Whether a typed insert can skip the upsert checks and name lookups:
    /// every property has a slot and the entity has no uniqueness constraint.
    let insertsDirectly: Bool

    init?(_ type: any PersistentModel.Type, layout: SchemaLayout, epoch: Int) {
        guard let entity = layout.entityIndex[type.entityName] else { return nil }
        let entityLayout = layout.entities[entity]
        metadata = ModelMetadata.of(type)
        modelType = ObjectIdentifier(type)
        self.epoch = epoch
        self.entity = entity
        slots = metadata.properties.map { property in
            switch property.kind {
            case .attribute:
                guard let index = entityLayout.attributeIndex[property.name] else { return .missing }
                return .attribute(index, CellKind(entityLayout.attributes[index].type))
            case .relationship:
                guard let slot = entityLayout.linkIndex[property.name] else { return .missing }
                let link = entityLayout.links[slot]
                return link.isToMany ? .toMany(slot: slot) : .toOne(slot: slot, destination: link.destination)
            }
        }
        actionNames = metadata.properties.map { "Set \(entityLayout.name).\($0.name)" }
        initialValues = entityLayout.attributes.map(\.initialValue)
        insertsDirectly = entityLayout.uniqueGroups.isEmpty
            && !slots.contains { if case .missing = $0 { return true } else { return false } }
    }
}

/// How an attribute column stores its cells, for the typed fast reads
/// (``PersistableValue/_read(_:)``) to take a value straight from its array.
enum CellKind: UInt8, Sendable {
    case signed, unsigned, double, float, date, string, bool, other

    init(_ type: ValueType) {
        switch type {
        case .int, .int8, .int16, .int32, .int64: self = .signed
        case .uint, .uint8, .uint16, .uint32, .uint64: self = .unsigned
        case .double: self = .double
        case .float: self = .float
        case .date: self = .date
        case .string: self = .string
        case .bool: self = .bool
        default: self = .other
        }
    }
}

/// One cell of an attribute column, as a typed read sees it: the
/// ``PersistableValue/_read(_:)`` requirement's argument, which only Folio makes.
public struct _StoredCell {
    /// Alive for the read: its context holds it.
    unowned(unsafe) let graph: ObjectGraph
    let ref: ObjectRef
    let attribute: Int
    let column: Column
    let kind: CellKind

    var row: Int { Int(ref.row) }

    /// The cell of an integer column as its stored 64 bits, and whether they are
    /// an unsigned value's pattern; `nil` for a null or another kind of column.
    @usableFromInline func integer() -> (raw: Int64, isUnsigned: Bool)? {
        guard case .int(let storage) = column else { return nil }
        if !storage.nulls.isEmpty, storage.nulls[row] { return nil }
        return (storage.values[row], kind == .unsigned)
    }

    /// The cell as a ``Value``: the general path, for types without a direct read.
    var value: Value { graph.value(ref, attribute) }

    /// Whether the cell holds no value.
    @usableFromInline var isNull: Bool {
        switch column {
        case .int(let storage): return !storage.nulls.isEmpty && storage.nulls[row]
        case .double(let storage): return !storage.nulls.isEmpty && storage.nulls[row]
        case .string(let storage): return !storage.nulls.isEmpty && storage.nulls[row]
        case .bool(let storage): return !storage.nulls.isEmpty && storage.nulls[row]
        case .value(let storage):
            if case .null = storage.values[row] { return true }
            return false
        }
    }
}
