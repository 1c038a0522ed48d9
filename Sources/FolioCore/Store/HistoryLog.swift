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
        /// A format-3 history file (found by listing `history/`, or written so):
        /// nothing lists its range and count, so they are not checked when it is read.
        var isListed = false
    }

    /// Format 3 (docs/FORMAT.md, "History"): each writer appends to files of
    /// its own, `history/LANE-NNNNNNNN.xml`, found by listing the folder, so
    /// two branches' histories are a union of files Git never conflicts on.
    /// `nil` for a format-2 log (the manifest lists segments and holds the tail).
    struct Files: Equatable, Sendable {
        /// This writer's lane, drawn at its first transaction.
        var lane: UInt64?
        /// The number of the file the tail is written to.
        var tailNumber = 1
        /// Whether the tail changed since it was last written.
        var tailChanged = false
    }

    /// The format-3 layout, once the log is in it.
    var files: Files?

    /// The heads of the history (``heads(of:)``) the next transaction appended
    /// names as its parents, once ``learnHeads(in:limits:schema:recordingMerge:cache:)``
    /// read them; each append then makes itself the one head. `nil`: not
    /// known (a log read and not yet learned, or whose files did not read):
    /// transactions are appended without parents, as before Folio recorded them.
    var heads: [Int64]?

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
    /// Saves' transactions not built yet, oldest first, each with the time of
    /// its save (what numbers it in format 3): recorded, in order, before
    /// the log is read or written (``recordPending(in:limits:schema:cache:)``).
    var pending: [Pending] = []

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
    /// `lane` (a new writer does not draw it), pending ones built. O(transactions in memory × their runs).
    func namesLane(_ lane: UInt64) -> Bool {
        let held = tail + segments.flatMap { $0.transactions ?? [] } + pending.compactMap(\.transaction.transaction)
        return held.contains { transaction in
            let lists = transaction.inserted.map(\.ids) + transaction.updated.map(\.ids) + transaction.deleted.map(\.ids)
            return lists.contains { ids in ids.runs.contains { $0.lowerBound >> 32 <= lane && lane <= $0.upperBound >> 32 } }
        }
    }

    /// Whether the log has never recorded anything (nothing to list in a manifest).
    var isPristine: Bool { nextNumber == 1 && segments.isEmpty && tail.isEmpty && pending.isEmpty }

    /// Records a save: numbers `transaction` and appends it to the tail,
    /// closing the tail into a segment once it passes ``segmentBytes``.
    ///
    /// - Returns: the number given.
    /// - Complexity: O(size of the transaction), and O(size of the tail) when it closes.
    /// - Parameter clock: the time of the save, in milliseconds since 1970
    ///   (format 3 numbers by it); `nil`: now.
    @discardableResult
    mutating func append(_ transaction: StoredTransaction, clock: Int64? = nil) -> Int64 {
        if files != nil {
            var transaction = transaction
            transaction.parents = heads
            let number = appendToFile(transaction, clock: clock)
            if heads != nil { heads = [number] }
            return number
        }
        var transaction = transaction
        transaction.number = nextNumber
        nextNumber += 1
        if let last = transaction.largestIdentifier, last >= identifierCeiling { identifierCeiling = last + 1 }
        var buffer = ByteBuffer()
        transaction.append(to: &buffer, nested: true)
        tail.append(transaction)
        tailElements += buffer.bytes
        if tailElements.count >= Self.segmentBytes, let first = tail.first {
            segments.append(
                Self.sealed(
                    Segment(
                        first: first.number, last: transaction.number, count: tail.count, file: "",
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
    mutating func remove(
        where shouldRemove: (StoredTransaction) -> Bool, in package: PackageFolder?,
        limits: DocumentLimits, schema: Schema?
    ) throws(PackageError) -> Int {
        var removed = 0
        try rewrite(in: package, limits: limits, schema: schema, skippingUnreadable: false) { transactions in
            let remaining = transactions.filter { !shouldRemove($0) }
            removed += transactions.count - remaining.count
            return remaining
        }
        return removed
    }

    /// Renames what the history names after a migration: each transaction as
    /// ``StoredTransaction/renamed(entity:property:)`` makes it, in every segment
    /// (read now) and the tail; the files that change are written by the next
    /// save. A segment that cannot be read is left as it is (a damaged history
    /// never stops an open or a save; reading it fails as before).
    mutating func rename(
        in package: PackageFolder?, limits: DocumentLimits, storedSchema: Schema,
        entity: (String) -> String?, property: (_ name: String, _ entity: String) -> String?
    ) {
        try? rewrite(in: package, limits: limits, schema: storedSchema, skippingUnreadable: true) { transactions in
            transactions.map { $0.renamed(entity: entity, property: property) }
        }
    }

    /// Replaces each segment's transactions, and the tail's, by what `transform`
    /// makes of them: a segment that changes is rewritten (format 3: under its
    /// name, emptied even, so Git sees an edit, never a removal; format 2:
    /// sealed under a new name, or dropped when left empty).
    ///
    /// - Throws: ``PackageError`` when a segment cannot be read, unless
    ///   `skippingUnreadable` (it is then kept as it is); nothing changes then.
    private mutating func rewrite(
        in package: PackageFolder?, limits: DocumentLimits, schema: Schema?, skippingUnreadable: Bool,
        _ transform: ([StoredTransaction]) -> [StoredTransaction]
    ) throws(PackageError) {
        var kept: [Segment] = []
        for segment in segments {
            let transactions: [StoredTransaction]
            do {
                transactions = try Self.load(segment, in: package, limits: limits, ceiling: identifierCeiling, schema: schema)
            } catch {
                guard skippingUnreadable else { throw error }
                kept.append(segment)
                continue
            }
            let rewritten = transform(transactions)
            guard rewritten != transactions else {
                kept.append(segment)
                continue
            }
            if files != nil {
                kept.append(
                    Segment(
                        first: rewritten.first?.number ?? 0, last: rewritten.last?.number ?? 0,
                        count: rewritten.count, file: segment.file, bytes: Self.encode(rewritten),
                        transactions: rewritten, isListed: true))
                continue
            }
            guard let first = rewritten.first, let last = rewritten.last else { continue }
            kept.append(
                Self.sealed(
                    Segment(
                        first: first.number, last: last.number, count: rewritten.count, file: "",
                        transactions: rewritten)))
        }
        segments = kept
        let rewrittenTail = transform(tail)
        if rewrittenTail != tail {
            setTail(rewrittenTail)
            files?.tailChanged = true
        }
    }

    /// Every transaction, oldest first, reading the segments not yet read.
    ///
    /// - Throws: ``PackageError`` for a segment file that is missing or damaged.
    /// - Parameter schema: the schema the files read must name only what it
    ///   declares (the document's, as on disk); `nil`: not checked.
    ///
    /// A format-3 history that branched (a Git merge united two branches'
    /// files: ``heads(of:)`` finds more than one head) reads with the
    /// transaction that merges them last (``merge(of:schema:)``), until a save
    /// persists it; a transaction two branches both persisted reads once.
    func transactions(in package: PackageFolder?, limits: DocumentLimits, schema: Schema?) throws(PackageError) -> [StoredTransaction] {
        let stored = try storedTransactions(in: package, limits: limits, schema: schema)
        guard files != nil, let merge = Self.merge(of: stored, schema: schema) else { return stored }
        return stored + [merge]
    }

    /// Every transaction the files and the tail hold, oldest first (in format
    /// 3, by number, duplicates dropped), without a merge made up.
    ///
    /// - Throws: ``PackageError`` for a segment file that is missing or damaged.
    func storedTransactions(in package: PackageFolder?, limits: DocumentLimits, schema: Schema?) throws(PackageError) -> [StoredTransaction] {
        var all: [StoredTransaction] = []
        for segment in segments {
            all += try Self.load(segment, in: package, limits: limits, ceiling: identifierCeiling, schema: schema)
        }
        guard files != nil else { return all + tail }
        // Several writers' files: their transactions interleave by number (a time, see appendToFile).
        return Self.withoutDuplicates((all + tail).sorted { $0.number < $1.number })
    }

    /// Reads the whole history once, so the transactions appended from now on
    /// name its heads as their parents (``heads``), and numbers them above
    /// every transaction read. With `recordingMerge`, a history that branched
    /// gets its merge transaction (``merge(of:schema:)``) appended first, under
    /// its own number, so the next write persists it; it is returned. A store
    /// calls this before its first append (and after taking in another
    /// writer's history); a package merge, whose own transaction merges the
    /// branches, without `recordingMerge`.
    ///
    /// Nothing is learned for a format-2 log (its transactions follow each
    /// other by number), nor when a file does not read: a damaged history never
    /// stops a save, whose transactions are then appended without parents.
    ///
    /// - Complexity: a read of every history file `cache` does not hold as it
    ///   is now: O(bytes of history) the first time; then O(files) to stat them
    ///   and the bytes of those that changed. A history that branched is read
    ///   whole again, for the merge's changes.
    mutating func learnHeads(
        in package: PackageFolder?, limits: DocumentLimits, schema: Schema?, recordingMerge: Bool,
        cache: inout HeadsCache
    ) -> StoredTransaction? {
        guard files != nil, heads == nil, let links = links(in: package, limits: limits, schema: schema, cache: &cache) else {
            return nil
        }
        if let last = links.last?.number { nextNumber = max(nextNumber, last == .max ? .max : last + 1) }
        let found = Self.heads(of: links)
        // Branched: the merge needs the changes, which the cache does not keep; read again (rare: once per union).
        guard recordingMerge, found.count > 1 else {
            heads = found
            return nil
        }
        guard let stored = try? storedTransactions(in: package, limits: limits, schema: schema),
            let merge = Self.merge(of: stored, schema: schema)
        else { return nil }
        appendToFile(merge, keepingNumber: true)
        heads = [merge.number]
        return merge
    }

    /// What ``learnHeads(in:limits:schema:recordingMerge:cache:)`` keeps of the
    /// history files it read, by name: each file's stamp (identity, change time
    /// and size: a writer replaces a file, never edits it) and its transactions'
    /// numbers and parents. A store keeps it across the histories it takes in,
    /// so learning the heads again after another writer's save reads only the
    /// files that changed.
    struct HeadsCache: Sendable {
        fileprivate var files: [String: (stamp: CommitStamp, size: Int, links: [Link])] = [:]
    }

    /// A transaction's number and parents: what heads are found from.
    struct Link: Equatable, Sendable {
        var number: Int64
        var parents: [Int64]?
    }

    /// Every transaction's ``Link``, ascending, duplicates (by number and
    /// parents) kept once: from memory, the cache, or the files (a file that
    /// does not read: `nil`).
    private func links(
        in package: PackageFolder?, limits: DocumentLimits, schema: Schema?,
        cache: inout HeadsCache
    ) -> [Link]? {
        var all: [Link] = []
        for segment in segments {
            if let transactions = segment.transactions {
                all += transactions.map { Link(number: $0.number, parents: $0.parents) }
                continue
            }
            guard let package else { continue }
            let path = package.item(segment.file, in: Self.folderName).path
            let stamp = FileIO.commitStamp(path), size = FileIO.status(path)?.size ?? -1
            if let stamp, let cached = cache.files[segment.file], cached.stamp == stamp, cached.size == size {
                all += cached.links
                continue
            }
            guard let read = try? Self.load(segment, in: package, limits: limits, ceiling: identifierCeiling, schema: schema) else {
                return nil
            }
            let links = read.map { Link(number: $0.number, parents: $0.parents) }
            if let stamp { cache.files[segment.file] = (stamp, size, links) }
            all += links
        }
        all += tail.map { Link(number: $0.number, parents: $0.parents) }
        all.sort { $0.number < $1.number }
        var result: [Link] = []
        for link in all where !result.reversed().prefix(while: { $0.number == link.number }).contains(link) { result.append(link) }
        return result
    }

    // MARK: Format 3

    /// A format-3 log of the history files `names` lists (their transactions
    /// read when first asked for).
    static func listing(_ names: [String]) -> HistoryLog {
        var log = HistoryLog()
        log.files = Files()
        log.segments = names.filter { PackageLayout.history(ofFileName: $0) != nil }.sorted().map {
            Segment(first: 0, last: 0, count: 0, file: $0, isListed: true)
        }
        return log
    }

    /// Brings a format-2 log into the format-3 layout: every transaction it
    /// holds (its segments read now; one that cannot be read is left out, as a
    /// damaged history never stops a save) goes into lane-0 files, written by
    /// the next save, which removes the format-2 segment files.
    mutating func adoptFileLayout(in package: PackageFolder?, limits: DocumentLimits) {
        guard files == nil else { return }
        var all: [StoredTransaction] = []
        for segment in segments {
            if let read = try? Self.load(segment, in: package, limits: limits, ceiling: identifierCeiling, schema: nil) {
                all += read
            }
        }
        all += tail
        var converted = HistoryLog(nextNumber: nextNumber)
        converted.files = Files()
        var chunk: [StoredTransaction] = []
        var size = 0
        func seal() {
            guard let first = chunk.first, let last = chunk.last else { return }
            let file = PackageLayout.historyFileName(lane: 0, number: converted.segments.count + 1)
            converted.segments.append(
                Segment(
                    first: first.number, last: last.number, count: chunk.count, file: file,
                    bytes: Self.encode(chunk), transactions: chunk, isListed: true))
            chunk = []
            size = 0
        }
        for transaction in all {
            var buffer = ByteBuffer()
            transaction.append(to: &buffer)
            chunk.append(transaction)
            size += buffer.count
            if size >= Self.segmentBytes { seal() }
        }
        seal()
        self = converted
    }

    /// Appends to this writer's own file: the transaction is numbered by the
    /// time (milliseconds since 1970 << 20, low bits from the lane), never
    /// below a number this log gave or read, so numbers from different
    /// writers ascend with time and do not collide; the tail file is rewritten
    /// by the next save and closed once it passes ``segmentBytes``.
    @discardableResult
    private mutating func appendToFile(_ transaction: StoredTransaction, keepingNumber: Bool = false, clock milliseconds: Int64? = nil) -> Int64 {
        var layout = files ?? Files()
        let lane: UInt64
        if let drawn = layout.lane {
            lane = drawn
        } else {
            let used = Set(segments.compactMap { PackageLayout.history(ofFileName: $0.file)?.lane })
            var candidate = UInt64.random(in: IdentifierAllocator.lanes)
            while used.contains(candidate) { candidate = UInt64.random(in: IdentifierAllocator.lanes) }
            lane = candidate
            layout.lane = lane
        }
        let clock = (milliseconds ?? Self.clockMilliseconds()) << 20 | Int64(lane & 0xF_FFFF)
        var transaction = transaction
        // A merge transaction keeps the number every reader of the history gives it.
        if !keepingNumber { transaction.number = max(nextNumber, clock) }
        // Past the last number (only a format-2 history could have come near it) numbers stop growing.
        nextNumber = transaction.number == .max ? .max : transaction.number + 1
        var buffer = ByteBuffer()
        transaction.append(to: &buffer, nested: true)
        tail.append(transaction)
        tailElements += buffer.bytes
        layout.tailChanged = true
        if tailElements.count >= Self.segmentBytes, let first = tail.first {
            segments.append(
                Segment(
                    first: first.number, last: transaction.number, count: tail.count,
                    file: PackageLayout.historyFileName(lane: lane, number: layout.tailNumber),
                    bytes: Self.encode(tail), transactions: tail, isListed: true))
            layout.tailNumber += 1
            layout.tailChanged = false
            setTail([])
        }
        files = layout
        return transaction.number
    }

    /// The time now, in milliseconds since 1970.
    static func clockMilliseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
    }

    /// The format-3 files a save must write: new or rewritten ones, and the
    /// tail's file when it changed.
    var filesToWrite: [(name: String, bytes: [UInt8])] {
        assert(pending.isEmpty, "a log is written with its pending transactions recorded")
        guard let files else { return [] }
        var result = segments.compactMap { segment in segment.bytes.map { (segment.file, $0) } }
        if files.tailChanged, let lane = files.lane {
            result.append((PackageLayout.historyFileName(lane: lane, number: files.tailNumber), Self.encode(tail)))
        }
        return result
    }

    /// The names of every format-3 file this log holds (written or to be).
    var fileNames: Set<String> {
        var names = Set(segments.map(\.file))
        if let files, let lane = files.lane, files.tailChanged || !tail.isEmpty {
            names.insert(PackageLayout.historyFileName(lane: lane, number: files.tailNumber))
        }
        return names
    }

    /// Empties the log (every file is written empty by the next save); its numbering goes on.
    mutating func removeAll() {
        guard files != nil else {
            self = HistoryLog(nextNumber: nextNumber)
            return
        }
        for index in segments.indices {
            segments[index].transactions = []
            segments[index].bytes = Self.encode([])
            segments[index].count = 0
        }
        if !tail.isEmpty { files?.tailChanged = true }
        setTail([])
    }

    /// Forgets what a write put on disk: the bytes of the segments written,
    /// and the transactions of every full segment (read again if asked for).
    mutating func didWrite(_ written: HistoryLog) {
        let names = Set(written.segments.map(\.file))
        for index in segments.indices where names.contains(segments[index].file) {
            segments[index].bytes = nil
            if index < segments.count - 1 { segments[index].transactions = nil }
        }
        // The tail as written is on disk, unless more was appended since.
        if let layout = files, let writtenLayout = written.files, layout.tailNumber == writtenLayout.tailNumber,
            tail.count == written.tail.count
        {
            files?.tailChanged = false
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
    private static func load(
        _ segment: Segment, in package: PackageFolder?, limits: DocumentLimits,
        ceiling: UInt64, schema: Schema?
    ) throws(PackageError) -> [StoredTransaction] {
        if let transactions = segment.transactions { return transactions }
        guard let package else { return [] }
        let item = package.item(segment.file, in: folderName)
        let path = item.path
        let loader = DocumentLoader(file: path, mode: .history, limits: limits)
        loader.historyIdentifierCeiling = ceiling
        loader.historySchema = schema
        try loader.parse(item)
        let transactions = loader.historyTransactions
        if segment.isListed { return transactions }
        guard transactions.count == segment.count, transactions.first?.number == segment.first,
            transactions.last?.number == segment.last
        else {
            throw .unexpectedContent(
                PackageError.Location(file: path, line: 0, column: 0),
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

    /// Whether an entry of `history/` is one Folio writes: a segment file of
    /// format 2 or 3, or its temporary.
    static func isOwnEntry(_ name: String) -> Bool {
        if isSegmentFileName(name) || PackageLayout.history(ofFileName: name) != nil { return true }
        guard name.hasPrefix("."), name.hasSuffix(".tmp") else { return false }
        let stem = String(name.dropFirst().dropLast(4))
        return isSegmentFileName(stem) || PackageLayout.history(ofFileName: stem) != nil
    }
}
