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

    /// Reads the whole package into a new graph.
    ///
    /// - Throws: ``PackageError``; a failed read returns no graph at all.
    /// - Complexity: O(file size + objects + links).
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
            guard FileIO.fileExists(path) else {
                throw .missingBlob(loader.objectLocation(entity: Int(blob.ref.entity), row: Int(blob.ref.row)),
                                   entity: entity.name, attribute: entity.attributes[blob.attribute].name, file: blob.name)
            }
            var info = stat()
            if stat(path, &info) == 0, Int(info.st_size) > limits.maximumBlobBytes {
                throw .limitExceeded(loader.objectLocation(entity: Int(blob.ref.entity), row: Int(blob.ref.row)),
                                     limit: .blobBytes, size: Int(info.st_size), maximum: limits.maximumBlobBytes)
            }
            graph.setValue(.data(try FileIO.readFile(path)), blob.ref, blob.attribute)
        }
        return graph
    }

    /// Writes the graph as this package's new content, atomically.
    ///
    /// Creates the folder if needed. New blobs are written first; `document.xml`
    /// is written to a temporary file, fsynced and renamed over the old one; then
    /// blobs the new document no longer refers to are removed.
    ///
    /// - Throws: ``PackageError/io(path:operation:code:message:)``; the old
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

    private func writeBlobs(_ blobs: [DocumentWriter.Blob]) throws(PackageError) {
        guard !blobs.isEmpty else { return }
        try FileIO.createDirectory(blobsPath)
        for blob in blobs {
            let path = blobsPath + "/" + blob.name
            if FileIO.fileExists(path), let existing = try? FileIO.readFile(path), existing == blob.data { continue }
            try FileIO.writeAtomically(path) { (descriptor: Int32) throws(PackageError) in
                try FileIO.writeAll(descriptor, [UInt8](blob.data), path: path)
            }
        }
        try FileIO.fsyncDirectory(blobsPath)
    }

    /// Best effort: a blob left behind by a crash here is garbage, removed by the next save.
    private func removeUnreferencedBlobs(keeping names: Set<String>) {
        let entries = FileIO.entries(of: blobsPath)
        for name in entries where !names.contains(name) {
            unlink(blobsPath + "/" + name)
        }
        if names.isEmpty, !entries.isEmpty || FileIO.fileExists(blobsPath) {
            rmdir(blobsPath)
        }
        for name in FileIO.entries(of: url.path) where name.hasPrefix(".") && name.hasSuffix(".tmp") {
            unlink(url.path + "/" + name)
        }
        try? FileIO.fsyncDirectory(url.path)
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
