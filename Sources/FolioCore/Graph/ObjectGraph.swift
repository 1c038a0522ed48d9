/// The in-memory objects of one document: the dynamic core every other layer builds on.
///
/// Objects of any entity are addressed by ``PersistentIdentifier`` and their
/// attributes and relationships by name. Both sides of every relationship are
/// kept in sync on each edit. The graph applies no delete rules and records no
/// undo: that is the editing context's work, which sits on top of it.
///
/// Storage is columnar: one typed array per attribute per entity, so an object
/// with a few scalars costs tens of bytes, not a dictionary.
///
/// ```swift
/// let graph = ObjectGraph(schema: schema)
/// let mammals = try graph.insert("AnimalCategory", ["name": .string("Mammal")])
/// let rex = try graph.insert("Animal", ["name": .string("Rex")])
/// try graph.link(rex, "category", to: mammals)
/// try graph.related("animals", of: mammals)   // [rex]
/// ```
public final class ObjectGraph {
    /// The document's schema.
    public let schema: Schema
    let layout: SchemaLayout
    var tables: [EntityTable]
    /// Every object ever inserted in this graph's life, live or deleted, by number.
    @exclusivity(unchecked) var index = IdentifierIndex()
    /// Above every identifier this graph has held; never decreases. A format-2
    /// package's manifest recorded it (`next-id`); new identifiers come from
    /// ``allocator`` (or, for a context's inserts, its store's).
    var nextID: UInt64 = 1
    /// Hands out the identifiers of objects inserted through this graph's own
    /// ``insert(_:_:)`` (a bare graph is a writer of its own, with its own lane).
    var allocator = IdentifierAllocator()
    /// Values → row indexes for unique groups, built on first use.
    var uniqueIndexes: [UniqueKey: UniqueIndex] = [:]
    /// The declared indexes (`#Index`) built so far, kept current by every
    /// edit (see ObjectGraph+Indexes); copies share them copy-on-write.
    var attributeIndexes: [AttributeIndexKey: AttributeIndex] = [:]
    /// How many rows fetches with a predicate have examined in this graph: a
    /// scan counts every live row, an indexed fetch its candidates. Tests read
    /// it to tell the two apart.
    @exclusivity(unchecked) var rowsVisited = 0
    /// The conflicts merges recorded in this document and nobody resolved yet:
    /// part of the document, saved and read with its objects and copied with
    /// the graph. A context resolves them (``ModelContext/resolve(_:keeping:)``).
    public internal(set) var conflicts: [MergeConflict] = []
    /// The sizes values and the document may reach; ``DocumentLimits/standard``
    /// except in tests, which use small ones (copies keep them).
    var limits = DocumentLimits.standard
    /// While an editing context runs a link edit: every change made to a
    /// relationship list, in order, for its undo (see ``LinkChange``); `nil`
    /// records nothing.
    @exclusivity(unchecked) var linkJournal: [LinkChange]?
    #if DEBUG
    /// Mutations since ``_checkInvariants()`` last checked the whole graph (debug builds only).
    var mutationsSinceInvariantCheck = 0
    #endif

    /// Creates an empty graph for the schema.
    public init(schema: Schema) {
        self.schema = schema
        layout = SchemaLayout(schema)
        tables = layout.entities.map(EntityTable.init(layout:))
    }

    init(schema: Schema, layout: SchemaLayout) {
        self.schema = schema
        self.layout = layout
        tables = []
    }

    /// The number of live objects. O(entities).
    public var count: Int { tables.reduce(0) { $0 + $1.liveCount } }

    /// The number of live objects of an entity. O(1).
    public func count(of entity: String) throws(GraphError) -> Int {
        tables[try entityIndex(entity)].liveCount
    }

    /// The live objects of an entity, in insertion order. O(rows of the entity).
    public func identifiers(of entity: String) throws(GraphError) -> [PersistentIdentifier] {
        let entityIndex = try entityIndex(entity)
        let table = tables[entityIndex]
        var result: [PersistentIdentifier] = []
        result.reserveCapacity(table.liveCount)
        for row in 0..<table.rowCount where table.isLive[row] {
            result.append(PersistentIdentifier(entityName: entity, id: table.ids[row]))
        }
        return result
    }

    /// Whether a live object has this identifier. O(1).
    public func contains(_ id: PersistentIdentifier) -> Bool {
        guard let ref = index[id.id] else { return false }
        return tables[Int(ref.entity)].isLive[Int(ref.row)] && layout.entities[Int(ref.entity)].name == id.entityName
    }

