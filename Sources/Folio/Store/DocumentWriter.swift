import Foundation

/// Turns a graph's objects into the bytes of part files, plus the external
/// blobs they refer to (DocumentWriter+Parts lays the parts out).
///
/// Output is canonical: objects by ascending identifier, properties in
/// declaration order, one object per line, sets and dictionary keys sorted.
/// The same objects always give the same bytes.
struct DocumentWriter {
    /// An externally stored value: the file name the document refers to and its
    /// bytes — or, for a value still unread on disk, the file they are in.
    struct Blob {
        var name: String
        var data: Data
        /// Set when the value was never read: `data` is empty and the bytes are in this file.
        var source: LazyBlob? = nil
    }

    static let objectIDName = "f.id"
    static let escapedSuffix = ".esc"

    let graph: ObjectGraph
    private(set) var blobs: [Blob] = []
    /// Where parts are cut (DocumentWriter+Parts).
    var partSizes = (target: DocumentWriter.targetPartBytes, maximum: DocumentWriter.maximumPartBytes)

    init(graph: ObjectGraph) { self.graph = graph }

    /// Live rows sorted by identifier; rows are already in that order unless the
    /// file they were loaded from was not.
    func rowsInIDOrder(_ table: EntityTable) -> [Int] {
        var rows = (0..<table.rowCount).filter { table.isLive[$0] }
        if !zip(rows, rows.dropFirst()).allSatisfy({ table.ids[$0] < table.ids[$1] }) {
            rows.sort { table.ids[$0] < table.ids[$1] }
        }
        return rows
    }

    /// The first lines of a part file holding `count` objects of `entity`.
    static func appendPartHeader(entity: String, count: Int, to buffer: inout ByteBuffer) {
        buffer.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<objects ")
        buffer.append(string: entity)
        buffer.append("=\"")
        buffer.append(uint: UInt64(count))
        buffer.append("\">\n")
    }

    /// The last line of a part file.
    static func appendPartFooter(to buffer: inout ByteBuffer) { buffer.append("</objects>\n") }

    /// What writing the objects of one entity needs, worked out once per part
    /// rather than per object: copying each `Schema.Attribute` and asking its
    /// options set whether it is transient or external, for every object, was
    /// a fifth of a save.
    struct EntityPlan {
        /// One attribute that is written (transient ones are not).
        struct Attribute {
            let index: Int
            let name: String
            let type: ValueType
            let isExternal: Bool
            let isUnsigned: Bool
        }

        let entityIndex: Int
        let entity: SchemaLayout.EntityLayout
        let table: EntityTable
        let attributes: [Attribute]
        /// The entity's name as the bytes of its elements.
        let name: [UInt8]
    }

    /// The plan for writing objects of `entityIndex`.
    func plan(entity entityIndex: Int) -> EntityPlan {
        let entity = graph.layout.entities[entityIndex]
        var name = ByteBuffer()
        name.append(string: entity.name)
        let attributes = zip(entity.attributes, entity.traits).enumerated().compactMap { index, pair -> EntityPlan.Attribute? in
            let (attribute, traits) = pair
            return traits.isTransient ? nil : EntityPlan.Attribute(index: index, name: attribute.name, type: attribute.type,
                                                                   isExternal: traits.isExternal,
                                                                   isUnsigned: attribute.type.unsignedMax != nil)
        }
        return EntityPlan(entityIndex: entityIndex, entity: entity, table: graph.tables[entityIndex], attributes: attributes,
                          name: name.bytes)
    }

    /// Appends one object's line (`  <Entity f.id="…" …/>`), collecting its blobs
    /// into ``blobs``; `plan` is its entity's (``plan(entity:)``).
    mutating func appendObject(row: Int, plan: EntityPlan, to buffer: inout ByteBuffer) throws(PackageError) {
        let entity = plan.entity
        let table = plan.table
        let ref = ObjectRef(entity: plan.entityIndex, row: row)
        buffer.append("  <")
        buffer.bytes.append(contentsOf: plan.name)
        buffer.append(" f.id=\"")
        buffer.append(uint: table.ids[row])
        buffer.append(UInt8(ascii: "\""))
        plan.attributes.withUnsafeBufferPointer { attributes in
            for attribute in attributes {
                appendAttribute(attribute, column: table.columns[attribute.index], ref: ref, to: &buffer)
            }
        }
        for slot in 0..<entity.declaredLinkCount {
            let column = table.links[slot]
            let destination = graph.tables[entity.links[slot].destination]
            if column.isToMany {
                let targets = column.many[row]
                // Absence is nil for an optional to-many (and empty for any other),
                // so an optional one's empty collection is written, as "".
                if targets.isEmpty && (!column.isOptional || column.isAbsent(row)) { continue }
                Self.appendName(entity.links[slot].name!, to: &buffer)
                let start = buffer.bytes.count
                for (position, target) in targets.enumerated() {
                    if position > 0 { buffer.append(UInt8(ascii: " ")) }
                    buffer.append(uint: destination.ids[Int(target)])
                }
                // Values are bounded when set; a list of identifiers only here, as it is
                // written (tens of millions of links in one list), so no document
                // is written that the loader would refuse.
                let size = buffer.bytes.count - start
                if size > graph.limits.maximumValueBytes {
                    throw .unwritable(entity: entity.name, id: table.ids[row], property: entity.links[slot].name ?? "",
                                      limit: .valueBytes, size: size, maximum: graph.limits.maximumValueBytes)
                }
                buffer.append(UInt8(ascii: "\""))
            } else if column.one[row] >= 0 {
                Self.appendName(entity.links[slot].name!, to: &buffer)
                buffer.append(uint: destination.ids[Int(column.one[row])])
                buffer.append(UInt8(ascii: "\""))
            }
        }
        buffer.append("/>\n")
    }

