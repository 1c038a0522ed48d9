import Foundation
import Observation
import Synchronization

/// A model's `ObservationRegistrar`, made on its first read (see ``BackingData``).
@usableFromInline
final class _ObservationBox {
    @usableFromInline let registrar = ObservationRegistrar()

    @usableFromInline init() {}
}

/// Where a model's values live: in the instance before it is inserted, in its
/// context's document afterwards, and in a snapshot once a rollback has taken
/// the object away.
///
/// Every persisted property of a `@Model` class reads and writes through it,
/// and it records those accesses for Observation.
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

    /// The registrar, if the model was ever read (an observer can only be
    /// watching a model whose property it read).
    var observationRegistrar: ObservationRegistrar? { observation?.registrar }

    /// Records a read for Observation: with the model's registrar, made now
    /// if the model has none and tracking may be active on this thread (see
    /// ``ObservationTrackingProbe``). Outside tracking a read records nothing,
    /// so a model read only there needs no registrar.
    ///
    /// `keyPath` makes the property's key path, only when it is needed: a key
    /// path literal costs a runtime call and a reference count on every
    /// evaluation, more than the rest of a read outside tracking.
    ///
    /// Inlined into every getter whole: the test is all a read outside
    /// tracking pays, and a call to it cost as much again.
    @inlinable @inline(__always)
    func _access<Model: PersistentModel, V>(_ model: Model, _ keyPath: () -> KeyPath<Model, V>) {
        guard ObservationTrackingProbe.mayBeTracking else { return }
        _accessTracking(model, keyPath)
    }

    /// ``_access(_:_:)`` when tracking may be active.
    @inlinable @inline(never)
    func _accessTracking<Model: PersistentModel, V>(_ model: Model, _ keyPath: () -> KeyPath<Model, V>) {
        // A registrar is the model's own: a model sharing its context's backing data gets its own first.
        if isShared { return model.persistentBackingData._accessTracking(model, keyPath) }
        if let pointer = _observationPointer {
            Unmanaged<_ObservationBox>.fromOpaque(pointer)._withUnsafeGuaranteedRef { $0.registrar.access(model, keyPath: keyPath()) }
        } else {
            _makeObservation().registrar.access(model, keyPath: keyPath())
        }
    }

    /// Makes the model's registrar (its first read).
    @usableFromInline
    func _makeObservation() -> _ObservationBox {
        let made = _ObservationBox()
        observation = made
        return made
    }
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
    @exclusivity(unchecked) private var unmanagedValues: [KeptValue] = []

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
    /// The rest of what only a model outside a document needs: made when first
    /// needed, so the backing data of the many models a fetch makes stays small.
    @exclusivity(unchecked) private var unmanaged: UnmanagedState?
    private var unmanagedState: UnmanagedState {
        if let unmanaged { return unmanaged }
        let made = UnmanagedState()
        unmanaged = made
        return made
    }
    /// Whether the model is the stand-in a required to-one reads when its
    /// object holds no model (`BackingData+RequiredToOne.swift`): never
    /// inserted, never linked.
    var isStandIn = false
    /// Values kept when the object left its context's document (rollback).
    var snapshot: [String: Value]? {
        get { unmanaged?.snapshot }
        set { if newValue != nil || unmanaged != nil { unmanagedState.snapshot = newValue } }
    }
    /// The object's row in its context's graph, valid while `refEpoch` is the
    /// context's ``ModelContext/graphEpoch``: rows are stable for a graph's life
    /// (a deleted object keeps its row), so only a new graph (rollback), a new
    /// context or a new identifier makes it stale.
    @exclusivity(unchecked) private var refEpoch = -1
    @exclusivity(unchecked) private var cachedRef = ObjectRef(entity: -1, row: -1)
    /// The model class's columns in that graph (see ``ModelColumns``).
    @exclusivity(unchecked) private var columns: ModelColumns?
    /// The graph epoch in which `cachedRef` and `columns` were both resolved,
    /// for the same entity: a read that finds it current indexes the columns
    /// straight away. -1 when not.
    @exclusivity(unchecked) private var fastEpoch = -1
    /// `columns`, unretained, for reads while `fastEpoch` is current.
    @exclusivity(unchecked) private var fastColumns: UnsafeMutableRawPointer?

    /// Makes `columns` and `cachedRef` current for reads in this epoch.
    private func setFast(_ columns: ModelColumns, epoch: Int) {
        fastColumns = Unmanaged.passUnretained(columns).toOpaque()
        fastEpoch = epoch
    }

    /// A to-one destination's model this model read last, kept alive while
    /// this one is: a program reading `animal.category` of many animals and
    /// dropping the result would otherwise make and free the category's model
    /// on every read. Kept only toward an entity later in the schema's order
    /// (``ModelColumns/FastSlot/keepsDestination``), so no cycle of models can
    /// keep itself, and its context, alive.
    @exclusivity(unchecked) private var keptDestination: (any PersistentModel)?
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
    @exclusivity(unchecked) private var keptByRow: [[(row: Int32, model: any PersistentModel)?]] = []
    /// The slots a shared backing data's table of kept destinations per to-one
    /// may have however few models share it.
    static let keptDestinationCapacity = 1_024
    /// The shared backing data a model had before this, its own: a getter
    /// that gave the model this one may still be running on that one.
    private var formerlyShared: BackingData?
    /// Which to-one `keptDestination` is for (its ordinal), the row it is the
    /// model of, and the context's ``ModelContext/keptGeneration`` (its graph,
    /// and no model detached since): a read finding all three current returns
    /// it without looking the registry up. Shared backing data keeps its
    /// table (`keptByRow`) for the generation in `keptEpoch` too.
    @exclusivity(unchecked) private var keptOrdinal = -1
    @exclusivity(unchecked) private var keptRow: Int32 = -1
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
    @exclusivity(unchecked) private var keptEpoch = -1

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

    /// Where a context leaves the backing data of the models it is making, and
    /// their class, for each such model's `_$backingData` to start with
    /// (``_initial(for:)``): then the initial values the class declares, which
    /// Swift assigns in every initializer, `init(backingData:)` included, are
    /// dropped at once instead of making backing data of their own. Per
    /// thread: contexts on different actors make models at the same time.
    private static let makingKey: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// What ``makingKey`` points at while a context makes models.
    private struct Making {
        let backing: Unmanaged<BackingData>
        /// The class being made: a model of another class made meanwhile (by
        /// an initial value of the first) starts with the placeholder.
        let type: ObjectIdentifier
    }

    /// What a `@Model` instance's `_$backingData` starts with: the backing
    /// data its context is making models of `type` with, else the placeholder.
    public static func _initial(for type: AnyObject.Type) -> BackingData {
        guard let pending = pthread_getspecific(makingKey) else { return adoptedBacking(for: type) }
        let making = pending.assumingMemoryBound(to: Making.self).pointee
        // The superclasses' storage of a subclass's model the context makes starts
        // with the placeholder too: `init(backingData:)` sets it. (Taking the
        // context's would give it to a model of a superclass made meanwhile.)
        guard making.type == ObjectIdentifier(type) else { return adoptedBacking(for: type) }
        return making.backing.takeUnretainedValue()
    }

    /// What a `@Model` subclass's own `_$backingData` starts with: as for
    /// ``_initial(for:)``; else, for a model a program makes, its own backing
    /// data at once, left for its superclasses' storage to start with too
    /// (their stored properties are initialized after the subclass's own,
    /// when its initializer calls `super.init`). So a model of a subclass has
    /// one backing data, whichever class declares the property it sets.
    public static func _initialOfSubclass(_ type: AnyObject.Type) -> BackingData {
        let initial = _initial(for: type)
        guard initial === _unset else { return initial }
        let own = BackingData()
        PendingSubclassBackings.current.entries.append((type, own))
        return own
    }

    /// The backing data a subclass's model being initialized on this thread
    /// left for `type`, one of its superclasses (see ``_initialOfSubclass(_:)``);
    /// the root class takes it off the list. `_unset` when there is none.
    ///
    /// A model of the superclass made while the subclass's initializer runs,
    /// before it calls `super.init` (an unusual thing to do there), would take
    /// it instead; the DocC article "Model inheritance" says so.
    private static func adoptedBacking(for type: AnyObject.Type) -> BackingData {
        guard let pending = PendingSubclassBackings.existing, let last = pending.entries.last,
              inherits(last.type, from: type) else { return _unset }
        if _getSuperclass(type) == nil { pending.entries.removeLast() }
        return last.backing
    }

    /// Whether `type` is a strict subclass of `ancestor`.
    static func inherits(_ type: AnyObject.Type, from ancestor: AnyObject.Type) -> Bool {
        var current = _getSuperclass(type)
        while let here = current {
            if here == ancestor { return true }
            current = _getSuperclass(here)
        }
        return false
    }

    /// Runs `body`, in which models of `type` made with `init(backingData:)`
    /// and this backing data start with it (one hand-over for a whole fetch,
    /// not one per model).
    func makingModels<T: AnyObject, R>(of type: T.Type, _ body: () -> R) -> R {
        var making = Making(backing: .passUnretained(self), type: ObjectIdentifier(type))
        let previous = pthread_getspecific(Self.makingKey)
        return withUnsafeMutablePointer(to: &making) { pointer in
            pthread_setspecific(Self.makingKey, pointer)
            defer { pthread_setspecific(Self.makingKey, previous) }
            return body()
        }
    }

    /// Whether `make` (a model class's `init(backingData:)`) is nonisolated:
    /// called by the `_$makesModelsAnywhere` and `_$unregistersOnDeinit`
    /// `@Model` writes, where the initializer's isolation, written or
    /// inferred, is the compiler's to know. Non-escaping, so a release build
    /// folds the answer to a constant: a closure that escaped would be
    /// allocated each time, in every model's `deinit`.
    public static func _isNonisolated<T>(_ make: @isolated(any) (BackingData) -> T) -> Bool {
        make.isolation == nil
    }

    /// Makes a model for this backing data.
    func makeModel<T: PersistentModel>(_ type: T.Type) -> T {
        makingModels(of: T.self) { T(backingData: self) }
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

    /// Where the object of a model sharing this backing data is, while its
    /// row is current (the context still has the graph it was made in).
    func sharedLocation(_ shared: _SharedBackingRow) -> (ModelContext, ObjectRef)? {
        guard isShared, let context, refEpoch == context.graphEpoch else { return nil }
        return (context, ObjectRef(entity: cachedRef.entity, row: shared.row))
    }

    /// Backing data of its own for a model sharing this one: the same object,
    /// its row still current if the graph is.
    private func unshared(_ shared: _SharedBackingRow) -> BackingData {
        guard let context, let identifier else { return BackingData() }
        let own = BackingData(context: context, identifier: PersistentIdentifier(entityName: identifier.entityName, id: shared.id),
                              ref: ObjectRef(entity: cachedRef.entity, row: shared.row), columns: columns)
        // A row of an older graph is found again by the object's number.
        if refEpoch != context.graphEpoch { own.refEpoch = -1; own.fastEpoch = -1 }
        return own
    }

    /// Makes the model a view of an object just inserted at `ref`.
    func attach(to context: ModelContext, _ identifier: PersistentIdentifier, _ ref: ObjectRef, _ columns: ModelColumns) {
        self.context = context
        self.identifier = identifier
        snapshot = nil
        dropUnmanagedValues()
        refEpoch = context.graphEpoch
        cachedRef = ref
        self.columns = columns
        if columns.entity == Int(ref.entity), columns.epoch == refEpoch { setFast(columns, epoch: refEpoch) }
    }

    /// Forgets the values held before insertion: once the document has the
    /// object, keeping them would only keep related models alive (two models
    /// related before insertion would hold each other forever).
    func dropUnmanagedValues() {
        if !unmanagedValues.isEmpty { unmanagedValues = [] }
        if let unmanaged, !unmanaged.byName.isEmpty { unmanaged.byName = [:] }
    }

    // MARK: The model's life

    /// The backing data a model's `persistentBackingData` returns: its own,
    /// made now if it still has the shared placeholder (a class with no
    /// persisted property its initializer sets).
    ///
    /// A model sharing its context's backing data gets its own here, for the
    /// same object: whoever asks for a model's backing data may keep it,
    /// observe it, or edit through it.
    @inlinable
    public static func _resolved<Model: PersistentModel>(_ backing: inout BackingData, of model: Model) -> BackingData {
        if backing === _unset {
            backing = BackingData()
        } else if backing.isShared {
            backing = backing._unshare(model)
        }
        return backing
    }

    /// ``_resolved(_:of:)`` for a model sharing this backing data.
    @usableFromInline
    func _unshare<Model: PersistentModel>(_ model: Model) -> BackingData {
        modelStoppedSharing()
        let own = unshared(model._$sharedRow)
        // A getter may be running on this backing data unretained (`_reading`): the model keeps it alive.
        own.formerlyShared = self
        model._$sharedRow = _SharedBackingRow()
        return own
    }

    /// Calls `read` with a model's backing data, counting no reference: a
    /// getter's retain and release of it were most of a read's cost.
    ///
    /// The model holds its backing data throughout: a getter replaces it only
    /// by giving a model that shares its context's backing data its own
    /// (``_unshare(_:)``), and the new one keeps the shared one alive.
    ///
    /// The reference is read as bits, from the property's address: loaded as
    /// a reference, Swift retains it for as long as `read` runs.
    @inlinable @inline(__always)
    public static func _reading<R>(_ backing: inout BackingData, _ read: (BackingData) -> R) -> R {
        Unmanaged<BackingData>.fromOpaque(_bits(of: &backing))._withUnsafeGuaranteedRef(read)
    }

    /// The bits of the reference `backing` holds; the access ends on return.
    @inlinable @inline(__always)
    static func _bits(of backing: inout BackingData) -> UnsafeRawPointer {
        withUnsafeMutablePointer(to: &backing) { UnsafeRawPointer($0).load(as: UnsafeRawPointer.self) }
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
    public static func _initialize<Destination: PersistentModel>(_ backing: inout BackingData, _ value: Destination?,
                                                                  at ordinal: Int, named name: String) {
        if backing === _unset { backing = BackingData() }
        guard !backing.madeByContext else { return }
        backing.keepUnmanaged(value == nil && ordinal >= 0 ? .noModel : .other(value as Any), at: ordinal, named: name)
        if let value { backing._recordHolding(value, in: name) }
    }

    /// ``_initialize(_:_:at:named:)`` for a to-many relationship: the models
    /// it holds learn that this model holds them, so inserting any of them
    /// inserts this one too, as SwiftData does.
    @inlinable
    public static func _initialize<Destination: PersistentModel>(_ backing: inout BackingData, _ value: [Destination],
                                                                  at ordinal: Int, named name: String) {
        if backing === _unset { backing = BackingData() }
        guard !backing.madeByContext else { return }
        backing.keepUnmanaged(.other(value), at: ordinal, named: name)
        if !value.isEmpty { backing._recordHolding(value, in: name) }
    }

    /// ``_initialize(_:_:at:named:)`` for an optional to-many relationship.
    @inlinable
    public static func _initialize<Destination: PersistentModel>(_ backing: inout BackingData, _ value: [Destination]?,
                                                                  at ordinal: Int, named name: String) {
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
           state.holders[last].relationship == relationship {
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

    /// Called by a `@Model` class's `deinit` (and when its backing data is
    /// replaced): its context stops handing the instance out.
    ///
    /// `shared` is the model's ``_SharedBackingRow``: which object it stands
    /// for when it shares this backing data.
    public func _modelWillGo(_ model: ObjectIdentifier, _ shared: _SharedBackingRow) {
        if isShared, shared.isShared { modelStoppedSharing() }
        guard let context, let identifier else { return }
        context.registry.remove(isShared ? shared.id : identifier.id, ifHolding: model)
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
           let value = persistable.init(persistentValue: stored) as? V {
            return value
        }
        if let optional = V.self as? any OptionalType.Type { return optional.nothing as? V }
        return nil
    }

    private static let temporaryNumbers = Mutex(UInt64(1) << 63)

    /// Temporary numbers count up from 2^63, above every number Folio hands
    /// out itself. A package's manifest may still declare identifiers that
    /// high (nothing refuses them yet), and then a temporary identifier can
    /// equal a stored one.
    static func nextTemporaryNumber() -> UInt64 {
        temporaryNumbers.withLock { number in
            number += 1
            return number
        }
    }

    /// The identifier, naming its context's store once the object has one; a
    /// temporary identifier (no store) before insertion.
    func identifier(entityName: @autoclosure () -> String) -> PersistentIdentifier {
        guard let identifier else { return PersistentIdentifier(entityName: entityName(), id: unmanagedState.temporaryNumber) }
        guard identifier.storeIdentifier == nil, let context else { return identifier }
        return identifier.inStore(context.core.storeIdentifier)
    }

    /// The context and the object's row in its graph, if the context has the
    /// object in any state (a deleted row keeps its values, so reads still work).
    /// O(1): the row is looked up once per graph.
    var location: (ModelContext, ObjectRef)? {
        guard let context else { return nil }
        if refEpoch == context.graphEpoch { return (context, cachedRef) }
        guard let identifier, let ref = context.graph.index[identifier.id] else { return nil }
        refEpoch = context.graphEpoch
        cachedRef = ref
        fastEpoch = -1
        return (context, ref)
    }

    deinit {
        // The columns name the backing data their class's models share until it goes.
        if isShared { columns?.forgetSharedBacking(Unmanaged.passUnretained(self).toOpaque()) }
    }

    /// Counts a model that no longer shares this backing data (gone, or given
    /// its own). When a table of kept destinations has grown to twice what
    /// the models still sharing would let it grow to, the tables are dropped,
    /// and refill as those models read: they would otherwise keep the
    /// destinations of all the models that were dropped.
    private func modelStoppedSharing() {
        guard let columns else { return }
        columns.sharingModels -= 1
        let limit = Swift.max(Self.keptDestinationCapacity, columns.sharingModels)
        if keptByRow.contains(where: { $0.count > 2 * limit }) { keptByRow = [] }
    }

    /// Keeps a destination model for the models sharing this backing data, in
    /// the slot of its row, in place of the model kept there before.
    private func keep(_ model: any PersistentModel, at ordinal: Int, row: Int32) {
        if keptByRow.count <= ordinal { keptByRow.append(contentsOf: repeatElement([], count: ordinal + 1 - keptByRow.count)) }
        let size = keptByRow[ordinal].count
        let limit = Swift.max(Self.keptDestinationCapacity, columns?.sharingModels ?? 0)
        if Int(row) >= size, size < limit {
            // Doubling up to the limit, so keeping n destinations costs O(n).
            var grown = Swift.max(size, 16)
            while grown <= Int(row), grown < limit { grown *= 2 }
            var table = [(row: Int32, model: any PersistentModel)?](repeating: nil, count: grown)
            for case let kept? in keptByRow[ordinal] { table[Int(kept.row) & (grown - 1)] = kept }
            keptByRow[ordinal] = table
        }
        keptByRow[ordinal][Int(row) & (keptByRow[ordinal].count - 1)] = (row, model)
    }

    /// The destination model kept for `row`, if it is still in its slot.
    private func kept(at ordinal: Int, row: Int32) -> (any PersistentModel)? {
        guard ordinal < keptByRow.count, !keptByRow[ordinal].isEmpty,
              let kept = keptByRow[ordinal][Int(row) & (keptByRow[ordinal].count - 1)], kept.row == row else { return nil }
        return kept.model
    }

    /// Where a property with this ordinal lives in the object's row, for
    /// reads and writes that index columns instead of looking names up; `nil`
    /// when the model is unmanaged or its class does not match the schema.
    @inline(__always)
    private func slot(_ type: any PersistentModel.Type, _ ordinal: Int) -> (ModelContext, ObjectRef, ModelColumns.Slot)? {
        guard let (context, ref) = location else { return nil }
        let resolved: ModelColumns
        if let columns, columns.epoch == context.graphEpoch, columns.modelType == ObjectIdentifier(type) {
            resolved = columns
        } else {
            guard let made = context.columns(forType: type) else { return nil }
            fastEpoch = -1
            columns = made
            resolved = made
        }
        guard resolved.entity == Int(ref.entity) else { return nil }
        setFast(resolved, epoch: context.graphEpoch)
        guard ordinal >= 0, ordinal < resolved.slots.count else { return nil }
        return (context, ref, resolved.slots[ordinal])
    }

    /// The context while the object is in it (live, or deleted and not yet saved).
    var attachedContext: ModelContext? {
        guard let (context, ref) = location, context.graph.isLive(ref) || context.tracking.deleted.contains(ref) else { return nil }
        return context
    }

    /// Where an edit goes: the object's row while its context has it. A model
    /// whose object is gone for good — its insert undone, its delete saved — is
    /// detached first, so the edit stays in the instance (and inserting it again
    /// makes a new object) instead of changing a dead row.
    var editableLocation: (ModelContext, ObjectRef)? {
        guard let (context, ref) = location else { return nil }
        if context.graph.isLive(ref) || context.tracking.deleted.contains(ref) { return (context, ref) }
        detach(from: context, ref)
        return nil
    }

    /// Makes the model unmanaged, keeping the values its object last had.
    func detach(from context: ModelContext, _ ref: ObjectRef) {
        let layout = context.graph.layout.entities[Int(ref.entity)]
        var values: [String: Value] = [:]
        for (index, attribute) in layout.attributes.enumerated() { values[attribute.name] = context.graph.value(ref, index) }
        snapshot = values
        if let identifier { context.unregister(self, id: identifier.id) }
        // Its object's row may live again (redo): no to-one read may return this model kept.
        context.keptGeneration &+= 1
        self.context = nil
    }

    /// The stored form of an attribute, or `nil` while the model is unmanaged.
    private func storedValue(_ name: String) -> Value? {
        if let (context, ref) = location {
            guard let index = context.graph.layout.entities[Int(ref.entity)].attributeIndex[name] else { return nil }
            if let blob = context.graph.blob(ref, index) {
                // An externally stored value is read on first use; a property read cannot
                // throw, so a file that cannot be read is reported and reads as the type's zero.
                do {
                    return try blob.load()
                } catch {
                    context.container.report(context.unreadable(error, ref, index), to: context.autosaveErrorHandler)
                    return .zero(of: context.graph.layout.entities[Int(ref.entity)].attributes[index].type)
                }
            }
            return context.graph.value(ref, index)
        }
        return snapshot?[name]
    }

    /// Where an edit goes: the context's document (undoably, after the same type
    /// checks the dynamic API makes), the snapshot, or the instance. A value the
    /// document cannot hold is reported to the context's `autosaveErrorHandler`
    /// and the property keeps its value.
    func store<Model: PersistentModel>(_ name: String, _ ordinal: Int, of type: Model.Type, _ value: () throws -> Value,
                                               keep: () -> Void) {
        if let (context, ref) = editableLocation {
            let entity = context.graph.layout.entities[Int(ref.entity)]
            let index: Int
            let actionName: String
            if let (_, _, slot) = self.slot(type, ordinal), case .attribute(let column, _) = slot {
                index = column
                actionName = columns?.actionNames[ordinal] ?? "Set \(entity.name).\(name)"
            } else {
                guard let column = entity.attributeIndex[name] else { return }
                index = column
                actionName = "Set \(entity.name).\(name)"
            }
            do {
                let checked = try context.graph.checked(try value(), entity: Int(ref.entity), attribute: index)
                // The setter's `withMutation` tells this model's observers; the context
                // tells only other views of the object (an upsert's second model).
                context.typedWriter = ObjectIdentifier(self)
                defer { context.typedWriter = nil }
                context.performSetValue(checked, ref, index, name: actionName)
            } catch let error as GraphError {
                ModelContainer.report(.graph(error), to: context.autosaveErrorHandler)
            } catch {
                let mismatch = GraphError.typeMismatch(entity: entity.name, attribute: name, expected: "an encodable value", value: "\(error)")
                ModelContainer.report(.graph(mismatch), to: context.autosaveErrorHandler)
            }
        } else if snapshot != nil || madeByContext {
            // A model a context made has no values of its own: they go where a detached model's do.
            if let value = try? value() {
                if snapshot == nil { snapshot = [:] }
                snapshot?[name] = value
            }
        } else {
            keep()
        }
    }

    /// Runs a setter's edit, telling the model's observers when it has any: a
    /// model never read under observation tracking has no registrar, and
    /// making one for a write nobody watches would cost two allocations.
    @inline(__always)
    func mutation<Model: PersistentModel, V>(of model: Model, _ keyPath: KeyPath<Model, V>, _ edit: () -> Void) {
        if let observation {
            observation.registrar.withMutation(of: model, keyPath: keyPath, edit)
        } else {
            edit()
        }
    }

    /// The related objects' models, in order.
    func relatedModels<Destination: PersistentModel>(_ name: String, as type: Destination.Type) -> [Destination]? {
        guard let (context, ref) = location else { return snapshot == nil ? nil : [] }
        guard let slot = context.graph.layout.entities[Int(ref.entity)].linkIndex[name] else { return [] }
        return context.graph.targets(ref, slot).map { context.model(Destination.self, at: $0) }
    }

    /// Sets a relationship (`nil`: an optional to-many with no collection). On a
    /// model not yet inserted, relating it to models of a context inserts it
    /// there (with everything it reaches), as SwiftData does.
    func relate(_ models: [any PersistentModel]?, _ name: String, of owner: any PersistentModel, keep: () -> Void) {
        if let (context, ref) = editableLocation {
            context.setRelatedModels(models, for: name, of: ref)
        } else if snapshot == nil, !madeByContext {
            keep()
            for model in models ?? [] { _recordHolding(model, in: name, model: owner) }
            if let context = (models ?? []).lazy.compactMap(\.modelContext).first { context.insertModel(owner) }
        }
    }

    /// Sets a to-one relationship of a managed model to a model of the same
    /// context, without the array and the look-ups ``relate(_:_:of:keep:)``
    /// makes; `false` when the general path must do it.
    func relateOne(_ destination: (any PersistentModel)?, at ordinal: Int, of type: any PersistentModel.Type) -> Bool {
        guard let (context, ref, slot) = slot(type, ordinal), case .toOne(let link, let entity) = slot,
              context.graph.isLive(ref) else { return false }
        var row = -1
        if let destination {
            guard let (destinationContext, target) = destination.location, destinationContext === context,
                  Int(target.entity) == entity, context.graph.isLive(target) else { return false }
            row = Int(target.row)
        }
        context.setToOne(ref, link, to: row < 0 ? nil : Int32(row),
                         name: columns?.actionNames[ordinal] ?? "Set \(context.graph.layout.entities[Int(ref.entity)].name)")
        return true
    }

    // MARK: Attributes

    /// Reads an attribute of a type Folio stores directly.
    ///
    /// `keyPath` is called only when observation tracking may be active (it
    /// makes the key path Observation records the read under).
    ///
    /// - Complexity: O(1), no allocation, for a managed model of a scalar or
    ///   string type: `ordinal` (the property's position in `schemaMetadata`)
    ///   indexes the class's columns, resolved once per class and graph.
    @inlinable
    public func value<Model: PersistentModel, V: PersistableValue>(
        of model: Model, _ keyPath: () -> KeyPath<Model, V>, at ordinal: Int, named name: String
    ) -> V {
        // The getter calls this unretained (`_reading`): the cell is read first, and
        // `_access`, which may give a model sharing this backing data its own, last.
        // Inlined into the property's getter, where `V` is known: `_read` is a direct
        // call, and no generic metadata is looked up on the way.
        // The model's own class: a subclass's columns begin with its superclass's properties,
        // so an inherited property's ordinal indexes them too.
        if let cell = _cell(of: Swift.type(of: model), at: ordinal, row: model._$sharedRow.row), let value = V._read(cell) {
            _access(model, keyPath)
            return value
        }
        // The general path, which may call a handler, goes on with the model's own backing data, retained.
        let backing = model.persistentBackingData
        backing._access(model, keyPath)
        return backing._storedValue(of: model, keyPath(), at: ordinal, named: name)
    }

    /// The column cell of an attribute of a managed model; `nil` when the read
    /// must take the general path (unmanaged, detached, a blob still on disk).
    ///
    /// No reference is counted on the way: the context holds its graph, and
    /// the class's columns point at their storage unretained for that graph.
    ///
    /// `row` is the model's row while it shares this backing data (see
    /// ``_SharedBackingRow``); otherwise the backing data knows it.
    @usableFromInline
    func _cell(of type: any PersistentModel.Type, at ordinal: Int, row: Int32) -> _StoredCell? {
        guard let epoch = context?.graphEpoch else { return nil }
        if fastEpoch == epoch, let fastColumns {
            let ref = isShared ? ObjectRef(entity: cachedRef.entity, row: row) : cachedRef
            let found: _StoredCell?? = Unmanaged<ModelColumns>.fromOpaque(fastColumns)._withUnsafeGuaranteedRef { columns in
                guard columns.modelType == ObjectIdentifier(type), ordinal >= 0, ordinal < columns.fast.count else { return .none }
                let slot = columns.fast[ordinal]
                guard slot.kind == .cell, let storage = slot.object else { return .some(nil) }
                return .some(_StoredCell(graph: columns.graph, ref: ref, attribute: slot.index, kind: slot.cellKind, storage: storage))
            }
            if case .some(let cell) = found { return cell }
        }
        // A model sharing this backing data takes the general path, with its own.
        guard !isShared, self.slot(type, ordinal) != nil, fastEpoch == epoch else { return nil }
        return _cell(of: type, at: ordinal, row: row)
    }

    /// An attribute read by name: the instance's values, the snapshot, a blob, a default.
    @usableFromInline
    func _storedValue<Model: PersistentModel, V: PersistableValue>(
        of model: Model, _ keyPath: KeyPath<Model, V>, at ordinal: Int, named name: String
    ) -> V {
        if context == nil, snapshot == nil {
            if let kept = unmanagedStoredValue(at: ordinal), let value = V(persistentValue: kept) { return value }
            if let value = unmanagedValue(at: ordinal, named: name) as? V { return value }
        }
        if let stored = storedValue(name), let value = V(persistentValue: stored) { return value }
        if let value = unmanagedValue(at: ordinal, named: name, as: V.self) { return value }
        return V(persistentValue: .null) ?? V(persistentValue: .zero(of: V.valueType))
            ?? Self.declaredDefault(model, keyPath) { V(persistentValue: $0) } ?? Self.missing(name)
    }

    /// Sets an attribute of a type Folio stores directly; undoable once the model is inserted.
    public func setValue<Model: PersistentModel, V: PersistableValue>(
        _ newValue: V, of model: Model, _ keyPath: KeyPath<Model, V>, at ordinal: Int, named name: String
    ) {
        if isShared { return model.persistentBackingData.setValue(newValue, of: model, keyPath, at: ordinal, named: name) }
        mutation(of: model, keyPath) {
            store(name, ordinal, of: Swift.type(of: model), { newValue.persistentValue }) {
                keepUnmanaged(ordinal >= 0 ? .stored(newValue.persistentValue) : .other(newValue), at: ordinal, named: name)
            }
        }
    }

    /// Reads a `Codable` attribute stored as a composite value.
    ///
    /// `keyPath` is called only when observation tracking may be active (it
    /// makes the key path Observation records the read under).
    ///
    /// A stored value that no longer decodes as the type (a field added to the
    /// struct since the document was written, say) is reported once to the
    /// context's `autosaveErrorHandler` and read leniently: what decodes is kept,
    /// missing fields read as zero. The document is not changed until the
    /// property is set.
    public func value<Model: PersistentModel, V: Codable>(
        of model: Model, _ keyPath: () -> KeyPath<Model, V>, at ordinal: Int, named name: String
    ) -> V {
        // The getter calls this unretained (`_reading`): the read, which may call a
        // handler, goes on with the model's own backing data, retained.
        model.persistentBackingData.readCodable(of: model, keyPath, at: ordinal, named: name)
    }

    func readCodable<Model: PersistentModel, V: Codable>(
        of model: Model, _ keyPath: () -> KeyPath<Model, V>, at ordinal: Int, named name: String
    ) -> V {
        _access(model, keyPath)
        if context == nil, snapshot == nil, let value = unmanagedValue(at: ordinal, named: name) as? V { return value }
        if let stored = storedValue(name) {
            do { return try CodableValue.decode(V.self, from: stored) } catch {
                reportUndecodable(name, as: V.self, error)
                if let value = CodableValue.decodeLeniently(V.self, from: stored) { return value }
            }
        }
        if let value = unmanagedValue(at: ordinal, named: name, as: V.self) { return value }
        return CodableValue.decodeLeniently(V.self, from: .null)
            ?? Self.declaredDefault(model, keyPath()) { CodableValue.decodeLeniently(V.self, from: $0) }
            ?? ((V.self as? any CaseIterable.Type)?.allCases.first as? V)
            ?? Self.missing(name)
    }

    /// Sets a `Codable` attribute; undoable once the model is inserted.
    public func setValue<Model: PersistentModel, V: Codable>(
        _ newValue: V, of model: Model, _ keyPath: KeyPath<Model, V>, at ordinal: Int, named name: String
    ) {
        if isShared { return model.persistentBackingData.setValue(newValue, of: model, keyPath, at: ordinal, named: name) }
        mutation(of: model, keyPath) {
            store(name, ordinal, of: Swift.type(of: model), { try CodableValue.encode(newValue) }) { keepUnmanaged(.other(newValue), at: ordinal, named: name) }
        }
    }

    /// Properties whose stored value did not decode, already reported.
    private var reportedUndecodable: Set<String> = []

    private func reportUndecodable<V>(_ name: String, as type: V.Type, _ error: any Error) {
        guard let (context, ref) = location, reportedUndecodable.insert(name).inserted else { return }
        let entity = context.graph.layout.entities[Int(ref.entity)].name
        let mismatch = GraphError.typeMismatch(entity: entity, attribute: name, expected: "a value that decodes as \(V.self)",
                                               value: "\(error)")
        ModelContainer.report(.graph(mismatch), to: context.autosaveErrorHandler)
    }

    // MARK: Relationships

    /// Reads a to-one relationship.
    ///
    /// `keyPath` is called only when observation tracking may be active (it
    /// makes the key path Observation records the read under).
    ///
    /// - Complexity: O(1), no allocation once the destination's model exists:
    ///   a link column read and a registry look-up by object number.
    @inlinable
    public func value<Model: PersistentModel, Destination: PersistentModel>(
        of model: Model, _ keyPath: () -> KeyPath<Model, Destination?>, at ordinal: Int, named name: String
    ) -> Destination? {
        // As for an attribute: the getter calls this unretained, so `_access` comes last,
        // and the general path goes on with the model's own backing data, retained.
        switch _relatedModel(of: Swift.type(of: model), at: ordinal, row: model._$sharedRow.row, as: Destination.self) {
        case .none:
            let backing = model.persistentBackingData
            backing._access(model, keyPath)
            return backing._storedModel(of: model, at: ordinal, named: name, as: Destination.self)
        case .some(nil):
            _access(model, keyPath)
            return nil
        case .some(let related?):
            _access(model, keyPath)
            // An exact class match needs no dynamic cast.
            if ObjectIdentifier(type(of: related)) == ObjectIdentifier(Destination.self) {
                return unsafeDowncast(related as AnyObject, to: Destination.self)
            }
            return related as? Destination
        }
    }

    /// The model a to-one relationship of a managed model holds (`.some(nil)`:
    /// none); `.none` when the read must take the general path.
    ///
    /// `row` is the model's row while it shares this backing data (see
    /// ``_SharedBackingRow``); otherwise the backing data knows it.
    @usableFromInline
    func _relatedModel(of type: any PersistentModel.Type, at ordinal: Int, row: Int32,
                       as destinationType: any PersistentModel.Type) -> (any PersistentModel)?? {
        guard let epoch = context?.graphEpoch, let generation = context?.keptGeneration else { return .none }
        if fastEpoch == epoch, let fastColumns,
           let slot = Unmanaged<ModelColumns>.fromOpaque(fastColumns)._withUnsafeGuaranteedRef({ columns -> ModelColumns.FastSlot? in
               guard columns.modelType == ObjectIdentifier(type), ordinal >= 0, ordinal < columns.fast.count else { return nil }
               return columns.fast[ordinal]
           }) {
            guard slot.kind == .toOne, let links = slot.object, let destinationTable = slot.destinationTable else { return .none }
            let source = isShared ? row : cachedRef.row
            let target = Unmanaged<LinkColumn>.fromOpaque(links)._withUnsafeGuaranteedRef { $0.one[Int(source)] }
            guard target >= 0 else { return .some(nil) }
            if isShared {
                // A model detached since may be kept: it is no longer its object's model.
                if keptEpoch != generation {
                    keptByRow = []
                    keptEpoch = generation
                }
                // A model of that row kept alive for the models sharing this backing data.
                if let kept = kept(at: ordinal, row: target) { return .some(kept) }
            } else if keptRow == target, keptOrdinal == ordinal, keptEpoch == generation, let keptDestination {
                // The model read last, alive (kept) and still the model of that row.
                return .some(keptDestination)
            }
            guard let context else { return .none }
            let id = Unmanaged<EntityTable>.fromOpaque(destinationTable)._withUnsafeGuaranteedRef { $0.ids[Int(target)] }
            let model = context.registry[id] ?? context.anyModel(destinationType, at: ObjectRef(entity: Int(slot.destination), row: Int(target)))
            if slot.keepsDestination {
                if isShared {
                    keep(model, at: ordinal, row: target)
                } else {
                    keptDestination = model
                    keptOrdinal = ordinal
                    keptRow = target
                    keptEpoch = generation
                }
            }
            return .some(model)
        }
        guard !isShared, let (context, ref, slot) = slot(type, ordinal), case .toOne(let link, let destination) = slot else { return .none }
        var target: Int32 = -1
        context.graph.tables[Int(ref.entity)].links[link].forEachTarget(of: Int(ref.row)) { target = $0 }
        guard target >= 0 else { return .some(nil) }
        return .some(context.anyModel(destinationType, at: ObjectRef(entity: destination, row: Int(target))))
    }

    /// A to-one relationship read by name: the document, or the instance's values.
    @usableFromInline
    func _storedModel<Destination: PersistentModel>(of model: any PersistentModel, at ordinal: Int, named name: String,
                                                    as type: Destination.Type) -> Destination? {
        if let related = relatedModels(name, as: Destination.self) { return related.first }
        return unmanagedValue(at: ordinal, named: name, as: Destination?.self) ?? nil
    }

    /// Sets a to-one relationship; the inverse follows, and an uninserted
    /// destination is inserted into the model's context.
    ///
    /// - Complexity: O(1) amortized for a destination already in the model's
    ///   context, however many models its inverse to-many holds.
    public func setValue<Model: PersistentModel, Destination: PersistentModel>(
        _ newValue: Destination?, of model: Model, _ keyPath: KeyPath<Model, Destination?>, at ordinal: Int, named name: String
    ) {
        if isShared { return model.persistentBackingData.setValue(newValue, of: model, keyPath, at: ordinal, named: name) }
        mutation(of: model, keyPath) {
            if relateOne(newValue, at: ordinal, of: Swift.type(of: model)) { return }
            relate(newValue.map { [$0] } ?? [], name, of: model) { keepUnmanaged(.other(newValue as Any), at: ordinal, named: name) }
        }
    }

    /// Reads a to-many relationship, in order.
    ///
    /// `keyPath` is called only when observation tracking may be active (it
    /// makes the key path Observation records the read under).
    public func value<Model: PersistentModel, Destination: PersistentModel>(
        of model: Model, _ keyPath: () -> KeyPath<Model, [Destination]>, at ordinal: Int, named name: String
    ) -> [Destination] {
        // The getter calls this unretained (`_reading`): go on with the model's own backing data, retained.
        model.persistentBackingData.toManyValue(of: model, keyPath, at: ordinal, named: name)
    }

    private func toManyValue<Model: PersistentModel, Destination: PersistentModel>(
        of model: Model, _ keyPath: () -> KeyPath<Model, [Destination]>, at ordinal: Int, named name: String
    ) -> [Destination] {
        _access(model, keyPath)
        if let (context, ref, slot) = slot(Swift.type(of: model), ordinal), case .toMany(let link) = slot {
            return context.graph.targets(ref, link).map { context.model(Destination.self, at: $0) }
        }
        return relatedModels(name, as: Destination.self) ?? unmanagedValue(at: ordinal, named: name, as: [Destination].self) ?? []
    }

    /// Replaces a to-many relationship's contents, in order; inverses follow.
    public func setValue<Model: PersistentModel, Destination: PersistentModel>(
        _ newValue: [Destination], of model: Model, _ keyPath: KeyPath<Model, [Destination]>, at ordinal: Int, named name: String
    ) {
        if isShared { return model.persistentBackingData.setValue(newValue, of: model, keyPath, at: ordinal, named: name) }
        mutation(of: model, keyPath) {
            relate(newValue, name, of: model) { keepUnmanaged(.other(newValue as Any), at: ordinal, named: name) }
        }
    }

    /// Reads an optional to-many relationship: `nil` until a collection is set
    /// or an object is linked to it (from either side), and after it is set to
    /// `nil`; an empty array once set to `[]` or emptied — saved and reopened alike.
    ///
    /// `keyPath` is called only when observation tracking may be active.
    public func value<Model: PersistentModel, Destination: PersistentModel>(
        of model: Model, _ keyPath: () -> KeyPath<Model, [Destination]?>, at ordinal: Int, named name: String
    ) -> [Destination]? {
        // The getter calls this unretained (`_reading`): go on with the model's own backing data, retained.
        model.persistentBackingData.optionalToManyValue(of: model, keyPath, at: ordinal, named: name)
    }

    private func optionalToManyValue<Model: PersistentModel, Destination: PersistentModel>(
        of model: Model, _ keyPath: () -> KeyPath<Model, [Destination]?>, at ordinal: Int, named name: String
    ) -> [Destination]? {
        _access(model, keyPath)
        if let (context, ref) = location {
            guard let slot = context.graph.layout.entities[Int(ref.entity)].linkIndex[name] else { return nil }
            return context.graph.collection(ref, slot)?.map { context.model(Destination.self, at: $0) }
        }
        // Detached (its object gone): relationships read empty, as for every other kind.
        if snapshot != nil { return [] }
        return unmanagedValue(at: ordinal, named: name, as: [Destination]?.self) ?? nil
    }

    /// Replaces an optional to-many relationship's contents; `nil` leaves it with
    /// no collection, `[]` with an empty one. Undoable once the model is inserted.
    public func setValue<Model: PersistentModel, Destination: PersistentModel>(
        _ newValue: [Destination]?, of model: Model, _ keyPath: KeyPath<Model, [Destination]?>, at ordinal: Int, named name: String
    ) {
        if isShared { return model.persistentBackingData.setValue(newValue, of: model, keyPath, at: ordinal, named: name) }
        mutation(of: model, keyPath) {
            relate(newValue, name, of: model) { keepUnmanaged(.other(newValue as Any), at: ordinal, named: name) }
        }
    }

    /// The default the class declares for a property (`var mood: Mood = .calm`), read as `V`.
    private static func declaredDefault<Model: PersistentModel, V>(
        _ model: Model, _ keyPath: KeyPath<Model, V>, _ read: (Value) -> V?
    ) -> V? {
        guard case .attribute(let declaration, _)? = ModelMetadata.of(Model.self).property(for: keyPath)?.kind,
              let stored = declaration.defaultStoredValue else { return nil }
        return read(stored)
    }

    /// A property with no value anywhere: no stored value it can read, no
    /// declared default, no zero value and no first case. Input cannot get
    /// here — a container made from model classes refuses, on open and on every
    /// dynamic edit, a value a property could not read back, and merges and
    /// undo only bring values that passed those checks — only a model built
    /// by hand from an empty `BackingData()` whose initializer never set the
    /// property can: a programming error, like reading an uninitialised value.
    private static func missing<V>(_ name: String) -> V {
        preconditionFailure("Folio: '\(name)' has no value: the model was created with empty backing data and never inserted")
    }
}
