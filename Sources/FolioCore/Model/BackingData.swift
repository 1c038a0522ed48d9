import Foundation

/// Where a model's values live: in the instance before it is inserted, in its
/// context's document afterwards, and in a snapshot once a rollback has taken
/// the object away.
///
/// Every persisted property of a `@Model` class reads and writes through it,
/// and it records those accesses for Observation.
///
/// This file holds what Swift keeps in the class's own declaration: its
/// stored properties, in the order that lays them out, and its initializers.
/// Its behaviour is in extensions, one file per concern:
/// `BackingData+Observation` (the registrar and the reads it records),
/// `+Unmanaged` (values held before insertion), `+Making` (the per-thread
/// slot a context makes models through), `+Lifecycle` (insertion, detaching,
/// the model's hold on its backing data), `+Location` (the object's row and
/// its class's columns), `+Sharing` (the backing data a context shares among
/// the models of a class, and the destinations it keeps), `+Attributes` and
/// `+Relationships` (the accessors `@Model` calls).
public final class BackingData {
    // Unchecked exclusivity on the fields every read touches: the checks cost
    // more than the read, and no access to them overlaps another (a context is
    // used from one actor).

    /// Made on first read: a model fetched and never read needs none. In a box
    /// of its own, as a `let`: `ObservationRegistrar` is resilient, so a
    /// registrar read out of an optional stored property is copied through its
    /// value witnesses on every access, while one in a class's `let` is passed
    /// where it lies.
    @usableFromInline @exclusivity(unchecked) var observation: _ObservationBox? {
        didSet { _observationPointer = observation.map { UnsafeMutableRawPointer(Unmanaged.passUnretained($0).toOpaque()) } }
    }
    /// `observation`, unretained, for reads: a read through it counts no reference.
    @usableFromInline @exclusivity(unchecked) var _observationPointer: UnsafeMutableRawPointer?

    /// The context holding the object; `nil` before insertion.
    @exclusivity(unchecked) var context: ModelContext? {
        didSet { fastEpoch = -1; refEpoch = -1; keptEpoch = -1 }
    }
    var identifier: PersistentIdentifier? {
        didSet { fastEpoch = -1; refEpoch = -1 }
    }
    /// The values the properties hold before insertion, by ordinal (the
    /// property's position in `schemaMetadata`); emptied once the document has
    /// the object, so they keep no related model alive. Here rather than in
    /// ``UnmanagedState``: every new model has them, and an empty array costs
    /// no allocation.
    @exclusivity(unchecked) var unmanagedValues: [KeptValue] = []

    /// The rest of what only a model outside a document needs: made when first
    /// needed, so the backing data of the many models a fetch makes stays small.
    @exclusivity(unchecked) var unmanaged: UnmanagedState?

    /// Whether the model is the stand-in a required to-one reads when its
    /// object holds no model (`BackingData+RequiredToOne.swift`): never
    /// inserted, never linked.
    var isStandIn = false

    /// The object's row in its context's graph, valid while `refEpoch` is the
    /// context's ``ModelContext/graphEpoch``: rows are stable for a graph's life
    /// (a deleted object keeps its row), so only a new graph (rollback), a new
    /// context or a new identifier makes it stale.
    @exclusivity(unchecked) var refEpoch = -1
    @exclusivity(unchecked) var cachedRef = ObjectRef(entity: -1, row: -1)
    /// The model class's columns in that graph (see ``ModelColumns``).
    @exclusivity(unchecked) var columns: ModelColumns?
    /// The graph epoch in which `cachedRef` and `columns` were both resolved,
    /// for the same entity: a read that finds it current indexes the columns
    /// straight away. -1 when not.
    @exclusivity(unchecked) var fastEpoch = -1
    /// `columns`, unretained, for reads while `fastEpoch` is current.
    @exclusivity(unchecked) var fastColumns: UnsafeMutableRawPointer?

