import Foundation

/// A document package on disk: a `Name.folio` folder holding `manifest.xml`
/// (format version, schema and the list of parts), a `parts/` folder of part
/// files holding the objects, and a `blobs/` folder for externally stored
/// values. Packages of format 1 (one `document.xml`) still open, and are
/// rewritten as format 2 by their next save.
///
/// ```swift
/// let package = DocumentPackage(url: URL(filePath: "Zoo.folio"))
/// let graph = try package.read()
/// try graph.insert("Animal", ["name": .string("Rex")])
/// try package.write(graph)
/// ```
///
/// Reading streams the XML through libxml2's SAX2 parser, the parts on every
/// core, and is all or nothing. Writing is atomic: a crash at any moment leaves
/// the old or the new document whole (docs/FORMAT.md gives the protocol), and
/// a save of a document this process read or wrote rewrites only the parts
/// holding what changed. Nothing is ever written outside the package folder.
public struct DocumentPackage: Sendable {
    /// The name of the document file of a format-1 package (read, never written).
    public static let documentFileName = "document.xml"
    /// The name of the manifest inside a package: its commit point.
    public static let manifestFileName = PackageManifest.fileName
    /// The name of the folder of part files inside a package.
    public static let partsFolderName = PackageManifest.partsFolderName
    /// The name of the folder of externally stored values inside a package.
    public static let blobsFolderName = "blobs"
    /// The undo journal's file in the package: this user's undo on this
    /// machine, which Git and merges leave out (the Context layer writes it).
    public static let undoJournalFileName = ".folio-undo"
    /// The name of the folder of history segment files inside a package.
    public static let historyFolderName = HistoryLog.folderName

    /// The package folder.
    public let url: URL

    /// Refers to the package at `url`; nothing is read until ``read()``.
    public init(url: URL) { self.url = url }

    /// The package folder, through which every file in it is reached (``PackageFolder``).
    var folder: PackageFolder { PackageFolder(path: url.path) }
    var documentItem: PackageFolder.Item { folder.item(DocumentPackage.documentFileName) }
    var manifestItem: PackageFolder.Item { folder.item(DocumentPackage.manifestFileName) }
    func partItem(_ name: String) -> PackageFolder.Item { folder.item(name, in: DocumentPackage.partsFolderName) }
    func blobItem(_ name: String) -> PackageFolder.Item { folder.item(name, in: DocumentPackage.blobsFolderName) }
    func historyItem(_ name: String) -> PackageFolder.Item { folder.item(name, in: DocumentPackage.historyFolderName) }
    // Paths, for messages and tests; Folio reaches the files through the items above.
    var documentPath: String { documentItem.path }
    var manifestPath: String { manifestItem.path }
    var blobsPath: String { folder.path(of: DocumentPackage.blobsFolderName) }
    var partsPath: String { folder.path(of: DocumentPackage.partsFolderName) }
    var historyPath: String { folder.path(of: DocumentPackage.historyFolderName) }

    /// The file whose replacement commits a save, and whose fingerprint tells
    /// whether someone else wrote the package: `manifest.xml`, or a format-1
    /// package's `document.xml` until its first save in format 2.
    var commitItem: PackageFolder.Item {
        folder.status(manifestItem) == nil && folder.status(documentItem) != nil ? documentItem : manifestItem
    }
    /// The path of ``commitItem``.
    var commitPath: String { commitItem.path }
    /// The path of a format-3 commit's journal (``CommitJournal``), there while a commit is under way.
    var journalPath: String { folder.item(CommitJournal.fileName).path }

    /// Reads the package into a new graph.
    ///
    /// Externally stored values are not read here: each blob file is only
    /// checked (`lstat`: present, a regular file, within
    /// ``PackageError/blobTooLarge(path:size:limit:)``'s bound), and the graph
    /// holds a reference that reads the bytes — and checks them against the
    /// hash in the file's name — the first time the value is read. So a
    /// package with gigabytes of blobs opens in the time its objects
    /// take. (A blob whose name Folio did not write, without a hash, is read
    /// here.) The part files are parsed concurrently, on every core.
    ///
    /// - Throws: ``PackageError``; a failed read returns no graph at all.
    /// - Complexity: O(file size + objects + links + blobs).
    public func read() throws(PackageError) -> ObjectGraph {
        try read(limits: .standard)
    }

