import Foundation

/// A document's history: every save's ``StoredTransaction``, listed by the
/// manifest (docs/FORMAT.md, "History").
///
/// A save appends its transaction to the open tail, which the manifest holds
/// itself: recording a save adds no file to write or sync, and the manifest
/// is written by every save anyway, so the history commits with the objects
/// (a crash keeps both or neither). Once the tail passes ``segmentBytes`` it
/// is closed into a segment file under `history/`, named by its content and
/// never written again. So a save costs the tail's size at most (about
/// 64 KiB, less than a millisecond to write), whatever the length of the
/// history, and only one save in 64 KiB of history writes a segment file.
///
/// A log read from a package knows its closed segments by file only; their
/// transactions are read when first asked for (``transactions(in:limits:)``).
/// The tail is read with the manifest.
struct HistoryLog: Equatable, Sendable {
    struct Segment: Equatable, Sendable {
        var first: Int64
        var last: Int64
        var count: Int
        /// `FIRST-HASH.xml` under `history/`.
        var file: String
        /// The file's bytes, while a write may still have to put them on disk.
        var bytes: [UInt8]?
        /// The transactions, once read or appended here.
        var transactions: [StoredTransaction]?
    }

    /// The number the next transaction gets: numbers are never reused, even
    /// once their transactions are deleted, so a token stays meaningful.
    var nextNumber: Int64 = 1
    /// The closed segments, oldest first.
    var segments: [Segment] = []
    /// Every identifier the history names is below this: the `next-id` of the
    /// manifest the log was read from, raised by each transaction appended
    /// since (a segment file read later must name no identifier above it).
    /// `.max` for a log made in memory, or read from a manifest with no `next-id`.
    var identifierCeiling: UInt64 = .max
    /// The latest transactions, after every segment's: the manifest holds them.
    private(set) var tail: [StoredTransaction] = []
    /// The tail's `<transaction>` elements as the manifest writes them, kept as
    /// transactions are appended so a save does not encode the tail again.
    private(set) var tailElements: [UInt8] = []

    /// Replaces the tail (read from a manifest, or left by a removal).
    mutating func setTail(_ transactions: [StoredTransaction]) {
        tail = transactions
        var buffer = ByteBuffer()
        for transaction in transactions { transaction.append(to: &buffer, nested: true) }
        tailElements = buffer.bytes
    }

    static let folderName = "history"
    /// The size past which a segment is closed to new transactions.
    static let segmentBytes = 1 << 16
    private static let header: StaticString = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<history>\n"
    private static let footer: StaticString = "</history>\n"

    /// Whether a transaction this log holds in memory names an identifier in
    /// `lane` (a new writer does not draw it). O(transactions in memory × their runs).
    func namesLane(_ lane: UInt64) -> Bool {
        let held = tail + segments.flatMap { $0.transactions ?? [] }
        return held.contains { transaction in
            let lists = transaction.inserted.map(\.ids) + transaction.updated.map(\.ids) + transaction.deleted.map(\.ids)
            return lists.contains { ids in ids.runs.contains { $0.lowerBound >> 32 <= lane && lane <= $0.upperBound >> 32 } }
        }
    }

    /// Whether the log has never recorded anything (nothing to list in a manifest).
    var isPristine: Bool { nextNumber == 1 && segments.isEmpty && tail.isEmpty }

    /// Records a save: numbers `transaction` and appends it to the tail,
    /// closing the tail into a segment once it passes ``segmentBytes``.
    ///
    /// - Returns: the number given.
    /// - Complexity: O(size of the transaction), and O(size of the tail) when it closes.
    @discardableResult
    mutating func append(_ transaction: StoredTransaction) -> Int64 {
        var transaction = transaction
        transaction.number = nextNumber
        nextNumber += 1
        if let last = transaction.largestIdentifier, last >= identifierCeiling { identifierCeiling = last + 1 }
        var buffer = ByteBuffer()
        transaction.append(to: &buffer, nested: true)
        tail.append(transaction)
        tailElements += buffer.bytes
        if tailElements.count >= Self.segmentBytes, let first = tail.first {
            segments.append(Self.sealed(Segment(first: first.number, last: transaction.number, count: tail.count, file: "",
                                                transactions: tail)))
            setTail([])
        }
        return transaction.number
    }