    /// Appends ` name="` for a value that needs no escaping (numbers, dates, ids); the
    /// caller closes the quote.
    private static func appendName(_ name: String, suffix: StaticString = "", quoted: Bool = true, to buffer: inout ByteBuffer) {
        buffer.append(UInt8(ascii: " "))
        buffer.append(string: name)
        buffer.append(suffix)
        quoted ? buffer.append("=\"") : buffer.append("=")
    }

    private mutating func appendAttribute(_ attribute: EntityPlan.Attribute, column: Column, ref: ObjectRef,
                                          to buffer: inout ByteBuffer) {
        let row = Int(ref.row)
        if attribute.isExternal {
            appendExternal(attribute, column: column, ref: ref, to: &buffer)
            return
        }
        switch column {
        case .int(let storage):
            if !storage.nulls.isEmpty, storage.nulls[row] { return }
            Self.appendName(attribute.name, to: &buffer)
            if attribute.isUnsigned {
                buffer.append(uint: UInt64(bitPattern: storage.values[row]))
            } else {
                buffer.append(int: storage.values[row])
            }
        case .double(let storage):
            if !storage.nulls.isEmpty, storage.nulls[row] { return }
            Self.appendName(attribute.name, to: &buffer)
            let raw = storage.values[row]
            switch attribute.type {
            case .date: DateText.append(Date(timeIntervalSinceReferenceDate: raw), to: &buffer)
            case .float: buffer.append(string: DoubleText.string(Column.float(fromRaw: raw)))
            default: buffer.append(string: DoubleText.string(raw))
            }
        case .bool(let storage):
            if !storage.nulls.isEmpty, storage.nulls[row] { return }
            Self.appendName(attribute.name, to: &buffer)
            storage.values[row] ? buffer.append("true") : buffer.append("false")
        case .string(let storage):
            if !storage.nulls.isEmpty, storage.nulls[row] { return }
            Self.appendText(storage.values[row], name: attribute.name, to: &buffer)
            return
        case .value:
            let value = column.value(at: row, type: attribute.type)
            if value == .null { return }
            Self.appendText(ValueText.encode(value, as: attribute.type), name: attribute.name, to: &buffer)
            return
        }
        buffer.append(UInt8(ascii: "\""))
    }

    /// Writes an external-storage attribute: the name of its blob, and the blob
    /// itself into ``blobs`` (nil: nothing at all).
    private mutating func appendExternal(_ attribute: EntityPlan.Attribute, column: Column, ref: ObjectRef,
                                         to buffer: inout ByteBuffer) {
        let row = Int(ref.row)
        let id = graph.tables[Int(ref.entity)].ids[row]
        if let lazy = column.blob(at: row), let hash = FileIO.blobHash(in: lazy.name) {
            // Never read, or read but unchanged: the name follows from the identifier, the
            // attribute and the hash the old name carries (the bytes are the same).
            let name = "\(id)-\(attribute.name)-\(hash).bin"
            blobs.append(Blob(name: name, data: Data(), source: lazy))
            Self.appendText(name, name: attribute.name, to: &buffer)
            return
        }
        let value = column.value(at: row, type: attribute.type)
        if value == .null { return }
        let data = BlobText.bytes(of: value, as: attribute.type)
        let blob = Blob(name: DocumentWriter.blobName(id: id, attribute: attribute.name, data: data), data: data)
        blobs.append(blob)
        Self.appendText(blob.name, name: attribute.name, to: &buffer)
    }

    /// Writes text as `name="…"` (or `name='…'`), or as `name.esc="…"` with JSON
    /// escapes when it holds characters XML 1.0 cannot carry.
    static func appendText(_ text: String, name: String, to buffer: inout ByteBuffer) {
        if XMLText.needsEscaping(text) {
            appendName(name, suffix: ".esc", quoted: false, to: &buffer)
            var escaped = ByteBuffer()
            ValueText.appendJSONEscaped(text, to: &escaped)
            escaped.bytes.withUnsafeBufferPointer { XMLText.appendQuotedAttributeValue($0, to: &buffer) }
        } else {
            appendName(name, quoted: false, to: &buffer)
            XMLText.appendQuotedAttributeValue(text, to: &buffer)
        }
    }

    /// `ID-ATTRIBUTE-HASH.bin`: stable while the bytes are unchanged, new when they change,
    /// so a save never overwrites a blob the previous document still refers to.
    static func blobName(id: UInt64, attribute: String, data: Data) -> String {
        let hash = data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> UInt64 in
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in raw.bindMemory(to: UInt8.self) {
                hash ^= UInt64(byte)
                hash = hash &* 0x100_0000_01b3
            }
            return hash
        }
        let hex = String(hash, radix: 16)
        return "\(id)-\(attribute)-\(String(repeating: "0", count: 16 - hex.count))\(hex).bin"
    }
}
