import CLibXML2
import Foundation

/// What an XML attribute of an object element stands for.
enum PropertySlot {
    case id
    /// An attribute column; `escaped` for the `name.esc` form with JSON escapes.
    case attribute(Int, escaped: Bool)
    /// A declared relationship: a space-separated list of identifiers.
    case link(Int)
}

/// How one attribute's text becomes a stored value: where the cells of the
/// loader's rows are and the checks to apply, resolved once per entity so the
/// per-value path copies no schema structs and retains nothing.
///
/// The pointers address row 0 of the rows this loader writes (a part's rows
/// start at its offset in the combined table). The storage behind them is
/// sized before they are made and not resized while they are used; every
/// cell already holds the column's zero and, for an optional attribute, nil,
/// so an absent attribute costs no write.
enum AttributeDecoder {
    case int(UnsafeMutablePointer<Int64>, nulls: UnsafeMutablePointer<Bool>?, range: ClosedRange<Int64>)
    case uint(UnsafeMutablePointer<Int64>, nulls: UnsafeMutablePointer<Bool>?, maximum: UInt64)
    case double(UnsafeMutablePointer<Double>, nulls: UnsafeMutablePointer<Bool>?)
    case float(UnsafeMutablePointer<Double>, nulls: UnsafeMutablePointer<Bool>?)
    case date(UnsafeMutablePointer<Double>, nulls: UnsafeMutablePointer<Bool>?)
    case string(UnsafeMutablePointer<String>, nulls: UnsafeMutablePointer<Bool>?)
    case bool(UnsafeMutablePointer<Bool>, nulls: UnsafeMutablePointer<Bool>?)
    /// A column of `Value`s; the attribute's type is the state's (`attributeTypes`).
    case value(UnsafeMutablePointer<Value>)
    /// An external-storage attribute of any type: its text names a blob file,
    /// put in the cell once the whole package is read (the cell keeps nil until then).
    case external

    /// `nil` when the column holds no rows at all (so no row can be bound to it).
    init?(attribute: Schema.Attribute, column: Column, base: Int) {
        if attribute.isExternal {
            self = .external
            return
        }
        switch column {
        case .int(let storage):
            guard let (values, nulls) = storage.writableCells(from: base) else { return nil }
            if let maximum = attribute.type.unsignedMax {
                self = .uint(values, nulls: nulls, maximum: maximum)
            } else {
                self = .int(values, nulls: nulls, range: attribute.type.integerRange ?? Int64.min...Int64.max)
            }
        case .double(let storage):
            guard let (values, nulls) = storage.writableCells(from: base) else { return nil }
            switch attribute.type {
            case .date: self = .date(values, nulls: nulls)
            case .float: self = .float(values, nulls: nulls)
            default: self = .double(values, nulls: nulls)
            }
        case .string(let storage):
            guard let (values, nulls) = storage.writableCells(from: base) else { return nil }
            self = .string(values, nulls: nulls)
        case .bool(let storage):
            guard let (values, nulls) = storage.writableCells(from: base) else { return nil }
            self = .bool(values, nulls: nulls)
        case .value(let storage):
            guard let (values, _) = storage.writableCells(from: base) else { return nil }
            self = .value(values)
        }
    }

    /// Stores a checked value (not the common path: an escaped attribute, a
    /// transient attribute's initial value) in a row.
    func store(_ value: Value, row: Int) {
        func setNull(_ nulls: UnsafeMutablePointer<Bool>?) { nulls?[row] = value == .null }
        switch self {
        case .int(let values, let nulls, _), .uint(let values, let nulls, _):
            switch value {
            case .int(let raw): values[row] = raw
            case .uint(let raw): values[row] = Int64(bitPattern: raw)
            default: values[row] = 0
            }
            setNull(nulls)
        case .double(let values, let nulls), .float(let values, let nulls), .date(let values, let nulls):
            switch value {
            case .double(let raw): values[row] = raw
            case .float(let raw): values[row] = Column.raw(float: raw)
            case .date(let date): values[row] = date.timeIntervalSinceReferenceDate
            default: values[row] = 0
            }
            setNull(nulls)
        case .string(let values, let nulls):
            if case .string(let text) = value { values[row] = text } else { values[row] = "" }
            setNull(nulls)
        case .bool(let values, let nulls):
            if case .bool(let flag) = value { values[row] = flag } else { values[row] = false }
            setNull(nulls)
        case .value(let values):
            values[row] = value
        case .external:
            break
        }
    }
}

