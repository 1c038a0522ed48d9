import CLibXML2
import Dispatch
import Foundation

/// Reading a format-2 package: the rows of every part are made first, from
/// the manifest's counts; then the part files are parsed concurrently, each by
/// its own loader writing its objects straight into its own rows of this
/// loader's graph (no copy, no combining); then the rows are indexed and the
/// links resolved as for a single document.
extension DocumentLoader {
    /// Reads every part this loader's manifest lists from the package's `parts/`
    /// folder, on every core, each file reached the package's guarded way.
    ///
    /// The first failing part in manifest order decides the error, so a damaged
    /// package always reports the same thing; its location names the part file.
    ///
    /// - Throws: ``PackageError``.
    /// - Complexity: O(bytes of the parts + objects), spread over the cores.
    func loadParts(in package: PackageFolder) throws(PackageError) {
        let partsFolder = PackageManifest.partsFolderName
        guard let graph, schema != nil else { return }
        let manifestLocation = PackageError.Location(file: file, line: 0, column: 0)
        // Parts of one entity must ascend and not overlap: the partition a save relies on.
        var byEntity = [[Int]](repeating: [], count: graph.layout.entities.count)
        var files = Set<String>()
        for (index, part) in parts.enumerated() {
            guard let entity = graph.layout.entityIndex[part.entity] else { throw .unknownEntity(manifestLocation, name: part.entity) }
            if let previous = byEntity[entity].last, parts[previous].last >= part.first {
                throw .unexpectedContent(
                    manifestLocation, found: "part \(part.file) overlapping or before \(parts[previous].file)",
                    expected: "the parts of an entity by ascending, disjoint identifier ranges")
            }
            guard files.insert(part.file).inserted else {
                throw .unexpectedContent(manifestLocation, found: "part \(part.file) listed twice", expected: "each part once")
            }
            byEntity[entity].append(index)
        }
        if !parts.isEmpty {
            // Not followed when a link: every file read is inside the package.
            close(try package.openFolder(partsFolder))
        }
        try loadPartFiles(parts.map { package.item($0.file, in: partsFolder) }, byEntity: byEntity, in: package)
    }

    /// Reads the format-3 parts of every entity, found by listing
    /// `parts/ENTITY/` (only names ``PackageLayout`` produces; anything else is
    /// ignored), on every core, as ``loadParts(in:)`` reads a manifest's. Each
    /// part's objects are counted in its bytes first (`<ENTITY` elements), so
    /// its rows are made before it is parsed; its conflict records are read
    /// with its objects. While a commit is pending (`journal`), a file it
    /// replaces is read from the commit's new version.
    ///
    /// - Throws: ``PackageError``.
    /// - Complexity: O(bytes of the parts + objects), spread over the cores.
    func loadBuckets(in package: PackageFolder, journal: CommitJournal?) throws(PackageError) {
        guard let graph, schema != nil else { return }
        // A parts/ (or an entity's folder) that is a link or a file is refused, never listed as empty.
        if let status = package.status(package.item(PackageLayout.partsFolderName)), !status.isFolder {
            throw .notARegularFile(path: package.path(of: PackageLayout.partsFolderName), kind: status.kind)
        }
        var listed: [(part: PackageManifest.Part, item: PackageFolder.Item)] = []
        for layout in graph.layout.entities {
            let folder = PackageLayout.partFolder(entity: layout.name)
            if package.status(package.item(layout.name, in: PackageLayout.partsFolderName)) != nil {
                close(try package.openFolder(folder))
            }
            var names = Set(package.entries(of: folder).filter { PackageLayout.part(ofFileName: $0) != nil })
            for target in journal?.targets ?? [] where target.hasPrefix(folder + "/") {
                names.insert(String(target.dropFirst(folder.utf8.count + 1)))
            }
            var found: [(part: PackageManifest.Part, item: PackageFolder.Item)] = []
            for name in names {
                guard let (lane, bucket) = PackageLayout.part(ofFileName: name) else { continue }
                let path = folder + "/" + name
                let item = journal?.readItem(for: path, in: package) ?? package.item(name, in: folder)
                let range = PackageLayout.identifiers(lane: lane, bucket: bucket)
                let count = try Self.countObjects(layout.name, in: item)
                found.append(
                    (
                        PackageManifest.Part(
                            entity: layout.name, first: range.lowerBound, last: range.upperBound,
                            count: count, file: path, isBucket: true), item
                    ))
            }
            listed += found.sorted { $0.part.first < $1.part.first }
        }
        parts = listed.map(\.part)
        var byEntity = [[Int]](repeating: [], count: graph.layout.entities.count)
        for (index, part) in parts.enumerated() {
            guard let entity = graph.layout.entityIndex[part.entity] else { continue }
            byEntity[entity].append(index)
            objectCount += part.count
        }
        if objectCount > limits.maximumObjects {
            throw .limitExceeded(
                PackageError.Location(file: package.path(of: PackageLayout.partsFolderName), line: 0, column: 0),
                limit: .objects, size: objectCount, maximum: limits.maximumObjects)
        }
        objectCount = 0
        try loadPartFiles(listed.map(\.item), byEntity: byEntity, in: package)
    }

