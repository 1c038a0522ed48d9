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

/// A reference that neither retains nor releases. The loader's decoders point
/// at column storages the graph owns for the whole load; retaining them for
/// every value was a fifth of the time of opening a document.
struct Borrowed<Object: AnyObject> {
    unowned(unsafe) let object: Object
    init(_ object: Object) { self.object = object }
}

/// How one attribute's text becomes a stored value: the typed storage to
/// append to and the checks to apply, resolved once per entity so the
/// per-value path copies no schema structs.
enum AttributeDecoder {
    case int(Borrowed<ColumnStorage<Int64>>, range: ClosedRange<Int64>, optional: Bool)
    case uint(Borrowed<ColumnStorage<Int64>>, maximum: UInt64, optional: Bool)
    case double(Borrowed<ColumnStorage<Double>>, optional: Bool)
    case float(Borrowed<ColumnStorage<Double>>, optional: Bool)
    case date(Borrowed<ColumnStorage<Double>>, optional: Bool)
    case string(Borrowed<ColumnStorage<String>>, optional: Bool)
    case bool(Borrowed<ColumnStorage<Bool>>, optional: Bool)
    case value(Borrowed<ColumnStorage<Value>>, type: ValueType)
    /// An external-storage attribute of any type: its text names a blob file.
    case external(Column, optional: Bool)

    init(attribute: Schema.Attribute, column: Column) {
        let optional = attribute.isOptional
        if attribute.isExternal {
            self = .external(column, optional: optional)
            return
        }
        switch column {
        case .int(let storage):
            if let maximum = attribute.type.unsignedMax {
                self = .uint(Borrowed(storage), maximum: maximum, optional: optional)
            } else {
                self = .int(Borrowed(storage), range: attribute.type.integerRange ?? Int64.min...Int64.max, optional: optional)
            }
        case .double(let storage):
            switch attribute.type {
            case .date: self = .date(Borrowed(storage), optional: optional)
            case .float: self = .float(Borrowed(storage), optional: optional)
            default: self = .double(Borrowed(storage), optional: optional)
            }
        case .string(let storage): self = .string(Borrowed(storage), optional: optional)
        case .bool(let storage): self = .bool(Borrowed(storage), optional: optional)
        case .value(let storage): self = .value(Borrowed(storage), type: attribute.type)
        }
    }

    /// Appends nil for an attribute the object leaves out: what
    /// `Column.append(.null, optional:)` does, without going through a `Value`.
    /// Sparse objects of wide entities take this path once per absent attribute.
    @inline(__always)
    func appendNull() {
        switch self {
        case .int(let storage, _, let optional), .uint(let storage, _, let optional):
            storage.object.values.append(0)
            if optional { storage.object.nulls.append(true) }
        case .double(let storage, let optional), .float(let storage, let optional), .date(let storage, let optional):
            storage.object.values.append(0)
            if optional { storage.object.nulls.append(true) }
        case .string(let storage, let optional):
            storage.object.values.append("")
            if optional { storage.object.nulls.append(true) }
        case .bool(let storage, let optional):
            storage.object.values.append(false)
            if optional { storage.object.nulls.append(true) }
        case .value(let storage, _):
            storage.object.values.append(.null)
        case .external(let column, let optional):
            column.append(.null, optional: optional)
        }
    }
}

/// Per-entity state while objects load: name resolution caches, decoders, and
/// the raw identifiers of links, resolved to rows once every object is read.
final class EntityLoadState {
    let entity: Int
    let entityName: String
    let attributeNames: [String]
    let decoders: [AttributeDecoder]
    let slotsByName: [String: PropertySlot]
    /// Pointer cache by attribute position: objects of one entity list their
    /// attributes in the same order, so position `i` almost always holds the same interned name.
    @exclusivity(unchecked) var cachedNames: [UnsafePointer<xmlChar>?]
    @exclusivity(unchecked) var cachedSlots: [PropertySlot]
    /// Raw destination ids per declared slot: `one` for to-one (0 = none), `many` for to-many.
    @exclusivity(unchecked) var rawOne: [[UInt64]]
    @exclusivity(unchecked) var rawMany: [[[UInt64]]]
    /// Where each object starts, for errors found after the parse (links).
    @exclusivity(unchecked) var lines: [Int32] = []
    @exclusivity(unchecked) var columns: [Int32] = []
    @exclusivity(unchecked) var seen: [Bool]
    @exclusivity(unchecked) var linkSeen: [Bool]
    /// Whether each attribute must appear: not optional, not transient, and not
    /// an any-value (whose `.none` is written as absence).
    let required: [Bool]
    /// The value an absent attribute takes: nil, or a transient attribute's initial value.
    let absentValues: [Value]
    /// Whether that value is nil (the common case, appended without a `Value`).
    let absentIsNull: [Bool]
    let isOptional: [Bool]
    let linkIsToMany: [Bool]
    /// Whether each declared relationship is an optional to-many, whose absence means no collection.
    let linkIsOptional: [Bool]
    /// What one object holds in memory, whatever the file writes: its identifier,
    /// every attribute cell and every link (hidden inverses included).
    let valuesPerObject: Int