    /// Reads the package, refusing what breaks `limits` (tests use small ones).
    ///
    /// A writer (another process, or this one's background autosave) may
    /// commit while the parts are read and then remove the parts its new
    /// manifest no longer names. A read that fails while the manifest changed
    /// under it is therefore made again from the new manifest (a few times at
    /// most); a failure of a package that did not change is the package's own.
    func read(limits: DocumentLimits) throws(PackageError) -> ObjectGraph {
        try readDocument(limits: limits).graph
    }

    /// Reads the package's graph and the history its manifest lists (an empty
    /// log without one), from the same manifest, retried as ``read(limits:)`` says.
    func readDocument(limits: DocumentLimits) throws(PackageError) -> (graph: ObjectGraph, history: HistoryLog) {
        var attempts = 0
        while true {
            // The file's identity and change time only: a commit renames a new file over
            // it (which may reuse a freed inode number), and reading content (a
            // fingerprint's hash) could block on a path that is not a file.
            let before = FileIO.commitStamp(commitPath)
            let journalBefore = FileIO.commitStamp(journalPath)
            do {
                let read = try readOnce(limits: limits)
                // Format 3 replaces files under their names: a commit during the read may have
                // mixed two versions, which no error shows. Its journal (made before the first
                // rename) and its manifest (replaced last) tell: a read that saw neither change
                // read one version, or read through one commit's journal throughout.
                if read.isFormat3, attempts + 1 < Self.maximumReadAttempts,
                    FileIO.commitStamp(commitPath) != before || FileIO.commitStamp(journalPath) != journalBefore
                {
                    attempts += 1
                    continue
                }
                return (read.graph, read.history)
            } catch {
                attempts += 1
                let after = FileIO.commitStamp(commitPath)
                // A format-3 commit may be between its first rename and its manifest's: its journal
                // tells. A read that began with a journal pending read the commit's temporaries, which
                // its renames take away one by one while the journal stays: a file gone under the read
                // is then in place under its own name, and the next attempt reads it there.
                guard attempts < Self.maximumReadAttempts,
                    before != after || FileIO.commitStamp(journalPath) != journalBefore
                        || (journalBefore != nil && Self.isMissingFile(error))
                else { throw error }
                // A writer committing faster than a read completes (a burst of
                // autosaves) would win every race: after the first few, back off
                // and let the burst end.
                if attempts >= 4 { usleep(useconds_t(1_000 << min(attempts - 4, 6))) }
            }
        }
    }

    /// Whether `error` is a file that was not there: what a read through a
    /// commit's journal meets when a temporary it named was renamed into place.
    private static func isMissingFile(_ error: PackageError) -> Bool {
        if case .io(_, _, let code, _) = error, code == ENOENT { return true }
        return false
    }

    /// How many times a read racing with writers' commits is tried; the later
    /// tries wait 1, 2, 4 … 64 ms first, about 2 s in all.
    static let maximumReadAttempts = 40