extension Array {
    /// The address of the first element, for writes through a pointer while the
    /// array is neither resized, copied nor otherwise accessed: a loader's
    /// storage, uniquely owned and sized ahead. `nil` when empty.
    mutating func writableBaseAddress() -> UnsafeMutablePointer<Element>? {
        withUnsafeMutableBufferPointer { $0.baseAddress }
    }
}

extension ColumnStorage {
    /// Pointers to the cells of rows `base...` (values, and nulls when the
    /// column keeps them); see ``AttributeDecoder``. `nil` for an empty storage.
    func writableCells(from base: Int) -> (values: UnsafeMutablePointer<Element>, nulls: UnsafeMutablePointer<Bool>?)? {
        guard let values = self.values.writableBaseAddress() else { return nil }
        return (values + base, nulls.isEmpty ? nil : nulls.writableBaseAddress().map { $0 + base })
    }

    /// Adds `count` rows holding the column's zero and, in an optional column, nil.
    func appendEmptyCells(_ count: Int, zero: Element, optional: Bool) {
        // Repeated, not an array: a temporary array of the rows (up to tens of megabytes)
        // would be filled, copied and freed, every page of it faulted in twice.
        values.append(contentsOf: repeatElement(zero, count: count))
        if optional { nulls.append(contentsOf: repeatElement(true, count: count)) }
    }

    /// Removes the last `count` rows' cells.
    func removeLastCells(_ count: Int) {
        values.removeLast(count)
        if !nulls.isEmpty { nulls.removeLast(count) }
    }
}

extension Column {
    /// ``ColumnStorage/appendEmptyCells(_:zero:optional:)`` with the column's zero
    /// (a `Value` column's is nil, and it keeps no null flags).
    func appendEmptyCells(_ count: Int, optional: Bool) {
        guard count > 0 else { return }
        switch self {
        case .int(let storage): storage.appendEmptyCells(count, zero: 0, optional: optional)
        case .double(let storage): storage.appendEmptyCells(count, zero: 0, optional: optional)
        case .string(let storage): storage.appendEmptyCells(count, zero: "", optional: optional)
        case .bool(let storage): storage.appendEmptyCells(count, zero: false, optional: optional)
        case .value(let storage): storage.appendEmptyCells(count, zero: .null, optional: false)
        }
    }

    func removeLastCells(_ count: Int) {
        guard count > 0 else { return }
        switch self {
        case .int(let storage): storage.removeLastCells(count)
        case .double(let storage): storage.removeLastCells(count)
        case .string(let storage): storage.removeLastCells(count)
        case .bool(let storage): storage.removeLastCells(count)
        case .value(let storage): storage.removeLastCells(count)
        }
    }
}

/// Everything a loader keeps of one entity's objects besides the graph's
/// table: where each object starts (for errors found after the parse) and the
/// raw identifiers of its links, resolved to rows once every object is read.
/// Row for row with the table; owned by the loader of the document or
/// manifest, written by the part loaders through pointers.
final class EntityLoadStorage {
    @exclusivity(unchecked) var lines: [Int32] = []
    @exclusivity(unchecked) var columns: [Int32] = []
    /// Raw destination ids per declared slot: `one` for to-one (0 = none), `many` for to-many.
    @exclusivity(unchecked) var rawOne: [[UInt64]]
    @exclusivity(unchecked) var rawMany: [[[UInt64]]]
    let linkIsToMany: [Bool]

    init(linkIsToMany: [Bool]) {
        self.linkIsToMany = linkIsToMany
        rawOne = Array(repeating: [], count: linkIsToMany.count)
        rawMany = Array(repeating: [], count: linkIsToMany.count)
    }

    var rowCount: Int { lines.count }

    /// Adds `count` rows: no position, no links.
    func appendRows(_ count: Int) {
        guard count > 0 else { return }
        lines.append(contentsOf: repeatElement(0, count: count))
        columns.append(contentsOf: repeatElement(0, count: count))
        for slot in linkIsToMany.indices {
            if linkIsToMany[slot] {
                rawMany[slot].append(contentsOf: repeatElement([], count: count))
            } else {
                rawOne[slot].append(contentsOf: repeatElement(0, count: count))
            }
        }
    }

