import Foundation

/// A schema as a file of its own: read with the store's loader, written as
/// the `<schema>` element a package holds.
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