    /// How many `<ENTITY` elements a format-3 part's bytes hold: its objects'
    /// count, read before it is parsed so its rows can be made. Every object
    /// element starts so and nothing else in a part Folio writes does (values
    /// escape `<`); a part whose comments hold such text is refused when the
    /// parse finds fewer objects.
    static func countObjects(_ entity: String, in item: PackageFolder.Item) throws(PackageError) -> Int {
        let data = try item.package.mapFile(item)
        let pattern = Array(("<" + entity).utf8)
        return data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> Int in
            let bytes = raw.bindMemory(to: UInt8.self)
            guard let base = bytes.baseAddress, bytes.count > pattern.count else { return 0 }
            var count = 0
            var position = 0
            let end = bytes.count - pattern.count
            while position < end {
                guard let found = memchr(base + position, 0x3C, end - position) else { break }
                let at = UnsafePointer<UInt8>(found.assumingMemoryBound(to: UInt8.self)) - base
                let after = bytes[at + pattern.count]
                if memcmp(base + at, pattern, pattern.count) == 0,
                    after == 0x20 || after == 0x09 || after == 0x0A || after == 0x0D || after == 0x2F || after == 0x3E
                {
                    count += 1
                }
                position = at + 1
            }
            return count
        }
    }

    /// Parses the part files `items` (one per entry of ``parts``, in order) into
    /// rows made ahead from their counts; `byEntity` lists each entity's parts.
    private func loadPartFiles(_ items: [PackageFolder.Item], byEntity: [[Int]], in package: PackageFolder) throws(PackageError) {
        guard let graph else { return }
        // Each part's rows, from the manifest's counts: its entity's parts follow one another.
        // A part cannot hold more objects than its bytes' value budget allows (it would be
        // refused), so no more rows are made for it than that, whatever its count says.
        var bases = [Int](repeating: 0, count: parts.count), capacities = bases
        rowFiles = Array(repeating: [], count: graph.layout.entities.count)
        var total = 0
        var rowCounts: [(entity: Int, count: Int)] = []
        for (entity, indices) in byEntity.enumerated() {
            let perObject = states[entity].valuesPerObject
            var rows = 0
            for index in indices {
                let size = package.status(items[index]).map { $0.isRegular ? $0.size : 0 } ?? 0
                bases[index] = rows
                capacities[index] = min(parts[index].count, DocumentLoader.valueBudget(bytes: size) / perObject)
                rows += capacities[index]
                rowFiles[entity].append((bases[index], items[index].path))
            }
            rowCounts.append((entity, rows))
            total += rows
        }
        addRows(rowCounts)
        xmlInitParser()
        let loaders = parts.indices.map { index in
            DocumentLoader(
                file: items[index].path, part: parts[index], owner: self,
                base: bases[index], capacity: capacities[index])
        }
        let results = RunResults<PackageError>(count: loaders.count)
        // Each loader is touched by exactly one iteration and writes only its own rows;
        // they are read here only once all are done.
        nonisolated(unsafe) let shared = loaders
        DispatchQueue.concurrentPerform(iterations: loaders.count) { index in
            do throws(PackageError) { try shared[index].parse(items[index]) } catch {
                results.set(error, at: index)
            }
        }
        if let (_, error) = results.first() { throw error }
        try indexRows(expecting: total, bases: bases)
        for indices in byEntity {
            for index in indices {
                pendingBlobs += loaders[index].pendingBlobs
                conflictRecords += loaders[index].conflictRecords
            }
        }
        objectCount = total
        finishIdentifiers()
        if let error { throw error }
    }

    /// Indexes every row the parts wrote, in entity order then row order, refusing
    /// an identifier two parts hold (parts of different entities may claim overlapping ranges).
    ///
    /// Parts whose identifier ranges do not overlap (a package Folio saved) cannot
    /// hold one identifier twice, since each part's identifiers ascend within its
    /// range: their rows are recorded at once (``IdentifierIndex/recordDisjointRuns(_:)``).
    private func indexRows(expecting total: Int, bases: [Int]) throws(PackageError) {
        guard let graph else { return }
        for (entity, table) in graph.tables.enumerated() { states[entity].rowCount = table.rowCount }
        var runs: [(ids: UnsafeBufferPointer<UInt64>, entity: Int, firstRow: Int)] = []
        for (index, part) in parts.enumerated() {
            guard let entity = graph.layout.entityIndex[part.entity],
                let ids = graph.tables[entity].ids.writableBaseAddress()
            else { continue }
            // Every row of the part was written: it held as many objects as the manifest lists.
            runs.append((UnsafeBufferPointer(start: ids + bases[index], count: part.count), entity, bases[index]))
        }
        if runs.reduce(0, { $0 + $1.ids.count }) == total, graph.index.recordDisjointRuns(runs) { return }
        graph.index.reserveCapacity(total + 1)
        for (entity, table) in graph.tables.enumerated() {
            for row in 0..<table.rowCount {
                let id = table.ids[row]
                if graph.index[id] != nil {
                    throw .invalidIdentifier(
                        objectLocation(entity: entity, row: row), entity: graph.layout.entities[entity].name,
                        id: "\(id) (an identifier another part also holds)")
                }
                graph.index[id] = ObjectRef(entity: entity, row: row)
            }
        }
    }
}