    init(graph: ObjectGraph, entity: Int) {
        self.entity = entity
        let entityLayout = graph.layout.entities[entity]
        entityName = entityLayout.name
        attributeNames = entityLayout.attributes.map(\.name)
        decoders = zip(entityLayout.attributes, graph.tables[entity].columns).map(AttributeDecoder.init)
        var slots: [String: PropertySlot] = [DocumentWriter.objectIDName: .id]
        for (index, attribute) in entityLayout.attributes.enumerated() where !attribute.isTransient {
            slots[attribute.name] = .attribute(index, escaped: false)
            slots[attribute.name + DocumentWriter.escapedSuffix] = .attribute(index, escaped: true)
        }
        for slot in 0..<entityLayout.declaredLinkCount {
            slots[entityLayout.links[slot].name ?? ""] = .link(slot)
        }
        slotsByName = slots
        cachedNames = Array(repeating: nil, count: 64)
        cachedSlots = Array(repeating: .id, count: 64)
        rawOne = Array(repeating: [], count: entityLayout.declaredLinkCount)
        rawMany = Array(repeating: [], count: entityLayout.declaredLinkCount)
        seen = Array(repeating: false, count: entityLayout.attributes.count)
        linkSeen = Array(repeating: false, count: entityLayout.declaredLinkCount)
        required = entityLayout.attributes.map { !$0.isOptional && !$0.isTransient && $0.type != .any }
        absentValues = entityLayout.attributes.map { $0.isTransient ? $0.initialValue : .null }
        absentIsNull = absentValues.map { $0 == .null }
        isOptional = entityLayout.attributes.map(\.isOptional)
        linkIsToMany = (0..<entityLayout.declaredLinkCount).map { entityLayout.links[$0].isToMany }
        linkIsOptional = (0..<entityLayout.declaredLinkCount).map { entityLayout.links[$0].isOptional }
        valuesPerObject = 1 + entityLayout.attributes.count + entityLayout.links.count
    }
}

