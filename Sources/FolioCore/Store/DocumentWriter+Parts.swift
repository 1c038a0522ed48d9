import Foundation

/// Laying a graph's objects out in part files (docs/FORMAT.md, format 2).
///
/// A full layout cuts each entity's objects, by ascending identifier, into
/// parts of at least ``targetPartBytes`` (the last one of an entity smaller). An incremental one starts from the
/// parts of the committed manifest and rewrites only those holding an object
/// changed since that commit; every other part is kept, file and all. A
/// rewritten part that grew past ``maximumPartBytes`` is cut again as a full
/// layout would cut it; one left empty is dropped. New objects belong to
/// the part their identifier falls in, usually their entity's last.
extension DocumentWriter {
    /// The size a part is cut at: small enough that rewriting one part is a few
    /// milliseconds, large enough that a million objects make a few hundred files.
    static let targetPartBytes = 1 << 19
    /// The size past which a rewritten part is split.
    static let maximumPartBytes = 1 << 20

    /// The part sizes a package is written with: ``targetPartBytes`` and
    /// ``maximumPartBytes``, or (debug builds only) smaller ones a test set for
    /// packages under a folder, so a few objects make many parts.
    static func partSizes(for path: String) -> (target: Int, maximum: Int) {
        #if DEBUG
        partSizeLock.withLock {
            partSizeOverrides.first { path.hasPrefix($0.key) }?.value ?? (targetPartBytes, maximumPartBytes)
        }
        #else
        (targetPartBytes, maximumPartBytes)
        #endif
    }

    #if DEBUG
    /// Makes packages under `folder` use the given part sizes, until called with `nil`.
    /// A test seam, compiled into debug builds only: a release save takes no lock for it.
    static func usePartSizes(_ sizes: (target: Int, maximum: Int)?, under folder: String) {
        partSizeLock.withLock { partSizeOverrides[folder] = sizes }
    }

    private static let partSizeLock = NSLock()
    nonisolated(unsafe) private static var partSizeOverrides: [String: (target: Int, maximum: Int)] = [:]
    #endif

    /// Lays the graph out in parts, calling `emit` with each part to write and its bytes.
    ///
    /// - Parameters:
    ///   - previous: the parts of the committed manifest, `nil` for a full layout.
    ///   - changed: identifiers of objects inserted, updated (both ends of a
    ///     relationship edit) or deleted since that manifest; ignored without `previous`.
    /// - Returns: every part of the new manifest, in entity order then identifier order.
    /// - Complexity: O(objects in rewritten parts + changed identifiers × log parts);
    ///   a full layout, O(objects).
    mutating func layOutParts(
        previous: [PackageManifest.Part]?, changed: Set<UInt64>,
        emit: (PackageManifest.Part, [UInt8]) throws(PackageError) -> Void
    )
        throws(PackageError) -> [PackageManifest.Part]
    {
        let entityCount = graph.layout.entities.count
        var old = [[PackageManifest.Part]](repeating: [], count: entityCount)
        var dirty = [Set<Int>](repeating: [], count: entityCount)
        var rewriteAll = [Bool](repeating: previous == nil, count: entityCount)
        if let previous {
            for part in previous {
                guard let entity = graph.layout.entityIndex[part.entity] else { continue }
                old[entity].append(part)
            }
            for entity in old.indices { old[entity].sort { $0.first < $1.first } }
            for id in changed {
                if let ref = graph.index[id], graph.isLive(ref) {
                    let entity = Int(ref.entity)
                    if old[entity].isEmpty {
                        rewriteAll[entity] = true
                    } else {
                        dirty[entity].insert(PackageManifest.partIndex(of: id, in: old[entity]))
                    }
                } else {
                    // Deleted: whichever entity held it, its part is rewritten (an unchanged
                    // part of another entity rewrites to the same name and is not written).
                    for entity in old.indices where !old[entity].isEmpty {
                        dirty[entity].insert(PackageManifest.partIndex(of: id, in: old[entity]))
                    }
                }
            }
            for entity in old.indices where old[entity].isEmpty && graph.tables[entity].liveCount > 0 { rewriteAll[entity] = true }
        }
        var parts: [PackageManifest.Part] = []
        for entity in 0..<entityCount {
            let table = graph.tables[entity]
            if rewriteAll[entity] {
                try emitParts(
                    entity: entity, rows: rowsInIDOrder(table), cutAt: partSizes.target,
                    into: &parts, emit: emit)
                continue
            }
            guard !dirty[entity].isEmpty else {
                parts += old[entity]
                continue
            }
            let order = RowOrder(table: table, writer: self)
            for (index, part) in old[entity].enumerated() {
                guard dirty[entity].contains(index) else {
                    parts.append(part)
                    continue
                }
                let low = index == 0 ? 0 : part.first
                let high = index + 1 < old[entity].count ? old[entity][index + 1].first - 1 : UInt64.max
                try emitParts(entity: entity, rows: order.rows(in: low...high), cutAt: nil, into: &parts, emit: emit)
            }
        }
        return parts
    }