    private func readOnce(limits: DocumentLimits) throws(PackageError) -> (graph: ObjectGraph, history: HistoryLog, isFormat3: Bool) {
        let loader: DocumentLoader
        var reconciled: ObjectGraph?
        let folder = self.folder
        if folder.status(manifestItem) != nil {
            // A commit under way (or cut off by a crash) is read through: its new files.
            let journal = try CommitJournal.pending(in: folder)
            let manifest = journal?.readItem(for: PackageManifest.fileName, in: folder) ?? manifestItem
            loader = DocumentLoader(file: manifestItem.path, mode: .manifest, limits: limits)
            try loader.parse(manifest)
            if let document = folder.status(documentItem), !isReplacedDocument(document, by: loader) {
                throw .twoLayouts(path: url.path)
            }
            if loader.manifestFormat == 3 {
                if let status = folder.status(folder.item(DocumentPackage.historyFolderName)), !status.isFolder {
                    throw .notARegularFile(path: historyPath, kind: status.kind)
                }
                loader.historyLog = listedHistory(journal: journal)
                do throws(PackageError) {
                    try loader.loadBuckets(in: folder, journal: journal)
                    try loader.resolveLinks()
                } catch {
                    guard Self.isReconcilable(error), let schema = loader.schema else { throw error }
                    reconciled = try readReconciled(schema: schema, limits: limits, journal: journal)
                }
            } else {
                try loader.loadParts(in: folder)
                try loader.resolveLinks()
            }
        } else {
            guard folder.status(documentItem) != nil else { throw .notAPackage(path: url.path) }
            loader = DocumentLoader(file: documentItem.path, mode: .document, limits: limits)
            try loader.parse(documentItem)
            try loader.resolveLinks()
        }
        let isFormat3 = loader.manifestFormat == 3
        if let reconciled { return (reconciled, loader.historyLog ?? HistoryLog(), true) }
        guard let graph = loader.graph else { throw .notAPackage(path: url.path) }
        graph.conflicts = loader.conflictRecords
        // A blobs/ that is a link (or a file) is named as such, not as a missing blob.
        if !loader.pendingBlobs.isEmpty, let status = folder.status(folder.item(DocumentPackage.blobsFolderName)),
            !status.isFolder
        {
            throw .notARegularFile(path: blobsPath, kind: status.kind)
        }
        for blob in loader.pendingBlobs {
            let item = blobItem(blob.name)
            let path = item.path
            let entity = graph.layout.entities[Int(blob.ref.entity)]
            let location = loader.objectLocation(entity: Int(blob.ref.entity), row: Int(blob.ref.row))
            let attribute = entity.attributes[blob.attribute].name
            guard let status = folder.status(item) else {
                throw .missingBlob(location, entity: entity.name, attribute: attribute, file: blob.name)
            }
            guard status.isRegular else { throw .notARegularFile(path: path, kind: status.kind) }
            guard status.size <= limits.maximumBlobBytes else {
                throw .limitExceeded(location, limit: .blobBytes, size: status.size, maximum: limits.maximumBlobBytes)
            }
            let name = blob.name, entityName = entity.name
            let type = entity.attributes[blob.attribute].type, nesting = limits.maximumNesting
            let decode = { @Sendable (data: Data) throws(PackageError) -> Value in
                guard let value = BlobText.value(of: data, as: type, maximumNesting: nesting) else {
                    throw .invalidValue(
                        location, entity: entityName, attribute: attribute,
                        text: String(decoding: data.prefix(80), as: UTF8.self),
                        expected: "\(type) (external file '\(name)')")
                }
                return value
            }
            guard FileIO.isBlobFileName(name) else {
                graph.setValue(try decode(try folder.readFile(item)), blob.ref, blob.attribute)
                continue
            }
            let reference = LazyBlob(
                name: name, package: url.path, folder: DocumentPackage.blobsFolderName,
                read: { () throws(PackageError) -> Data in
                    try DocumentPackage.readBlob(
                        item,
                        missing: .missingBlob(
                            location, entity: entityName, attribute: attribute, file: name))
                }, decode: decode)
            graph.setBlob(reference, blob.ref, blob.attribute)
            BlobRegistry.register(reference, identity: status.identity)
        }
        return (graph, loader.historyLog ?? HistoryLog(), isFormat3)
    }

    /// Whether a `document.xml` found beside the manifest is the one the
    /// manifest's save replaced, left by a crash before its removal: the bytes
    /// the manifest names (`supersedes`), untouched since (changed before the
    /// manifest). A `document.xml` put back after (a checkout restores the very
    /// same bytes, but writes them anew) is not: the package then holds two
    /// layouts, and Folio will not choose. Change times tick coarsely (a few
    /// milliseconds): one within the manifest's tick counts as put back, so a
    /// doubt ends in the refusal, never in the manifest winning silently.
    private func isReplacedDocument(_ document: FileIO.Status, by loader: DocumentLoader) -> Bool {
        guard let expected = loader.supersededDocumentHash, document.isRegular,
            let manifest = folder.status(manifestItem), document.changed < manifest.changed
        else { return false }
        return FileFingerprint.hash(documentItem) == expected
    }

