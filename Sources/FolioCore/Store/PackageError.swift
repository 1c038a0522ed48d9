/// Why a document package could not be read or written.
///
/// Reading is all or nothing: when any of these is thrown, no graph is
/// returned. Every case that concerns file content names the place.
public enum PackageError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The path is not a package folder holding a document file.
    case notAPackage(path: String)
    /// A file system call failed; `code` is the `errno` value.
    case io(path: String, operation: String, code: Int32, message: String)
    /// The package was written by a newer format than this version of Folio reads.
    case unsupportedFormat(Location, version: String)
    /// The XML is not well-formed, or libxml2 refused it (limits, encoding, truncation).
    case malformedXML(Location, message: String)
    /// The bytes are not valid UTF-8, or not valid in the encoding the document declares.
    case invalidEncoding(Location, message: String)
    /// The document declares a DTD or entities, which Folio never processes.
    case forbiddenDeclaration(Location, what: String)
    /// An element, text or nesting that the format does not allow here.
    case unexpectedContent(Location, found: String, expected: String)
    /// An element or property that a schema file needs is missing or malformed.
    case invalidSchemaDeclaration(Location, message: String)
    /// The schema read from the package is not valid.
    case invalidSchema(Location, SchemaError)
    /// An object element names no entity of the schema.
    case unknownEntity(Location, name: String)
    /// An object carries an XML attribute that is no property of its entity.
    case unknownProperty(Location, entity: String, name: String)
    /// An object lacks a non-optional attribute, or its identifier.
    case missingValue(Location, entity: String, attribute: String)
    /// A value's text does not parse as the attribute's type.
    case invalidValue(Location, entity: String, attribute: String, text: String, expected: String)
    /// Two objects share an identifier, or an identifier is not below `next-id`.
    case invalidIdentifier(Location, entity: String, id: String)
    /// A relationship names an object the package does not contain.
    case danglingReference(Location, entity: String, id: UInt64, relationship: String, target: UInt64)
    /// A relationship names an object of the wrong entity.
    case wrongDestination(Location, entity: String, id: UInt64, relationship: String, target: UInt64, expected: String)
    /// The two sides of a relationship disagree (one lists the other, which does not list it back).
    case inverseMismatch(Location, entity: String, id: UInt64, relationship: String, target: UInt64)
    /// A relationship with a `minimum-count` or `maximum-count` holds a number of
    /// objects outside them (`maximum` 0: none). A to-one with `minimum-count="1"`
    /// is required: an object that leaves it empty has `count` 0.
    case countViolation(Location, entity: String, id: UInt64, relationship: String, count: Int, minimum: Int, maximum: Int)
    /// Objects of one entity share the value of a `unique` attribute; `value` is its
    /// text as the file writes it, `ids` the first object holding it and the one
    /// that repeats it (the location is the latter's). For a uniqueness
    /// constraint over several attributes, `attribute` and `value` list them,
    /// comma-separated.
    case uniqueViolation(Location, entity: String, attribute: String, value: String, ids: [UInt64])
    /// The document would need more memory than its size can justify: `what`
    /// exceeds `limit`. The objects may hold 1 Mi values (identifiers, attribute
    /// and link cells) plus 16 per byte read so far; without that, a schema of
    /// thousands of optional attributes with thousands of empty objects would
    /// take gigabytes from a file of kilobytes.
    case tooLarge(Location, what: String, limit: Int)
    /// The file breaks a limit of ``DocumentLimits`` (a value, an element's
    /// attribute count, markup, nesting, the object count, a blob): no document
    /// Folio writes does. `size` is the size found — for sizes measured while
    /// reading, the size at which reading stopped, just over `maximum`.
    case limitExceeded(Location, limit: DocumentLimits.Limit, size: Int, maximum: Int)
    /// A save was refused because a property of an object would break a limit of
    /// ``DocumentLimits`` as written (a to-many relationship listing tens of
    /// millions of objects), so the document could not be read back. Nothing
    /// was written. Values are refused earlier, when set.
    case unwritable(entity: String, id: UInt64, property: String, limit: DocumentLimits.Limit, size: Int, maximum: Int)
    /// An externally stored value's file is missing or unreadable.
    case missingBlob(Location, entity: String, attribute: String, file: String)
    /// The package was changed on disk (by another process or program) since it
    /// was opened or last saved; saving would overwrite that work, so it was refused.
    case modifiedOnDisk(path: String)
    /// Another process (or a program's own second lock, as `save as` takes) has the
    /// package open for writing. Open it read-only (`allowsSave: false`) to look at it;
    /// containers in one process share a package and do not refuse each other.
    case locked(path: String)
    /// A file Folio reads (`document.xml`, a blob) is not a regular file: a FIFO,
    /// a device, a socket, a folder or a symbolic link. It is refused without
    /// being read, so it can never make an open wait forever.
    case notARegularFile(path: String, kind: String)
    /// An externally stored value's file is larger than the most Folio reads into
    /// memory (`limit` bytes; `size` is what `stat` reports).
    case blobTooLarge(path: String, size: Int, limit: Int)
    /// An externally stored value's bytes do not match the content hash its file
    /// name carries (`ID-ATTRIBUTE-HASH.bin`): the file was changed or damaged.
    case blobHashMismatch(path: String)
    /// The folder a package was to be written to exists and holds files Folio did
    /// not write (`entries`, a few of them); writing there could mix a document
    /// into someone else's folder, so nothing was written. Choose another path,
    /// or empty the folder.
    case notAPackageFolder(path: String, entries: [String])
    /// The package holds two layouts: a `manifest.xml` (format 2, with its
    /// `parts/`) and a `document.xml` (format 1) that the manifest's save did
    /// not replace — one an older Folio wrote or a checkout (`git checkout`)
    /// put back beside the newer files. Folio will not choose between them:
    /// remove `document.xml` to keep the manifest's objects, or `manifest.xml`
    /// and `parts/` to keep the document's. Nothing was read or written.
    case twoLayouts(path: String)

    /// Where the problem is, when it concerns file content.
    public var location: Location? {
        switch self {
        case .notAPackage, .io, .modifiedOnDisk, .locked, .unwritable, .notARegularFile, .blobTooLarge, .blobHashMismatch,
            .notAPackageFolder, .twoLayouts:
            return nil
        case .unsupportedFormat(let location, _), .malformedXML(let location, _), .invalidEncoding(let location, _),
            .forbiddenDeclaration(let location, _), .unexpectedContent(let location, _, _),
            .invalidSchemaDeclaration(let location, _), .invalidSchema(let location, _),
            .unknownEntity(let location, _), .unknownProperty(let location, _, _), .missingValue(let location, _, _),
            .invalidValue(let location, _, _, _, _), .invalidIdentifier(let location, _, _),
            .danglingReference(let location, _, _, _, _), .wrongDestination(let location, _, _, _, _, _),
            .inverseMismatch(let location, _, _, _, _), .missingBlob(let location, _, _, _),
            .countViolation(let location, _, _, _, _, _, _), .uniqueViolation(let location, _, _, _, _),
            .tooLarge(let location, _, _), .limitExceeded(let location, _, _, _):
            return location
        }
    }

    public var description: String {
        let prefix = location.map { "\($0): " } ?? ""
        switch self {
        case .notAPackage(let path): return "\(path): not a Folio package (no manifest.xml or document.xml inside)"
        case .io(let path, let operation, _, let message): return "\(path): \(operation) failed: \(message)"
        case .locked(let path):
            return "\(path): open for writing elsewhere (another folio or program); open it read-only, or close the other one"
        case .notARegularFile(let path, let kind):
            return "\(path): is \(kind), not a regular file; Folio reads only regular files"
        case .blobTooLarge(let path, let size, let limit):
            return "\(path): external file of \(size) bytes is larger than \(limit) bytes, the most Folio reads"
        case .blobHashMismatch(let path):
            return "\(path): external file's bytes do not match the hash in its name (changed or damaged)"
        case .notAPackageFolder(let path, let entries):
            let shown = entries.prefix(3).map { "'\($0)'" }.joined(separator: ", ") + (entries.count > 3 ? ", …" : "")
            return "\(path): exists and is not a Folio package (it holds \(shown)); "
                + "nothing was written: choose another path, or empty the folder"
        case .twoLayouts(let path):
            return "\(path): holds two layouts, manifest.xml with parts/ (format 2) and a document.xml (format 1) "
                + "that an older Folio wrote or a checkout put back; Folio will not choose: remove document.xml to keep "
                + "the manifest's objects, or manifest.xml and parts/ to keep document.xml's"
        case .modifiedOnDisk(let path):
            return "\(path): changed on disk since it was opened; not overwriting it (save under another name, or reopen)"
        case .unsupportedFormat(_, let version):
            return prefix + "format version \(version) is not supported (this Folio reads formats 1 to \(PackageManifest.currentFormat))"
        case .malformedXML(_, let message): return prefix + "malformed XML: \(message)"
        case .invalidEncoding(_, let message): return prefix + "invalid encoding: \(message)"
        case .forbiddenDeclaration(_, let what): return prefix + "\(what) is not allowed in a Folio document"
        case .unexpectedContent(_, let found, let expected): return prefix + "found \(found), expected \(expected)"
        case .invalidSchemaDeclaration(_, let message): return prefix + "invalid schema: \(message)"
        case .invalidSchema(_, let error): return prefix + "invalid schema: \(error)"
        case .unknownEntity(_, let name): return prefix + "unknown entity '\(name)'"
        case .unknownProperty(_, let entity, let name): return prefix + "\(entity) has no property '\(name)'"
        case .missingValue(_, let entity, let attribute): return prefix + "\(entity) lacks '\(attribute)'"
        case .invalidValue(_, let entity, let attribute, let text, let expected):
            return prefix + "\(entity).\(attribute): '\(text.prefix(80))' is not a valid \(expected)"
        case .invalidIdentifier(_, let entity, let id): return prefix + "\(entity) has invalid or duplicate id '\(id)'"
        case .danglingReference(_, let entity, let id, let relationship, let target):
            return prefix + "\(entity)#\(id).\(relationship) refers to #\(target), which does not exist"
        case .wrongDestination(_, let entity, let id, let relationship, let target, let expected):
            return prefix + "\(entity)#\(id).\(relationship) refers to #\(target), which is not a \(expected)"
        case .inverseMismatch(_, let entity, let id, let relationship, let target):
            return prefix + "\(entity)#\(id).\(relationship) lists #\(target), whose inverse does not list it back"
        case .countViolation(_, let entity, let id, let relationship, let count, let minimum, let maximum):
            let bounds =
                maximum == 0
                ? "at least \(minimum)"
                : minimum == 0 ? "at most \(maximum)" : "between \(minimum) and \(maximum)"
            return prefix + "\(entity)#\(id).\(relationship) holds \(count) object\(count == 1 ? "" : "s"), but must hold \(bounds)"
        case .uniqueViolation(_, let entity, let attribute, let value, let ids):
            let holders = ids.map { "#\($0)" }.joined(separator: " and ")
            guard attribute.contains(",") else {
                return prefix + "\(entity).\(attribute) is unique, but \(holders) both hold '\(value.prefix(80))'"
            }
            return prefix + "\(entity)'s (\(attribute)) are unique together, but \(holders) both hold (\(value.prefix(160)))"
        case .tooLarge(_, let what, let limit):
            return prefix + "too large to open: the \(what) exceed \(limit), the most this much of a file may need"
        case .unwritable(let entity, let id, let property, let limit, let size, let maximum):
            return "not saved: \(entity)#\(id).\(property) would take \(size) \(limit), over the limit of \(maximum); split it"
        case .limitExceeded(_, let limit, let size, let maximum):
            return prefix + "too large to open: \(size) \(limit), over the limit of \(maximum)"
        case .missingBlob(_, let entity, let attribute, let file):
            return prefix + "\(entity).\(attribute): external file '\(file)' is missing"
        }
    }

    /// A place in a package file: which file, which line, which column.
    ///
    /// Nested so that it never clashes with Swift Testing's `SourceLocation`.
    public struct Location: Hashable, Sendable, CustomStringConvertible {
        /// The file's path.
        public var file: String
        /// The 1-based line, or 0 when not known.
        public var line: Int
        /// The 1-based column, or 0 when not known.
        public var column: Int

        /// Creates a location.
        public init(file: String, line: Int, column: Int) {
            self.file = file
            self.line = line
            self.column = column
        }

        /// `file:line:column`, as compilers print it.
        public var description: String { "\(file):\(line):\(column)" }
    }
}