    func removeLastRows(_ count: Int) {
        guard count > 0 else { return }
        lines.removeLast(count)
        columns.removeLast(count)
        for slot in linkIsToMany.indices {
            if linkIsToMany[slot] { rawMany[slot].removeLast(count) } else { rawOne[slot].removeLast(count) }
        }
    }
}

/// Per-entity state while objects load: name resolution caches, and where
/// this loader writes the entity's rows.
///
/// What each object's callback reads and writes lives in buffers this state
/// allocates once, not in arrays: writing an element of an array held by a
/// class checks that the array is uniquely referenced, per write, and clearing
/// the arrays per object called `memset` twice.
final class EntityLoadState {
    let entity: Int
    let entityName: String
    let attributeNames: [String]
    let attributeTypes: [ValueType]
    let attributes: [Schema.Attribute]
    let slotsByName: [String: PropertySlot]
    let attributeCount: Int
    let linkCount: Int
    /// How many attribute positions the name cache covers.
    static let cachedPositions = 64
    /// Pointer cache by attribute position: objects of one entity list their
    /// attributes in the same order, so position `i` almost always holds the same interned name.
    let cachedNames: UnsafeMutablePointer<UnsafePointer<xmlChar>?>
    let cachedSlots: UnsafeMutablePointer<PropertySlot>
    /// Per attribute: the stamp of the last object that wrote it. An object gets
    /// a new stamp (``nextStamp()``), so nothing is cleared between objects.
    let seenStamps: UnsafeMutablePointer<UInt32>
    /// Per declared relationship: the stamp of the last object that wrote it.
    let linkStamps: UnsafeMutablePointer<UInt32>
    @exclusivity(unchecked) private(set) var stamp: UInt32 = 0
    /// Whether each attribute must appear: not optional, not transient, and not
    /// an any-value (whose `.none` is written as absence).
    let required: [Bool]
    /// The value an absent attribute takes: nil, or a transient attribute's initial value.
    let absentValues: [Value]
    /// Whether that value is nil (the common case: the cell already holds it).
    let absentIsNull: [Bool]
    let linkIsToMany: [Bool]
    /// Whether each declared relationship is an optional to-many, whose absence means no collection.
    let linkIsOptional: [Bool]
    /// The declared relationships that are optional to-manys (usually none).
    let optionalToManySlots: [Int]
    /// What one object holds in memory, whatever the file writes: its identifier,
    /// every attribute cell and every link (hidden inverses included).
    let valuesPerObject: Int

    // Where the rows go: pointers to row 0 of this loader's rows (see ``AttributeDecoder``).
    /// The table row this loader's row 0 is (a part's offset in the combined table).
    @exclusivity(unchecked) private(set) var base = 0
    /// Rows this loader may write (0 when it is not bound to any), and has written.
    @exclusivity(unchecked) private(set) var capacity = 0
    @exclusivity(unchecked) var rowCount = 0
    /// One per attribute, valid while ``capacity`` > 0.
    let decoders: UnsafeMutablePointer<AttributeDecoder>
    @exclusivity(unchecked) private(set) var ids: UnsafeMutablePointer<UInt64>?
    @exclusivity(unchecked) private(set) var lines: UnsafeMutablePointer<Int32>?
    @exclusivity(unchecked) private(set) var columns: UnsafeMutablePointer<Int32>?
    /// Per declared slot: raw to-one ids (`nil` for a to-many), raw to-many lists (`nil` for a to-one).
    let rawOne: UnsafeMutablePointer<UnsafeMutablePointer<UInt64>?>
    let rawMany: UnsafeMutablePointer<UnsafeMutablePointer<[UInt64]>?>
    /// Per declared slot: an optional to-many's "no collection" flags, else `nil`.
    let absent: UnsafeMutablePointer<UnsafeMutablePointer<Bool>?>

