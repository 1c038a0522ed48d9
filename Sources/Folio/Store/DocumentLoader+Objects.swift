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

/// Per-entity state while objects load: name resolution caches and the raw
/// identifiers of links, resolved to rows once every object is read.
final class EntityLoadState {
    let entity: Int
    let slotsByName: [String: PropertySlot]
    /// Pointer cache by attribute position: objects of one entity list their
    /// attributes in the same order, so position `i` almost always holds the same interned name.
    var cachedNames: [UnsafePointer<xmlChar>?]
    var cachedSlots: [PropertySlot]
    /// Raw destination ids per declared slot: `one` for to-one (0 = none), `many` for to-many.
    var rawOne: [[UInt64]]
    var rawMany: [[[UInt64]]]
    var lines: [Int32] = []
    var columns: [Int32] = []
    var seen: [Bool]
    var linkSeen: [Bool]
    /// Whether each attribute must appear: not optional, not transient, and not
    /// an any-value (whose `.none` is written as absence).
    let required: [Bool]

    init(layout: SchemaLayout, entity: Int) {
        self.entity = entity
        let entityLayout = layout.entities[entity]
        var slots: [String: PropertySlot] = [DocumentWriter.objectIDName: .id]
        for (index, attribute) in entityLayout.attributes.enumerated() where !attribute.isTransient {
            slots[attribute.name] = .attribute(index, escaped: false)
            slots[attribute.name + DocumentWriter.escapedSuffix] = .attribute(index, escaped: true)
        }
        for slot in 0..<entityLayout.declaredLinkCount {
            slots[entityLayout.links[slot].name!] = .link(slot)
        }
        slotsByName = slots
        cachedNames = Array(repeating: nil, count: 64)
        cachedSlots = Array(repeating: .id, count: 64)
        rawOne = Array(repeating: [], count: entityLayout.declaredLinkCount)
        rawMany = Array(repeating: [], count: entityLayout.declaredLinkCount)
        seen = Array(repeating: false, count: entityLayout.attributes.count)
        linkSeen = Array(repeating: false, count: entityLayout.declaredLinkCount)
        required = entityLayout.attributes.map { !$0.isOptional && !$0.isTransient && $0.type != .any }
    }
}

extension DocumentLoader {
    func startObject(_ name: UnsafePointer<xmlChar>, attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?, count: Int) {
        guard let graph else { return }
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
        let state = states[entity]
        let table = graph.tables[entity]
        let entityLayout = graph.layout.entities[entity]
        let row = table.rowCount
        for index in state.seen.indices { state.seen[index] = false }
        for index in state.linkSeen.indices { state.linkSeen[index] = false }
        var objectID: UInt64 = 0
        let here = location()
        state.lines.append(Int32(truncatingIfNeeded: here.line))
        state.columns.append(Int32(truncatingIfNeeded: here.column))
        for index in 0..<count {
            let base = index * 5
            guard let localname = attributes?[base], let start = attributes?[base + 3], let end = attributes?[base + 4] else { continue }
            if attributes?[base + 1] != nil {
                fail(.unexpectedContent(here, found: "a namespaced attribute", expected: "\(entityLayout.name)'s properties"))
                return
            }
            let raw = UnsafeBufferPointer(start: start, count: end - start)
            let slot: PropertySlot
            if index < 64, state.cachedNames[index] == localname {
                slot = state.cachedSlots[index]
            } else {
                let propertyName = String(cString: localname)
                guard let found = state.slotsByName[propertyName] else {
                    fail(.unknownProperty(here, entity: entityLayout.name, name: propertyName))
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
                guard let id = NumberParser.uint64(bytes), id > 0, graph.index[id] == nil else {
                    fail(.invalidIdentifier(here, entity: entityLayout.name, id: String(decoding: bytes, as: UTF8.self)))
                    return false
                }
                objectID = id
                return true
            case .attribute(let column, let escaped):
                if state.seen[column] {
                    fail(.unexpectedContent(here, found: "'\(entityLayout.attributes[column].name)' twice", expected: "each attribute once"))
                    return false
                }
                state.seen[column] = true
                return appendValue(bytes, escaped: escaped, column: column, row: row, entity: entity, at: here)
            case .link(let linkSlot):
                state.linkSeen[linkSlot] = true
                return appendLink(bytes, slot: linkSlot, entity: entity, at: here)
            }
            }
            guard ok else { return }
        }
        guard objectID != 0 else {
            fail(.missingValue(here, entity: entityLayout.name, attribute: DocumentWriter.objectIDName))
            return
        }
        for column in state.seen.indices where !state.seen[column] {
            let attribute = entityLayout.attributes[column]
            if state.required[column] {
                fail(.missingValue(here, entity: entityLayout.name, attribute: attribute.name))
                return
            }
            table.columns[column].append(attribute.isTransient ? attribute.initialValue : .null, optional: attribute.isOptional)
        }
        for slot in 0..<entityLayout.declaredLinkCount where !state.linkSeen[slot] {
            if entityLayout.links[slot].isToMany { state.rawMany[slot].append([]) } else { state.rawOne[slot].append(0) }
        }
        _ = graph.appendObject(id: objectID, entity: entity)
    }