    /// Inserts a new object with the given attribute values; the rest get their defaults.
    ///
    /// - Returns: the new object's identifier, never used before in this document.
    /// - Throws: ``GraphError`` for an unknown entity or attribute or a value of the wrong type.
    @discardableResult
    public func insert(_ entity: String, _ values: [String: Value] = [:]) throws(GraphError) -> PersistentIdentifier {
        let entityIndex = try entityIndex(entity)
        try checkRoomForObject(entity: entityIndex)
        let entityLayout = layout.entities[entityIndex]
        var initial = entityLayout.attributes.map(\.initialValue)
        for (name, value) in values {
            guard let attribute = entityLayout.attributeIndex[name] else {
                throw .unknownAttribute(entity: entity, attribute: name)
            }
            initial[attribute] = try checked(value, entity: entityIndex, attribute: attribute)
        }
        let id = try allocateIdentifier(entity: entityIndex)
        insertObject(entity: entityIndex, values: initial, id: id)
        _checkInvariants()
        return PersistentIdentifier(entityName: entity, id: id)
    }

    /// Reads an attribute. A deleted object's last values can still be read.
    ///
    /// An externally stored value is read from its file the first time it is
    /// read (and checked against the hash in its name), then kept.
    ///
    /// - Throws: ``GraphError`` for an unknown object or attribute;
    ///   ``GraphError/unreadableValue(entity:attribute:id:reason:)`` for an
    ///   externally stored value whose file cannot be read.
    public func value(_ attribute: String, of id: PersistentIdentifier) throws(GraphError) -> Value {
        let ref = try ref(for: id, allowDeleted: true)
        let attributeIndex = try self.attributeIndex(attribute, entity: Int(ref.entity))
        do {
            return try loadValue(ref, attributeIndex)
        } catch {
            throw .unreadableValue(entity: id.entityName, attribute: attribute, id: id.id, reason: "\(error)")
        }
    }

    /// Writes an attribute.
    ///
    /// - Throws: ``GraphError`` for an unknown or deleted object, unknown attribute,
    ///   or a value that does not fit the attribute's type.
    public func setValue(_ value: Value, for attribute: String, of id: PersistentIdentifier) throws(GraphError) {
        let ref = try ref(for: id)
        let attributeIndex = try self.attributeIndex(attribute, entity: Int(ref.entity))
        let checkedValue = try checked(value, entity: Int(ref.entity), attribute: attributeIndex)
        setValue(checkedValue, ref, attributeIndex)
        _checkInvariants()
    }

    /// The objects a relationship holds, in order (at most one for to-one);
    /// empty when an optional to-many holds no collection.
    public func related(_ relationship: String, of id: PersistentIdentifier) throws(GraphError) -> [PersistentIdentifier] {
        let ref = try ref(for: id, allowDeleted: true)
        let slot = try linkSlot(relationship, entity: Int(ref.entity))
        return targets(ref, slot).map(identifier(for:))
    }

    /// The objects a to-many relationship holds, in order, or `nil` when an
    /// optional one (`[Tag]?`) holds no collection — never assigned, or set to
    /// `nil`. Any other relationship reads as ``related(_:of:)``.
    public func relatedCollection(_ relationship: String, of id: PersistentIdentifier) throws(GraphError)
        -> [PersistentIdentifier]?
    {
        let ref = try ref(for: id, allowDeleted: true)
        let slot = try linkSlot(relationship, entity: Int(ref.entity))
        return collection(ref, slot)?.map(identifier(for:))
    }

    /// Adds an object to a relationship (sets it, for to-one); the inverse follows.
    ///
    /// Linking an object a to-many already holds does nothing. Setting a to-one
    /// whose inverse is to-one first unlinks whatever either side held.
    ///
    /// - Complexity: O(1) amortized when either side is a to-one, however large
    ///   the to-many (it is appended to in place); between two to-manys,
    ///   O(the shorter list) to find whether they are linked already.
    public func link(_ id: PersistentIdentifier, _ relationship: String, to target: PersistentIdentifier) throws(GraphError) {
        let (source, slot, destination) = try resolveLink(id, relationship, target)
        addLink(source, slot, destination)
        _checkInvariants()
    }

    /// Removes an object from a relationship; the inverse follows. Unlinking an
    /// object the relationship does not hold does nothing.
    public func unlink(_ id: PersistentIdentifier, _ relationship: String, from target: PersistentIdentifier) throws(GraphError) {
        let (source, slot, destination) = try resolveLink(id, relationship, target)
        removeLink(source, slot, destination)
        _checkInvariants()
    }

