/// Reads what ``JournalBytesWriter`` wrote, refusing whatever it could not
/// have written: every read is bounded by the bytes left, so a damaged or
/// hostile journal ends in ``UndoJournalError/damaged(_:)``, never a crash
/// or an allocation larger than the file.
struct JournalBytesReader {
    private let bytes: [UInt8]
    private(set) var offset: Int
    private let end: Int

    init(_ bytes: [UInt8], from offset: Int = 0, to end: Int? = nil) {
        self.bytes = bytes
        self.offset = offset
        self.end = min(end ?? bytes.count, bytes.count)
    }

    var isAtEnd: Bool { offset >= end }
    var remaining: Int { max(0, end - offset) }

    func damaged(_ what: String) -> UndoJournalError { .damaged("\(what) at byte \(offset)") }

    mutating func byte() throws(UndoJournalError) -> UInt8 {
        guard offset < end else { throw damaged("unexpected end") }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func uint64() throws(UndoJournalError) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let byte = try byte()
            // A tenth byte may carry only the top bit; more is not a 64-bit number.
            guard shift < 64, shift < 63 || byte <= 1 else { throw damaged("number too large") }
            result |= UInt64(byte & 0x7f) << shift
            if byte & 0x80 == 0 { return result }
            shift += 7
        }
    }

    /// A count, index or slot, at most `limit`.
    mutating func int(atMost limit: Int) throws(UndoJournalError) -> Int {
        let value = try uint64()
        guard limit >= 0, value <= UInt64(limit) else { throw damaged("number \(value) above \(limit)") }
        return Int(value)
    }

    /// The number of elements that follow, each at least `minimumSize` bytes:
    /// a count the rest of the file cannot hold is refused before anything is allocated.
    mutating func count(minimumSize: Int = 1) throws(UndoJournalError) -> Int {
        try int(atMost: remaining / max(1, minimumSize))
    }

    mutating func bool() throws(UndoJournalError) -> Bool {
        switch try byte() {
        case 0: return false
        case 1: return true
        default: throw damaged("not a truth value")
        }
    }

    mutating func string() throws(UndoJournalError) -> String {
        let count = try count()
        defer { offset += count }
        guard let text = String(validating: bytes[offset..<offset + count], as: UTF8.self) else {
            throw damaged("text that is not UTF-8")
        }
        return text
    }

    mutating func fixed() throws(UndoJournalError) -> UInt64 {
        guard remaining >= 8 else { throw damaged("unexpected end") }
        var value: UInt64 = 0
        for index in 0..<8 { value |= UInt64(bytes[offset + index]) << UInt64(8 * index) }
        offset += 8
        return value
    }

    mutating func raw(_ count: Int) throws(UndoJournalError) -> ArraySlice<UInt8> {
        guard remaining >= count else { throw damaged("unexpected end") }
        defer { offset += count }
        return bytes[offset..<offset + count]
    }
}