extension DocumentLoader {
    func startObject(_ name: UnsafePointer<xmlChar>, attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?, count: Int) {
        guard let graph, let parser else { return }
        phase = .object
        var entity = lastElementEntity
        if name != lastElementName {
            let entityName = String(cString: name)
            guard let found = graph.layout.entityIndex[entityName] else {
                fail(.unknownEntity(location(), name: entityName))
                return
            }
            entity = found
            lastElementName = name
            lastElementEntity = found
        }
        let state = Borrowed(states[entity]).object
        let table = Borrowed(graph.tables[entity]).object
        objectCount += 1
        if objectCount > limits.maximumObjects {
            fail(.limitExceeded(location(), limit: .objects, size: objectCount, maximum: limits.maximumObjects))
            return
        }
        valueCount += state.valuesPerObject
        if valueCount > DocumentLoader.baseValueBudget {
            let limit = DocumentLoader.valueBudget(bytes: bytesRead())
            if valueCount > limit {
                fail(.tooLarge(location(), what: "values the objects so far hold in memory (identifiers, attributes, links)",
                               limit: limit))
                return
            }
        }
        let row = table.rowCount
        for index in state.seen.indices { state.seen[index] = false }
        for index in state.linkSeen.indices { state.linkSeen[index] = false }
        var objectID: UInt64 = 0
        // Read the position straight from the parser: building a PackageError.Location per
        // object (a String copy) showed up in profiles; errors build it on demand.
        let line = Int32(truncatingIfNeeded: parser.pointee.input.pointee.line)
        let startColumn = Int32(truncatingIfNeeded: parser.pointee.input.pointee.col)
        state.lines.append(line)
        state.columns.append(startColumn)
        // A plain function, not a closure value: a closure stored in a local escapes
        // and would be allocated for every object.
        func here() -> PackageError.Location { PackageError.Location(file: file, line: Int(line), column: Int(startColumn)) }
        let decoders = state.decoders
        for index in 0..<count {
            let base = index * 5
            guard let localname = attributes?[base], let start = attributes?[base + 3], let end = attributes?[base + 4] else { continue }
            if attributes?[base + 1] != nil {
                fail(.unexpectedContent(here(), found: "a namespaced attribute", expected: "\(state.entityName)'s properties"))
                return
            }
            let raw = UnsafeBufferPointer(start: start, count: end - start)
            let slot: PropertySlot
            if index < 64, state.cachedNames[index] == localname {
                slot = state.cachedSlots[index]
            } else {
                let propertyName = String(cString: localname)
                guard let found = state.slotsByName[propertyName] else {
                    fail(.unknownProperty(here(), entity: state.entityName, name: propertyName))
                    return
                }
                slot = found
                if index < 64 {
                    state.cachedNames[index] = localname
                    state.cachedSlots[index] = found
                }
            }
            let ok = XMLText.withDecodedValue(raw) { bytes -> Bool in
                switch slot {
                case .id:
                    // A part's identifiers ascend (checked below), so it needs no index: the
                    // combined graph's index catches one identifier in two parts.
                    guard let id = NumberParser.uint64(bytes), id > 0, partRange != nil || graph.index[id] == nil else {
                        fail(.invalidIdentifier(here(), entity: state.entityName, id: String(decoding: bytes, as: UTF8.self)))
                        return false
                    }
                    objectID = id
                    return true
                case .attribute(let column, let escaped):
                    if state.seen[column] {
                        fail(.unexpectedContent(here(), found: "'\(state.attributeNames[column])' twice", expected: "each attribute once"))
                        return false
                    }
                    state.seen[column] = true
                    return appendValue(bytes, decoder: decoders[column], escaped: escaped, column: column, row: row, state: state,
                                       line: line, column: startColumn)
                case .link(let linkSlot):
                    state.linkSeen[linkSlot] = true
                    return appendLink(bytes, slot: linkSlot, state: state, line: line, column: startColumn)
                }
            }
            guard ok else { return }
        }
        guard objectID != 0 else {
            fail(.missingValue(here(), entity: state.entityName, attribute: DocumentWriter.objectIDName))
            return
        }
        if let partRange {
            // A part holds one entity's objects, ascending, within the range the manifest gives.
            guard entity == partEntity else {
                fail(.unexpectedContent(here(), found: "<\(state.entityName)>",
                                        expected: "only \(graph.layout.entities[max(0, partEntity)].name) objects in this part"))
                return
            }
            guard partRange.contains(objectID), objectID > lastPartID else {
                fail(.invalidIdentifier(here(), entity: state.entityName,
                                        id: "\(objectID) (a part's identifiers ascend within \(partRange.lowerBound)...\(partRange.upperBound))"))
                return
            }
            lastPartID = objectID
        }
        for column in state.seen.indices where !state.seen[column] {
            if state.required[column] {
                fail(.missingValue(here(), entity: state.entityName, attribute: state.attributeNames[column]))
                return
            }
            if state.absentIsNull[column] {
                decoders[column].appendNull()
            } else {
                table.columns[column].append(state.absentValues[column], optional: state.isOptional[column])
            }
        }
        for slot in state.linkSeen.indices where !state.linkSeen[slot] {
            if state.linkIsToMany[slot] { state.rawMany[slot].append([]) } else { state.rawOne[slot].append(0) }
        }
        if partRange != nil { _ = table.appendRow(id: objectID) } else { _ = graph.appendObject(id: objectID, entity: entity) }
        // A new row of an optional to-many holds no collection; one the object writes, even "", it holds.
        for slot in state.linkSeen.indices where state.linkSeen[slot] && state.linkIsOptional[slot] {
            table.links[slot].setAbsent(false, row: row)
        }
    }

