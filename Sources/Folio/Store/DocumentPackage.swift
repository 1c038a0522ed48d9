import Foundation

/// A document package on disk: a `Name.folio` folder holding `document.xml`
/// (format version, schema and objects) and a `blobs/` folder for externally
/// stored values.
///
/// ```swift
/// let package = DocumentPackage(url: URL(filePath: "Zoo.folio"))
/// let graph = try package.read()
/// try graph.insert("Animal", ["name": .string("Rex")])
/// try package.write(graph)
/// ```
///
/// Reading streams the XML through libxml2's SAX2 parser and is all or nothing.
/// Writing is atomic: a crash at any moment leaves the old or the new document
/// whole (docs/FORMAT.md gives the protocol). Nothing is ever written outside
/// the package folder.
public struct DocumentPackage: Sendable {
    /// The name of the document file inside a package.
    public static let documentFileName = "document.xml"
    /// The name of the folder of externally stored values inside a package.
    public static let blobsFolderName = "blobs"

    /// The package folder.
    public let url: URL

    /// Refers to the package at `url`; nothing is read until ``read()``.
    public init(url: URL) { self.url = url }

    var documentPath: String { url.appendingPathComponent(DocumentPackage.documentFileName).path }
    var blobsPath: String { url.appendingPathComponent(DocumentPackage.blobsFolderName).path }

    /// Reads the package into a new graph.
    ///
    /// Externally stored values are not read here: each blob file is only
    /// checked (`lstat`: present, a regular file, within
    /// ``PackageError/blobTooLarge(path:size:limit:)``'s bound), and the graph
    /// holds a reference that reads the bytes — and checks them against the
    /// hash in the file's name — the first time the value is read. So a
    /// package with gigabytes of blobs opens in the time its `document.xml`
    /// takes. (A blob whose name Folio did not write, without a hash, is read
    /// here.)
    ///
    /// - Throws: ``PackageError``; a failed read returns no graph at all.
    /// - Complexity: O(file size + objects + links + blobs).
    public func read() throws(PackageError) -> ObjectGraph {
        try read(limits: .standard)
    }

    /// Reads the package, refusing what breaks `limits` (tests use small ones).
    func read(limits: DocumentLimits) throws(PackageError) -> ObjectGraph {
        guard FileIO.fileExists(documentPath) else { throw .notAPackage(path: url.path) }
        let loader = DocumentLoader(file: documentPath, mode: .document, limits: limits)
        try loader.parse(path: documentPath)
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
        return graph
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

    /// Writes the graph as this package's new content, atomically.
    ///
    /// Creates the folder if needed. New blobs are written first; `document.xml`
    /// is written to a temporary file, fsynced and renamed over the old one; then
    /// blobs the new document no longer refers to are removed.
    ///
    /// Only files Folio itself writes are ever touched: a folder that exists and
    /// holds anything else is refused before anything is written
    /// (``checkWritableTarget()``), and the clean-up after the write removes only
    /// blob files (names ``DocumentWriter`` produces) and Folio's own temporary files.
    ///
    /// - Throws: ``PackageError/notAPackageFolder(path:entries:)``;
    ///   ``PackageError/io(path:operation:code:message:)``; the old
    ///   content is then intact.
    public func write(_ graph: ObjectGraph) throws(PackageError) {
        try write(graph, expecting: nil)
    }

    /// The identity of `document.xml` as it is now, `nil` if there is none
    /// (with a hash of its content if it changed very recently: see ``FileFingerprint``).
    var fingerprint: FileFingerprint? { FileFingerprint(path: documentPath) }

    /// Writes atomically, first checking that `document.xml` is still the version
    /// `expected` describes (`nil`: no check).
    ///
    /// - Returns: the fingerprint of the file just written.
    @discardableResult
    func write(_ graph: ObjectGraph, expecting expected: FileFingerprint??) throws(PackageError) -> FileFingerprint? {
        if let expected, !FileFingerprint.matches(expected, path: documentPath) { throw .modifiedOnDisk(path: url.path) }
        // The container's own package (a document it read) may hold a user's files,
        // which are left alone; any other folder must be empty or Folio's.
        if expected == nil || expected == .some(nil) { try checkWritableTarget() }
        let creating = !FileIO.fileExists(url.path)
        try FileIO.createDirectory(url.path)
        var writer = DocumentWriter(graph: graph)
        let documentPath = self.documentPath
        // What is written, hashed as it goes: the new fingerprint's content hash.
        var hasher = ContentHasher()
        do throws(PackageError) {
            try FileIO.writeAtomically(documentPath) { (descriptor: Int32) throws(PackageError) in
                try writer.write { (buffer: inout ByteBuffer) throws(PackageError) in
                    try FileIO.writeAll(descriptor, buffer.bytes, path: documentPath)
                    hasher.update(buffer.bytes)
                    buffer.bytes.removeAll(keepingCapacity: true)
                }
                // Blobs must be durable before the document that names them replaces the old one.
                try writeBlobs(writer.blobs)
            }
        } catch {
            // A first save that fails must not leave a folder that looks like a package
            // but has no document: the folder and all in it were made by this call.
            if creating { try? FileManager.default.removeItem(atPath: url.path) }
            throw error
        }
        try FileIO.fsyncDirectory(url.path)
        removeUnreferencedBlobs(keeping: Set(writer.blobs.map(\.name)))
        return FileFingerprint(path: documentPath, contentHash: hasher.finalize())
    }

    /// Checks that writing a package here would touch nothing but Folio's own
    /// files: the folder does not exist, or is empty, or holds only what Folio
    /// writes — `document.xml`, a `blobs/` folder of blob files, and Folio's
    /// temporary files. ``write(_:)`` makes this check itself; a program (the
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
            case FileIO.temporaryName(for: DocumentPackage.documentFileName): continue
            case DocumentPackage.blobsFolderName where FileIO.isDirectory(blobsPath):
                foreign += FileIO.entries(of: blobsPath).sorted().filter { !DocumentPackage.isOwnBlobEntry($0) }
                    .map { DocumentPackage.blobsFolderName + "/" + $0 }
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
    /// Removes only what Folio writes — blob files the new document does not
    /// name, temporary files of blobs, `.document.xml.tmp` — never another
    /// file, and `blobs/` only when it is left empty. A blob an open document
    /// still refers to unread (undo can bring its object back) is mapped
    /// first, so its bytes outlive the name without being read.
    private func removeUnreferencedBlobs(keeping names: Set<String>) {
        for name in FileIO.entries(of: blobsPath) where !names.contains(name) && DocumentPackage.isOwnBlobEntry(name) {
            let path = blobsPath + "/" + name
            if FileIO.isBlobFileName(name), let identity = FileIO.identity(path) { BlobRegistry.preserve(identity, path: path) }
            unlink(path)
        }
        if names.isEmpty, FileIO.isDirectory(blobsPath) {
            rmdir(blobsPath)  // fails, as it should, when it holds anything else
        }
        let temporary = url.path + "/" + FileIO.temporaryName(for: DocumentPackage.documentFileName)
        if FileIO.fileExists(temporary) { unlink(temporary) }
        try? FileIO.fsyncDirectory(url.path)
    }
}

/// The unread blobs open documents hold, by file identity, so a save that is
/// about to remove a blob file first keeps the bytes of any reference still
/// alive (an undo can bring back the object that held it). Weak: a reference
/// no graph holds any more is simply forgotten.
enum BlobRegistry {
    private final class Weak {
        weak var blob: LazyBlob?
        init(_ blob: LazyBlob) { self.blob = blob }
    }

