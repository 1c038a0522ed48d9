import Foundation

/// The commit point of a format-2 package: `manifest.xml`, holding the format
/// version, the schema and the list of part files that together hold every
/// object (docs/FORMAT.md).
///
/// Each part holds objects of one entity whose identifiers lie in
/// `first...last`, one object per line; parts of one entity never overlap.
/// An identifier belongs to the part of its entity with the greatest `first`
/// not above it (or the entity's first part), so the parts partition each
/// entity's identifiers and a save knows which part an edited object's line is
/// in without reading any part.
struct PackageManifest: Equatable {
    struct Part: Equatable {
        var entity: String
        var first: UInt64
        var last: UInt64
        var count: Int
        var file: String
        /// A format-3 part (`parts/ENTITY/LANE-BUCKET.xml`): its root names the
        /// entity and counts nothing, and `count` was counted in the file.
        var isBucket = false
    }

    var schema: Schema
    var parts: [Part]
    /// The history's segments and next transaction number; `nil` when the package has recorded none.
    var history: HistoryLog?
    /// The identifier counter the manifest records (`next-id`), if any: every
    /// manifest Folio writes has one; packages written before it was recorded
    /// do not, and their counter starts above the largest identifier present.
    var declaredNextID: UInt64?
    /// The hash of the format-1 `document.xml` this manifest's save replaced
    /// (`supersedes`), written while that file is still there: a crash after the
    /// commit leaves it beside the manifest, and this tells that leftover from
    /// a `document.xml` put back by someone else (``PackageError/twoLayouts(path:)``).
    var supersededDocumentHash: UInt64?
    /// The format the manifest declares: 2 (it lists parts and history) or 3
    /// (schema only: parts and history are found by listing their folders).
    var format = 2

    static let fileName = "manifest.xml"
    static let partsFolderName = "parts"
    static let formatVersion = "2"
    /// The format every save writes (docs/FORMAT.md, "Format 3").
    static let currentFormat = 3