    /// A to-one destination's model this model read last, kept alive while
    /// this one is: a program reading `animal.category` of many animals and
    /// dropping the result would otherwise make and free the category's model
    /// on every read. Kept only toward an entity later in the schema's order
    /// (``ModelColumns/FastSlot/keepsDestination``), so no cycle of models can
    /// keep itself, and its context, alive.
    @exclusivity(unchecked) var keptDestination: (any PersistentModel)?
    /// Shared backing data's `keptDestination`: destination models its
    /// models' to-one reads returned, by ordinal, then in the slot of the
    /// destination row modulo the table's size (a power of two). One model
    /// kept, as each model's own backing data keeps, would be dropped at
    /// every change of destination, and made again at the next (a hundred
    /// categories read across a million animals). The table grows to
    /// ``keptDestinationCapacity`` slots, or as many as models share this
    /// backing data (``ModelColumns/sharingModels``), not beyond: the shared
    /// backing data lives as long as any model of its class, so keeping every
    /// destination ever read would keep all a batched walk's destinations (a
    /// to-one per model) alive, where models with their own backing data
    /// each kept one, and let it go with them.
    @exclusivity(unchecked) var keptByRow: [[(row: Int32, model: any PersistentModel)?]] = []

    /// The shared backing data a model had before this, its own: a getter
    /// that gave the model this one may still be running on that one.
    var formerlyShared: BackingData?
    /// Which to-one `keptDestination` is for (its ordinal), the row it is the
    /// model of, and the context's ``TypedContextState/keptGeneration`` (its graph,
    /// and no model detached since): a read finding all three current returns
    /// it without looking the registry up. Shared backing data keeps its
    /// table (`keptByRow`) for the generation in `keptEpoch` too.
    @exclusivity(unchecked) var keptOrdinal = -1
    @exclusivity(unchecked) var keptRow: Int32 = -1
    /// Whether a context made this backing data for an object it holds (a
    /// fetched model): such a model never holds values of its own. Beside
    /// `keptRow`, where it fits in that field's padding.
    @usableFromInline let madeByContext: Bool
    /// Whether this is the backing data a context shares among the models of
    /// one class it makes (see ``_SharedBackingRow``): it stands for no object
    /// itself, each model's row says which. Its `cachedRef` names the entity,
    /// its `refEpoch` the graph it was made for, its `identifier` the entity
    /// name (with no object number).
    @usableFromInline let isShared: Bool
    @exclusivity(unchecked) var keptEpoch = -1

    /// Backing data for a model that belongs to no context yet.
    public init() {
        madeByContext = false
        isShared = false
    }

    /// The backing data every model starts with until its initializer sets a
    /// property (see ``_initialize(_:_:at:named:)``): a model a context makes
    /// gets its own at once, so it costs no second allocation. Never holds anything.
    nonisolated(unsafe) public static let _unset = BackingData(placeholder: ())

    private init(placeholder: Void) {
        madeByContext = false
        isShared = false
    }

    /// Backing data for an object a context holds at `ref`, already resolved.
    init(context: ModelContext, identifier: PersistentIdentifier, ref: ObjectRef, columns: ModelColumns?) {
        madeByContext = true
        isShared = false
        self.context = context
        self.identifier = identifier
        refEpoch = context.graphEpoch
        cachedRef = ref
        self.columns = columns
        if let columns, columns.entity == Int(ref.entity), columns.epoch == refEpoch { setFast(columns, epoch: refEpoch) }
    }

    /// The backing data a context shares among the models of one class it
    /// makes for objects of `entity` in its current graph.
    init(sharedBy context: ModelContext, entity: Int, columns: ModelColumns) {
        madeByContext = true
        isShared = true
        self.context = context
        identifier = PersistentIdentifier(entityName: context.graph.layout.entities[entity].name, id: 0)
        refEpoch = context.graphEpoch
        cachedRef = ObjectRef(entity: entity, row: -1)
        self.columns = columns
        setFast(columns, epoch: refEpoch)
    }

    deinit {
        // The columns name the backing data their class's models share until it goes.
        if isShared { columns?.forgetSharedBacking(Unmanaged.passUnretained(self).toOpaque()) }
    }

    /// Properties whose stored value did not decode, already reported.
    var reportedUndecodable: Set<String> = []
}