    init(layout entityLayout: SchemaLayout.EntityLayout, entity: Int) {
        self.entity = entity
        entityName = entityLayout.name
        attributes = entityLayout.attributes
        attributeNames = entityLayout.attributes.map(\.name)
        attributeTypes = entityLayout.attributes.map(\.type)
        var slots: [String: PropertySlot] = [DocumentWriter.objectIDName: .id]
        for (index, attribute) in entityLayout.attributes.enumerated() where !attribute.isTransient {
            slots[attribute.name] = .attribute(index, escaped: false)
            slots[attribute.name + DocumentWriter.escapedSuffix] = .attribute(index, escaped: true)
        }
        for slot in 0..<entityLayout.declaredLinkCount {
            slots[entityLayout.links[slot].name ?? ""] = .link(slot)
        }
        slotsByName = slots
        attributeCount = entityLayout.attributes.count
        linkCount = entityLayout.declaredLinkCount
        cachedNames = .allocate(capacity: Self.cachedPositions)
        cachedNames.initialize(repeating: nil, count: Self.cachedPositions)
        cachedSlots = .allocate(capacity: Self.cachedPositions)
        cachedSlots.initialize(repeating: .id, count: Self.cachedPositions)
        seenStamps = .allocate(capacity: max(1, attributeCount))
        seenStamps.initialize(repeating: 0, count: max(1, attributeCount))
        linkStamps = .allocate(capacity: max(1, linkCount))
        linkStamps.initialize(repeating: 0, count: max(1, linkCount))
        required = entityLayout.attributes.map { !$0.isOptional && !$0.isTransient && $0.type != .any }
        absentValues = entityLayout.attributes.map { $0.isTransient ? $0.initialValue : .null }
        absentIsNull = absentValues.map { $0 == .null }
        linkIsToMany = (0..<entityLayout.declaredLinkCount).map { entityLayout.links[$0].isToMany }
        let linkIsOptional = (0..<entityLayout.declaredLinkCount).map { entityLayout.links[$0].isOptional }
        self.linkIsOptional = linkIsOptional
        optionalToManySlots = linkIsOptional.indices.filter { linkIsOptional[$0] }
        valuesPerObject = 1 + entityLayout.attributes.count + entityLayout.links.count
        decoders = .allocate(capacity: max(1, attributeCount))
        rawOne = .allocate(capacity: max(1, linkCount))
        rawOne.initialize(repeating: nil, count: max(1, linkCount))
        rawMany = .allocate(capacity: max(1, linkCount))
        rawMany.initialize(repeating: nil, count: max(1, linkCount))
        absent = .allocate(capacity: max(1, linkCount))
        absent.initialize(repeating: nil, count: max(1, linkCount))
    }

    deinit {
        // Every element type here is trivial: nothing to deinitialize.
        cachedNames.deallocate()
        cachedSlots.deallocate()
        seenStamps.deallocate()
        linkStamps.deallocate()
        decoders.deallocate()
        rawOne.deallocate()
        rawMany.deallocate()
        absent.deallocate()
    }

    /// A stamp no attribute or link holds yet, for the next object.
    @inline(__always)
    func nextStamp() -> UInt32 {
        stamp &+= 1
        if stamp == 0 {
            // After 2³² objects of one entity: start again from stamps nobody holds.
            seenStamps.update(repeating: 0, count: max(1, attributeCount))
            linkStamps.update(repeating: 0, count: max(1, linkCount))
            stamp = 1
        }
        return stamp
    }

    /// Points this state at rows `base..<base + capacity` of `table` and
    /// `storage`, which must hold them; they must not be resized while this
    /// state writes to them.
    func bind(to table: EntityTable, storage: EntityLoadStorage, base: Int, capacity: Int) {
        self.base = base
        self.capacity = capacity
        let decoders = zip(attributes, table.columns).compactMap { AttributeDecoder(attribute: $0, column: $1, base: base) }
        guard capacity > 0, decoders.count == attributes.count, let ids = table.ids.writableBaseAddress(),
            let lines = storage.lines.writableBaseAddress(), let columns = storage.columns.writableBaseAddress()
        else {
            self.capacity = 0
            return
        }
        for (index, decoder) in decoders.enumerated() { self.decoders[index] = decoder }
        for slot in linkIsToMany.indices {
            rawOne[slot] = linkIsToMany[slot] ? nil : storage.rawOne[slot].writableBaseAddress().map { $0 + base }
            rawMany[slot] = linkIsToMany[slot] ? storage.rawMany[slot].writableBaseAddress().map { $0 + base } : nil
            absent[slot] = linkIsOptional[slot] ? table.links[slot].absent.writableBaseAddress().map { $0 + base } : nil
        }
        (self.ids, self.lines, self.columns) = (ids + base, lines + base, columns + base)
    }
}