    /// Removes the transactions `shouldRemove` selects, rewriting the segments
    /// that held them (a segment left empty is dropped). Every segment's
    /// transactions are read.
    ///
    /// - Returns: how many transactions were removed.
    /// - Throws: ``PackageError`` when a segment cannot be read; nothing is removed then.
    mutating func remove(where shouldRemove: (StoredTransaction) -> Bool, in package: PackageFolder?,
                         limits: DocumentLimits) throws(PackageError) -> Int {
        var kept: [Segment] = []
        var removed = 0
        for segment in segments {
            let transactions = try Self.load(segment, in: package, limits: limits, ceiling: identifierCeiling)
            let remaining = transactions.filter { !shouldRemove($0) }
            removed += transactions.count - remaining.count
            guard remaining.count != transactions.count else {
                kept.append(segment)
                continue
            }
            guard let first = remaining.first, let last = remaining.last else { continue }
            kept.append(Self.sealed(Segment(first: first.number, last: last.number, count: remaining.count, file: "",
                                            transactions: remaining)))
        }
        segments = kept
        let remainingTail = tail.filter { !shouldRemove($0) }
        removed += tail.count - remainingTail.count
        if remainingTail.count != tail.count { setTail(remainingTail) }
        return removed
    }

    /// Every transaction, oldest first, reading the segments not yet read.
    ///
    /// - Throws: ``PackageError`` for a segment file that is missing or damaged.
    func transactions(in package: PackageFolder?, limits: DocumentLimits) throws(PackageError) -> [StoredTransaction] {
        var all: [StoredTransaction] = []
        for segment in segments { all += try Self.load(segment, in: package, limits: limits, ceiling: identifierCeiling) }
        return all + tail
    }

    /// Forgets what a write put on disk: the bytes of the segments written,
    /// and the transactions of every full segment (read again if asked for).
    mutating func didWrite(_ written: HistoryLog) {
        let files = Set(written.segments.map(\.file))
        for index in segments.indices where files.contains(segments[index].file) {
            segments[index].bytes = nil
            if index < segments.count - 1 { segments[index].transactions = nil }
        }
    }

    // MARK: Segment files

    /// A segment with its bytes and content-addressed name made from its transactions.
    private static func sealed(_ segment: Segment) -> Segment {
        var segment = segment
        let bytes = encode(segment.transactions ?? [])
        var hasher = ContentHasher()
        hasher.update(bytes)
        let hex = String(hasher.finalize(), radix: 16)
        segment.file = "\(segment.first)-\(String(repeating: "0", count: 16 - hex.count))\(hex).xml"
        segment.bytes = bytes
        return segment
    }

    /// A segment file's bytes.
    static func encode(_ transactions: [StoredTransaction]) -> [UInt8] {
        var buffer = ByteBuffer()
        buffer.append(header)
        for transaction in transactions { transaction.append(to: &buffer) }
        buffer.append(footer)
        return buffer.bytes
    }

    /// A segment's transactions: those in memory, or read from its file.
    private static func load(_ segment: Segment, in package: PackageFolder?, limits: DocumentLimits,
                             ceiling: UInt64) throws(PackageError) -> [StoredTransaction] {
        if let transactions = segment.transactions { return transactions }
        guard let package else { return [] }
        let item = package.item(segment.file, in: folderName)
        let path = item.path
        let loader = DocumentLoader(file: path, mode: .history, limits: limits)
        loader.historyIdentifierCeiling = ceiling
        try loader.parse(item)
        let transactions = loader.historyTransactions
        guard transactions.count == segment.count, transactions.first?.number == segment.first,
              transactions.last?.number == segment.last else {
            throw .unexpectedContent(PackageError.Location(file: path, line: 0, column: 0),
                                     found: "\(transactions.count) transactions",
                                     expected: "\(segment.count) transactions numbered \(segment.first) to \(segment.last), as the manifest lists")
        }
        return transactions
    }

    /// Whether a name is one ``sealed(_:)`` produces: only such files are ever
    /// removed from `history/`, and a manifest naming anything else is refused.
    static func isSegmentFileName(_ name: String) -> Bool {
        guard FileIO.isSafeBlobName(name), name.hasSuffix(".xml") else { return false }
        let stem = name.utf8.dropLast(4)
        guard let dash = stem.firstIndex(of: UInt8(ascii: "-")) else { return false }
        let number = stem[..<dash], hash = stem[stem.index(after: dash)...]
        return !number.isEmpty && number.allSatisfy { (0x30...0x39).contains($0) }
            && hash.count == 16 && hash.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// Whether an entry of `history/` is one Folio writes: a segment file or its temporary.
    static func isOwnEntry(_ name: String) -> Bool {
        if isSegmentFileName(name) { return true }
        guard name.hasPrefix("."), name.hasSuffix(".tmp") else { return false }
        return isSegmentFileName(String(name.dropFirst().dropLast(4)))
    }
}
