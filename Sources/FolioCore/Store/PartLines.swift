import Foundation

/// A part file as Folio writes it (docs/FORMAT.md, *Part files*), split into
/// its lines by identifier from its bytes alone: how a merge of one part finds
/// the few objects both sides changed without parsing the thousands neither
/// side touched (``PackageFileMerge``).
///
/// A part is the declaration, `<objects entity="E">`, one line per object by
/// ascending identifier, each followed by its conflict records, and
/// `</objects>`; values never hold a raw newline or `<` (the writer escapes
/// them), so a line is one element. A file laid out otherwise — another root,
/// a line that is not one object or record, identifiers out of order or twice,
/// a comment, `\r\n` — is not split (``split(_:entity:)`` is `nil`): the merge
/// then reads it whole, and its errors locate what is wrong.
///
/// Nothing here reads a value: a line is compared as bytes, taken as bytes, or
/// handed to ``PartRecords`` with the other lines left out. The bytes may be a
/// file mapped into memory: nothing is copied until a line is taken.
struct PartLines {
    /// One identifier's lines: its object's, and its conflict records'.
    struct Group {
        /// The identifier.
        var id: UInt64
        /// The object's line (offsets into ``PartLines/bytes``), without its newline; `nil` when the object is not here.
        var object: Range<Int>?
        /// The object line's number in the file (1-based), 0 without one.
        var objectLine = 0
        /// Its conflict records' lines, without their newlines, in file order.
        var records: [Range<Int>] = []
    }

    /// The file's bytes, its lines' offsets counted from their start.
    let bytes: Data
    /// Its lines by identifier, ascending.
    private(set) var groups: [Group]

    /// No file: a base absent, or empty (Git's base when both sides added the file).
    static let empty = PartLines(bytes: Data(), groups: [])

    private init(bytes: Data, groups: [Group]) {
        self.bytes = bytes
        self.groups = groups
    }

    /// The first two lines of a part of `entity`, as the format writes them.
    static func header(entity: String) -> [UInt8] {
        Array("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<objects entity=\"\(entity)\">\n".utf8)
    }

    /// A part's last line.
    static let footer = Array("</objects>\n".utf8)

    /// Splits a part file of `entity`'s objects; `nil` when it is not laid out
    /// as the format writes a part (see the type's comment).
    ///
    /// - Complexity: O(bytes), a few vector compares per 16 bytes.
    static func split(_ bytes: Data, entity: String) -> PartLines? {
        let header = header(entity: entity)
        let objectStart = Array("  <\(entity) f.id=\"".utf8)
        let recordStart = Array("  <\(ConflictRecordXML.elementName) f.id=\"".utf8)
        return bytes.withUnsafeBytes { raw -> PartLines? in
            guard let address = raw.baseAddress, raw.count >= header.count + footer.count else { return nil }
            let base = address.assumingMemoryBound(to: UInt8.self)
            let buffer = UnsafeBufferPointer(start: base, count: raw.count)
            guard hasPrefix(header, buffer, 0..<buffer.count),
                hasPrefix(footer, buffer, (buffer.count - footer.count)..<buffer.count)
            else { return nil }
            var groups: [Group] = []
            groups.reserveCapacity(4096)
            var start = header.count
            let end = buffer.count - footer.count
            // The declaration and the root are lines 1 and 2.
            var lineNumber = 3
            while start < end {
                let newline = ByteScan.firstIndex(of: 0x0A, in: base, from: start, to: end)
                guard newline < end else { return nil }
                let line = start..<newline
                let isRecord: Bool
                let idStart: Int
                if hasPrefix(objectStart, buffer, line) {
                    (isRecord, idStart) = (false, start + objectStart.count)
                } else if hasPrefix(recordStart, buffer, line) {
                    (isRecord, idStart) = (true, start + recordStart.count)
                } else {
                    return nil
                }
                // One element: it closes the line, and no other starts in it.
                guard line.count >= idStart - start + 2, buffer[newline - 2] == UInt8(ascii: "/"),
                    buffer[newline - 1] == UInt8(ascii: ">"),
                    ByteScan.firstIndex(of: UInt8(ascii: "<"), in: base, from: start + 3, to: newline) == newline,
                    let id = identifier(buffer, from: idStart, to: newline)
                else { return nil }
                if let last = groups.last, last.id == id {
                    // A record of the object before; an object comes first in its group, and once.
                    guard isRecord else { return nil }
                    groups[groups.count - 1].records.append(line)
                } else {
                    guard groups.last.map({ $0.id < id }) ?? true else { return nil }
                    groups.append(
                        isRecord
                            ? Group(id: id, object: nil, records: [line])
                            : Group(id: id, object: line, objectLine: lineNumber))
                }
                start = newline + 1
                lineNumber += 1
            }
            return PartLines(bytes: bytes, groups: groups)
        }
    }