    /// Replaces what a relationship holds with the given objects, in this order.
    ///
    /// `nil` leaves an optional to-many holding no collection (and empties any
    /// other relationship); `[]` gives it an empty one.
    ///
    /// - Throws: ``GraphError/tooManyDestinations(entity:relationship:)`` for more
    ///   than one object on a to-one relationship.
    public func setRelated(_ targets: [PersistentIdentifier]?, for relationship: String, of id: PersistentIdentifier)
        throws(GraphError)
    {
        let (source, slot, rows) = try resolveTargets(targets ?? [], for: relationship, of: id)
        replaceLinks(source, slot, with: rows, absent: targets == nil)
        _checkInvariants()
    }

    /// Removes an object: every link to and from it is cut, and it stops being live.
    ///
    /// This is the graph's primitive; it applies no delete rule. The object's
    /// attribute values stay readable through ``value(_:of:)``.
    public func remove(_ id: PersistentIdentifier) throws(GraphError) {
        let ref = try ref(for: id)
        _ = removeObjects([ref])
        _checkInvariants()
    }
}

// MARK: - Internal primitives on rows

extension ObjectGraph {
    func entityIndex(_ name: String) throws(GraphError) -> Int {
        guard let index = layout.entityIndex[name] else { throw .unknownEntity(name) }
        return index
    }

    func attributeIndex(_ name: String, entity: Int) throws(GraphError) -> Int {
        guard let index = layout.entities[entity].attributeIndex[name] else {
            throw .unknownAttribute(entity: layout.entities[entity].name, attribute: name)
        }
        return index
    }

    func linkSlot(_ name: String, entity: Int) throws(GraphError) -> Int {
        guard let slot = layout.entities[entity].linkIndex[name] else {
            throw .unknownRelationship(entity: layout.entities[entity].name, relationship: name)
        }
        return slot
    }

    func ref(for id: PersistentIdentifier, allowDeleted: Bool = false) throws(GraphError) -> ObjectRef {
        guard let ref = index[id.id], layout.entities[Int(ref.entity)].name == id.entityName,
            allowDeleted || tables[Int(ref.entity)].isLive[Int(ref.row)]
        else { throw .objectNotFound(id) }
        return ref
    }

    /// The number of the object at `ref`, without making its identifier.
    @inline(__always)
    func identifier(of ref: ObjectRef) -> UInt64 { tables[Int(ref.entity)].ids[Int(ref.row)] }

    func identifier(for ref: ObjectRef) -> PersistentIdentifier {
        PersistentIdentifier(
            entityName: layout.entities[Int(ref.entity)].name,
            id: tables[Int(ref.entity)].ids[Int(ref.row)])
    }

    func isLive(_ ref: ObjectRef) -> Bool { tables[Int(ref.entity)].isLive[Int(ref.row)] }

    /// Appends an empty row for a new object and indexes it. Attribute values are the caller's to append.
    func appendObject(id: UInt64, entity: Int) -> ObjectRef {
        let row = tables[entity].appendRow(id: id)
        let ref = ObjectRef(entity: entity, row: row)
        index[id] = ref
        return ref
    }

    /// Appends a live object with checked values (one per attribute) and a fresh identifier.
    @discardableResult
    func insertObject(entity: Int, values: [Value], id: UInt64) -> ObjectRef {
        let ref = appendObject(id: id, entity: entity)
        let table = tables[entity]
        for (column, value) in values.enumerated() {
            table.columns[column].append(value, optional: layout.entities[entity].attributes[column].isOptional)
        }
        nextID = max(nextID, id + 1)
        uniqueIndexAdd(ref)
        attributeIndexAdd(ref)
        return ref
    }

    func value(_ ref: ObjectRef, _ attribute: Int) -> Value {
        tables[Int(ref.entity)].columns[attribute]
            .value(at: Int(ref.row), type: layout.entities[Int(ref.entity)].attributes[attribute].type)
    }

    /// A value, reading an externally stored one from disk on first use.
    ///
    /// - Throws: the store's error for a blob that cannot be read.
    func loadValue(_ ref: ObjectRef, _ attribute: Int) throws -> Value {
        if let blob = blob(ref, attribute) { return try blob.load() }
        return value(ref, attribute)
    }

    /// The blob still on disk in a cell, if any.
    func blob(_ ref: ObjectRef, _ attribute: Int) -> LazyBlob? {
        tables[Int(ref.entity)].columns[attribute].blob(at: Int(ref.row))
    }

