import Foundation

/// What a package merge records in the merged package's history
/// (docs/FORMAT.md, "History", "Merge transactions"): one transaction, by
/// ``DocumentPackage/mergeAuthor``, holding what the merge brought into ours —
/// so an app that syncs from ours' history (it keeps the last token it saw,
/// and fetches the transactions after it) sees the other side's changes after
/// its token, even those the other side saved before it.
extension DocumentPackage {
    /// The ``ModelContext/author`` of the transaction a merge records in the
    /// merged package's history: `"merge"`.
    ///
    /// ``merge(base:ours:theirs:into:)`` appends one transaction by this
    /// author, numbered above every transaction of the three versions,
    /// holding what the merged result changes from ours. An app that syncs
    /// from history can tell it from its own saves by this author:
    ///
    /// ```swift
    /// let merge = DocumentPackage.mergeAuthor
    /// let merged = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(
    ///     predicate: #Predicate { $0.token > lastToken && $0.author == merge }))
    /// ```
    ///
    /// A history whose branches a Git merge united (with `folio merge-file`,
    /// which merges part files and runs nothing that records a transaction)
    /// reads with a transaction by this author too, after both branches,
    /// holding the changes each made since they parted; the next save writes
    /// it into the package (docs/FORMAT.md, "Parents and heads").
    ///
    /// A context whose ``ModelContext/author`` is set to the same text records
    /// its saves under it too: keep it for merges.
    public static let mergeAuthor = "merge"

    /// Appends the merge transaction to the merged package at `merged` (the
    /// merge's temporary folder, not yet in place) — and, for a whole-graph
    /// merge, which wrote the merged graph alone, ours' history before it.
    ///
    /// The transaction holds the difference between ours and the merged
    /// result (``StoredTransaction/difference(from:to:schema:timestamp:author:)``):
    /// file by file, of the part files whose bytes differ from ours' (what
    /// the open of the merged package reconciles is not in it: see
    /// docs/FORMAT.md); whole graphs, of the two graphs, the merge's
    /// reconcile included. Its number is above every transaction of the three
    /// versions and the clock (as a save's: ``HistoryLog``); it goes to a
    /// history file of a lane of its own, and names as its parents the heads
    /// of the history it is appended to (both sides' files, file by file), so
    /// no Git-style merge is made up on top of it. No transaction is recorded
    /// when the result equals ours.
    ///
    /// - Throws: ``PackageMergeError/package(_:)`` when a part or the manifest
    ///   of ours or of the result does not read (located by file and line);
    ///   ``PackageMergeError/write(path:reason:)`` when a history file cannot
    ///   be written. The destination is not in place yet, so nothing is then.
    /// - Complexity: file by file, O(bytes of the part files the merge
    ///   changed from ours) to compare their lines, the reading of the
    ///   objects whose lines differ, and the last history file of each lane
    ///   of the three versions; whole graphs, a read of ours and of the result,
    ///   O(objects × properties + links), and ours' history.
    static func recordMergeHistory(
        _ method: PackageMergeResult.Method, base: URL, ours: URL, theirs: URL,
        merged: URL
    ) throws(PackageMergeError) {
        switch method {
        case .fileByFile:
            // The history files of both sides are in the result already (taken, or merged by transaction).
            var log = DocumentPackage(url: merged).listedHistory(journal: nil)
            guard let transaction = try fileByFileDifference(ours: ours, theirs: theirs, merged: merged) else { return }
            // It merges the branches the result's history holds: it names their heads (the union's).
            var cache = HistoryLog.HeadsCache()
            _ = log.learnHeads(
                in: DocumentPackage(url: merged).folder, limits: .standard, schema: nil, recordingMerge: false,
                cache: &cache)
            log.nextNumber = max(log.nextNumber, highestTransactionNumber(in: [base, ours, theirs]) + 1)
            log.append(transaction)
            try writeHistoryFiles(log, into: merged)
        case .wholeGraph:
            try recordWholeGraphHistory(base: base, ours: ours, theirs: theirs, merged: merged)
        }
    }

    // MARK: File by file

