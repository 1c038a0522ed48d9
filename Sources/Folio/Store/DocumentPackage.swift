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
    /// The name of the folder of history segment files inside a package.
    public static let historyFolderName = HistoryLog.folderName

    /// The package folder.
    public let url: URL

    /// Refers to the package at `url`; nothing is read until ``read()``.
    public init(url: URL) { self.url = url }

    var documentPath: String { url.appendingPathComponent(DocumentPackage.documentFileName).path }
    var blobsPath: String { url.appendingPathComponent(DocumentPackage.blobsFolderName).path }
    var manifestPath: String { url.appendingPathComponent(DocumentPackage.manifestFileName).path }
    var partsPath: String { url.appendingPathComponent(DocumentPackage.partsFolderName).path }
    var historyPath: String { url.appendingPathComponent(DocumentPackage.historyFolderName).path }

    /// The file whose replacement commits a save, and whose fingerprint tells
    /// whether someone else wrote the package: `manifest.xml`, or a format-1
    /// package's `document.xml` until its first save in format 2.
    var commitPath: String {
        !FileIO.fileExists(manifestPath) && FileIO.fileExists(documentPath) ? documentPath : manifestPath
    }

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
            do {
                return try readOnce(limits: limits)
            } catch {
                attempts += 1
                let after = FileIO.commitStamp(commitPath)
                guard attempts < Self.maximumReadAttempts, before != after else { throw error }
                // A writer committing faster than a read completes (a burst of
                // autosaves) would win every race: after the first few, back off
                // and let the burst end.
                if attempts >= 4 { usleep(useconds_t(1_000 << min(attempts - 4, 6))) }
            }
        }
    }

    /// How many times a read racing with writers' commits is tried; the later
    /// tries wait 1, 2, 4 … 64 ms first, about 2 s in all.
    static let maximumReadAttempts = 40

    private func readOnce(limits: DocumentLimits) throws(PackageError) -> (graph: ObjectGraph, history: HistoryLog) {
        let loader: DocumentLoader
        if FileIO.fileExists(manifestPath) {
            loader = DocumentLoader(file: manifestPath, mode: .manifest, limits: limits)
            try loader.parse(path: manifestPath)
            try loader.loadParts(folder: partsPath)
        } else {
            guard FileIO.fileExists(documentPath) else { throw .notAPackage(path: url.path) }
            loader = DocumentLoader(file: documentPath, mode: .document, limits: limits)
            try loader.parse(path: documentPath)
        }
        try loader.resolveLinks()
        guard let graph = loader.graph else { throw .notAPackage(path: url.path) }
        for blob in loader.pendingBlobs {
            let path = blobsPath + "/" + blob.name
            let entity = graph.layout.entities[Int(blob.ref.entity)]
            let location = loader.objectLocation(entity: Int(blob.ref.entity), row: Int(blob.ref.row))
            let attribute = entity.attributes[blob.attribute].name
            guard let status = FileIO.status(path) else {
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
                    throw .invalidValue(location, entity: entityName, attribute: attribute,
                                        text: String(decoding: data.prefix(80), as: UTF8.self),
                                        expected: "\(type) (external file '\(name)')")
                }
                return value
            }
            guard FileIO.isBlobFileName(name) else {
                graph.setValue(try decode(try FileIO.readFile(path)), blob.ref, blob.attribute)
                continue
            }
            let reference = LazyBlob(name: name, path: path, read: { () throws(PackageError) -> Data in
                try DocumentPackage.readBlob(path: path, name: name, missing: .missingBlob(
                    location, entity: entityName, attribute: attribute, file: name))
            }, decode: decode)
            graph.setBlob(reference, blob.ref, blob.attribute)
            BlobRegistry.register(reference, identity: status.identity)
        }
        return (graph, loader.historyLog ?? HistoryLog())
    }

    /// Reads a blob file and checks its bytes against the hash its name carries.
    static func readBlob(path: String, name: String, missing: PackageError) throws(PackageError) -> Data {
        let data: Data
        do {
            data = try FileIO.readFile(path)
        } catch {
            if case .io(_, _, let code, _) = error, code == ENOENT { throw missing }
            throw error
        }
        return try checkBlob(data, path: path, name: name)
    }

    /// The bytes, if they match the hash in the blob's name.
    static func checkBlob(_ data: Data, path: String, name: String) throws(PackageError) -> Data {
        guard let expected = FileIO.blobHash(in: name),
              DocumentWriter.blobName(id: 0, attribute: "", data: data).dropLast(4).suffix(16) == expected else {
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
    var fingerprint: FileFingerprint? { FileFingerprint(path: commitPath) }

    /// The committed manifest, if the package has one that reads.
    func readManifest(limits: DocumentLimits = .standard) -> PackageManifest? {
        guard FileIO.fileExists(manifestPath) else { return nil }
        let loader = DocumentLoader(file: manifestPath, mode: .manifest, limits: limits)
        do { try loader.parse(path: manifestPath) } catch { return nil }
        guard let schema = loader.schema else { return nil }
        return PackageManifest(schema: schema, parts: loader.parts, history: loader.historyLog, declaredNextID: loader.sawNextID ? loader.declaredNextID : nil)
    }

    /// The history the committed manifest lists (no segment read yet); an
    /// empty log for a package without history or manifest.
    func readHistoryLog(limits: DocumentLimits = .standard) -> HistoryLog {
        readManifest(limits: limits)?.history ?? HistoryLog()
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
    func write(_ graph: ObjectGraph, expecting expected: FileFingerprint??,
               changed: Set<UInt64>? = nil, history: HistoryLog? = nil) throws(PackageError) -> FileFingerprint? {
        if let expected, !FileFingerprint.matches(expected, path: commitPath) { throw .modifiedOnDisk(path: url.path) }
        // The container's own package (a document it read) may hold a user's files,
        // which are left alone; any other folder must be empty or Folio's.
        if expected == nil || expected == .some(nil) { try checkWritableTarget() }
        let creating = !FileIO.fileExists(url.path)
        try FileIO.createDirectory(url.path)
        let partsPath = self.partsPath, manifestPath = self.manifestPath, historyPath = self.historyPath
        // Written by another writer than a container (the engine's `write`), a package keeps its history.
        // A segment whose file is gone (removed by hand) is left out: a damaged history never stops a save.
        let history = (history ?? readManifest(limits: graph.limits)?.history).map { log in
            var present = log
            present.segments.removeAll { $0.bytes == nil && FileIO.status(historyPath + "/" + $0.file)?.isRegular != true }
            return present
        }
        // Only a manifest known to be the one the changes are counted from may be built on.
        var previous: [PackageManifest.Part]?
        if changed != nil, case .some(.some) = expected, let manifest = readManifest(limits: graph.limits),
           PackageManifest.partsAgree(manifest.schema, graph.schema),
           manifest.parts.allSatisfy({ FileIO.status(partsPath + "/" + $0.file)?.isRegular == true }) {
            previous = manifest.parts
        }
        var writer = DocumentWriter(graph: graph)
        writer.partSizes = DocumentWriter.partSizes(for: url.path)
        var created: [String] = []
        var pending: [(temporary: String, path: String)] = []
        var manifestHash: UInt64 = 0
        let parts: [PackageManifest.Part]
        do throws(PackageError) {
            try FileIO.createDirectory(partsPath)
            parts = try writer.layOutParts(previous: previous, changed: changed ?? []) { (part, bytes) throws(PackageError) in
                let path = partsPath + "/" + part.file
                // Content-addressed: a part already there under its name holds these bytes.
                if let status = FileIO.status(path), status.isRegular, status.size == bytes.count { return }
                let temporary = partsPath + "/" + FileIO.temporaryName(for: part.file)
                pending.append((temporary, path))
                try FileIO.writeFile(temporary, bytes)
            }
            try Self.syncAndRename(pending, in: partsPath, created: &created)
            created += try writeHistorySegments(history)
            // Blobs must be durable before the manifest that names them replaces the old one.
            try writeBlobs(writer.blobs)
            let bytes = PackageManifest.bytes(schema: graph.schema, parts: parts, nextID: graph.nextID, history: history)
            var hasher = ContentHasher()
            hasher.update(bytes)
            manifestHash = hasher.finalize()
            try FileIO.writeAtomically(manifestPath) { (descriptor: Int32) throws(PackageError) in
                try FileIO.writeAll(descriptor, bytes, path: manifestPath)
            }
        } catch {
            for file in pending { unlink(file.temporary) }
            for path in created { unlink(path) }
            // A first save that fails must not leave a folder that looks like a package
            // but has no document: the folder and all in it were made by this call.
            if creating { try? FileManager.default.removeItem(atPath: url.path) }
            else if FileIO.entries(of: partsPath).isEmpty { rmdir(partsPath) }
            if !creating, FileIO.entries(of: historyPath).isEmpty { rmdir(historyPath) }
            throw error
        }
        try FileIO.fsyncDirectory(url.path)
        removeUnreferencedParts(keeping: Set(parts.map(\.file)))
        removeUnreferencedHistory(keeping: Set(history?.segments.map(\.file) ?? []))
        let written = Set(writer.blobs.map(\.name))
        if previous != nil, let changed {
            // Blobs of objects in parts kept as they were are still named by those parts.
            removeUnreferencedBlobs { name in
                if written.contains(name) { return true }
                guard let id = FileIO.blobObjectID(in: name), !changed.contains(id), let ref = graph.index[id] else { return false }
                return graph.isLive(ref)
            }
        } else {
            removeUnreferencedBlobs { written.contains($0) }
        }
        return FileFingerprint(path: manifestPath, contentHash: manifestHash)
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
        for name in FileIO.entries(of: url.path).sorted() {
            switch name {
            case DocumentPackage.documentFileName where FileIO.status(documentPath)?.isRegular == true: continue
            case DocumentPackage.manifestFileName where FileIO.status(manifestPath)?.isRegular == true: continue
            case FileIO.temporaryName(for: DocumentPackage.documentFileName),
                 FileIO.temporaryName(for: DocumentPackage.manifestFileName): continue
            case DocumentPackage.blobsFolderName where FileIO.isDirectory(blobsPath):
                foreign += FileIO.entries(of: blobsPath).sorted().filter { !DocumentPackage.isOwnBlobEntry($0) }
                    .map { DocumentPackage.blobsFolderName + "/" + $0 }
            case DocumentPackage.historyFolderName where FileIO.isDirectory(historyPath):
                foreign += FileIO.entries(of: historyPath).sorted().filter { !HistoryLog.isOwnEntry($0) }
                    .map { DocumentPackage.historyFolderName + "/" + $0 }
            case DocumentPackage.partsFolderName where FileIO.isDirectory(partsPath):
                foreign += FileIO.entries(of: partsPath).sorted().filter { !PackageManifest.isOwnPartEntry($0) }
                    .map { DocumentPackage.partsFolderName + "/" + $0 }
            default: foreign.append(name)
            }
        }
        if !foreign.isEmpty { throw .notAPackageFolder(path: url.path, entries: foreign) }
    }

    /// Whether an entry of `blobs/` is one Folio writes: a blob file, or the
    /// temporary file of one.
    static func isOwnBlobEntry(_ name: String) -> Bool {
        if FileIO.isBlobFileName(name) { return true }
        guard name.hasPrefix("."), name.hasSuffix(".tmp") else { return false }
        return FileIO.isBlobFileName(String(name.dropFirst().dropLast(4)))
    }

    private func writeBlobs(_ blobs: [DocumentWriter.Blob]) throws(PackageError) {
        guard !blobs.isEmpty else { return }
        try FileIO.createDirectory(blobsPath)
        for blob in blobs {
            let path = blobsPath + "/" + blob.name
            var data = blob.data
            if let source = blob.source {
                // An unread blob already in place (the package it was read from, same
                // name) is neither read nor rewritten.
                if let target = FileIO.identity(path), target == FileIO.identity(source.path) { continue }
                // Otherwise it is copied: read once (and checked), not kept in memory.
                do { data = try source.bytes() } catch {
                    throw (error as? PackageError) ?? FileIO.error(path: source.path, operation: "read", code: EIO)
                }
            }
            if FileIO.fileExists(path), let existing = try? FileIO.readFile(path), existing == data { continue }
            try FileIO.writeAtomically(path) { (descriptor: Int32) throws(PackageError) in
                try FileIO.writeAll(descriptor, [UInt8](data), path: path)
            }
        }
        try FileIO.fsyncDirectory(blobsPath)
    }

    /// Best effort: a blob left behind by a crash here is garbage, removed by the next save.
    ///
    /// Removes only what Folio writes — blob files `keep` refuses, temporary files of
    /// blobs — never another file, and `blobs/` only when it is left empty. A blob an
    /// open document still refers to unread (undo can bring its object back) is
    /// mapped first, so its bytes outlive the name without being read.
    private func removeUnreferencedBlobs(keeping keep: (String) -> Bool) {
        var removed = false
        for name in FileIO.entries(of: blobsPath) where DocumentPackage.isOwnBlobEntry(name) && !keep(name) {
            let path = blobsPath + "/" + name
            if FileIO.isBlobFileName(name), let identity = FileIO.identity(path) { BlobRegistry.preserve(identity, path: path) }
            unlink(path)
            removed = true
        }
        if FileIO.isDirectory(blobsPath), rmdir(blobsPath) == 0 { removed = true }  // fails, as it should, unless empty
        if removed { try? FileIO.fsyncDirectory(url.path) }
    }

    /// Makes files written under temporary names durable and gives them their
    /// names: synced together, after all are written (one wait for the disk, not
    /// one per file), then renamed, then the folder synced.
    private static func syncAndRename(_ pending: [(temporary: String, path: String)], in folder: String,
                                      created: inout [String]) throws(PackageError) {
        for file in pending {
            try FileIO.fsyncFile(file.temporary)
            try FileIO.move(file.temporary, to: file.path)
            created.append(file.path)
        }
        if !pending.isEmpty { try FileIO.fsyncDirectory(folder) }
    }

    /// Writes the segment files of `history` that are not on disk yet, durably.
    ///
    /// - Returns: the paths of the files created.
    private func writeHistorySegments(_ history: HistoryLog?) throws(PackageError) -> [String] {
        guard let history else { return [] }
        let historyPath = self.historyPath
        var pending: [(temporary: String, path: String)] = []
        var created: [String] = []
        do throws(PackageError) {
            for segment in history.segments {
                let path = historyPath + "/" + segment.file
                // Content-addressed: a segment already there under its name holds these bytes.
                if let status = FileIO.status(path), status.isRegular { continue }
                guard let bytes = segment.bytes else { continue }  // left out by `write`
                if pending.isEmpty { try FileIO.createDirectory(historyPath) }
                let temporary = historyPath + "/" + FileIO.temporaryName(for: segment.file)
                pending.append((temporary, path))
                try FileIO.writeFile(temporary, bytes)
            }
            try Self.syncAndRename(pending, in: historyPath, created: &created)
        } catch {
            for file in pending { unlink(file.temporary) }
            for path in created { unlink(path) }
            throw error
        }
        return created
    }

    /// Best effort, after a commit: removes the history segment files (and
    /// their temporaries) the new manifest does not name — the bytes of
    /// deleted transactions go with them — and `history/` when left empty.
    private func removeUnreferencedHistory(keeping names: Set<String>) {
        var removed = false
        for name in FileIO.entries(of: historyPath) where !names.contains(name) && HistoryLog.isOwnEntry(name) {
            unlink(historyPath + "/" + name)
            removed = true
        }
        if names.isEmpty, FileIO.isDirectory(historyPath), rmdir(historyPath) == 0 { removed = true }
        if removed { try? FileIO.fsyncDirectory(url.path) }
    }

    /// Best effort, after a commit: removes part files the new manifest does not
    /// name, temporaries of parts and of the manifest, and a format-1
    /// `document.xml` (with its temporary) — only names Folio writes; `parts/`
    /// only when it is left empty. What a crash leaves here, the next save removes.
    private func removeUnreferencedParts(keeping names: Set<String>) {
        for name in FileIO.entries(of: partsPath) where !names.contains(name) && PackageManifest.isOwnPartEntry(name) {
            unlink(partsPath + "/" + name)
        }
        if names.isEmpty, FileIO.isDirectory(partsPath) { rmdir(partsPath) }
        for name in [DocumentPackage.documentFileName, FileIO.temporaryName(for: DocumentPackage.documentFileName),
                     FileIO.temporaryName(for: DocumentPackage.manifestFileName)] {
            let path = url.path + "/" + name
            if FileIO.status(path)?.isRegular == true { unlink(path) }
        }
    }
}