    /// Parses one attribute value into its column. Returns false after failing.
    private func appendValue(_ bytes: UnsafeBufferPointer<UInt8>, escaped: Bool, column: Int, row: Int, entity: Int,
                             at here: SourceLocation) -> Bool {
        guard let graph else { return false }
        let attribute = graph.layout.entities[entity].attributes[column]
        func invalid(_ text: String? = nil) -> Bool {
            fail(.invalidValue(here, entity: graph.layout.entities[entity].name, attribute: attribute.name,
                               text: text ?? String(decoding: bytes, as: UTF8.self), expected: attribute.type.description))
            return false
        }
        if escaped {
            guard let text = JSONParser.unescapeBody(String(decoding: bytes, as: UTF8.self)) else { return invalid() }
            if attribute.isExternal { return invalid(text) }
            guard let value = ValueText.decode(text, as: attribute.type) else { return invalid(text) }
            graph.tables[entity].columns[column].append(value, optional: attribute.isOptional)
            return true
        }
        switch graph.tables[entity].columns[column] {
        case .int(let storage):
            if let maximum = attribute.type.unsignedMax {
                guard let value = NumberParser.uint64(bytes), value <= maximum else { return invalid() }
                storage.values.append(Int64(bitPattern: value))
            } else {
                guard let value = NumberParser.int64(bytes), attribute.type.integerRange?.contains(value) == true else {
                    return invalid()
                }
                storage.values.append(value)
            }
            if attribute.isOptional { storage.nulls.append(false) }
        case .double(let storage):
            let value: Double?
            switch attribute.type {
            case .date: value = DateText.parse(bytes)?.timeIntervalSinceReferenceDate
            case .float: value = DoubleText.float(String(decoding: bytes, as: UTF8.self)).map { Column.raw(float: $0) }
            default: value = NumberParser.double(bytes)
            }
            guard let value else { return invalid() }
            storage.values.append(value)
            if attribute.isOptional { storage.nulls.append(false) }
        case .string(let storage):
            storage.values.append(String(decoding: bytes, as: UTF8.self))
            if attribute.isOptional { storage.nulls.append(false) }
        case .bool(let storage):
            if bytes.elementsEqual("true".utf8) { storage.values.append(true) }
            else if bytes.elementsEqual("false".utf8) { storage.values.append(false) }
            else { return invalid() }
            if attribute.isOptional { storage.nulls.append(false) }
        case .value(let storage):
            let text = String(decoding: bytes, as: UTF8.self)
            if attribute.isExternal {
                guard FileIO.isSafeBlobName(text) else { return invalid() }
                pendingBlobs.append((ObjectRef(entity: entity, row: row), column, text))
                storage.values.append(.null)
                return true
            }
            guard let value = ValueText.decode(text, as: attribute.type) else { return invalid() }
            storage.values.append(value)
        }
        return true
    }

    /// Parses a space-separated identifier list into the raw link arrays.
    private func appendLink(_ bytes: UnsafeBufferPointer<UInt8>, slot: Int, entity: Int, at here: SourceLocation) -> Bool {
        guard let graph else { return false }
        let state = states[entity]
        var ids: [UInt64] = []
        var start = 0
        var index = 0
        while index <= bytes.count {
            if index == bytes.count || bytes[index] == 0x20 {
                if index > start {
                    guard let id = NumberParser.uint64(UnsafeBufferPointer(rebasing: bytes[start..<index])), id > 0 else {
                        break
                    }
                    ids.append(id)
                }
                start = index + 1
            }
            index += 1
        }
        let link = graph.layout.entities[entity].links[slot]
        if index <= bytes.count || (!link.isToMany && ids.count != 1) {
            fail(.invalidValue(here, entity: graph.layout.entities[entity].name, attribute: link.name ?? "",
                               text: String(decoding: bytes, as: UTF8.self),
                               expected: link.isToMany ? "a list of object ids" : "one object id"))
            return false
        }
        if link.isToMany { state.rawMany[slot].append(ids) } else { state.rawOne[slot].append(ids[0]) }
        return true
    }
}