    /// What a cell holds, without reading a blob still on disk.
    func stored(_ ref: ObjectRef, _ attribute: Int) -> StoredValue {
        if let blob = blob(ref, attribute) { return .blob(blob) }
        return .value(value(ref, attribute))
    }

    /// Puts a cell's content back (undo, merges); a blob is never read.
    func setStored(_ stored: StoredValue, _ ref: ObjectRef, _ attribute: Int) {
        switch stored {
        case .value(let value): setValue(value, ref, attribute)
        case .blob(let blob): setBlob(blob, ref, attribute)
        }
    }

    /// Puts a blob still on disk in a cell of an external-storage attribute.
    ///
    /// An external attribute is in no checked unique group, but a `unique` one
    /// keeps an index for upserts once one was asked for: only then is the blob
    /// read, to key the object by its value.
    func setBlob(_ blob: LazyBlob, _ ref: ObjectRef, _ attribute: Int) {
        let indexed = isLive(ref) ? uniqueIndexKeys(of: ref).filter { $0.attributes.contains(attribute) } : []
        for key in indexed {
            if let old = uniqueValues(ref, key.attributes) { uniqueIndexes[key]?.remove(old, row: ref.row) }
        }
        tables[Int(ref.entity)].columns[attribute].setBlob(blob, at: Int(ref.row))
        for key in indexed {
            if let new = uniqueValues(ref, key.attributes) { uniqueIndexes[key]?.add(new, row: ref.row) }
        }
    }

    /// Makes a removed object live again, with its links empty (a merge bringing
    /// back an object another context's undo restored); its values are set after.
    func revive(_ ref: ObjectRef) {
        guard !isLive(ref) else { return }
        tables[Int(ref.entity)].setLive(true, row: Int(ref.row))
        uniqueIndexAdd(ref)
        attributeIndexAdd(ref)
    }

    /// Inserts an object from cells (a merge), carrying blobs still on disk as they are.
    @discardableResult
    func insertObject(entity: Int, stored: [StoredValue], id: UInt64) -> ObjectRef {
        let attributes = layout.entities[entity].attributes
        let values = stored.enumerated().map { index, cell -> Value in
            if case .value(let value) = cell { return value }
            return .zero(of: attributes[index].type)  // replaced by the blob below
        }
        let ref = insertObject(entity: entity, values: values, id: id)
        for (attribute, cell) in stored.enumerated() {
            if case .blob(let blob) = cell { setBlob(blob, ref, attribute) }
        }
        return ref
    }

    /// Writes a checked value: every write of an attribute goes through here
    /// (or ``setBlob(_:_:_:)``, for attributes no index names), which keeps the
    /// unique and declared indexes current.
    func setValue(_ value: Value, _ ref: ObjectRef, _ attribute: Int) {
        reindexing(ref, attribute: attribute) {
            rekeying(ref, member: attribute) { tables[Int(ref.entity)].columns[attribute].set(value, at: Int(ref.row)) }
        }
    }

    /// Checks a value against an attribute's type and the document's limits
    /// (``DocumentLimits``: its written size, nesting, a blob's size); returns it
    /// as it will be stored.
    ///
    /// - Complexity: O(1) for numbers and short strings, else O(the value's size).
    func checked(_ value: Value, entity: Int, attribute: Int) throws(GraphError) -> Value {
        // The traits and the type, not the whole `Schema.Attribute`: this runs for every value set.
        let traits = layout.entities[entity].traits[attribute]
        let type = layout.entities[entity].attributes[attribute].type
        // Pattern matches, not `==`: this runs for every value an insert or a set stores.
        let fits: Bool
        if case .null = value { fits = traits.isOptional || type == .any } else { fits = value.conforms(to: type) }
        guard fits else {
            throw .typeMismatch(
                entity: layout.entities[entity].name, attribute: layout.entities[entity].attributes[attribute].name,
                expected: (traits.isOptional ? "optional " : "") + type.description,
                value: value.description)
        }
        // Transient values are never written, so no limit of the file applies.
        if !traits.isTransient, let (limit, size) = limits.violation(of: value, as: type, external: traits.isExternal) {
            throw .limitExceeded(
                entity: layout.entities[entity].name, attribute: layout.entities[entity].attributes[attribute].name,
                limit: limit, size: size, maximum: limits.maximum(limit))
        }
        return value
    }

