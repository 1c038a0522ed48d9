import Foundation

/// One save as the package's history records it (docs/FORMAT.md, "History"):
/// which objects it inserted, updated (and which of their properties) and
/// deleted, by entity and identifier, with the values of deleted objects'
/// attributes marked `preserveValueOnDeletion` (their tombstones).
///
/// Identifiers are kept per entity, ascending, and written as runs
/// (`ids="5-9 12"`), so a save of a million new objects records a line, not a
/// million. No other value of an object is ever recorded: what a transaction
/// holds beyond identifiers and property names is its tombstones.
struct StoredTransaction: Equatable, Sendable {
    /// The objects of one entity a transaction inserted or deleted.
    struct Objects: Equatable, Sendable {
        var entity: String
        var ids: IdentifierRuns

        init(entity: String, ids: IdentifierRuns) {
            self.entity = entity
            self.ids = ids
        }

        /// `ids` must ascend strictly.
        init(entity: String, ids: [UInt64]) { self.init(entity: entity, ids: IdentifierRuns(ids)) }
    }

    /// Objects of one entity whose same properties a transaction changed.
    struct Update: Equatable, Sendable {
        var entity: String
        /// The attributes and relationships changed, in declaration order.
        var properties: [String]
        var ids: IdentifierRuns

        init(entity: String, properties: [String], ids: IdentifierRuns) {
            self.entity = entity
            self.properties = properties
            self.ids = ids
        }

        /// `ids` must ascend strictly.
        init(entity: String, properties: [String], ids: [UInt64]) {
            self.init(entity: entity, properties: properties, ids: IdentifierRuns(ids))
        }
    }

    /// What history keeps of a deleted object: its preserved attributes' values.
    struct Tombstone: Equatable, Sendable {
        var entity: String
        var id: UInt64
        /// Each preserved attribute that held a value (not `nil`), with its type.
        var values: [(name: String, type: ValueType, value: Value)]

        static func == (lhs: Self, rhs: Self) -> Bool {
            lhs.entity == rhs.entity && lhs.id == rhs.id && lhs.values.count == rhs.values.count
                && zip(lhs.values, rhs.values).allSatisfy { $0.name == $1.name && $0.type == $1.type && $0.value == $1.value }
        }
    }

    /// The transaction's number: 1 for a package's first, one more for each
    /// save after; never reused, even after its transaction is deleted.
    var number: Int64
    var timestamp: Date
    var author: String?
    var bundleIdentifier: String
    var processIdentifier: String
    /// The heads of the history its writer knew (docs/FORMAT.md, "History",
    /// "Parents"): the transactions no other it knew followed, its own
    /// previous one included; empty for a writer that knew none. `nil` (no
    /// `parents` attribute, as Folio wrote before): it knew every transaction
    /// numbered below it.
    var parents: [Int64]?
    var inserted: [Objects] = []
    var updated: [Update] = []
    var deleted: [Objects] = []
    var tombstones: [Tombstone] = []