    /// A format-3 manifest's bytes: the format and the schema, nothing else, so
    /// the file changes only when the schema does (Git sees no change on an
    /// ordinary save, though each save replaces the file: see ``DocumentPackage``).
    ///
    /// - Parameter documentHash: the format-1 `document.xml` this save replaces
    ///   (``supersededDocumentHash``), only in the save that migrates it.
    static func bytes(schema: Schema, supersedes documentHash: UInt64?) -> [UInt8] {
        var buffer = ByteBuffer()
        buffer.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<folio format=\"3\"")
        if let documentHash {
            let hex = String(documentHash, radix: 16)
            buffer.append(" supersedes=\"")
            buffer.append(string: String(repeating: "0", count: 16 - hex.count) + hex)
            buffer.append("\"")
        }
        buffer.append(">\n")
        SchemaXML.append(schema, indent: 2, to: &buffer)
        buffer.append("</folio>\n")
        return buffer.bytes
    }

    /// The manifest's bytes: canonical, so the same parts and counter give the same file.
    ///
    /// - Parameter nextID: the identifier counter (`next-id`), recorded so that
    ///   an identifier is never handed out twice, across saves and sessions.
    ///   - conflicts: the conflict records the document keeps (``ObjectGraph/conflicts``),
    ///     listed in `<conflicts>` after the parts.
    static func bytes(
        schema: Schema, parts: [Part], nextID: UInt64, history: HistoryLog? = nil,
        supersedes documentHash: UInt64? = nil, conflicts: [MergeConflict] = []
    ) -> [UInt8] {
        var buffer = ByteBuffer()
        buffer.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<folio format=\"2\" next-id=\"")
        buffer.append(uint: nextID)
        if let documentHash {
            let hex = String(documentHash, radix: 16)
            buffer.append("\" supersedes=\"")
            buffer.append(string: String(repeating: "0", count: 16 - hex.count) + hex)
        }
        buffer.append("\">\n")
        SchemaXML.append(schema, indent: 2, to: &buffer)
        buffer.append("  <parts>\n")
        for part in parts {
            buffer.append("    <part entity=\"")
            buffer.append(string: part.entity)
            buffer.append("\"")
            appendRange(first: part.first, last: part.last, count: part.count, file: part.file, to: &buffer)
        }
        buffer.append("  </parts>\n")
        if !conflicts.isEmpty {
            buffer.append("  <conflicts>\n")
            for conflict in conflicts {
                ConflictRecordXML.append(conflict, schema: schema, indent: 4, namingEntity: true, to: &buffer)
            }
            buffer.append("  </conflicts>\n")
        }
        if let history, !history.isPristine {
            buffer.append("  <history next=\"")
            buffer.append(int: history.nextNumber)
            buffer.append("\">\n")
            for segment in history.segments {
                buffer.append("    <segment")
                appendRange(
                    first: UInt64(segment.first), last: UInt64(segment.last), count: segment.count, file: segment.file,
                    to: &buffer)
            }
            buffer.append(bytes: history.tailElements)
            buffer.append("  </history>\n")
        }
        buffer.append("</folio>\n")
        return buffer.bytes
    }

    /// ` first="…" last="…" count="…" file="…"/>`: what a part and a history segment list alike.
    private static func appendRange(first: UInt64, last: UInt64, count: Int, file: String, to buffer: inout ByteBuffer) {
        buffer.append(" first=\"")
        buffer.append(uint: first)
        buffer.append("\" last=\"")
        buffer.append(uint: last)
        buffer.append("\" count=\"")
        buffer.append(uint: UInt64(count))
        buffer.append("\" file=\"")
        buffer.append(string: file)
        buffer.append("\"/>\n")
    }

    /// `ENTITY-FIRST-HASH.xml`, HASH the 64-bit ``ContentHasher`` hash of the file's bytes:
    /// a part's name changes exactly when its content does, so a save never
    /// overwrites a part the committed manifest names.
    static func partFileName(entity: String, first: UInt64, bytes: [UInt8]) -> String {
        var hasher = ContentHasher()
        hasher.update(bytes)
        let hex = String(hasher.finalize(), radix: 16)
        return "\(entity)-\(first)-\(String(repeating: "0", count: 16 - hex.count))\(hex).xml"
    }

    /// Whether a name is one ``partFileName(entity:first:bytes:)`` produces. Only
    /// files so named (and their temporaries) are ever removed from `parts/`, and a
    /// manifest naming anything else is refused, so it cannot point outside the folder.
    static func isPartFileName(_ name: String) -> Bool {
        guard FileIO.isSafeBlobName(name), name.hasSuffix(".xml") else { return false }
        let stem = Array(name.utf8.dropLast(4))
        guard let lastDash = stem.lastIndex(of: UInt8(ascii: "-")), lastDash > 0 else { return false }
        let hash = stem[(lastDash + 1)...]
        let rest = stem[..<lastDash]
        guard let middleDash = rest.lastIndex(of: UInt8(ascii: "-")), middleDash > 0, middleDash + 1 < lastDash else { return false }
        return rest[(middleDash + 1)...].allSatisfy { (0x30...0x39).contains($0) }
            && hash.count == 16 && hash.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// Whether an entry of `parts/` is one Folio writes: a part file or its temporary.
    static func isOwnPartEntry(_ name: String) -> Bool {
        if isPartFileName(name) { return true }
        guard name.hasPrefix("."), name.hasSuffix(".tmp") else { return false }
        return isPartFileName(String(name.dropFirst().dropLast(4)))
    }

    /// Whether the parts of a package saved with schema `a` hold what schema `b`
    /// would write: the same entities declared alike, in any order (a part names
    /// its entity; only the manifest lists entities in order), so a save under
    /// `b` may keep them. A graph opened with the entities reordered (a dynamic
    /// schema, model classes listed in another order) then rewrites only what changed.
    static func partsAgree(_ a: Schema, _ b: Schema) -> Bool {
        guard a.declaredVersion == b.declaredVersion, a.entities.count == b.entities.count else { return false }
        return a.entities.sorted { $0.name < $1.name } == b.entities.sorted { $0.name < $1.name }
    }

    /// The index of the part (among `parts`, one entity's, sorted by `first`) that
    /// identifier `id` belongs to. O(log parts).
    static func partIndex(of id: UInt64, in parts: [Part]) -> Int {
        var low = 0, high = parts.count  // first index whose `first` is above id
        while low < high {
            let middle = (low + high) / 2
            if parts[middle].first <= id { low = middle + 1 } else { high = middle }
        }
        return max(0, low - 1)
    }
}
