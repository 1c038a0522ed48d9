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
        /// A to-one relationship's link slot and its destination entity; -1
        /// for a relationship into a hierarchy, whose targets name their
        /// entity (reads and writes of it take the general path).
        case toOne(slot: Int, destination: Int)
        /// A to-many relationship's link slot.
        case toMany(slot: Int)
        /// The layout has no such property (a schema that does not match the class).
        case missing
    }

    /// The class these columns are for.
    let modelType: ObjectIdentifier
    /// The graph they were resolved in: alive while the context's epoch is `epoch`.
    unowned(unsafe) let graph: ObjectGraph
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
    /// The same slots with their storage, unretained, for the reads: valid while
    /// the context's graph epoch is `epoch` (the context holds that graph, whose
    /// tables and columns live as long as it does).
    let fast: [FastSlot]
    /// The backing data this class's models made in this graph share (see
    /// ``_SharedBackingRow``), unretained: those models hold it, and it holds
    /// the context, which holds these columns. Its `deinit` clears this. Not
    /// `weak`: a weak reference gives an object a side table, and every
    /// retain and release of it then takes the runtime's slow path — the
    /// shared backing data is retained once per model made.
    var sharedBacking: BackingData? {
        get { sharedBackingPointer.map { Unmanaged<BackingData>.fromOpaque($0).takeUnretainedValue() } }
        set { sharedBackingPointer = newValue.map { UnsafeMutableRawPointer(Unmanaged.passUnretained($0).toOpaque()) } }
    }
    private(set) var sharedBackingPointer: UnsafeMutableRawPointer?
    /// How many models share a backing data made with these columns now —
    /// `sharedBacking`, or the one of a slice of a fetch made on every core
    /// (``ModelContext/models(_:at:)``): made sharing it, and neither gone nor
    /// given backing data of their own since. It bounds how many
    /// to-one destinations the shared backing data keeps, as each model with
    /// its own kept one. (A class declaring its own `deinit` does not report
    /// its instances going, so for it this only grows.)
    var sharingModels = 0

    /// Forgets the shared backing data at `pointer`, which is going.
    func forgetSharedBacking(_ pointer: UnsafeMutableRawPointer) {
        if sharedBackingPointer == pointer { sharedBackingPointer = nil }
    }

    /// What a typed insert does with each property, by ordinal: the few fields
    /// of its metadata it needs, so the insert copies no whole
    /// `PropertyMetadata` (each holds a dozen references).
    let insertSteps: [InsertStep]

    /// One property, as ``ModelContext/insertDirectly(_:_:_:)`` stores it.
    struct InsertStep {
        enum Kind {
            /// An attribute: its column, its value converted from the backing
            /// data's (or read through the getter), and whether a `Codable`
            /// check applies.
            case attribute(
                column: Int, stored: ((Any) throws -> Value?)?, read: (any PersistentModel) throws -> Value,
                checksModelValue: Bool)
            /// A relationship: its link slot, and its models from the backing data's value (or the getter).
            case relationship(slot: Int, models: ((Any) -> [any PersistentModel]??)?, read: (any PersistentModel) -> [any PersistentModel]?)
            /// No slot in the layout (never for a class that inserts directly).
            case skip
        }

        let kind: Kind
        let name: String
        /// An attribute's column, -1 for a relationship: with `checksModelValue`,
        /// all the insert needs of a value the backing data keeps in its stored
        /// form, read without copying `kind` and retaining its closures.
        let column: Int
        let checksModelValue: Bool

        init(kind: Kind, name: String) {
            self.kind = kind
            self.name = name
            if case .attribute(let column, _, _, let checks) = kind {
                self.column = column
                checksModelValue = checks
            } else {
                column = -1
                checksModelValue = false
            }
        }
    }

    /// A slot as a read uses it: what kind, which column, and its storage.
    struct FastSlot {
        enum Kind: UInt8 {
            /// An attribute read from its column (`object`: its `ColumnStorage`).
            case cell
            /// A to-one relationship (`object`: its `LinkColumn`).
            case toOne
            /// Anything the general path reads (to-many, external storage, missing).
            case general
        }

        var kind: Kind = .general
        var cellKind: CellKind = .other
        /// The attribute's column or the relationship's link slot.
        var index = -1
        /// A to-one's destination entity, and its table (unretained).
        var destination: Int32 = -1
        var destinationTable: UnsafeMutableRawPointer?
        var object: UnsafeMutableRawPointer?
        /// Whether a to-one read keeps the destination's model alive from the
        /// source's backing data: only toward a later entity, so that no chain
        /// of kept models can come back to its start.
        var keepsDestination = false
    }

    init?(_ type: any PersistentModel.Type, graph: ObjectGraph, epoch: Int) {
        let layout = graph.layout
        guard let entity = layout.entityIndex[type.entityName] else { return nil }
        let entityLayout = layout.entities[entity]
        metadata = ModelMetadata.of(type)
        modelType = ObjectIdentifier(type)
        self.graph = graph
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
                return link.isToMany
                    ? .toMany(slot: slot) : .toOne(slot: slot, destination: link.hierarchy == nil ? link.destination : -1)
            }
        }
        actionNames = metadata.properties.map { "Set \(entityLayout.name).\($0.name)" }
        initialValues = entityLayout.attributes.map(\.initialValue)
        insertsDirectly =
            entityLayout.uniqueGroups.isEmpty
            && !slots.contains { if case .missing = $0 { return true } else { return false } }
        insertSteps = zip(metadata.properties, slots).map { property, slot in
            switch (property.kind, slot) {
            case (.attribute(_, let read), .attribute(let index, _)):
                return InsertStep(
                    kind: .attribute(
                        column: index, stored: property.storedValue, read: read,
                        checksModelValue: property.accepts != nil), name: property.name)
            case (.relationship(_, _, let read), .toOne(let slot, _)), (.relationship(_, _, let read), .toMany(let slot)):
                return InsertStep(kind: .relationship(slot: slot, models: property.relatedModels, read: read), name: property.name)
            default:
                return InsertStep(kind: .skip, name: property.name)
            }
        }
        let table = graph.tables[entity]
        fast = slots.map { slot in
            var fast = FastSlot()
            switch slot {
            case .attribute(let index, let kind):
                // A column whose values may stay on disk until read takes the general path.
                guard !entityLayout.attributes[index].isExternal else { break }
                fast.kind = .cell
                fast.cellKind = kind
                fast.index = index
                fast.object = table.columns[index].storageObject
            case .toOne(let slot, let destination):
                guard destination >= 0 else { break }
                fast.kind = .toOne
                fast.index = slot
                fast.destination = Int32(destination)
                fast.object = Unmanaged.passUnretained(table.links[slot]).toOpaque()
                fast.destinationTable = Unmanaged.passUnretained(graph.tables[destination]).toOpaque()
                fast.keepsDestination = destination > entity
            case .toMany, .missing:
                break
            }
            return fast
        }
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
    let kind: CellKind
    /// The column's `ColumnStorage`, unretained (its element type follows from `kind`).
    let storage: UnsafeMutableRawPointer

    var row: Int { Int(ref.row) }

    /// The column's storage as `ColumnStorage<Element>`, for `body`, with no
    /// reference counted.
    @inline(__always)
    func withStorage<Element, Result>(_ type: Element.Type, _ body: (ColumnStorage<Element>) -> Result) -> Result {
        Unmanaged<ColumnStorage<Element>>.fromOpaque(storage)._withUnsafeGuaranteedRef(body)
    }

    /// The cell of a column holding `Element`, or `nil` when it holds no value.
    @inline(__always)
    func cell<Element>(_ type: Element.Type) -> Element? {
        let row = self.row
        return withStorage(Element.self) { storage in
            if !storage.nulls.isEmpty, storage.nulls[row] { return nil }
            return storage.values[row]
        }
    }

    /// The cell of an integer column as its stored 64 bits, and whether they are
    /// an unsigned value's pattern; `nil` for a null or another kind of column.
    @usableFromInline func integer() -> (raw: Int64, isUnsigned: Bool)? {
        guard kind == .signed || kind == .unsigned, let raw = cell(Int64.self) else { return nil }
        return (raw, kind == .unsigned)
    }

    /// The cell as a ``Value``: the general path, for types without a direct read.
    var value: Value { graph.value(ref, attribute) }

    /// Whether the cell holds no value.
    @usableFromInline var isNull: Bool {
        switch kind {
        case .signed, .unsigned: return withStorage(Int64.self) { !$0.nulls.isEmpty && $0.nulls[row] }
        case .double, .float, .date: return withStorage(Double.self) { !$0.nulls.isEmpty && $0.nulls[row] }
        case .string: return withStorage(String.self) { !$0.nulls.isEmpty && $0.nulls[row] }
        case .bool: return withStorage(Bool.self) { !$0.nulls.isEmpty && $0.nulls[row] }
        case .other: return withStorage(Value.self) { if case .null = $0.values[row] { true } else { false } }
        }
    }
}

extension Column {
    /// The storage object, unretained: what ``ModelColumns`` keeps for reads.
    var storageObject: UnsafeMutableRawPointer {
        switch self {
        case .int(let storage): return Unmanaged.passUnretained(storage).toOpaque()
        case .double(let storage): return Unmanaged.passUnretained(storage).toOpaque()
        case .string(let storage): return Unmanaged.passUnretained(storage).toOpaque()
        case .bool(let storage): return Unmanaged.passUnretained(storage).toOpaque()
        case .value(let storage): return Unmanaged.passUnretained(storage).toOpaque()
        }
    }
}