extension DocumentLoader {
    func startObject(_ name: UnsafePointer<xmlChar>, attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?, count: Int) {
        // Not the graph: part loaders share their owner's, and touching it (a retain) per object from
        // every core would make its reference count a cache line the cores fight over.
        guard let parser else { return }
        phase = .object
        // Read the position straight from the parser: a PackageError.Location per object
        // would copy a String per object; errors build it on demand.
        let line = Int32(truncatingIfNeeded: parser.pointee.input.pointee.line)
        let startColumn = Int32(truncatingIfNeeded: parser.pointee.input.pointee.col)
        if name != lastElementName || lastElementState == nil {
            let entityName = String(cString: name)
            if entityName == ConflictRecordXML.elementName, case .part(let part) = mode, part.isBucket {
                // A format-3 part keeps the conflict records of its objects, each after its object.
                readPartConflict(attributeDictionary(attributes, count: count), entity: part.entity)
                lastElementName = nil
                lastElementState = nil
                return
            }
            guard let found = entityByName[entityName] else {
                fail(.unknownEntity(location(), name: entityName))
                return
            }
            lastElementName = name
            lastElementEntity = found
            lastElementState = Unmanaged.passUnretained(states[found])
        }
        guard let state = lastElementState else { return }
        // The state is held by `states` for the whole parse: borrowed, not retained, per object.
        state._withUnsafeGuaranteedRef { state in
            readObject(
                entity: lastElementEntity, state: state, attributes: attributes, count: count,
                line: line, column: startColumn)
        }
    }

    /// Counts an object against the limits, finds its row and reads it.
    private func readObject(
        entity: Int, state: EntityLoadState, attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?,
        count: Int, line: Int32, column startColumn: Int32
    ) {
        // A plain function, not a closure value: a closure stored in a local escapes
        // and would be allocated for every object.
        func here() -> PackageError.Location { PackageError.Location(file: file, line: Int(line), column: Int(startColumn)) }
        // A part's rows are its entity's only: checked before anything is written.
        if partRange != nil, entity != partEntity {
            fail(
                .unexpectedContent(
                    here(), found: "<\(state.entityName)>",
                    expected: "only \(states[max(0, partEntity)].entityName) objects in this part"))
            return
        }
        objectCount += 1
        if objectCount > limits.maximumObjects {
            fail(.limitExceeded(location(), limit: .objects, size: objectCount, maximum: limits.maximumObjects))
            return
        }
        valueCount += state.valuesPerObject
        if valueCount > DocumentLoader.baseValueBudget {
            let limit = DocumentLoader.valueBudget(bytes: bytesRead())
            if valueCount > limit {
                fail(
                    .tooLarge(
                        location(), what: "values the objects so far hold in memory (identifiers, attributes, links)",
                        limit: limit))
                return
            }
        }
        let row = state.rowCount
        if row >= state.capacity {
            // A part's rows were counted from the manifest; a document's grow as objects come.
            if case .part(let part) = mode {
                fail(.unexpectedContent(here(), found: "more objects", expected: "the \(part.count) the manifest lists for this part"))
                return
            }
            guard addRows(max(16, state.capacity), entity: entity) else { return }
        }
        startObjectRow(row, entity: entity, state: state, attributes: attributes, count: count, line: line, column: startColumn)
    }