    private static let lock = NSLock()
    nonisolated(unsafe) private static var references: [FileIdentity: [Weak]] = [:]
    nonisolated(unsafe) private static var addedSincePrune = 0

    static func register(_ blob: LazyBlob, identity: FileIdentity) {
        lock.withLock {
            references[identity, default: []].append(Weak(blob))
            addedSincePrune += 1
            // Amortised O(1): forget dead references once as many were added as are kept.
            guard addedSincePrune > max(1024, references.count) else { return }
            addedSincePrune = 0
            references = references.compactMapValues { list in
                let live = list.filter { $0.blob != nil }
                return live.isEmpty ? nil : live
            }
        }
    }

    /// Keeps the bytes of every live reference to this file reachable once its
    /// name is removed: the file is mapped (not read), and the reference reads
    /// — and checks — the mapping when it next needs the bytes.
    static func preserve(_ identity: FileIdentity, path: String) {
        let blobs = lock.withLock { (references.removeValue(forKey: identity) ?? []).compactMap(\.blob) }
        guard !blobs.isEmpty else { return }
        guard let mapped = try? FileIO.mapFile(path) else {
            for blob in blobs { _ = try? blob.load() }  // cannot map: read it now instead
            return
        }
        // Read ones too: a copy into another package takes the file's bytes, not the value's.
        for blob in blobs {
            let name = blob.name, original = blob.path
            blob.redirect { () throws(PackageError) -> Data in try DocumentPackage.checkBlob(mapped, path: original, name: name) }
        }
    }
}

extension Schema {
    /// Reads a standalone schema file (the `<schema>` element of a package, alone).
    ///
    /// - Throws: ``PackageError`` naming file, line and column.
    public init(contentsOf url: URL) throws(PackageError) {
        let loader = DocumentLoader(file: url.path, mode: .schemaFile)
        try loader.parse(path: url.path)
        guard let schema = loader.schema else { throw .notAPackage(path: url.path) }
        self = schema
    }

    /// The schema as a standalone schema file's text.
    public var xmlText: String {
        var buffer = ByteBuffer()
        buffer.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
        SchemaXML.append(self, indent: 0, to: &buffer)
        return String(decoding: buffer.bytes, as: UTF8.self)
    }
}