    /// Parses one attribute value into its column. Returns false after failing.
    @inline(__always)
    private func appendValue(_ bytes: UnsafeBufferPointer<UInt8>, decoder: AttributeDecoder, escaped: Bool, column: Int, row: Int,
                             state: EntityLoadState, line: Int32, column objectColumn: Int32) -> Bool {
        func here() -> PackageError.Location { PackageError.Location(file: file, line: Int(line), column: Int(objectColumn)) }
        func invalid(_ text: String? = nil) -> Bool {
            let type = graph?.layout.entities[state.entity].attributes[column].type.description ?? "value"
            fail(.invalidValue(here(), entity: state.entityName, attribute: state.attributeNames[column],
                               text: text ?? String(decoding: bytes, as: UTF8.self), expected: type))
            return false
        }
        if escaped {
            guard let text = JSONParser.unescapeBody(String(decoding: bytes, as: UTF8.self)),
                  let graph, let value = ValueText.decode(text, as: graph.layout.entities[state.entity].attributes[column].type,
                                                        maximumNesting: limits.maximumNesting)
            else { return invalid() }
            if case .external = decoder { return invalid(text) }
            graph.tables[state.entity].columns[column].append(value, optional: graph.layout.entities[state.entity].attributes[column].isOptional)
            return true
        }
        switch decoder {
        case .int(let storage, let range, let optional):
            guard let value = NumberParser.int64(bytes), range.contains(value) else { return invalid() }
            storage.object.values.append(value)
            if optional { storage.object.nulls.append(false) }
        case .uint(let storage, let maximum, let optional):
            guard let value = NumberParser.uint64(bytes), value <= maximum else { return invalid() }
            storage.object.values.append(Int64(bitPattern: value))
            if optional { storage.object.nulls.append(false) }
        case .double(let storage, let optional):
            guard let value = NumberParser.double(bytes) else { return invalid() }
            storage.object.values.append(value)
            if optional { storage.object.nulls.append(false) }
        case .float(let storage, let optional):
            guard let value = DoubleText.float(String(decoding: bytes, as: UTF8.self)) else { return invalid() }
            storage.object.values.append(Column.raw(float: value))
            if optional { storage.object.nulls.append(false) }
        case .date(let storage, let optional):
            guard let value = DateText.parse(bytes) else { return invalid() }
            storage.object.values.append(value.timeIntervalSinceReferenceDate)
            if optional { storage.object.nulls.append(false) }
        case .string(let storage, let optional):
            storage.object.values.append(String(decoding: bytes, as: UTF8.self))
            if optional { storage.object.nulls.append(false) }
        case .bool(let storage, let optional):
            if bytes.elementsEqual("true".utf8) { storage.object.values.append(true) }
            else if bytes.elementsEqual("false".utf8) { storage.object.values.append(false) }
            else { return invalid() }
            if optional { storage.object.nulls.append(false) }
        case .external(let storage, let optional):
            let text = String(decoding: bytes, as: UTF8.self)
            guard FileIO.isSafeBlobName(text) else { return invalid() }
            pendingBlobs.append((ObjectRef(entity: state.entity, row: row), column, text))
            // A placeholder until the package puts the blob (or, for a name Folio did not write, its value) in the cell.
            storage.append(.null, optional: optional)
            return true
        case .value(let storage, let type):
            let text = String(decoding: bytes, as: UTF8.self)
            guard let value = ValueText.decode(text, as: type, maximumNesting: limits.maximumNesting) else { return invalid() }
            storage.object.values.append(value)
        }
        return true
    }

    /// Parses one identifier (to-one) or a space-separated list (to-many) into the raw link arrays.
    private func appendLink(_ bytes: UnsafeBufferPointer<UInt8>, slot: Int, state: EntityLoadState,
                            line: Int32, column: Int32) -> Bool {
        func here() -> PackageError.Location { PackageError.Location(file: file, line: Int(line), column: Int(column)) }
        func invalid() -> Bool {
            let toMany = state.linkIsToMany[slot]
            let name = graph?.layout.entities[state.entity].links[slot].name ?? ""
            fail(.invalidValue(here(), entity: state.entityName, attribute: name, text: String(decoding: bytes, as: UTF8.self),
                               expected: toMany ? "a list of object ids" : "one object id"))
            return false
        }
        guard state.linkIsToMany[slot] else {
            guard let id = NumberParser.uint64(bytes), id > 0 else { return invalid() }
            state.rawOne[slot].append(id)
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
        state.rawMany[slot].append(ids)
        return true
    }
}