    /// The difference between ours and the result, over the part files whose
    /// bytes differ (each read as object states, ``PartRecords``, under its
    /// own package's schema); `nil` when there is none. A file the merge took
    /// from theirs is read there (the same bytes), so a failure names the
    /// version's file, not the merge's temporary folder.
    private static func fileByFileDifference(ours: URL, theirs: URL, merged: URL) throws(PackageMergeError) -> StoredTransaction? {
        let ourPackage = DocumentPackage(url: ours), mergedPackage = DocumentPackage(url: merged)
        let theirPackage = DocumentPackage(url: theirs)
        let ourSchema = try manifestSchema(of: ourPackage), mergedSchema = try manifestSchema(of: mergedPackage)
        var before: [UInt64: ObjectState] = [:], after: [UInt64: ObjectState] = [:]
        let paths = Set(packageFiles(in: ours)).union(packageFiles(in: merged)).sorted()
        for path in paths {
            guard case .part(let entity)? = fileKind(path), mergedSchema.entity(named: entity) != nil,
                !sameBytes(ours.appendingPathComponent(path), merged.appendingPathComponent(path))
            else { continue }
            let taken = sameBytes(theirs.appendingPathComponent(path), merged.appendingPathComponent(path))
            let versions = (
                old: PartVersion(package: ourPackage, schema: ourSchema),
                new: PartVersion(package: taken ? theirPackage : mergedPackage, schema: mergedSchema)
            )
            let states = try changedStates(path, entity: entity, versions, scratch: merged)
            before.merge(states.old) { first, _ in first }
            after.merge(states.new) { first, _ in first }
        }
        return StoredTransaction.difference(from: before, to: after, schema: mergedSchema, timestamp: Date(), author: mergeAuthor)
    }

    /// One version of a part file: the package it is read from, and the schema it is read under.
    private struct PartVersion {
        var package: DocumentPackage
        var schema: Schema
    }

    /// The objects of one part file's two versions that differ, as states: the
    /// objects whose lines are not in the other version byte for byte (a part
    /// holds one object per line, its identifier in it, so an equal line is an
    /// equal object), read from a file of those lines alone, written under
    /// `scratch` (the merge's temporary folder) and removed. So a merge that
    /// changed a few objects of a large part reads those few. A file not laid
    /// out so, or whose lines do not read alone, is read whole on both sides
    /// (which reports what does not read, at its line).
    ///
    /// - Complexity: O(bytes of both versions) to compare lines, plus the
    ///   reading of the lines that differ.
    private static func changedStates(
        _ path: String, entity: String, _ versions: (old: PartVersion, new: PartVersion),
        scratch: URL
    ) throws(PackageMergeError)
        -> (old: [UInt64: ObjectState], new: [UInt64: ObjectState])
    {
        func whole() throws(PackageMergeError) -> (old: [UInt64: ObjectState], new: [UInt64: ObjectState]) {
            (
                try partStates(path, entity: entity, of: versions.old.package, schema: versions.old.schema),
                try partStates(path, entity: entity, of: versions.new.package, schema: versions.new.schema)
            )
        }
        guard versions.old.schema.entity(named: entity) != nil,
            let oldLines = PartLines(versions.old.package.url.appendingPathComponent(path)),
            let newLines = PartLines(versions.new.package.url.appendingPathComponent(path))
        else { return try whole() }
        let (oldBody, newBody) = (Set(oldLines.body), Set(newLines.body))
        let oldOnly = oldLines.body.filter { !newBody.contains($0) }, newOnly = newLines.body.filter { !oldBody.contains($0) }
        guard let old = oldLines.states(of: oldOnly, entity: entity, version: versions.old, scratch: scratch),
            let new = newLines.states(of: newOnly, entity: entity, version: versions.new, scratch: scratch)
        else {
            return try whole()
        }
        return (old, new)
    }

    /// A part file's lines: the declaration and the root's start, one line per
    /// object (or conflict record), and the root's end.
    private struct PartLines {
        var head: [Substring]
        var body: [Substring]
        var tail: [Substring]

