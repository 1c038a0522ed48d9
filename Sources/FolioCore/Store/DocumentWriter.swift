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
    /// rather than per object, so that no object pays for copying each
    /// `Schema.Attribute` and asking its options set whether it is transient or
    /// external.
    struct EntityPlan {
        /// One attribute that is written (transient ones are not). A class, and
        /// its column's arrays held here: each object's line reads them without
        /// copying a struct of strings and arrays, or retaining what it reads.
        final class Attribute {
            /// How the attribute's values are written, decided once from its type and options.
            enum Kind { case int, uint, double, float, date, bool, string, value, external }

            let name: String
            let type: ValueType
            let kind: Kind
            let column: Column
            /// The column's values, for the kinds that read them directly (empty otherwise).
            let ints: [Int64]
            let doubles: [Double]
            let bools: [Bool]
            let strings: [String]
            /// Whether each row is nil; empty when none can be.
            let nulls: [Bool]
            /// ` name="`, before a value that needs no escaping (numbers, dates, booleans).
            let quotedPrefix: [UInt8]
            /// ` name=`, before text, whose quote depends on the text.
            let textPrefix: [UInt8]

            init(_ attribute: Schema.Attribute, isExternal: Bool, column: Column) {
                name = attribute.name
                type = attribute.type
                self.column = column
                quotedPrefix = DocumentWriter.prefix(attribute.name, "=\"")
                textPrefix = DocumentWriter.prefix(attribute.name, "=")
                var ints: [Int64] = [], doubles: [Double] = [], bools: [Bool] = [], strings: [String] = [], nulls: [Bool] = []
                var kind = Kind.value
                if isExternal {
                    kind = .external
                } else {
                    switch column {
                    case .int(let storage):
                        (kind, ints, nulls) = (attribute.type.unsignedMax != nil ? .uint : .int, storage.values, storage.nulls)
                    case .double(let storage):
                        kind = attribute.type == .date ? .date : attribute.type == .float ? .float : .double
                        (doubles, nulls) = (storage.values, storage.nulls)
                    case .bool(let storage): (kind, bools, nulls) = (.bool, storage.values, storage.nulls)
                    case .string(let storage): (kind, strings, nulls) = (.string, storage.values, storage.nulls)
                    case .value: kind = .value
                    }
                }
                (self.kind, self.ints, self.doubles, self.bools, self.strings, self.nulls) = (kind, ints, doubles, bools, strings, nulls)
            }
        }

        /// One declared relationship: ` name="`, its column's arrays and its
        /// destination's identifiers, held as ``Attribute`` holds a column's.
        final class Link {
            let name: String
            let prefix: [UInt8]
            let isToMany: Bool
            let isOptional: Bool
            let one: [Int32]
            let many: [[Int32]]
            /// For an optional to-many: whether each row holds no collection. Empty otherwise.
            let absent: [Bool]
            let destinationIDs: [UInt64]
            /// For a relationship into a hierarchy: each member's identifiers,
            /// and how a stored target names its member and row. Empty otherwise.
            let memberIDs: [[UInt64]]
            let shift: Int32
            let mask: Int32

            init(name: String, column: LinkColumn, destination: EntityTable, hierarchy: SchemaLayout.LinkHierarchy?, tables: [EntityTable]) {
                self.name = name
                prefix = DocumentWriter.prefix(name, "=\"")
                (isToMany, isOptional) = (column.isToMany, column.isOptional)
                (one, many, absent) = (column.one, column.many, column.absent)
                destinationIDs = destination.ids
                memberIDs = hierarchy?.members.map { tables[Int($0)].ids } ?? []
                (shift, mask) = (hierarchy?.shift ?? 0, hierarchy?.mask ?? 0)
            }

            /// The identifier a stored target of a relationship into a hierarchy names.
            @inline(__always)
            func memberID(_ target: Int32) -> UInt64 { memberIDs[Int(target & mask)][Int(target >> shift)] }
        }

        let entityIndex: Int
        let entity: SchemaLayout.EntityLayout
        let table: EntityTable
        let attributes: [Attribute]
        /// The entity's identifiers, by row.
        let ids: [UInt64]
        /// The entity's declared relationships, by slot.
        let links: [Link]
        /// `  <Entity f.id="`, how each object's line starts.
        let lineStart: [UInt8]
    }

    /// ` name` and what follows it (`="`, `=`), as bytes.
    fileprivate static func prefix(_ name: String, _ tail: StaticString) -> [UInt8] {
        var buffer = ByteBuffer()
        buffer.append(UInt8(ascii: " "))
        buffer.append(string: name)
        buffer.append(tail)
        return buffer.bytes
    }

    /// The plan for writing objects of `entityIndex`.
    func plan(entity entityIndex: Int) -> EntityPlan {
        let entity = graph.layout.entities[entityIndex]
        var lineStart = ByteBuffer()
        lineStart.append("  <")
        lineStart.append(string: entity.name)
        lineStart.append(" f.id=\"")
        let table = graph.tables[entityIndex]
        let attributes = zip(entity.attributes, entity.traits).enumerated().compactMap { index, pair -> EntityPlan.Attribute? in
            let (attribute, traits) = pair
            return traits.isTransient
                ? nil
                : EntityPlan.Attribute(
                    attribute, isExternal: traits.isExternal,
                    column: table.columns[index])
        }
        let links = (0..<entity.declaredLinkCount).map { slot in
            EntityPlan.Link(
                name: entity.links[slot].name ?? "", column: table.links[slot],
                destination: graph.tables[entity.links[slot].destination], hierarchy: entity.links[slot].hierarchy,
                tables: graph.tables)
        }
        return EntityPlan(
            entityIndex: entityIndex, entity: entity, table: table, attributes: attributes, ids: table.ids,
            links: links, lineStart: lineStart.bytes)
    }

    /// Appends one object's line (`  <Entity f.id="…" …/>`), collecting its blobs
    /// into ``blobs``; `plan` is its entity's (``plan(entity:)``).
    mutating func appendObject(row: Int, plan: EntityPlan, to buffer: inout ByteBuffer) throws(PackageError) {
        let ref = ObjectRef(entity: plan.entityIndex, row: row)
        buffer.append(bytes: plan.lineStart)
        Self.appendIdentifier(plan.ids[row], closingQuote: true, to: &buffer)
        plan.attributes.withUnsafeBufferPointer { attributes in
            for attribute in attributes { appendAttribute(attribute, ref: ref, to: &buffer) }
        }
        for link in plan.links {
            if link.isToMany {
                let targets = link.many[row]
                // Absence is nil for an optional to-many (and empty for any other),
                // so an optional one's empty collection is written, as "".
                if targets.isEmpty && (!link.isOptional || link.absent[row]) { continue }
                buffer.append(bytes: link.prefix)
                let start = buffer.count
                if link.memberIDs.isEmpty {
                    for (position, target) in targets.enumerated() {
                        if position > 0 { buffer.append(UInt8(ascii: " ")) }
                        Self.appendIdentifier(link.destinationIDs[Int(target)], closingQuote: false, to: &buffer)
                    }
                } else {
                    // Into a hierarchy: identifiers are unique across the document, so the
                    // target's entity needs no mark; the loader finds it by the identifier.
                    for (position, target) in targets.enumerated() {
                        if position > 0 { buffer.append(UInt8(ascii: " ")) }
                        Self.appendIdentifier(link.memberID(target), closingQuote: false, to: &buffer)
                    }
                }
                // Values are bounded when set; a list of identifiers only here, as it is
                // written (tens of millions of links in one list), so no document
                // is written that the loader would refuse.
                let size = buffer.count - start
                if size > graph.limits.maximumValueBytes {
                    throw .unwritable(
                        entity: plan.entity.name, id: plan.ids[row], property: link.name,
                        limit: .valueBytes, size: size, maximum: graph.limits.maximumValueBytes)
                }
                buffer.append(UInt8(ascii: "\""))
            } else {
                let target = link.one[row]
                guard target >= 0 else { continue }
                buffer.append(bytes: link.prefix)
                let id = link.memberIDs.isEmpty ? link.destinationIDs[Int(target)] : link.memberID(target)
                Self.appendIdentifier(id, closingQuote: true, to: &buffer)
            }
        }
        buffer.append("/>\n")
    }

    /// An object identifier in decimal, and the value's closing quote if asked, in one copy.
    @inline(__always)
    private static func appendIdentifier(_ id: UInt64, closingQuote: Bool, to buffer: inout ByteBuffer) {
        buffer.append(formattedUpTo: 21) { text in
            let count = ByteBuffer.format(uint: id, at: text)
            guard closingQuote else { return count }
            text[count] = UInt8(ascii: "\"")
            return count + 1
        }
    }

    private mutating func appendAttribute(_ attribute: EntityPlan.Attribute, ref: ObjectRef, to buffer: inout ByteBuffer) {
        let row = Int(ref.row)
        if !attribute.nulls.isEmpty, attribute.nulls[row] { return }
        switch attribute.kind {
        case .int, .uint:
            buffer.append(bytes: attribute.quotedPrefix)
            let value = attribute.ints[row]
            let isUnsigned = attribute.kind == .uint
            // The number and its closing quote in one copy.
            buffer.append(formattedUpTo: 21) { text in
                let count =
                    isUnsigned
                    ? ByteBuffer.format(uint: UInt64(bitPattern: value), at: text)
                    : ByteBuffer.format(int: value, at: text)
                text[count] = UInt8(ascii: "\"")
                return count + 1
            }
        case .double:
            buffer.append(bytes: attribute.quotedPrefix)
            DoubleText.append(attribute.doubles[row], to: &buffer)
            buffer.append(UInt8(ascii: "\""))
        case .float:
            buffer.append(bytes: attribute.quotedPrefix)
            DoubleText.append(Column.float(fromRaw: attribute.doubles[row]), to: &buffer)
            buffer.append(UInt8(ascii: "\""))
        case .date:
            buffer.append(bytes: attribute.quotedPrefix)
            DateText.append(interval: attribute.doubles[row], to: &buffer)
            buffer.append(UInt8(ascii: "\""))
        case .bool:
            buffer.append(bytes: attribute.quotedPrefix)
            attribute.bools[row] ? buffer.append("true\"") : buffer.append("false\"")
        case .string:
            Self.appendText(attribute.strings[row], prefix: attribute.textPrefix, name: attribute.name, to: &buffer)
        case .value:
            let value = attribute.column.value(at: row, type: attribute.type)
            if value == .null { return }
            Self.appendText(
                ValueText.encode(value, as: attribute.type), prefix: attribute.textPrefix,
                name: attribute.name, to: &buffer)
        case .external:
            appendExternal(attribute, column: attribute.column, ref: ref, to: &buffer)
        }
    }

    /// Writes an external-storage attribute: the name of its blob, and the blob
    /// itself into ``blobs`` (nil: nothing at all).
    private mutating func appendExternal(
        _ attribute: EntityPlan.Attribute, column: Column, ref: ObjectRef,
        to buffer: inout ByteBuffer
    ) {
        let row = Int(ref.row)
        let id = graph.tables[Int(ref.entity)].ids[row]
        if let lazy = column.blob(at: row), let hash = FileIO.blobHash(in: lazy.name) {
            // Never read, or read but unchanged: the name follows from the identifier, the
            // attribute and the hash the old name carries (the bytes are the same).
            let name = "\(id)-\(attribute.name)-\(hash).bin"
            blobs.append(Blob(name: name, data: Data(), source: lazy))
            Self.appendText(name, prefix: attribute.textPrefix, name: attribute.name, to: &buffer)
            return
        }
        let value = column.value(at: row, type: attribute.type)
        if value == .null { return }
        let data = BlobText.bytes(of: value, as: attribute.type)
        let blob = Blob(name: DocumentWriter.blobName(id: id, attribute: attribute.name, data: data), data: data)
        blobs.append(blob)
        Self.appendText(blob.name, prefix: attribute.textPrefix, name: attribute.name, to: &buffer)
    }

    /// Writes text as `name="…"` (or `name='…'`), or as `name.esc="…"` with JSON
    /// escapes when it holds characters XML 1.0 cannot carry.
    static func appendText(_ text: String, name: String, to buffer: inout ByteBuffer) {
        appendText(text, prefix: prefix(name, "="), name: name, to: &buffer)
    }

    /// ``appendText(_:name:to:)`` with ` name=` already made (``EntityPlan/Attribute/textPrefix``):
    /// the text is scanned once, and copied whole when nothing in it needs escaping.
    static func appendText(_ text: String, prefix: [UInt8], name: String, to buffer: inout ByteBuffer) {
        var text = text
        text.withUTF8 { bytes in
            let scan = XMLText.scan(bytes)
            guard scan.contains(.forbidden) else {
                if let quote = XMLText.plainQuote(for: scan), let value = bytes.baseAddress {
                    // ` name="value"` in one copy.
                    prefix.withUnsafeBufferPointer { prefix in
                        guard let name = prefix.baseAddress else { return }
                        buffer.append(formattedUpTo: prefix.count + bytes.count + 2) { text in
                            text.initialize(from: name, count: prefix.count)
                            text[prefix.count] = quote
                            (text + prefix.count + 1).initialize(from: value, count: bytes.count)
                            text[prefix.count + 1 + bytes.count] = quote
                            return prefix.count + bytes.count + 2
                        }
                    }
                    return
                }
                buffer.append(bytes: prefix)
                XMLText.appendQuotedAttributeValue(bytes, scan: scan, to: &buffer)
                return
            }
            buffer.append(UInt8(ascii: " "))
            buffer.append(string: name)
            buffer.append(".esc=")
            var escaped = ByteBuffer()
            ValueText.appendJSONEscaped(String(decoding: bytes, as: UTF8.self), to: &escaped)
            escaped.withUnsafeBytes { XMLText.appendQuotedAttributeValue($0, to: &buffer) }
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
