import Foundation

/// Writing a package in format 3 (docs/FORMAT.md, "Format 3"): parts at paths
/// that are a pure function of their objects' identifiers, a manifest that
/// holds only the format and the schema, history files per writer, and a
/// commit made atomic by a journal (``CommitJournal``), so that two branches'
/// saves of one document touch different lines, or different files, and Git
/// merges them.
extension DocumentPackage {
    #if DEBUG
    /// Makes saves of packages under `folder` write format 2, until called with
    /// `false`: tests that build packages of the previous format (to open and
    /// migrate them) use it. A debug-build seam; release builds write format 3.
    static func writeFormat2(_ enabled: Bool, under folder: String) {
        format2Lock.withLock {
            if enabled { format2Folders.insert(folder) } else { format2Folders.remove(folder) }
        }
    }

    /// Makes every save on this task (and the stores opened on it) write format 2:
    /// the suite trait tests of format 2's own layout use.
    @TaskLocal static var writesFormat2OnThisTask = false

    private static let format2Lock = NSLock()
    nonisolated(unsafe) private static var format2Folders: Set<String> = []
    #endif

    /// Whether a save of this package writes format 2 (tests only; see ``writeFormat2(_:under:)``).
    var writesFormat2: Bool {
        #if DEBUG
        if Self.writesFormat2OnThisTask { return true }
        let path = url.path
        return Self.format2Lock.withLock { Self.format2Folders.contains { path.hasPrefix($0) } }
        #else
        false
        #endif
    }

    /// Writes `graph` in format 3. Called by ``write(_:expecting:changed:history:)``
    /// once the expected version is checked and the folder exists.
    ///
    /// - Parameters:
    ///   - incremental: whether `changed` names every object changed since the
    ///     committed version (then only their parts are written); otherwise every
    ///     part is compared with the disk and those that differ written.
    ///   - history: the history the package holds after this save (files it does
    ///     not name are emptied); `nil` keeps the history on disk as it is.
    /// - Returns: the fingerprint of the manifest the commit wrote.
    func writeFormat3(
        _ graph: ObjectGraph, changed: Set<UInt64>?, incremental requested: Bool,
        history given: HistoryLog?
    ) throws(PackageError) -> FileFingerprint? {
        let folder = self.folder
        try CommitJournal.rollForward(in: folder)
        let manifest = readManifest(limits: graph.limits)
        let migrating = manifest?.format != 3
        let incremental =
            requested && changed != nil && !migrating
            && manifest.map { PackageManifest.partsAgree($0.schema, graph.schema) } == true
        var history = given ?? readHistoryLog(limits: graph.limits)
        history.adoptFileLayout(in: folder, limits: graph.limits)

        var writer = DocumentWriter(graph: graph)
        let conflicts = writer.conflictsByBucket()
        var buckets = Set<DocumentWriter.Bucket>()
        func partItem(_ bucket: DocumentWriter.Bucket) -> PackageFolder.Item {
            folder.item(
                PackageLayout.partFileName(lane: bucket.lane, bucket: bucket.bucket),
                in: PackageLayout.partFolder(entity: graph.layout.entities[bucket.entity].name))
        }
        if incremental, let changed {
            // Deleted objects (or a record's): their parts, of whichever entity holds one, once per part.
            var gone = Set<DocumentWriter.Bucket>()
            for id in changed {
                if let ref = graph.index[id], graph.isLive(ref) {
                    buckets.insert(DocumentWriter.Bucket(entity: Int(ref.entity), id: id))
                } else {
                    gone.insert(DocumentWriter.Bucket(entity: 0, id: id))
                }
            }
            for part in gone {
                for entity in graph.layout.entities.indices {
                    let bucket = DocumentWriter.Bucket(entity: entity, lane: part.lane, bucket: part.bucket)
                    if buckets.contains(bucket) { continue }
                    if conflicts[bucket] != nil || folder.status(partItem(bucket)) != nil { buckets.insert(bucket) }
                }
            }
        } else {
            buckets = writer.occupiedBuckets()
            // Every part on disk is compared too: one left without objects is written empty, never removed.
            for (entity, layout) in graph.layout.entities.enumerated() {
                for name in folder.entries(of: PackageLayout.partFolder(entity: layout.name)) {
                    guard let (lane, bucket) = PackageLayout.part(ofFileName: name) else { continue }
                    buckets.insert(DocumentWriter.Bucket(entity: entity, lane: lane, bucket: bucket))
                }
            }
        }
        var files: [(path: String, bytes: [UInt8])] = []
        var orders: [Int: RowOrder] = [:]
        for bucket in buckets.sorted() {
            let order = orders[bucket.entity] ?? RowOrder(table: graph.tables[bucket.entity], writer: writer)
            orders[bucket.entity] = order
            let bytes = try writer.bucketBytes(bucket, rows: order, conflicts: conflicts[bucket] ?? [])
            let item = partItem(bucket)
            if let status = folder.status(item), status.isRegular, status.size == bytes.count,
                let existing = try? folder.readFile(item), existing.elementsEqual(bytes)
            {
                continue
            }
            files.append((PackageLayout.partFolder(entity: graph.layout.entities[bucket.entity].name) + "/" + item.name, bytes))
        }
        let historyFolder = PackageLayout.historyFolderName
        for file in history.filesToWrite { files.append((historyFolder + "/" + file.name, file.bytes)) }
        if given != nil {
            // The history given is the whole history: a file it does not name holds deleted transactions.
            let named = history.fileNames
            let empty = HistoryLog.encode([])
            for name in folder.entries(of: historyFolder) where PackageLayout.history(ofFileName: name) != nil && !named.contains(name) {
                if folder.status(folder.item(name, in: historyFolder))?.size == empty.count { continue }
                files.append((historyFolder + "/" + name, empty))
            }
        }
        // A format-1 document.xml is removed after the commit; until then (a crash) the
        // manifest names it by hash, so the next open knows it for the one replaced.
        let supersedes = folder.status(documentItem)?.isRegular == true ? FileFingerprint.hash(documentItem) : nil
        let manifestBytes = PackageManifest.bytes(schema: graph.schema, supersedes: supersedes)
        // The manifest is replaced by every commit, last: the one file whose identity tells
        // readers and writers that the package changed (its bytes change only with the schema).
        files.append((PackageManifest.fileName, manifestBytes))

        try writeBlobs(writer.blobs)
        try CommitJournal.writeTemporaries(files, in: folder)
        do throws(PackageError) {
            try CommitJournal.commit(files.map(\.path), in: folder, interrupt: Self.commitInterrupt(for: url.path))
        } catch {
            // Before the commit point nothing changed: the temporaries go. After it, the
            // journal stays and the next writer (or this one's next save) finishes the commit.
            if (try? CommitJournal.pending(in: folder)) == nil {
                for file in files { folder.remove(CommitJournal.temporary(of: CommitJournal.item(file.path, in: folder))) }
            }
            throw error
        }
        removeStrayTemporaries(entities: graph.layout.entities.map(\.name))
        // A format-1 document.xml the first format-3 save replaced goes with any later save too
        // (a crash may have left it after that save's commit).
        if migrating || supersedes != nil { removeFormat2Files() }
        removeFormerEntityParts(keeping: Set(graph.layout.entities.map(\.name)))
        removeUnreferencedBlobs(after: writer, of: graph, keptPartsExcept: incremental ? changed : nil)
        var hasher = ContentHasher()
        hasher.update(manifestBytes)
        return FileFingerprint(manifestItem, contentHash: hasher.finalize())
    }