        /// `nil` when the file is absent, or not laid out as a writer lays a part out.
        init?(_ url: URL) {
            guard FileIO.status(url.path)?.isRegular == true, let data = try? Data(contentsOf: url) else { return nil }
            let lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            guard let root = lines.firstIndex(where: { $0.contains("<objects") && !$0.hasSuffix("/>") }),
                let end = lines.lastIndex(where: { $0.trimmingCharacters(in: .whitespaces) == "</objects>" }),
                root < end
            else { return nil }
            head = Array(lines[...root])
            body = Array(lines[(root + 1)..<end])
            tail = Array(lines[end...])
        }

        /// The states of the objects on `lines` (of this file), read from a file
        /// of them alone; `nil` when they do not read so.
        func states(
            of lines: [Substring], entity: String, version: PartVersion,
            scratch: URL
        ) -> [UInt64: ObjectState]? {
            guard !lines.isEmpty else { return [:] }
            let file = scratch.appendingPathComponent(".merge-history-\(UUID().uuidString).xml")
            defer { try? FileManager.default.removeItem(at: file) }
            let text = (head + lines + tail).joined(separator: "\n")
            do { try Data(text.utf8).write(to: file) } catch { return nil }
            return try? PartRecords.read(
                path: file.path, entity: entity, schema: version.schema,
                blobs: version.package.folder
            ).states
        }
    }

    /// The objects of one part file, as states; none when the package lacks
    /// the file, or its schema the entity (an entity only the other side added).
    private static func partStates(
        _ path: String, entity: String, of package: DocumentPackage,
        schema: Schema
    ) throws(PackageMergeError) -> [UInt64: ObjectState] {
        guard schema.entity(named: entity) != nil else { return [:] }
        let item = package.folder.item(String(path.split(separator: "/").last ?? ""), in: PackageLayout.partFolder(entity: entity))
        guard package.folder.status(item)?.isRegular == true else { return [:] }
        do {
            return try PartRecords.read(item: item, entity: entity, schema: schema, blobs: package.folder).states
        } catch {
            throw .package(error)
        }
    }

    /// The schema of a package's manifest.
    private static func manifestSchema(of package: DocumentPackage) throws(PackageMergeError) -> Schema {
        let loader = DocumentLoader(file: package.manifestItem.path, mode: .manifest, limits: .standard)
        do { try loader.parse(package.manifestItem) } catch { throw .package(error) }
        guard let schema = loader.schema else { throw .notAPackage(path: package.url.path, role: "merged") }
        return schema
    }

    /// Whether two regular files hold the same bytes (both absent counts as the same).
    private static func sameBytes(_ a: URL, _ b: URL) -> Bool {
        let (first, second) = (FileIO.status(a.path), FileIO.status(b.path))
        guard let first, first.isRegular, let second, second.isRegular else {
            return first?.isRegular != true && second?.isRegular != true
        }
        guard first.size == second.size else { return false }
        guard let x = try? Data(contentsOf: a, options: .alwaysMapped), let y = try? Data(contentsOf: b, options: .alwaysMapped) else {
            return false
        }
        return x == y
    }

    // MARK: Whole graphs