    /// Reads an object's attributes into row `row` of the loader's rows of `entity`, which exists.
    private func startObjectRow(
        _ row: Int, entity: Int, state: EntityLoadState,
        attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?, count: Int,
        line: Int32, column startColumn: Int32
    ) {
        guard state.capacity > 0, let ids = state.ids, let lines = state.lines, let columns = state.columns else { return }
        func here() -> PackageError.Location { PackageError.Location(file: file, line: Int(line), column: Int(startColumn)) }
        let stamp = state.nextStamp()
        var seenCount = 0
        var objectID: UInt64 = 0
        lines[row] = line
        columns[row] = startColumn
        // A value can hold a reference (`&#38;`, `&lt;`) only if the file's bytes so far held an
        // `&`, when libxml2 reads them as they are; bytes it converts from another encoding are
        // not the ones ``sawAmpersand`` looked at, so then every value is tested.
        let mayHoldReferences = sawAmpersand || parser?.pointee.input?.pointee.buf?.pointee.encoder != nil
        if let attributes {
            for index in 0..<count {
                let base = index &* 5
                guard let localname = attributes[base], let start = attributes[base + 3], let end = attributes[base + 4] else { continue }
                if attributes[base + 1] != nil {
                    fail(.unexpectedContent(here(), found: "a namespaced attribute", expected: "\(state.entityName)'s properties"))
                    return
                }
                let slot: PropertySlot
                if index < EntityLoadState.cachedPositions, state.cachedNames[index] == localname {
                    slot = state.cachedSlots[index]
                } else {
                    let propertyName = String(cString: localname)
                    guard let found = state.slotsByName[propertyName] else {
                        fail(.unknownProperty(here(), entity: state.entityName, name: propertyName))
                        return
                    }
                    slot = found
                    if index < EntityLoadState.cachedPositions {
                        state.cachedNames[index] = localname
                        state.cachedSlots[index] = found
                    }
                }
                let raw = UnsafeBufferPointer(start: start, count: end - start)
                // Only a value holding `&` needs decoding (into a copy): a word-at-a-time
                // test, cheaper than a call to memchr for these short values.
                let ok =
                    mayHoldReferences && ByteScan.contains(UInt8(ascii: "&"), in: raw)
                    ? XMLText.withDecodedValue(raw) { bytes in
                        readProperty(
                            slot, bytes, row: row, state: state, stamp: stamp, objectID: &objectID,
                            seenCount: &seenCount, line: line, column: startColumn)
                    }
                    : readProperty(
                        slot, raw, row: row, state: state, stamp: stamp, objectID: &objectID,
                        seenCount: &seenCount, line: line, column: startColumn)
                guard ok else { return }
            }
        }
        guard objectID != 0 else {
            fail(.missingValue(here(), entity: state.entityName, attribute: DocumentWriter.objectIDName))
            return
        }
        if let partRange {
            // A part holds its entity's objects ascending, within the range the manifest gives.
            guard partRange.contains(objectID), objectID > lastPartID else {
                fail(
                    .invalidIdentifier(
                        here(), entity: state.entityName,
                        id: "\(objectID) (a part's identifiers ascend within \(partRange.lowerBound)...\(partRange.upperBound))"))
                return
            }
            lastPartID = objectID
        }
        // Each attribute is written at most once, so a full count means none is missing.
        if seenCount < state.attributeCount {
            for column in 0..<state.attributeCount where state.seenStamps[column] != stamp {
                if state.required[column] {
                    fail(.missingValue(here(), entity: state.entityName, attribute: state.attributeNames[column]))
                    return
                }
                // A cell already holds nil; a transient attribute's initial value is stored.
                if !state.absentIsNull[column] { state.decoders[column].store(state.absentValues[column], row: row) }
            }
        }
        ids[row] = objectID
        state.rowCount = row + 1
        // A part's identifiers are indexed once every part is read (the index is shared).
        if partRange == nil, let graph { graph.index[objectID] = ObjectRef(entity: entity, row: state.base + row) }
        // A new row of an optional to-many holds no collection; one the object writes, even "", it holds.
        for slot in state.optionalToManySlots where state.linkStamps[slot] == stamp {
            state.absent[slot]?[row] = false
        }
    }