    /// Best effort, after the commit that made a package format 3: removes what
    /// formats 1 and 2 wrote and format 3 does not read — part files directly
    /// in `parts/`, content-named history segments, `document.xml` — only
    /// names those formats produce.
    private func removeFormat2Files() {
        let folder = self.folder
        for name in folder.entries(of: DocumentPackage.partsFolderName) where PackageManifest.isOwnPartEntry(name) {
            folder.remove(partItem(name))
        }
        for name in folder.entries(of: DocumentPackage.historyFolderName) where HistoryLog.isSegmentFileName(name) {
            folder.remove(historyItem(name))
        }
        for name in [DocumentPackage.documentFileName, FileIO.temporaryName(for: DocumentPackage.documentFileName)] {
            let item = folder.item(name)
            if folder.status(item)?.isRegular == true { folder.remove(item) }
        }
        try? folder.sync(nil)
    }

    /// Best effort, after a commit: removes temporaries an earlier save cut off
    /// before its commit point left (its commit was never made, so they hold
    /// nothing anyone reads) — only temporaries of names the layout produces.
    private func removeStrayTemporaries(entities: [String]) {
        let folder = self.folder
        for entity in entities {
            let subfolder = PackageLayout.partFolder(entity: entity)
            for name in folder.entries(of: subfolder) where name.hasPrefix(".") && Self.isOwnBucketEntry(name) {
                folder.remove(folder.item(name, in: subfolder))
            }
        }
        for name in folder.entries(of: DocumentPackage.historyFolderName) where name.hasPrefix(".") && HistoryLog.isOwnEntry(name) {
            folder.remove(historyItem(name))
        }
        for name in [FileIO.temporaryName(for: DocumentPackage.manifestFileName), FileIO.temporaryName(for: CommitJournal.fileName)] {
            let item = folder.item(name)
            if folder.status(item)?.isRegular == true { folder.remove(item) }
        }
    }

    /// Best effort: removes the parts of entities the schema no longer has (a
    /// migration removed them, and their objects with them), so an entity
    /// added again later does not find them; only part names, then the folder if empty.
    private func removeFormerEntityParts(keeping entities: Set<String>) {
        let folder = self.folder
        for name in folder.entries(of: DocumentPackage.partsFolderName)
        where !entities.contains(name) && folder.isFolder(PackageLayout.partFolder(entity: name)) {
            let subfolder = PackageLayout.partFolder(entity: name)
            let entries = folder.entries(of: subfolder)
            guard entries.allSatisfy(Self.isOwnBucketEntry) else { continue }
            for entry in entries { folder.remove(folder.item(entry, in: subfolder)) }
            folder.removeFolderIfEmpty(subfolder)
        }
    }

    /// Whether an entry of `parts/ENTITY/` is one Folio writes: a format-3 part or its temporary.
    static func isOwnBucketEntry(_ name: String) -> Bool {
        if PackageLayout.part(ofFileName: name) != nil { return true }
        guard name.hasPrefix("."), name.hasSuffix(".tmp") else { return false }
        return PackageLayout.part(ofFileName: String(name.dropFirst().dropLast(4))) != nil
    }

    #if DEBUG
    /// Stops the commits of packages under `folder` at a stage, as a crash would (tests only).
    static func interruptCommits(under folder: String, _ interrupt: ((CommitJournal.Stage) throws(PackageError) -> Void)?) {
        format2Lock.withLock { commitInterrupts[folder] = interrupt }
    }

    nonisolated(unsafe) private static var commitInterrupts: [String: (CommitJournal.Stage) throws(PackageError) -> Void] = [:]
    #endif

    private static func commitInterrupt(for path: String) -> ((CommitJournal.Stage) throws(PackageError) -> Void)? {
        #if DEBUG
        format2Lock.withLock { commitInterrupts.first { path.hasPrefix($0.key) }?.value }
        #else
        nil
        #endif
    }
}