    /// Reads a blob file and checks its bytes against the hash its name carries.
    static func readBlob(_ item: PackageFolder.Item, missing: PackageError) throws(PackageError) -> Data {
        let data: Data
        do {
            data = try item.package.readFile(item)
        } catch {
            if case .io(_, _, let code, _) = error, code == ENOENT { throw missing }
            throw error
        }
        return try checkBlob(data, path: item.path, name: item.name)
    }

    /// The bytes, if they match the hash in the blob's name.
    static func checkBlob(_ data: Data, path: String, name: String) throws(PackageError) -> Data {
        guard let expected = FileIO.blobHash(in: name),
            DocumentWriter.blobName(id: 0, attribute: "", data: data).dropLast(4).suffix(16) == expected
        else {
            throw .blobHashMismatch(path: path)
        }
        return data
    }

    /// Writes the graph as this package's new content, atomically, in format 2.
    ///
    /// Creates the folder if needed. Every part file and new blob is written
    /// and made durable first; then `manifest.xml` is written to a temporary
    /// file, fsynced and renamed over the old one (the commit); then parts and
    /// blobs the new manifest no longer refers to, and a format-1
    /// `document.xml`, are removed.
    ///
    /// The package's history (the transactions its containers' saves recorded)
    /// is kept as the committed manifest lists it: this engine-level write
    /// records no transaction of its own.
    ///
    /// Only files Folio itself writes are ever touched: a folder that exists and
    /// holds anything else is refused before anything is written
    /// (``checkWritableTarget()``), and the clean-up after the write removes only
    /// part and blob files (names the writer produces) and Folio's own temporary files.
    ///
    /// - Throws: ``PackageError/notAPackageFolder(path:entries:)``;
    ///   ``PackageError/io(path:operation:code:message:)``; the old
    ///   content is then intact.
    /// - Complexity: O(objects): this call writes every part (the ones
    ///   whose bytes are already there are not rewritten).
    public func write(_ graph: ObjectGraph) throws(PackageError) {
        try write(graph, expecting: nil)
    }

    /// The identity of the commit file (``commitPath``) as it is now, `nil` if there is none
    /// (with a hash of its content if it changed very recently: see ``FileFingerprint``).
    var fingerprint: FileFingerprint? { FileFingerprint(commitItem) }

    /// The committed manifest, if the package has one that reads.
    func readManifest(limits: DocumentLimits = .standard) -> PackageManifest? {
        guard folder.status(manifestItem) != nil else { return nil }
        let loader = DocumentLoader(file: manifestItem.path, mode: .manifest, limits: limits)
        do { try loader.parse(manifestItem) } catch { return nil }
        guard let schema = loader.schema else { return nil }
        var manifest = PackageManifest(
            schema: schema, parts: loader.parts, history: loader.historyLog,
            declaredNextID: loader.sawNextID ? loader.declaredNextID : nil)
        manifest.format = loader.manifestFormat
        return manifest
    }

    /// The history the committed manifest lists, or a format-3 package's
    /// history folder holds (no file read yet); an empty log for a package
    /// without history or manifest.
    func readHistoryLog(limits: DocumentLimits = .standard) -> HistoryLog {
        readHistory(limits: limits).log
    }

    /// ``readHistoryLog(limits:)`` with the schema of the manifest it was read
    /// from, which its files must name only what it declares (`nil` without a manifest).
    func readHistory(limits: DocumentLimits = .standard) -> (log: HistoryLog, schema: Schema?) {
        guard let manifest = readManifest(limits: limits) else { return (HistoryLog(), nil) }
        guard manifest.format == 3 else { return (manifest.history ?? HistoryLog(), manifest.schema) }
        return (listedHistory(journal: try? CommitJournal.pending(in: folder)), manifest.schema)
    }