    /// Refuses an insert once the document holds ``DocumentLimits/maximumObjects``
    /// objects, or the entity's table as many rows as it can address (fewer
    /// when a relationship into a hierarchy may hold its objects:
    /// ``SchemaLayout/maximumRows``).
    ///
    /// - Complexity: O(entities).
    func checkRoomForObject(entity: Int) throws(GraphError) {
        let objects = count
        let rows = tables[entity].rowCount
        let maximumRows = layout.maximumRows[entity]
        if objects >= limits.maximumObjects || rows >= maximumRows {
            throw .limitExceeded(
                entity: layout.entities[entity].name, attribute: "", limit: .objects,
                size: max(objects, rows) + 1, maximum: min(limits.maximumObjects, maximumRows))
        }
    }

    /// A new identifier from this graph's own ``allocator``, in a lane no
    /// object of the graph (live or deleted) nor its history uses.
    func allocateIdentifier(entity: Int) throws(GraphError) -> UInt64 {
        if allocator.numbersLikeFormat2 { return nextID }
        let index = self.index
        guard let id = allocator.next(avoiding: { index.lanes.contains($0) }) else {
            throw Self.identifiersExhausted(entity: layout.entities[entity].name)
        }
        return id
    }

    /// What a relationship holds, or `nil` for an optional to-many with no collection.
    func collection(_ ref: ObjectRef, _ slot: Int) -> [ObjectRef]? {
        tables[Int(ref.entity)].links[slot].isAbsent(Int(ref.row)) ? nil : targets(ref, slot)
    }

    func targets(_ ref: ObjectRef, _ slot: Int) -> [ObjectRef] {
        let link = layout.entities[Int(ref.entity)].links[slot]
        return tables[Int(ref.entity)].links[slot].targets(of: Int(ref.row)).map(link.ref)
    }

    /// Resolves a link edit: the live source, the relationship's slot, and the live
    /// target, which must be of the relationship's destination entity.
    func resolveLink(_ id: PersistentIdentifier, _ relationship: String, _ target: PersistentIdentifier)
        throws(GraphError) -> (ObjectRef, Int, ObjectRef)
    {
        let source = try ref(for: id)
        let slot = try linkSlot(relationship, entity: Int(source.entity))
        let link = layout.entities[Int(source.entity)].links[slot]
        return (source, slot, try destinationRef(target, link: link, entity: Int(source.entity), relationship: relationship))
    }

    /// Resolves a whole new list for a relationship: unique stored targets
    /// (``SchemaLayout/Link/target(_:)``) in the given order, at most one for a
    /// to-one relationship.
    func resolveTargets(_ targets: [PersistentIdentifier], for relationship: String, of id: PersistentIdentifier)
        throws(GraphError) -> (ObjectRef, Int, [Int32])
    {
        let source = try ref(for: id)
        let (slot, rows) = try resolveTargets(targets, for: relationship, entity: Int(source.entity))
        return (source, slot, rows)
    }

    /// Resolves a new list for a relationship of an entity, before there is an
    /// object to hold it (an insert that links): the slot and the stored targets.
    func resolveTargets(_ targets: [PersistentIdentifier], for relationship: String, entity: Int)
        throws(GraphError) -> (slot: Int, rows: [Int32])
    {
        let slot = try linkSlot(relationship, entity: entity)
        let link = layout.entities[entity].links[slot]
        if !link.isToMany, targets.count > 1 {
            throw .tooManyDestinations(entity: layout.entities[entity].name, relationship: relationship)
        }
        var rows: [Int32] = []
        var seen = Set<Int32>()
        for target in targets {
            let destination = try destinationRef(target, link: link, entity: entity, relationship: relationship)
            let stored = link.target(destination)
            if seen.insert(stored).inserted { rows.append(stored) }
        }
        return (slot, rows)
    }

    private func destinationRef(
        _ target: PersistentIdentifier, link: SchemaLayout.Link, entity: Int,
        relationship: String
    ) throws(GraphError) -> ObjectRef {
        let destination = try ref(for: target)
        guard link.accepts(entity: Int(destination.entity)) else {
            throw .wrongDestination(
                entity: layout.entities[entity].name, relationship: relationship,
                expected: layout.entities[link.destination].name, found: target)
        }
        return destination
    }

