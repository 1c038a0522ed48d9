import CLibXML2
import Dispatch
import Foundation

/// Reading a format-2 package: the part files a manifest lists are parsed
/// concurrently, each by its own loader into a graph of its own, then their
/// columns are appended, part after part, to this loader's graph, whose links
/// are then resolved as for a single document.
extension DocumentLoader {
    /// Reads every part this loader's manifest lists from `folder`, on every core.
    ///
    /// The first failing part in manifest order decides the error, so a damaged
    /// package always reports the same thing; its location names the part file.
    ///
    /// - Throws: ``PackageError``.
    /// - Complexity: O(bytes of the parts + objects), spread over the cores.
    func loadParts(folder: String) throws(PackageError) {
        guard let graph, let schema else { return }
        let manifestLocation = PackageError.Location(file: file, line: 0, column: 0)
        // Parts of one entity must ascend and not overlap: the partition a save relies on.
        var byEntity = [[Int]](repeating: [], count: graph.layout.entities.count)
        var files = Set<String>()
        for (index, part) in parts.enumerated() {
            guard let entity = graph.layout.entityIndex[part.entity] else { throw .unknownEntity(manifestLocation, name: part.entity) }
            if let previous = byEntity[entity].last, parts[previous].last >= part.first {
                throw .unexpectedContent(manifestLocation, found: "part \(part.file) overlapping or before \(parts[previous].file)",
                                         expected: "the parts of an entity by ascending, disjoint identifier ranges")
            }
            guard files.insert(part.file).inserted else {
                throw .unexpectedContent(manifestLocation, found: "part \(part.file) listed twice", expected: "each part once")
            }
            byEntity[entity].append(index)
        }
        if !parts.isEmpty, !FileIO.isDirectory(folder) {
            // Not followed when a link: every file read is inside the package.
            throw FileIO.status(folder).map { .notARegularFile(path: folder, kind: $0.kind) }
                ?? .io(path: folder, operation: "open folder", code: ENOENT, message: String(cString: strerror(ENOENT)))
        }
        xmlInitParser()
        let loaders = parts.map { DocumentLoader(file: folder + "/" + $0.file, part: $0, schema: schema, limits: limits) }
        let results = ParseResults(count: loaders.count)
        // Each loader is touched by exactly one iteration, and read here only once all are done.
        nonisolated(unsafe) let shared = loaders
        DispatchQueue.concurrentPerform(iterations: loaders.count) { index in
            let loader = shared[index]
            do throws(PackageError) { try loader.parse(path: loader.file) } catch { results.set(error, at: index) }
        }
        if let error = results.firstError() { throw error }
        try combine(loaders, byEntity: byEntity)
        finishIdentifiers()
        if let error { throw error }
    }