    /// Reads one property's (decoded) value of the object being read. Returns false after failing.
    @inline(__always)
    private func readProperty(
        _ slot: PropertySlot, _ bytes: UnsafeBufferPointer<UInt8>, row: Int, state: EntityLoadState,
        stamp: UInt32, objectID: inout UInt64, seenCount: inout Int,
        line: Int32, column objectColumn: Int32
    ) -> Bool {
        func here() -> PackageError.Location { PackageError.Location(file: file, line: Int(line), column: Int(objectColumn)) }
        switch slot {
        case .id:
            // A part's identifiers ascend (checked by the caller), so it needs no index: the
            // combined graph's index catches one identifier in two parts.
            guard let id = NumberParser.uint64(bytes), id > 0, partRange != nil || graph?.index[id] == nil else {
                fail(.invalidIdentifier(here(), entity: state.entityName, id: String(decoding: bytes, as: UTF8.self)))
                return false
            }
            objectID = id
            return true
        case .attribute(let column, let escaped):
            if state.seenStamps[column] == stamp {
                fail(.unexpectedContent(here(), found: "'\(state.attributeNames[column])' twice", expected: "each attribute once"))
                return false
            }
            state.seenStamps[column] = stamp
            seenCount += 1
            return appendValue(
                bytes, escaped: escaped, column: column, row: row, state: state,
                line: line, column: objectColumn)
        case .link(let linkSlot):
            state.linkStamps[linkSlot] = stamp
            // A to-one (the common link) straight into its cell; a bad one, or a list, goes the long way.
            if let one = state.rawOne[linkSlot], let id = NumberParser.uint64(bytes), id > 0 {
                one[row] = id
                return true
            }
            return appendLink(bytes, slot: linkSlot, row: row, state: state, line: line, column: objectColumn)
        }
    }

    /// Adds `count` rows to an entity's table and load storage, for a document
    /// whose size is not known ahead (format 1), and points the entity's state
    /// at all of them. Returns whether the state could be pointed at them.
    @discardableResult
    func addRows(_ count: Int, entity: Int) -> Bool {
        guard let graph, count > 0 else { return false }
        let table = graph.tables[entity]
        table.appendRows(count)
        for (column, attribute) in zip(table.columns, graph.layout.entities[entity].attributes) {
            column.appendEmptyCells(count, optional: attribute.isOptional)
        }
        storages[entity].appendRows(count)
        states[entity].bind(to: table, storage: storages[entity], base: 0, capacity: table.rowCount)
        return states[entity].capacity > 0
    }

    /// Adds rows to several entities at once, as ``addRows(_:entity:)`` does for one:
    /// a package's rows, from its manifest's counts, before its parts are read.
    ///
    /// Each entity's table, each of its columns and its load storage are distinct
    /// arrays, so they are filled concurrently: the pages of the new rows (tens of
    /// megabytes at a million objects, each written once and faulted in) are
    /// touched on every core instead of one, before the parts' parallel parse.
    func addRows(_ counts: [(entity: Int, count: Int)]) {
        guard let graph else { return }
        var fills: [() -> Void] = []
        for (entity, count) in counts where count > 0 {
            let table = graph.tables[entity]
            fills.append { table.appendRows(count) }
            for (column, attribute) in zip(table.columns, graph.layout.entities[entity].attributes) {
                let optional = attribute.isOptional
                fills.append { column.appendEmptyCells(count, optional: optional) }
            }
            let storage = storages[entity]
            fills.append { storage.appendRows(count) }
        }
        // Below some tens of thousands of rows, handing the work to other threads costs more than it saves.
        if counts.reduce(0, { $0 + $1.count }) < 1 << 15 {
            for fill in fills { fill() }
        } else {
            // Each fill touches only its own arrays; all are done when concurrentPerform returns.
            nonisolated(unsafe) let shared = fills
            DispatchQueue.concurrentPerform(iterations: shared.count) { shared[$0]() }
        }
        for (entity, count) in counts where count > 0 {
            states[entity].bind(
                to: graph.tables[entity], storage: storages[entity], base: 0,
                capacity: graph.tables[entity].rowCount)
        }
    }

    /// Drops the rows added ahead and not filled, once a document is read.
    func trimRows() {
        guard let graph else { return }
        for (entity, state) in states.enumerated() {
            let table = graph.tables[entity]
            let unused = table.rowCount - state.rowCount
            guard unused > 0 else { continue }
            table.removeLastRows(unused)
            for column in table.columns { column.removeLastCells(unused) }
            storages[entity].removeLastRows(unused)
            state.bind(to: table, storage: storages[entity], base: 0, capacity: 0)
        }
    }