    /// A format-3 package's history: the files `history/` holds, and those a
    /// pending commit is adding.
    func listedHistory(journal: CommitJournal?) -> HistoryLog {
        var names = Set(folder.entries(of: DocumentPackage.historyFolderName))
        for target in journal?.targets ?? [] where target.hasPrefix(DocumentPackage.historyFolderName + "/") {
            names.insert(String(target.dropFirst(DocumentPackage.historyFolderName.utf8.count + 1)))
        }
        return HistoryLog.listing(names.sorted())
    }

    /// Writes atomically, first checking that the package is still the version
    /// `expected` describes (`nil`: no check).
    ///
    /// - Parameter changed: identifiers of the objects inserted, updated (both
    ///   ends of a relationship edit) or deleted since the package was last read
    ///   or written as `expected` describes. With them, and a committed manifest
    ///   of the same schema, only the parts holding those objects are rewritten;
    ///   `nil` writes every part.
    ///   - history: the history the new manifest lists, its new segment files
    ///     written with the parts; `nil` keeps the history the committed
    ///     manifest lists, as it is.
    /// - Returns: the fingerprint of the manifest just written.
    /// - Complexity: O(objects in the parts rewritten + changed identifiers).
    @discardableResult
    func write(
        _ graph: ObjectGraph, expecting expected: FileFingerprint??,
        changed: Set<UInt64>? = nil, history: HistoryLog? = nil
    ) throws(PackageError) -> FileFingerprint? {
        if let expected, !FileFingerprint.matches(expected, commitItem) { throw .modifiedOnDisk(path: url.path) }
        // The container's own package (a document it read) may hold a user's files,
        // which are left alone; any other folder must be empty or Folio's.
        if expected == nil || expected == .some(nil) { try checkWritableTarget() }
        let creating = !FileIO.fileExists(url.path)
        try FileIO.createDirectory(url.path)
        if !writesFormat2 {
            do throws(PackageError) {
                let incremental: Bool
                if case .some(.some) = expected { incremental = true } else { incremental = false }
                return try writeFormat3(graph, changed: changed, incremental: incremental, history: history)
            } catch {
                // A first save that fails must not leave a folder that looks like a package.
                if creating { try? FileManager.default.removeItem(atPath: url.path) }
                throw error
            }
        }
        let folder = self.folder, manifestItem = self.manifestItem
        let partsFolder = DocumentPackage.partsFolderName
        // Written by another writer than a container (the engine's `write`), a package keeps its history.
        // A segment whose file is gone (removed by hand) is left out: a damaged history never stops a save.
        let history = (history ?? readManifest(limits: graph.limits)?.history).map { log in
            var present = log
            present.segments.removeAll { $0.bytes == nil && folder.status(historyItem($0.file))?.isRegular != true }
            return present
        }
        // Only a manifest known to be the one the changes are counted from may be built on.
        var previous: [PackageManifest.Part]?
        if changed != nil, case .some(.some) = expected, let manifest = readManifest(limits: graph.limits),
            PackageManifest.partsAgree(manifest.schema, graph.schema),
            manifest.parts.allSatisfy({ folder.status(partItem($0.file))?.isRegular == true })
        {
            previous = manifest.parts
        }
        var writer = DocumentWriter(graph: graph)
        writer.partSizes = DocumentWriter.partSizes(for: url.path)
        var created: [PackageFolder.Item] = []
        var pending: [(temporary: PackageFolder.Item, item: PackageFolder.Item)] = []
        var manifestHash: UInt64 = 0
        let parts: [PackageManifest.Part]
        do throws(PackageError) {
            close(try folder.openFolder(partsFolder, create: true))
            parts = try writer.layOutParts(previous: previous, changed: changed ?? []) { (part, bytes) throws(PackageError) in
                let item = partItem(part.file)
                // Content-addressed: a part already there under its name holds these bytes.
                if let status = folder.status(item), status.isRegular, status.size == bytes.count { return }
                let temporary = partItem(FileIO.temporaryName(for: part.file))
                pending.append((temporary, item))
                try folder.writeTemporary(temporary, bytes)
            }
            try Self.syncAndRename(pending, in: folder, created: &created)
            created += try writeHistorySegments(history)
            // Blobs must be durable before the manifest that names them replaces the old one.
            try writeBlobs(writer.blobs)
            // A format-1 document.xml is removed after the commit; until then (a crash) the
            // manifest names it by hash, so the next open knows it for the one replaced.
            let supersedes = folder.status(documentItem)?.isRegular == true ? FileFingerprint.hash(documentItem) : nil
            let bytes = PackageManifest.bytes(
                schema: graph.schema, parts: parts, nextID: graph.nextID, history: history,
                supersedes: supersedes, conflicts: graph.conflicts)
            var hasher = ContentHasher()
            hasher.update(bytes)
            manifestHash = hasher.finalize()
            try folder.writeAtomically(manifestItem) { (descriptor: Int32) throws(PackageError) in
                try FileIO.writeAll(descriptor, bytes, path: manifestItem.path)
            }
        } catch {
            for file in pending { folder.remove(file.temporary) }
            for item in created { folder.remove(item) }
            // A first save that fails must not leave a folder that looks like a package
            // but has no document: the folder and all in it were made by this call.
            if creating {
                try? FileManager.default.removeItem(atPath: url.path)
            } else if folder.entries(of: partsFolder).isEmpty {
                folder.removeFolderIfEmpty(partsFolder)
            }
            if !creating { folder.removeFolderIfEmpty(DocumentPackage.historyFolderName) }
            throw error
        }
        try folder.sync(nil)
        removeUnreferencedParts(keeping: Set(parts.map(\.file)))
        removeUnreferencedHistory(keeping: Set(history?.segments.map(\.file) ?? []))
        removeUnreferencedBlobs(after: writer, of: graph, keptPartsExcept: previous != nil ? changed : nil)
        return FileFingerprint(manifestItem, contentHash: manifestHash)
    }