    /// Appends each part's rows, columns and raw links to this loader's graph, in
    /// entity order then part order (so rows ascend by identifier).
    private func combine(_ loaders: [DocumentLoader], byEntity: [[Int]]) throws(PackageError) {
        guard let graph else { return }
        var total = 0, combined = 0
        rowFiles = Array(repeating: [], count: graph.layout.entities.count)
        for (entity, indices) in byEntity.enumerated() {
            let table = graph.tables[entity]
            let state = states[entity]
            let count = indices.reduce(0) { $0 + loaders[$1].objectCount }
            total += count
            reserve(count, entity: entity)
            graph.index.reserveCapacity(total + 1)
            let layout = graph.layout.entities[entity]
            for index in indices {
                let source = loaders[index]
                guard let sourceGraph = source.graph else { continue }
                let sourceTable = sourceGraph.tables[entity]
                let sourceState = source.states[entity]
                let base = table.rowCount
                rowFiles[entity].append((base, source.file))
                for row in 0..<sourceTable.rowCount {
                    let id = sourceTable.ids[row]
                    if graph.index[id] != nil {
                        throw .invalidIdentifier(source.objectLocation(entity: entity, row: row), entity: layout.name,
                                                 id: "\(id) (an identifier another part also holds)")
                    }
                    _ = graph.appendObject(id: id, entity: entity)
                }
                for (column, sourceColumn) in zip(table.columns, sourceTable.columns) { column.append(contentsOf: sourceColumn) }
                for slot in 0..<layout.declaredLinkCount {
                    if state.linkIsToMany[slot] {
                        state.rawMany[slot].append(contentsOf: sourceState.rawMany[slot])
                    } else {
                        state.rawOne[slot].append(contentsOf: sourceState.rawOne[slot])
                    }
                    guard state.linkIsOptional[slot] else { continue }
                    let sourceLinks = sourceTable.links[slot]
                    for row in 0..<sourceTable.rowCount where !sourceLinks.isAbsent(row) {
                        table.links[slot].setAbsent(false, row: base + row)
                    }
                }
                state.lines.append(contentsOf: sourceState.lines)
                state.columns.append(contentsOf: sourceState.columns)
                for blob in source.pendingBlobs {
                    pendingBlobs.append((ObjectRef(entity: entity, row: base + Int(blob.ref.row)), blob.attribute, blob.name))
                }
                // Appended: its memory goes now, so the whole document is not held twice.
                source.releaseObjects()
                combined += 1
                #if os(Linux)
                // The parts were built on other threads, in glibc's per-thread arenas, which keep
                // what was freed unless handed back; every few parts, so the peak stays near one document.
                if combined % 32 == 0 { malloc_trim(0) }
                #endif
            }
        }
        objectCount = total
        #if os(Linux)
        malloc_trim(0)
        #endif
    }

    /// Drops what this part's loader read, once combined.
    private func releaseObjects() {
        releaseGraph()
        states = []
        pendingBlobs = []
    }

    /// Sizes an entity's storage for `count` rows: the rows its parts hold
    /// (counted), or a document's hint (capped by the limits first).
    func reserve(_ count: Int, entity: Int) {
        guard let graph, count > 0 else { return }
        let table = graph.tables[entity]
        table.ids.reserveCapacity(count)
        table.isLive.reserveCapacity(count)
        for (column, attribute) in zip(table.columns, graph.layout.entities[entity].attributes) {
            column.reserveCapacity(count, optional: attribute.isOptional)
        }
        for link in table.links { link.reserveCapacity(count) }
        let state = states[entity]
        state.lines.reserveCapacity(count)
        state.columns.reserveCapacity(count)
        for slot in state.rawOne.indices {
            if state.linkIsToMany[slot] { state.rawMany[slot].reserveCapacity(count) } else { state.rawOne[slot].reserveCapacity(count) }
        }
    }
}

/// The errors of parts parsed concurrently, one slot per part.
private final class ParseResults: @unchecked Sendable {
    private let lock = NSLock()
    private var errors: [PackageError?]

    init(count: Int) { errors = Array(repeating: nil, count: count) }

    func set(_ error: PackageError, at index: Int) { lock.withLock { errors[index] = error } }

    func firstError() -> PackageError? { lock.withLock { errors.lazy.compactMap { $0 }.first } }
}

extension Column {
    /// Appends another column's cells (of the same attribute), as combining parts does.
    func append(contentsOf other: Column) {
        switch (self, other) {
        case (.int(let storage), .int(let source)): storage.append(contentsOf: source)
        case (.double(let storage), .double(let source)): storage.append(contentsOf: source)
        case (.string(let storage), .string(let source)): storage.append(contentsOf: source)
        case (.bool(let storage), .bool(let source)): storage.append(contentsOf: source)
        case (.value(let storage), .value(let source)): storage.append(contentsOf: source)
        default: break  // the same schema gives the same kinds
        }
    }
}

extension ColumnStorage {
    /// Appends another storage's values and nil flags; a loader's storages hold no blobs yet.
    func append(contentsOf other: ColumnStorage<Element>) {
        values.append(contentsOf: other.values)
        nulls.append(contentsOf: other.nulls)
    }
}