    /// Parses one attribute value into its cell. Returns false after failing.
    @inline(__always)
    private func appendValue(
        _ bytes: UnsafeBufferPointer<UInt8>, escaped: Bool, column: Int, row: Int,
        state: EntityLoadState, line: Int32, column objectColumn: Int32
    ) -> Bool {
        func here() -> PackageError.Location { PackageError.Location(file: file, line: Int(line), column: Int(objectColumn)) }
        func invalid(_ text: String? = nil) -> Bool {
            fail(
                .invalidValue(
                    here(), entity: state.entityName, attribute: state.attributeNames[column],
                    text: text ?? String(decoding: bytes, as: UTF8.self), expected: state.attributeTypes[column].description))
            return false
        }
        let decoder = state.decoders[column]
        if escaped {
            guard let text = JSONParser.unescapeBody(String(decoding: bytes, as: UTF8.self)),
                let value = ValueText.decode(text, as: state.attributeTypes[column], maximumNesting: limits.maximumNesting)
            else { return invalid() }
            if case .external = decoder { return invalid(text) }
            decoder.store(value, row: row)
            return true
        }
        switch decoder {
        case .int(let values, let nulls, let range):
            guard let value = NumberParser.int64(bytes), range.contains(value) else { return invalid() }
            values[row] = value
            nulls?[row] = false
        case .uint(let values, let nulls, let maximum):
            guard let value = NumberParser.uint64(bytes), value <= maximum else { return invalid() }
            values[row] = Int64(bitPattern: value)
            nulls?[row] = false
        case .double(let values, let nulls):
            guard let value = NumberParser.double(bytes) else { return invalid() }
            values[row] = value
            nulls?[row] = false
        case .float(let values, let nulls):
            guard let value = DoubleText.float(String(decoding: bytes, as: UTF8.self)) else { return invalid() }
            values[row] = Column.raw(float: value)
            nulls?[row] = false
        case .date(let values, let nulls):
            guard let value = DateText.parse(bytes) else { return invalid() }
            values[row] = value.timeIntervalSinceReferenceDate
            nulls?[row] = false
        case .string(let values, let nulls):
            values[row] = String(decoding: bytes, as: UTF8.self)
            nulls?[row] = false
        case .bool(let values, let nulls):
            if bytes.elementsEqual("true".utf8) {
                values[row] = true
            } else if bytes.elementsEqual("false".utf8) {
                values[row] = false
            } else {
                return invalid()
            }
            nulls?[row] = false
        case .external:
            let text = String(decoding: bytes, as: UTF8.self)
            guard FileIO.isSafeBlobName(text) else { return invalid() }
            // The cell keeps nil until the package puts the blob (or, for a name Folio did not write, its value) in it.
            pendingBlobs.append((ObjectRef(entity: state.entity, row: state.base + row), column, text))
        case .value(let values):
            let text = String(decoding: bytes, as: UTF8.self)
            guard let value = ValueText.decode(text, as: state.attributeTypes[column], maximumNesting: limits.maximumNesting)
            else { return invalid() }
            values[row] = value
        }
        return true
    }

    /// Parses one identifier (to-one) or a space-separated list (to-many) into the raw link cells.
    private func appendLink(
        _ bytes: UnsafeBufferPointer<UInt8>, slot: Int, row: Int, state: EntityLoadState,
        line: Int32, column: Int32
    ) -> Bool {
        func here() -> PackageError.Location { PackageError.Location(file: file, line: Int(line), column: Int(column)) }
        func invalid() -> Bool {
            let toMany = state.linkIsToMany[slot]
            let name = graph?.layout.entities[state.entity].links[slot].name ?? ""
            fail(
                .invalidValue(
                    here(), entity: state.entityName, attribute: name, text: String(decoding: bytes, as: UTF8.self),
                    expected: toMany ? "a list of object ids" : "one object id"))
            return false
        }
        guard state.linkIsToMany[slot] else {
            guard let id = NumberParser.uint64(bytes), id > 0 else { return invalid() }
            state.rawOne[slot]?[row] = id
            return true
        }
        var ids: [UInt64] = []
        var start = 0
        for index in 0...bytes.count where index == bytes.count || bytes[index] == 0x20 {
            if index > start {
                guard let id = NumberParser.uint64(UnsafeBufferPointer(rebasing: bytes[start..<index])), id > 0 else {
                    return invalid()
                }
                ids.append(id)
            }
            start = index + 1
        }
        state.rawMany[slot]?[row] = ids
        return true
    }
}