    /// Writes `rows` (ascending identifiers) as parts: cut whenever a part
    /// reaches `cutAt` bytes, or, without `cutAt`, as one part unless it is
    /// larger than ``maximumPartBytes``, then cut whenever a part reaches
    /// ``targetPartBytes`` (as a full layout cuts the same rows).
    private mutating func emitParts(
        entity: Int, rows: [Int], cutAt: Int?, into parts: inout [PackageManifest.Part],
        emit: (PackageManifest.Part, [UInt8]) throws(PackageError) -> Void
    ) throws(PackageError) {
        guard !rows.isEmpty else { return }
        let table = graph.tables[entity]
        let entityName = graph.layout.entities[entity].name
        var body = ByteBuffer(capacity: (cutAt ?? partSizes.maximum) + 65_536)
        // Where each object's line starts in `body`, to cut it after the fact.
        var starts: [Int] = []
        var firstRow = 0
        func flush(_ bytes: Range<Int>, objects: Range<Int>) throws(PackageError) {
            let firstID = table.ids[rows[objects.lowerBound]], lastID = table.ids[rows[objects.upperBound - 1]]
            var ends = ByteBuffer(capacity: 256)
            DocumentWriter.appendPartHeader(entity: entityName, count: objects.count, to: &ends)
            let headerCount = ends.count
            DocumentWriter.appendPartFooter(to: &ends)
            // The file's bytes made once, straight from the lines: no buffer in between.
            let fileBytes = ends.withUnsafeBytes { ends in
                body.withUnsafeBytes { lines in
                    let lines = UnsafeBufferPointer(rebasing: lines[bytes])
                    return [UInt8](unsafeUninitializedCapacity: ends.count + lines.count) { file, count in
                        _ = file.initialize(from: ends[..<headerCount])
                        _ = UnsafeMutableBufferPointer(rebasing: file[headerCount...]).initialize(from: lines)
                        _ = UnsafeMutableBufferPointer(rebasing: file[(headerCount + lines.count)...])
                            .initialize(from: ends[headerCount...])
                        count = ends.count + lines.count
                    }
                }
            }
            let part = PackageManifest.Part(
                entity: entityName, first: firstID, last: lastID, count: objects.count,
                file: PackageManifest.partFileName(entity: entityName, first: firstID, bytes: fileBytes))
            try emit(part, fileBytes)
            parts.append(part)
        }
        let plan = plan(entity: entity)
        for (position, row) in rows.enumerated() {
            starts.append(body.count)
            try appendObject(row: row, plan: plan, to: &body)
            if let cutAt, body.count >= cutAt {
                try flush(0..<body.count, objects: firstRow..<(position + 1))
                body.removeAll()
                starts.removeAll(keepingCapacity: true)
                firstRow = position + 1
            }
        }
        guard firstRow < rows.count else { return }
        let size = body.count
        guard cutAt == nil, size > partSizes.maximum else {
            try flush(0..<size, objects: firstRow..<rows.count)
            return
        }
        // Cut as a full layout cuts these rows: whenever a part reaches the target.
        var pieceStart = 0
        for end in 1...starts.count {
            let endByte = end < starts.count ? starts[end] : size
            guard endByte - starts[pieceStart] >= partSizes.target || end == starts.count else { continue }
            try flush(starts[pieceStart]..<endByte, objects: pieceStart..<end)
            pieceStart = end
        }
    }
}

/// An entity's live rows by identifier, for finding the rows of one part's range.
struct RowOrder {
    let table: EntityTable
    /// Live rows in identifier order, when the table's rows are not already in it.
    let sorted: [Int]?

    init(table: EntityTable, writer: DocumentWriter) {
        self.table = table
        let ids = table.ids
        let ascending = ids.withUnsafeBufferPointer { buffer -> Bool in
            var index = 1
            while index < buffer.count {
                if buffer[index - 1] >= buffer[index] { return false }
                index += 1
            }
            return true
        }
        sorted = ascending ? nil : writer.rowsInIDOrder(table)
    }

    /// The live rows whose identifiers lie in `range`, ascending. O(log rows + result).
    func rows(in range: ClosedRange<UInt64>) -> [Int] {
        let count = sorted?.count ?? table.rowCount
        let id = { (position: Int) -> UInt64 in self.table.ids[self.sorted?[position] ?? position] }
        func lowerBound(_ value: UInt64) -> Int {
            var low = 0, high = count
            while low < high {
                let middle = (low + high) / 2
                if id(middle) < value { low = middle + 1 } else { high = middle }
            }
            return low
        }
        let start = lowerBound(range.lowerBound)
        let end = range.upperBound == .max ? count : lowerBound(range.upperBound + 1)
        guard start < end else { return [] }
        return (start..<end).compactMap { position in
            let row = sorted?[position] ?? position
            return table.isLive[row] ? row : nil
        }
    }
}