    /// A whole-graph merge wrote the merged graph with no history: ours'
    /// history goes in (theirs' does not — formats 1 and 2 number each
    /// branch's saves from the same point, so theirs' numbers clash with
    /// ours'; the merge transaction holds what they brought), then the merge
    /// transaction, the difference between ours' graph and the result's.
    private static func recordWholeGraphHistory(base: URL, ours: URL, theirs: URL, merged: URL) throws(PackageMergeError) {
        let ourPackage = DocumentPackage(url: ours), mergedPackage = DocumentPackage(url: merged)
        let ourGraph: ObjectGraph, mergedGraph: ObjectGraph
        do {
            ourGraph = try ourPackage.read()
            mergedGraph = try mergedPackage.read()
        } catch {
            throw .package(error)
        }
        let candidates = mergedGraph.changedIdentifiers(since: ourGraph)
        let before = candidates.map { ourGraph.objectStates(of: $0) } ?? ourGraph.objectStates()
        let after = candidates.map { mergedGraph.objectStates(of: $0) } ?? mergedGraph.objectStates()
        let transaction = StoredTransaction.difference(
            from: before, to: after, schema: mergedGraph.schema, timestamp: Date(),
            author: mergeAuthor)
        let highest = highestTransactionNumber(in: [base, ours, theirs])
        var log = ourPackage.readHistory().log
        if formatVersion(of: merged) == stablePathsFormat {
            if log.files != nil {
                // Format 3: ours' files, copied as they are (their names are their lanes').
                try copyHistoryFiles(log.segments.map(\.file), from: ours, to: merged)
            } else {
                // Formats 1 and 2: their transactions in lane-0 files, as a format-3 save brings them over.
                log.adoptFileLayout(in: ourPackage.folder, limits: .standard)
            }
            if let transaction {
                var cache = HistoryLog.HeadsCache()
                _ = log.learnHeads(in: ourPackage.folder, limits: .standard, schema: nil, recordingMerge: false, cache: &cache)
                log.nextNumber = max(log.nextNumber, highest + 1)
                log.append(transaction)
            }
            try writeHistoryFiles(log, into: merged)
            return
        }
        // The merged package was written in format 2 (debug builds' tests of that format): its
        // manifest lists the history, so the package is written again with ours' history given.
        if log.files != nil { log = HistoryLog(nextNumber: 1) }
        try copyHistoryFiles(log.segments.map(\.file), from: ours, to: merged)
        if let transaction {
            log.nextNumber = max(log.nextNumber, highest + 1)
            log.append(transaction)
        }
        do { try mergedPackage.write(mergedGraph, expecting: nil, changed: nil, history: log) } catch { throw .package(error) }
    }

    /// Copies history files of `source` into `destination`'s `history/`, as they are.
    private static func copyHistoryFiles(_ names: [String], from source: URL, to destination: URL) throws(PackageMergeError) {
        guard !names.isEmpty else { return }
        let folder = destination.appendingPathComponent(historyFolderName)
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            for name in names {
                let from = source.appendingPathComponent(historyFolderName).appendingPathComponent(name)
                guard FileIO.status(from.path)?.isRegular == true else { continue }
                try FileManager.default.copyItem(at: from, to: folder.appendingPathComponent(name))
            }
        } catch {
            throw .write(path: folder.path, reason: error.localizedDescription)
        }
    }

    // MARK: Numbering and writing

    /// The highest transaction number the packages' histories hold: a format-2
    /// manifest's `next` less one; in format 3, the last transaction of each
    /// lane's latest file that holds one (a lane's numbers ascend file after
    /// file), so the rest of the history is not read. A file that does not
    /// read is passed over: the merge transaction's number is also above the
    /// clock, which every number written before is below, and a damaged
    /// history never stops a merge (nor a save).
    ///
    /// - Complexity: O(the last non-empty history file of each lane).
    static func highestTransactionNumber(in packages: [URL]) -> Int64 {
        var highest: Int64 = 0
        for url in packages {
            let package = DocumentPackage(url: url)
            let log = package.readHistory().log
            guard log.files != nil else {
                highest = max(highest, log.nextNumber - 1)
                continue
            }
            var lanes: [UInt64: [(number: Int, name: String)]] = [:]
            for segment in log.segments {
                guard let file = PackageLayout.history(ofFileName: segment.file) else { continue }
                lanes[file.lane, default: []].append((file.number, segment.file))
            }
            for files in lanes.values {
                for file in files.sorted(by: { $0.number > $1.number }) {
                    let one = HistoryLog.listing([file.name])
                    guard let last = try? one.storedTransactions(in: package.folder, limits: .standard, schema: nil).last else { continue }
                    highest = max(highest, last.number)
                    break
                }
            }
        }
        return highest
    }

    /// Writes the history files `log` has to write into the package at `url`
    /// (a merge's temporary folder, renamed into place whole after).
    private static func writeHistoryFiles(_ log: HistoryLog, into url: URL) throws(PackageMergeError) {
        let files = log.filesToWrite
        guard !files.isEmpty else { return }
        let folder = url.appendingPathComponent(historyFolderName)
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            for file in files { try Data(file.bytes).write(to: folder.appendingPathComponent(file.name)) }
        } catch {
            throw .write(path: folder.path, reason: error.localizedDescription)
        }
    }
}