    /// Checks that writing a package here would touch nothing but Folio's own
    /// files: the folder does not exist, or is empty, or holds only what Folio
    /// writes — `manifest.xml`, a `parts/` folder of part files, a `blobs/`
    /// folder of blob files, a format-1 `document.xml`, and Folio's temporary
    /// files. ``write(_:)`` makes this check itself; a program (the
    /// REPL's `save as`) calls it first to refuse before asking to replace.
    ///
    /// - Throws: ``PackageError/notAPackageFolder(path:entries:)`` naming the
    ///   entries Folio did not write (a path that is a file: the file's name).
    public func checkWritableTarget() throws(PackageError) {
        guard let status = FileIO.status(url.path) else { return }
        // The package's own path may be a link to a folder (its entries may not).
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw .notAPackageFolder(path: url.path, entries: [url.lastPathComponent + " (\(status.kind))"])
        }
        var foreign: [String] = []
        let folder = self.folder
        func entries(_ subfolder: String, own: (String) -> Bool) -> [String] {
            folder.entries(of: subfolder).sorted().filter { !own($0) }.map { subfolder + "/" + $0 }
        }
        for name in folder.entries(of: nil).sorted() {
            switch name {
            case DocumentPackage.documentFileName where folder.status(documentItem)?.isRegular == true: continue
            case DocumentPackage.manifestFileName where folder.status(manifestItem)?.isRegular == true: continue
            case FileIO.temporaryName(for: DocumentPackage.documentFileName),
                FileIO.temporaryName(for: DocumentPackage.manifestFileName),
                CommitJournal.fileName, FileIO.temporaryName(for: CommitJournal.fileName),
                DocumentPackage.undoJournalFileName, FileIO.temporaryName(for: DocumentPackage.undoJournalFileName):
                continue
            case DocumentPackage.blobsFolderName where folder.isFolder(name):
                foreign += entries(name, own: DocumentPackage.isOwnBlobEntry)
            case DocumentPackage.historyFolderName where folder.isFolder(name):
                foreign += entries(name, own: HistoryLog.isOwnEntry)
            case DocumentPackage.partsFolderName where folder.isFolder(name):
                // Format 2's part files, or format 3's entity folders of part files.
                for entry in folder.entries(of: name).sorted() where !PackageManifest.isOwnPartEntry(entry) {
                    let subfolder = PackageLayout.partFolder(entity: entry)
                    if FileIO.isSafeBlobName(entry), folder.isFolder(subfolder) {
                        foreign += entries(subfolder, own: DocumentPackage.isOwnBucketEntry)
                    } else {
                        foreign.append(name + "/" + entry)
                    }
                }
            default: foreign.append(name)
            }
        }
        if !foreign.isEmpty { throw .notAPackageFolder(path: url.path, entries: foreign) }
    }

    /// Removes the undo journal (``undoJournalFileName``), if there is one:
    /// what deleting history or all data does, since it keeps deleted values.
    public func removeUndoJournal() {
        folder.remove(folder.item(Self.undoJournalFileName))
    }

    /// Whether an entry of `blobs/` is one Folio writes: a blob file, or the
    /// temporary file of one.
    static func isOwnBlobEntry(_ name: String) -> Bool {
        if FileIO.isBlobFileName(name) { return true }
        guard name.hasPrefix("."), name.hasSuffix(".tmp") else { return false }
        return FileIO.isBlobFileName(String(name.dropFirst().dropLast(4)))
    }

    func writeBlobs(_ blobs: [DocumentWriter.Blob]) throws(PackageError) {
        guard !blobs.isEmpty else { return }
        let folder = self.folder
        close(try folder.openFolder(DocumentPackage.blobsFolderName, create: true))
        for blob in blobs {
            let item = blobItem(blob.name)
            var data = blob.data
            if let source = blob.source {
                // An unread blob already in place (the package it was read from, same
                // name) is neither read nor rewritten.
                if let target = folder.status(item)?.identity, target == source.item.package.status(source.item)?.identity { continue }
                // Otherwise it is copied: read once (and checked), not kept in memory.
                do { data = try source.bytes() } catch {
                    throw (error as? PackageError) ?? FileIO.error(path: source.item.path, operation: "read", code: EIO)
                }
            }
            if folder.status(item) != nil, let existing = try? folder.readFile(item), existing == data { continue }
            try folder.writeAtomically(item) { (descriptor: Int32) throws(PackageError) in
                try FileIO.writeAll(descriptor, [UInt8](data), path: item.path)
            }
        }
        try folder.sync(DocumentPackage.blobsFolderName)
    }

    /// Best effort, after a commit: removes the blobs the document no longer
    /// names — those `writer` did not write, unless (with `changed`, a save that
    /// kept every part but those holding the `changed` objects) a live object
    /// whose part was kept still names it.
    func removeUnreferencedBlobs(after writer: DocumentWriter, of graph: ObjectGraph, keptPartsExcept changed: Set<UInt64>?) {
        let written = Set(writer.blobs.map(\.name))
        guard let changed else { return removeUnreferencedBlobs { written.contains($0) } }
        removeUnreferencedBlobs { name in
            if written.contains(name) { return true }
            guard let id = FileIO.blobObjectID(in: name), !changed.contains(id), let ref = graph.index[id] else { return false }
            return graph.isLive(ref)
        }
    }

    /// Best effort: a blob left behind by a crash here is garbage, removed by the next save.
    ///
    /// Removes only what Folio writes — blob files `keep` refuses, temporary files of
    /// blobs — never another file, and `blobs/` only when it is left empty. A blob an
    /// open document still refers to unread (undo can bring its object back) is
    /// mapped first, so its bytes outlive the name without being read.
    private func removeUnreferencedBlobs(keeping keep: (String) -> Bool) {
        let folder = self.folder
        var removed = false
        for name in folder.entries(of: DocumentPackage.blobsFolderName) where DocumentPackage.isOwnBlobEntry(name) && !keep(name) {
            let item = blobItem(name)
            if FileIO.isBlobFileName(name), let identity = folder.status(item)?.identity { BlobRegistry.preserve(identity, item: item) }
            folder.remove(item)
            removed = true
        }
        if folder.removeFolderIfEmpty(DocumentPackage.blobsFolderName) { removed = true }  // fails, as it should, unless empty
        if removed { try? folder.sync(nil) }
    }

    /// Makes files written under temporary names durable and gives them their
    /// names: synced together, after all are written (one wait for the disk, not
    /// one per file), then renamed, then the folder synced.
    private static func syncAndRename(
        _ pending: [(temporary: PackageFolder.Item, item: PackageFolder.Item)],
        in folder: PackageFolder, created: inout [PackageFolder.Item]
    ) throws(PackageError) {
        for file in pending {
            try folder.syncFile(file.temporary)
            try folder.move(file.temporary, to: file.item.name)
            created.append(file.item)
        }
        if let first = pending.first { try folder.sync(first.item.folder) }
    }

    /// Writes the segment files of `history` that are not on disk yet, durably.
    ///
    /// - Returns: the paths of the files created.
    private func writeHistorySegments(_ history: HistoryLog?) throws(PackageError) -> [PackageFolder.Item] {
        guard let history else { return [] }
        let folder = self.folder
        var pending: [(temporary: PackageFolder.Item, item: PackageFolder.Item)] = []
        var created: [PackageFolder.Item] = []
        do throws(PackageError) {
            for segment in history.segments {
                let item = historyItem(segment.file)
                // Content-addressed: a segment already there under its name holds these bytes.
                if let status = folder.status(item), status.isRegular { continue }
                guard let bytes = segment.bytes else { continue }  // left out by `write`
                if pending.isEmpty { close(try folder.openFolder(DocumentPackage.historyFolderName, create: true)) }
                let temporary = historyItem(FileIO.temporaryName(for: segment.file))
                pending.append((temporary, item))
                try folder.writeTemporary(temporary, bytes)
            }
            try Self.syncAndRename(pending, in: folder, created: &created)
        } catch {
            for file in pending { folder.remove(file.temporary) }
            for item in created { folder.remove(item) }
            throw error
        }
        return created
    }

    /// Best effort, after a commit: removes the history segment files (and
    /// their temporaries) the new manifest does not name — the bytes of
    /// deleted transactions go with them — and `history/` when left empty.
    private func removeUnreferencedHistory(keeping names: Set<String>) {
        let folder = self.folder
        var removed = false
        for name in folder.entries(of: DocumentPackage.historyFolderName) where !names.contains(name) && HistoryLog.isOwnEntry(name) {
            folder.remove(historyItem(name))
            removed = true
        }
        if names.isEmpty, folder.removeFolderIfEmpty(DocumentPackage.historyFolderName) { removed = true }
        if removed { try? folder.sync(nil) }
    }

    /// Best effort, after a commit: removes part files the new manifest does not
    /// name, temporaries of parts and of the manifest, and a format-1
    /// `document.xml` (with its temporary) — only names Folio writes; `parts/`
    /// only when it is left empty. What a crash leaves here, the next save removes.
    private func removeUnreferencedParts(keeping names: Set<String>) {
        let folder = self.folder
        for name in folder.entries(of: DocumentPackage.partsFolderName) where !names.contains(name) && PackageManifest.isOwnPartEntry(name) {
            folder.remove(partItem(name))
        }
        if names.isEmpty { folder.removeFolderIfEmpty(DocumentPackage.partsFolderName) }
        for name in [
            DocumentPackage.documentFileName, FileIO.temporaryName(for: DocumentPackage.documentFileName),
            FileIO.temporaryName(for: DocumentPackage.manifestFileName),
        ] {
            let item = folder.item(name)
            if folder.status(item)?.isRegular == true { folder.remove(item) }
        }
    }
}