    /// Whether the transaction records no change (a save whose edits cancelled out records none).
    var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }

    /// The largest identifier the transaction names, if any.
    var largestIdentifier: UInt64? {
        (inserted.compactMap(\.ids.last) + updated.compactMap(\.ids.last) + deleted.compactMap(\.ids.last)).max()
    }

    /// The transaction under a migrated schema's names: each entity and
    /// property as `entity` and `property` rename them (`nil`: dropped). What
    /// names only dropped entities or properties goes (an update left with no
    /// property, a tombstone of a dropped entity, a dropped attribute's
    /// preserved value), and updates of one entity that now name the same
    /// properties become one.
    ///
    /// - Complexity: O(groups, runs and tombstone values of the transaction).
    func renamed(entity: (String) -> String?, property: (_ name: String, _ entity: String) -> String?) -> StoredTransaction {
        var result = self
        result.inserted = inserted.compactMap { objects in entity(objects.entity).map { Objects(entity: $0, ids: objects.ids) } }
        result.deleted = deleted.compactMap { objects in entity(objects.entity).map { Objects(entity: $0, ids: objects.ids) } }
        result.updated = []
        for update in updated {
            guard let name = entity(update.entity) else { continue }
            let properties = update.properties.compactMap { property($0, update.entity) }
            guard !properties.isEmpty else { continue }
            if let same = result.updated.firstIndex(where: { $0.entity == name && $0.properties == properties }) {
                result.updated[same].ids = result.updated[same].ids.union(update.ids)
            } else {
                result.updated.append(Update(entity: name, properties: properties, ids: update.ids))
            }
        }
        result.tombstones = tombstones.compactMap { tombstone in
            guard let name = entity(tombstone.entity) else { return nil }
            let values = tombstone.values.compactMap { value in
                property(value.name, tombstone.entity).map { (name: $0, type: value.type, value: value.value) }
            }
            return Tombstone(entity: name, id: tombstone.id, values: values)
        }
        return result
    }

    /// The name the running program goes by: its bundle identifier on Apple
    /// platforms, its executable's name elsewhere.
    static let currentBundleIdentifier: String = Bundle.main.bundleIdentifier ?? ProcessInfo.processInfo.processName

    /// The running process's identifier, as text.
    static var currentProcessIdentifier: String { String(ProcessInfo.processInfo.processIdentifier) }

    // MARK: Writing

    /// A time as history records it: to the millisecond, written with exactly
    /// three fractional digits (`2026-11-24T01:02:03.120Z`), so a transaction's
    /// size does not depend on the moment it was made.
    static func recordedTimestamp(_ date: Date) -> Date {
        var buffer = ByteBuffer(capacity: 32)
        appendTimestamp(date, to: &buffer)
        return DateText.parse(String(decoding: buffer.bytes, as: UTF8.self)) ?? date
    }

    private static func appendTimestamp(_ date: Date, to buffer: inout ByteBuffer) {
        let interval = date.timeIntervalSinceReferenceDate
        let milliseconds = (interval * 1000).rounded()
        guard milliseconds.isFinite, abs(milliseconds) < 3.0e14 else { return DateText.append(date, to: &buffer) }
        let whole = Int64((milliseconds / 1000).rounded(.down))
        let fraction = Int64(milliseconds) - whole * 1000
        var text = ByteBuffer(capacity: 32)
        DateText.append(Date(timeIntervalSinceReferenceDate: Double(whole)), to: &text)
        // Outside the years ISO text covers, the exact raw form.
        guard text.bytes.last == UInt8(ascii: "Z") else { return DateText.append(date, to: &buffer) }
        text.withUnsafeBytes { buffer.append(UnsafeBufferPointer(rebasing: $0.dropLast())) }
        buffer.append(UInt8(ascii: "."))
        buffer.append(padded: fraction, width: 3)
        buffer.append(UInt8(ascii: "Z"))
    }

    /// Appends the transaction's `<transaction>` element, indented by two
    /// spaces (a segment file's child), or four when `nested` (in the manifest's `<history>`).
    func append(to buffer: inout ByteBuffer, nested: Bool = false) {
        let pad: StaticString = nested ? "  " : ""
        buffer.append(pad)
        buffer.append("  <transaction id=\"")
        buffer.append(int: number)
        buffer.append("\" timestamp=\"")
        Self.appendTimestamp(timestamp, to: &buffer)
        buffer.append(UInt8(ascii: "\""))
        if let author { DocumentWriter.appendText(author, name: "author", to: &buffer) }
        DocumentWriter.appendText(bundleIdentifier, name: "bundle", to: &buffer)
        DocumentWriter.appendText(processIdentifier, name: "process", to: &buffer)
        if let parents {
            buffer.append(" parents=\"")
            for (index, parent) in parents.enumerated() {
                if index > 0 { buffer.append(UInt8(ascii: " ")) }
                buffer.append(int: parent)
            }
            buffer.append(UInt8(ascii: "\""))
        }
        buffer.append(">\n")
        for objects in inserted { Self.appendObjects("insert", objects.entity, objects.ids, pad: pad, to: &buffer) }
        for update in updated {
            Self.appendObjects("update", update.entity, update.ids, properties: update.properties, pad: pad, to: &buffer)
        }
        for objects in deleted { Self.appendObjects("delete", objects.entity, objects.ids, pad: pad, to: &buffer) }
        for tombstone in tombstones {
            buffer.append(pad)
            buffer.append("    <tombstone entity=")
            XMLText.appendQuotedAttributeValue(tombstone.entity, to: &buffer)
            buffer.append(" id=\"")
            buffer.append(uint: tombstone.id)
            buffer.append("\">\n")
            for preserved in tombstone.values {
                buffer.append(pad)
                buffer.append("      <value name=")
                XMLText.appendQuotedAttributeValue(preserved.name, to: &buffer)
                buffer.append(" type=")
                XMLText.appendQuotedAttributeValue(preserved.type.description, to: &buffer)
                DocumentWriter.appendText(ValueText.encode(preserved.value, as: preserved.type), name: "text", to: &buffer)
                buffer.append("/>\n")
            }
            buffer.append(pad)
            buffer.append("    </tombstone>\n")
        }
        buffer.append(pad)
        buffer.append("  </transaction>\n")
    }

    /// The most runs one element holds: 1,000 runs of two 20-digit numbers stay
    /// well under the markup a reader accepts in one element (64 KiB).
    static let runsPerElement = 1_000

    /// Writes one entity's objects as `<insert|update|delete>` elements, a new
    /// element every ``runsPerElement`` runs (a reader joins them again).
    private static func appendObjects(
        _ element: StaticString, _ entity: String, _ ids: IdentifierRuns, properties: [String]? = nil,
        pad: StaticString, to buffer: inout ByteBuffer
    ) {
        var start = 0
        repeat {
            let end = min(start + runsPerElement, ids.runs.count)
            buffer.append(pad)
            buffer.append("    <")
            buffer.append(element)
            buffer.append(" entity=")
            XMLText.appendQuotedAttributeValue(entity, to: &buffer)
            if let properties {
                buffer.append(" properties=")
                XMLText.appendQuotedAttributeValue(properties.joined(separator: " "), to: &buffer)
            }
            buffer.append(" ids=\"")
            ids.append(start..<end, to: &buffer)
            buffer.append("\"/>\n")
            start = end
        } while start < ids.runs.count
    }

}