    /// Links source → target through `slot` and target → source through the inverse,
    /// first unlinking what a to-one side held. O(1) amortized when either side
    /// is a to-one (a to-many is appended to in place); between two to-manys,
    /// O(the shorter list) to find whether they are linked already.
    func addLink(_ source: ObjectRef, _ slot: Int, _ target: ObjectRef) {
        let link = layout.entities[Int(source.entity)].links[slot]
        let column = tables[Int(source.entity)].links[slot]
        if isLinked(source, slot, target) { return }
        if !link.isToMany, column.one[Int(source.row)] >= 0 {
            removeLink(source, slot, link.ref(column.one[Int(source.row)]))
        }
        let inverseSlot = link.inverse(in: target.entity)
        let inverseLink = layout.entities[Int(target.entity)].links[inverseSlot]
        let inverseColumn = tables[Int(target.entity)].links[inverseSlot]
        if !inverseColumn.isToMany, inverseColumn.one[Int(target.row)] >= 0 {
            removeLink(target, inverseSlot, inverseLink.ref(inverseColumn.one[Int(target.row)]))
        }
        // Either side may be a to-one in a unique group: its object moves to a new key.
        rekeying(source, slot: slot) { insertTarget(link.target(target), into: source, slot) }
        rekeying(target, slot: inverseSlot) { insertTarget(inverseLink.target(source), into: target, inverseSlot) }
    }

    /// Whether `source` holds `target` through `slot`, asked of whichever side
    /// answers in O(1): a to-one on either side, else the shorter list.
    func isLinked(_ source: ObjectRef, _ slot: Int, _ target: ObjectRef) -> Bool {
        let column = tables[Int(source.entity)].links[slot]
        let link = layout.entities[Int(source.entity)].links[slot]
        let stored = link.target(target)
        guard column.isToMany else { return column.one[Int(source.row)] == stored }
        let inverseSlot = link.inverse(in: target.entity)
        let inverse = tables[Int(target.entity)].links[inverseSlot]
        let storedSource = layout.entities[Int(target.entity)].links[inverseSlot].target(source)
        guard inverse.isToMany else { return inverse.one[Int(target.row)] == storedSource }
        let (mine, theirs) = (column.many[Int(source.row)].count, inverse.many[Int(target.row)].count)
        return mine <= theirs
            ? column.many[Int(source.row)].contains(stored)
            : inverse.many[Int(target.row)].contains(storedSource)
    }

    /// Cuts the link source → target and its inverse.
    func removeLink(_ source: ObjectRef, _ slot: Int, _ target: ObjectRef) {
        let link = layout.entities[Int(source.entity)].links[slot]
        let inverseSlot = link.inverse(in: target.entity)
        let storedSource = layout.entities[Int(target.entity)].links[inverseSlot].target(source)
        rekeying(source, slot: slot) { removeTarget(link.target(target), from: source, slot) }
        rekeying(target, slot: inverseSlot) { removeTarget(storedSource, from: target, inverseSlot) }
    }

    /// Sets or clears a to-one (every typed `animal.category = …`): `addLink`
    /// replaces what it held, with no set of rows to keep and no list of
    /// targets. `row` is a stored target (``SchemaLayout/Link/target(_:)``).
    func setToOne(_ source: ObjectRef, _ slot: Int, to row: Int32?) {
        let link = layout.entities[Int(source.entity)].links[slot]
        if let row {
            addLink(source, slot, link.ref(row))
        } else {
            let held = tables[Int(source.entity)].links[slot].one[Int(source.row)]
            if held >= 0 { removeLink(source, slot, link.ref(held)) }
        }
    }

    /// Makes a relationship hold exactly `rows` (stored targets, unique), in
    /// that order; with `absent`, `rows` must be empty and an optional to-many
    /// is left with no collection.
    func replaceLinks(_ source: ObjectRef, _ slot: Int, with rows: [Int32], absent: Bool = false) {
        let link = layout.entities[Int(source.entity)].links[slot]
        let column = tables[Int(source.entity)].links[slot]
        if !link.isToMany, rows.count <= 1 { return setToOne(source, slot, to: rows.first) }
        let keep = Set(rows)
        for old in column.targets(of: Int(source.row)) where !keep.contains(old) {
            removeLink(source, slot, link.ref(old))
        }
        for row in rows { addLink(source, slot, link.ref(row)) }
        if link.isToMany, column.many[Int(source.row)] != rows { assignList(rows, to: source, slot) }
        setAbsent(absent && rows.isEmpty, source, slot)
    }
}

extension ObjectGraph {
    /// The error of an insert into a document whose identifier counter has
    /// reached the largest identifier: a reason of its own, not a count of
    /// objects (the document may hold few).
    static func identifiersExhausted(entity: String) -> GraphError {
        .identifiersExhausted(entity: entity)
    }
}