    /// Whether the bytes of `line` start with `prefix`.
    private static func hasPrefix(_ prefix: [UInt8], _ buffer: UnsafeBufferPointer<UInt8>, _ line: Range<Int>) -> Bool {
        guard line.count >= prefix.count else { return false }
        for index in prefix.indices where buffer[line.lowerBound + index] != prefix[index] { return false }
        return true
    }

    /// The identifier written from `start` up to its closing quote: digits as
    /// the writer writes them (no leading zero, not 0, fitting 64 bits); `nil` otherwise.
    private static func identifier(_ buffer: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> UInt64? {
        var value: UInt64 = 0
        var index = start
        // Up to 19 digits cannot overflow: no check per digit, on the path every line of a part takes.
        let short = min(end, start + 19)
        while index < short {
            let digit = buffer[index] &- UInt8(ascii: "0")
            guard digit < 10 else { break }
            guard index > start || digit > 0 else { return nil }
            value = value &* 10 &+ UInt64(digit)
            index += 1
        }
        while index < end, buffer[index] != UInt8(ascii: "\"") {
            let digit = buffer[index] &- UInt8(ascii: "0")
            guard digit < 10, index > start || digit > 0 else { return nil }
            let (times, overflow) = value.multipliedReportingOverflow(by: 10)
            let (sum, carry) = times.addingReportingOverflow(UInt64(digit))
            guard !overflow, !carry else { return nil }
            value = sum
            index += 1
        }
        guard index < end, index > start else { return nil }
        return value
    }

    /// A line's bytes.
    func line(_ range: Range<Int>) -> [UInt8] {
        bytes.withUnsafeBytes { Array($0[range]) }
    }

    /// Appends a line's bytes, and a newline, to `output`.
    func append(_ range: Range<Int>, to output: inout ByteBuffer) {
        bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return }
            output.append(
                UnsafeBufferPointer(
                    start: base.assumingMemoryBound(to: UInt8.self) + range.lowerBound,
                    count: range.count))
        }
        output.append(0x0A)
    }

    /// The file's bytes with only `lines` of it (ranges into ``bytes`` and their
    /// line numbers, ascending), each at its own line number — the others left
    /// as empty lines — between the file's first two lines and its last: a
    /// part the loader reads as those objects, and whose errors name the
    /// file's own lines and columns.
    func keeping(_ lines: [(range: Range<Int>, number: Int)], entity: String) -> [UInt8] {
        let header = Self.header(entity: entity)
        var text: [UInt8] = []
        text.reserveCapacity(
            header.count + Self.footer.count + lines.reduce(0) { $0 + $1.range.count + 1 }
                + (lines.last?.number ?? 0))
        text += header
        var next = 3
        bytes.withUnsafeBytes { raw in
            for (range, number) in lines {
                if number > next { text += repeatElement(0x0A, count: number - next) }
                text += raw[range]
                text.append(0x0A)
                next = max(next, number) + 1
            }
        }
        text += Self.footer
        return text
    }
}
