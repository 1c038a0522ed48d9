import CLibXML2
import Foundation

/// Reads a document (or a standalone schema file) with libxml2's SAX2 push
/// parser and builds the graph straight from the callbacks.
///
/// No tree is built and no `String` is made for names: libxml2 interns element
/// and attribute names, so each is recognised by its pointer after the first
/// sight. Numbers and dates are parsed from the attribute bytes.
///
/// Safety: the parser runs with `XML_PARSE_NONET`, without DTD loading or
/// entity substitution, and stops at the first DOCTYPE or entity declaration,
/// so no entity is ever expanded and nothing is fetched. libxml2's own size
/// caps are lifted (`XML_PARSE_HUGE`: its 10 MB cap on a value refused values
/// Folio writes); Folio's ``DocumentLimits`` bound what libxml2 buffers instead,
/// measured by a ``MarkupScanner`` on each chunk before libxml2 gets it. And
/// the objects' values in memory may grow by at most 16 per byte read
/// (``valueBudget(bytes:)``), so memory stays proportional to the file.
/// Once every object is read, links are resolved and inverses, relationship
/// counts and unique values checked (DocumentLoader+Links, +Validation).
final class DocumentLoader {
    /// What file is read: a format-1 `document.xml`, a standalone schema file, a
    /// format-2 `manifest.xml`, one part file of a format-2 package, or one history segment file.
    /// `records`: any part file read as plain elements, one ``record`` call
    /// each, with no graph (a merge reads a part's objects this way).
    enum Mode: Equatable { case document, schemaFile, manifest, part(PackageManifest.Part), history, records }

    enum Phase {
        case start, root, schema, entity, attributeOrRelationship, afterSchema, objects, object, end, schemaFileDone,
            parts, part,
            // History: a manifest's list of segments, and a segment file's transactions.
            afterParts, historyList, historySegment, afterHistory, transactions, transaction, historyChange, tombstone,
            tombstoneValue,
            // Records: a part file's elements, read as they are.
            records, record,
            // A manifest's conflict records (after its parts).
            conflictList, conflictRecord
    }

    let file: String
    let mode: Mode
    /// The limits the document must keep; ``DocumentLimits/standard`` except in tests.
    let limits: DocumentLimits
    /// Objects read so far, against ``DocumentLimits/maximumObjects``.
    var objectCount = 0
    var phase = Phase.start
    private(set) var parser: xmlParserCtxtPtr?
    private(set) var error: PackageError? {
        didSet { hasFailed = error != nil }
    }
    /// Whether ``error`` is set: what every callback checks first. Reading the
    /// optional error itself copied it (through its generic value witness) twice per element.
    private(set) var hasFailed = false
    /// The bytes libxml2 had consumed when ``error`` was recorded: whether it
    /// failed before a construct the skipped scan would have refused.
    private var failedAtByte = Int.max
    private var fileSize = 0
    /// Whether any byte of the file given to libxml2 so far is `&`: until one is,
    /// no value can hold a character or entity reference, and none needs decoding.
    private(set) var sawAmpersand = false
    /// Values (identifiers, attribute cells, link cells) the objects read so far
    /// hold in memory (see ``valueBudget(bytes:)``).
    var valueCount = 0

    // Schema being read.
    private var entities: [Schema.Entity] = []
    private(set) var schema: Schema?
    /// What `<schema version="…">` said; `nil` for a package saved without one.
    private var schemaVersion: Schema.Version?
    private(set) var declaredNextID: UInt64 = 0
    private(set) var sawNextID = false
    /// The manifest's `supersedes`: the hash of the format-1 `document.xml` its
    /// save replaced (a crash may leave that file behind), if any.
    private(set) var supersededDocumentHash: UInt64?
    /// The parts a manifest lists, in order.
    var parts: [PackageManifest.Part] = []
    /// The format a manifest declares (2 or 3; ``PackageManifest/format``).
    private(set) var manifestFormat = 2
    /// The identifier of the last object a part file held (they must ascend).
    var lastPartID: UInt64 = 0
    /// For a part file: the one entity it may hold, and its identifiers' range.
    private(set) var partEntity = -1
    private(set) var partRange: ClosedRange<UInt64>?
    /// For a graph combined from part files: where each entity's rows came from
    /// (the first row of each part and its file), so errors found after the parse name the part.
    var rowFiles: [[(start: Int, file: String)]] = []

    // Objects being read.
    private(set) var graph: ObjectGraph?
    /// Per entity: where this loader writes its objects.
    var states: [EntityLoadState] = [] {
        didSet { lastElementState = nil }
    }
    /// Per entity: positions and raw links of the rows; the document's or
    /// manifest's loader owns them, a part's loader writes into its owner's.
    var storages: [EntityLoadStorage] = []
    var lastElementName: UnsafePointer<xmlChar>?
    var lastElementEntity = -1
    /// The state of ``lastElementEntity``, which ``states`` holds.
    var lastElementState: Unmanaged<EntityLoadState>?
    /// Entity numbers by name: the graph's, or for a part loader a copy of its own.
    var entityByName: [String: Int] = [:]
    var pendingBlobs: [(ref: ObjectRef, attribute: Int, name: String)] = []

    // History (DocumentLoader+History).
    /// A manifest's history list; `nil` for a package that has none.
    var historyLog: HistoryLog?
    /// A history segment file's transactions.
    var historyTransactions: [StoredTransaction] = []
    /// Every identifier a history names is below this: the document's
    /// identifier counter, which is above every identifier ever handed out.
    /// A segment's loader is given its log's; a manifest's is its `next-id`
    /// (no bound without one: packages written before the counter was recorded).
    var historyIdentifierCeiling: UInt64 = .max
    /// The schema a history file's transactions and tombstones must name (the
    /// manifest's, for a file read apart from it); `nil`: not checked. A
    /// manifest's own history is checked against the schema it declares.
    var historySchema: Schema?
    /// In ``Mode/records``: called with each element inside the root, its
    /// name, XML attributes and line.
    var record: ((_ name: String, _ xml: [String: String], _ line: Int) -> Void)?
    /// Reads only a manifest's format and schema, and takes format 3 too
    /// (whose manifest holds nothing else): what a merge of one package file
    /// needs. A package is never opened this way, so no format it cannot read
    /// whole is ever taken for an empty document.
    var readsSchemaOnly = false
    /// A manifest's conflict records, in order (``ObjectGraph/conflicts``).
    var conflictRecords: [MergeConflict] = []
    /// Whether the manifest listed its conflicts already (they come once).
    var sawConflicts = false
    /// In ``Mode/records``: the root element's XML attributes.
    private(set) var recordsRoot: [String: String] = [:]

    init(file: String, mode: Mode, limits: DocumentLimits = .standard) {
        self.file = file
        self.mode = mode
        self.limits = limits
    }

    /// A loader for one part file of a package whose manifest `owner` read: the
    /// part's objects are written in place, rows `base..<base + capacity` of its
    /// entity in the owner's graph and storage, which are sized for them and not
    /// touched otherwise until every part is read. Parts load concurrently, each
    /// into its own rows; only the owner indexes them.
    init(file: String, part: PackageManifest.Part, owner: DocumentLoader, base: Int, capacity: Int) {
        self.file = file
        self.mode = .part(part)
        self.limits = owner.limits
        self.schema = owner.schema
        graph = owner.graph
        storages = owner.storages
        if let graph {
            states = graph.layout.entities.indices.map { EntityLoadState(layout: graph.layout.entities[$0], entity: $0) }
            partEntity = graph.layout.entityIndex[part.entity] ?? -1
            entityByName = Dictionary(uniqueKeysWithValues: graph.layout.entityIndex.map { ($0.key, $0.value) })
            if partEntity >= 0 {
                states[partEntity].bind(to: graph.tables[partEntity], storage: storages[partEntity], base: base, capacity: capacity)
            }
        }
        partRange = part.first...part.last
    }

    // MARK: Driving the parser

    /// Parses the file at `path` in chunks; returns when the whole file is read or an error stopped it.
    func parse(path: String) throws(PackageError) {
        // A FIFO or device named document.xml is refused here, never waited on.
        try parse(FileIO.openRegularFile(path, followingLinks: mode == .schemaFile), path: path)
    }

    /// Parses a file of a package, reached the package's one guarded way (``PackageFolder``).
    func parse(_ item: PackageFolder.Item) throws(PackageError) {
        try parse(item.package.openRegularFile(item), path: item.path)
    }

    /// Parses `bytes` held in memory as the file at `path` (the file named in
    /// errors): what a merge of one part file parses when it reads only the
    /// lines of the objects both sides changed. Errors are located in `bytes`
    /// as in a file, so a caller that keeps each line at its line number
    /// (padding the lines it leaves out with empty ones) gets the file's lines.
    func parse(bytes: [UInt8], path: String) throws(PackageError) {
        // `withUnsafeBytes` rethrows untyped: the error is carried out as a result.
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(PackageError) in try parse(.bytes(raw), size: raw.count, path: path) }
        }
        try result.get()
    }

    /// Parses an open regular file in chunks, and closes it.
    private func parse(_ opened: (descriptor: Int32, size: Int), path: String) throws(PackageError) {
        defer { close(opened.descriptor) }
        try parse(.file(opened.descriptor), size: opened.size, path: path)
    }

    /// Where a parse reads: an open file (read in order, and read again with
    /// `pread` only to locate an error), or bytes in memory.
    private enum Input {
        case file(Int32)
        case bytes(UnsafeRawBufferPointer)

        /// The line and column of byte `offset` (see ``DocumentLoader/location(ofByte:descriptor:file:)``).
        func location(ofByte offset: Int, file: String) -> PackageError.Location {
            switch self {
            case .file(let descriptor): return DocumentLoader.location(ofByte: offset, descriptor: descriptor, file: file)
            case .bytes(let bytes):
                let end = min(offset, bytes.count)
                var line = 1, lineStart = 0
                for index in 0..<end where bytes[index] == 0x0A {
                    line += 1
                    lineStart = index + 1
                }
                return PackageError.Location(file: file, line: line, column: offset - lineStart + 1)
            }
        }
    }

    /// Parses `input` in chunks; returns when all of it is read or an error stopped it.
    private func parse(_ input: Input, size: Int, path: String) throws(PackageError) {
        fileSize = size
        // How far into `input` the reads are (bytes only: a file keeps its own offset).
        var consumed = 0
        func read(_ destination: UnsafeMutablePointer<CChar>, _ count: Int) -> Int {
            switch input {
            case .file(let descriptor): return FileIO.readRetrying(descriptor, destination, count)
            case .bytes(let bytes):
                let length = min(count, bytes.count - consumed)
                if length > 0, let base = bytes.baseAddress {
                    UnsafeMutableRawPointer(destination).copyMemory(from: base + consumed, byteCount: length)
                }
                consumed += length
                return length
            }
        }
        xmlInitParser()
        var handler = DocumentLoader.makeHandler()
        let context = Unmanaged.passUnretained(self).toOpaque()
        // Errors libxml2 raises without a parser context (bad bytes in the declared
        // encoding) reach the same handler as the parser's, never stderr.
        let hostHandlers = folio_xml_route_errors(context, DocumentLoader.contextlessErrorHandler)
        defer { folio_xml_restore_errors(hostHandlers) }
        guard let parser = xmlCreatePushParserCtxt(&handler, context, nil, 0, path) else {
            throw .malformedXML(PackageError.Location(file: file, line: 0, column: 0), message: "libxml2 could not start a parser")
        }
        self.parser = parser
        defer {
            xmlFreeParserCtxt(parser)
            self.parser = nil
        }
        _ = xmlCtxtUseOptions(parser, Int32(XML_PARSE_NONET.rawValue | XML_PARSE_HUGE.rawValue))
        let chunkSize = 1 << 20
        var capacity = chunkSize
        var chunk = UnsafeMutablePointer<CChar>.allocate(capacity: capacity)
        defer { chunk.deallocate() }
        var scanner = MarkupScanner(limits: limits)
        var offset = 0
        /// The size of the document read whole without a scan, in `chunk`.
        var unscanned: Int?
        while !hasFailed {
            // libxml2 rescans what it holds of an unfinished element for each chunk it
            // gets (the last `<` and `>`), so with chunks of one size a value spanning many
            // would cost time quadratic in its length. Within a long value, each read
            // is as large as the value so far, up to 32 MiB: a 256 MiB value is then
            // rescanned about 1 GB in all (a fraction of a second), and this buffer
            // adds at most 32 MiB to what libxml2 holds.
            let wanted = max(chunkSize, min(scanner.openValueLength, 32 << 20))
            if wanted > capacity {
                chunk.deallocate()
                capacity = wanted
                chunk = UnsafeMutablePointer<CChar>.allocate(capacity: capacity)
            } else if wanted == chunkSize, capacity > chunkSize {
                chunk.deallocate()
                capacity = chunkSize
                chunk = UnsafeMutablePointer<CChar>.allocate(capacity: capacity)
            }
            var count = read(chunk, wanted)
            if count < 0 { throw FileIO.error(path: path, operation: "read") }
            // A document that fits in the first chunk (a package's parts do) is read whole,
            // so that its spans alone may show it keeps within the limits (no scan).
            var isWhole = false
            if offset == 0, count > 0 {
                while count < wanted {
                    let more = read(chunk + count, wanted - count)
                    if more < 0 { throw FileIO.error(path: path, operation: "read") }
                    if more == 0 { isWhole = true; break }
                    count += more
                }
            }
            let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(chunk).assumingMemoryBound(to: UInt8.self), count: count)
            // One memchr per chunk, before libxml2 sees it, spares a test per value (see startObjectRow).
            if !sawAmpersand, count > 0, memchr(chunk, 0x26, count) != nil { sawAmpersand = true }
            let admitted = isWhole && MarkupScanner.admits(bytes, within: limits)
            if admitted { unscanned = count }
            if !admitted, let violation = scanner.scan(bytes) {
                // libxml2 first reads what comes before the construct, so an earlier error still comes first.
                if violation.offset > offset { _ = xmlParseChunk(parser, chunk, Int32(violation.offset - offset), 0) }
                if !hasFailed { fail(refusal(violation, input: input)) }
                break
            }
            offset += count
            // A whole document ends with this chunk: no read waits for the end.
            for (length, terminates) in isWhole ? [(count, false), (0, true)] : [(count, count == 0)] where !hasFailed {
                let status = xmlParseChunk(parser, chunk, Int32(length), terminates ? 1 : 0)
                // Bytes that are not text in the declared encoding (EUC-JP, UTF-16…) stop
                // the parser without a structured error: only this status tells, and a
                // document whose bad bytes came after its root would otherwise load.
                if !hasFailed, status == Int32(XML_ERR_INVALID_ENCODING.rawValue) {
                    fail(.invalidEncoding(location(), message: "bytes that are not text in the document's declared encoding"))
                }
            }
            if count == 0 || isWhole { break }
        }
        if let unscanned, hasFailed || parser.pointee.wellFormed == 0 {
            // A malformed document's spans may hide a construct over a limit behind a `<` (a value
            // of `<`s): the error is then the scanned read's, the construct's, unless libxml2
            // failed before it. Scanned only on failure, so a refusal does not depend on the file's size.
            if !hasFailed { failedAtByte = Int(xmlByteConsumed(parser)) }
            let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(chunk).assumingMemoryBound(to: UInt8.self), count: unscanned)
            var fresh = MarkupScanner(limits: limits)
            if let violation = fresh.scan(bytes), violation.offset <= failedAtByte { error = refusal(violation, input: input) }
        }
        if let error { throw error }
        if parser.pointee.wellFormed == 0 {
            throw .malformedXML(location(), message: "document is not well-formed")
        }
        if phase != (mode == .schemaFile || readsSchemaOnly || manifestFormat == 3 ? .schemaFileDone : .end) {
            throw .malformedXML(location(), message: "document ended before it was complete")
        }
    }

    /// The error for a construct that breaks a limit, located at its start.
    private func refusal(_ violation: MarkupScanner.Violation, input: Input) -> PackageError {
        let location = input.location(ofByte: violation.offset, file: file)
        if violation.isDeclaration {
            let what = violation.declaration.hasPrefix("<!DOCTYPE") ? "a DOCTYPE declaration (DTD)" : "a declaration (\(violation.declaration)…)"
            return .forbiddenDeclaration(location, what: what)
        }
        return .limitExceeded(location, limit: violation.limit, size: violation.size, maximum: limits.maximum(violation.limit))
    }

    /// The line and column (both 1-based, the column in bytes) of a byte of the
    /// file, counted by reading the open file again from its start (`pread`,
    /// never a second open): only errors need it, so reading never counts lines.
    static func location(ofByte offset: Int, descriptor: Int32, file: String) -> PackageError.Location {
        var line = 1
        var lineStart = 0
        var position = 0
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while position < offset {
            let count = buffer.withUnsafeMutableBytes { raw -> Int in
                while true {
                    let result = pread(descriptor, raw.baseAddress, min(raw.count, offset - position), off_t(position))
                    if result >= 0 || errno != EINTR { return result }
                }
            }
            guard count > 0 else { break }
            for index in 0..<count where buffer[index] == 0x0A {
                line += 1
                lineStart = position + index + 1
            }
            position += count
        }
        return PackageError.Location(file: file, line: line, column: offset - lineStart + 1)
    }

    func location() -> PackageError.Location {
        guard let parser else { return PackageError.Location(file: file, line: 0, column: 0) }
        let context = UnsafeMutableRawPointer(parser)
        return PackageError.Location(file: file, line: Int(xmlSAX2GetLineNumber(context)), column: Int(xmlSAX2GetColumnNumber(context)))
    }

    /// Records the first error and stops the parser; later callbacks do nothing.
    func fail(_ error: PackageError) {
        guard !hasFailed else { return }
        self.error = error
        if let parser {
            // Before the stop, which empties libxml2's input.
            failedAtByte = Int(xmlByteConsumed(parser))
            xmlStopParser(parser)
        }
    }

    /// Folio's error for one of libxml2's, located where libxml2 says (or where the parser stopped).
    private func packageError(for xmlError: xmlError) -> PackageError {
        let message =
            xmlError.message.map { String(cString: $0) }?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? "unknown libxml2 error"
        // An error raised outside the parser (the encoding layer) carries no line: the parser's position is where it stopped.
        let location =
            xmlError.line > 0
            ? PackageError.Location(file: file, line: Int(xmlError.line), column: Int(xmlError.int2))
            : self.location()
        let code = Int(xmlError.code)
        // XML_ERR_INVALID_CHAR also covers valid UTF-8 that XML forbids (U+0001, &#0;): only
        // libxml2's encoding errors and its "not proper UTF-8" message are encoding errors.
        if xmlError.domain == Int32(XML_FROM_I18N.rawValue) {
            return .invalidEncoding(location, message: "bytes that are not text in the document's declared encoding (\(message))")
        } else if code == Int(XML_ERR_INVALID_ENCODING.rawValue) || message.contains("UTF-8") {
            return .invalidEncoding(location, message: message)
        } else if code == Int(XML_ERR_UNDECLARED_ENTITY.rawValue) || code == Int(XML_WAR_UNDECLARED_ENTITY.rawValue) {
            return .forbiddenDeclaration(location, what: "an entity reference (\(message))")
        }
        return .malformedXML(location, message: message)
    }

    /// Receives the errors libxml2 raises with no parser context (its encoding and
    /// I/O layers, in the middle of converting a chunk): it records the first one,
    /// and the chunk loop stops. Stopping the parser from inside the converter would
    /// free the buffer it is converting.
    private static let contextlessErrorHandler: xmlStructuredErrorFunc = { context, errorPointer in
        guard let context, let xmlError = errorPointer?.pointee else { return }
        let loader = Unmanaged<DocumentLoader>.fromOpaque(context).takeUnretainedValue()
        guard xmlError.level.rawValue >= XML_ERR_ERROR.rawValue, !loader.hasFailed else { return }
        if let parser = loader.parser { loader.failedAtByte = Int(xmlByteConsumed(parser)) }
        loader.error = loader.packageError(for: xmlError)
    }

    private static func makeHandler() -> xmlSAXHandler {
        var handler = xmlSAXHandler()
        handler.initialized = UInt32(XML_SAX2_MAGIC)
        handler.startElementNs = { context, localname, prefix, _, _, _, attributeCount, _, attributes in
            guard let context, let localname else { return }
            // Borrowed for the call, not retained: the parser runs inside the loader's own `parse`.
            Unmanaged<DocumentLoader>.fromOpaque(context)._withUnsafeGuaranteedRef { loader in
                guard !loader.hasFailed else { return }
                if prefix != nil {
                    loader.fail(.unexpectedContent(loader.location(), found: "a namespaced element", expected: "Folio elements"))
                    return
                }
                loader.startElement(localname, attributes: attributes, count: Int(attributeCount))
            }
        }
        handler.endElementNs = { context, _, _, _ in
            guard let context else { return }
            Unmanaged<DocumentLoader>.fromOpaque(context)._withUnsafeGuaranteedRef { loader in
                guard !loader.hasFailed else { return }
                loader.endElement()
            }
        }
        handler.characters = { context, text, length in
            guard let context, let text else { return }
            for index in 0..<Int(length) {
                let byte = text[index]
                if byte != 0x20 && byte != 0x0A && byte != 0x09 && byte != 0x0D {
                    let loader = Unmanaged<DocumentLoader>.fromOpaque(context).takeUnretainedValue()
                    loader.fail(.unexpectedContent(loader.location(), found: "text", expected: "only elements"))
                    return
                }
            }
        }
        handler.cdataBlock = { context, _, _ in
            guard let context else { return }
            let loader = Unmanaged<DocumentLoader>.fromOpaque(context).takeUnretainedValue()
            loader.fail(.unexpectedContent(loader.location(), found: "CDATA", expected: "only elements"))
        }
        handler.internalSubset = { context, _, _, _ in
            guard let context else { return }
            let loader = Unmanaged<DocumentLoader>.fromOpaque(context).takeUnretainedValue()
            loader.fail(.forbiddenDeclaration(loader.location(), what: "a DOCTYPE declaration (DTD)"))
        }
        handler.externalSubset = { context, _, _, _ in
            guard let context else { return }
            let loader = Unmanaged<DocumentLoader>.fromOpaque(context).takeUnretainedValue()
            loader.fail(.forbiddenDeclaration(loader.location(), what: "an external DTD"))
        }
        handler.entityDecl = { context, _, _, _, _, _ in
            guard let context else { return }
            let loader = Unmanaged<DocumentLoader>.fromOpaque(context).takeUnretainedValue()
            loader.fail(.forbiddenDeclaration(loader.location(), what: "an entity declaration"))
        }
        handler.resolveEntity = { _, _, _ in nil }
        handler.getEntity = { _, _ in nil }
        handler.getParameterEntity = { _, _ in nil }
        handler.serror = { context, errorPointer in
            guard let context, let xmlError = errorPointer?.pointee else { return }
            let loader = Unmanaged<DocumentLoader>.fromOpaque(context).takeUnretainedValue()
            guard xmlError.level.rawValue >= XML_ERR_ERROR.rawValue else { return }
            loader.fail(loader.packageError(for: xmlError))
        }
        return handler
    }

    // MARK: Elements

    /// Whether an element is the one the structure requires here; fails the parse if not.
    func isElement(_ name: UnsafePointer<xmlChar>, _ expected: String) -> Bool {
        let elementName = String(cString: name)
        guard elementName == expected else {
            fail(.unexpectedContent(location(), found: "<\(elementName)>", expected: "<\(expected)>"))
            return false
        }
        return true
    }

    private func startElement(
        _ name: UnsafePointer<xmlChar>, attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?,
        count: Int
    ) {
        switch phase {
        case .object:
            fail(.unexpectedContent(location(), found: "<\(String(cString: name))> inside an object", expected: "an empty object element"))
        case .objects:
            startObject(name, attributes: attributes, count: count)
        case .start:
            let elementName = String(cString: name)
            let xml = attributeDictionary(attributes, count: count)
            switch (mode, elementName) {
            case (.document, "folio"), (.manifest, "folio"):
                let expected = mode == .manifest ? PackageManifest.formatVersion : "1"
                guard let version = xml["format"] else {
                    fail(.unexpectedContent(location(), found: "<folio> without format", expected: "format=\"\(expected)\""))
                    return
                }
                guard version == expected || (mode == .manifest && version == "3") else {
                    fail(.unsupportedFormat(location(), version: version))
                    return
                }
                if mode == .manifest, version == "3" {
                    // Format 3 keeps no counter, no list and no history in the manifest.
                    if let unknown = xml.keys.sorted().first(where: { $0 != "format" && $0 != "supersedes" }) {
                        fail(.unexpectedContent(location(), found: "'\(unknown)' on a format-3 <folio>", expected: "format alone"))
                        return
                    }
                    manifestFormat = 3
                }
                if let text = xml["next-id"] {
                    guard let next = UInt64(text), next > 0 else {
                        fail(.invalidIdentifier(location(), entity: "folio", id: text))
                        return
                    }
                    declaredNextID = next
                    sawNextID = true
                }
                if mode == .manifest, let text = xml["supersedes"] {
                    guard text.utf8.count == 16, let hash = UInt64(text, radix: 16) else {
                        fail(
                            .invalidValue(
                                location(), entity: "folio", attribute: "supersedes", text: text,
                                expected: "16 hexadecimal digits"))
                        return
                    }
                    supersededDocumentHash = hash
                }
                phase = .root
            case (.schemaFile, "schema"):
                readSchemaVersion(xml)
                phase = .schema
            case (.part(let part), "objects"):
                // Its rows were sized from the manifest's count; the part's own count
                // must say the same (docs/FORMAT.md, "Part files"): two counts that
                // disagree mean one of the two files is not the other's.
                let found = xml.keys.sorted().map { "\($0)=\"\(xml[$0] ?? "")\"" }.joined(separator: " ")
                if part.isBucket {
                    // Format 3 counts nothing in the root: the count would change on every insert.
                    guard xml.count == 1, xml["entity"] == part.entity else {
                        fail(.unexpectedContent(location(), found: "<objects \(found)>", expected: "<objects entity=\"\(part.entity)\">"))
                        return
                    }
                    phase = .objects
                    return
                }
                guard xml.count == 1, xml[part.entity] == String(part.count) else {
                    fail(
                        .unexpectedContent(
                            location(), found: "<objects \(found)>",
                            expected: "<objects \(part.entity)=\"\(part.count)\">, the count the manifest lists"))
                    return
                }
                phase = .objects
            case (.history, "history"):
                phase = .transactions
            case (.records, "objects"):
                recordsRoot = xml
                phase = .records
            default:
                let root: String
                switch mode {
                case .document, .manifest: root = "<folio>"
                case .schemaFile: root = "<schema>"
                case .part, .records: root = "<objects>"
                case .history: root = "<history>"
                }
                fail(.unexpectedContent(location(), found: "<\(elementName)>", expected: root + " as the root element"))
            }
        case .root:
            guard isElement(name, "schema") else { return }
            readSchemaVersion(attributeDictionary(attributes, count: count))
            phase = .schema
        case .schema:
            guard isElement(name, "entity") else { return }
            let xml = attributeDictionary(attributes, count: count)
            guard let entityName = xml["name"] else {
                fail(.invalidSchemaDeclaration(location(), message: "<entity> needs a name"))
                return
            }
            if let unknown = xml.keys.sorted().first(where: { !["name", "original-name", "superentity"].contains($0) }) {
                fail(.invalidSchemaDeclaration(location(), message: "entity \(entityName): unknown property '\(unknown)'"))
                return
            }
            entities.append(Schema.Entity(entityName, originalName: xml["original-name"], superentity: xml["superentity"]))
            phase = .entity
        case .entity:
            let elementName = String(cString: name)
            let xml = attributeDictionary(attributes, count: count)
            do throws(SchemaDeclarationError) {
                switch elementName {
                case "attribute": entities[entities.count - 1].attributes.append(try SchemaXML.attribute(from: xml))
                case "relationship": entities[entities.count - 1].relationships.append(try SchemaXML.relationship(from: xml))
                case "unique":
                    entities[entities.count - 1].uniquenessConstraints.append(try SchemaXML.uniquenessConstraint(from: xml))
                case "index": entities[entities.count - 1].indexes.append(try SchemaXML.index(from: xml))
                default:
                    fail(
                        .unexpectedContent(
                            location(), found: "<\(elementName)>",
                            expected: "<attribute>, <relationship>, <unique> or <index>"))
                    return
                }
            } catch {
                fail(.invalidSchemaDeclaration(location(), message: error.message))
                return
            }
            phase = .attributeOrRelationship
        case .attributeOrRelationship:
            fail(.unexpectedContent(location(), found: "<\(String(cString: name))>", expected: "an empty element"))
        case .afterSchema:
            // A manifest lists its parts where a format-1 document holds its objects.
            guard isElement(name, mode == .manifest ? "parts" : "objects") else { return }
            if mode == .manifest {
                phase = .parts
            } else {
                reserveCapacity(hints: attributeDictionary(attributes, count: count))
                phase = .objects
            }
        case .parts:
            guard isElement(name, "part") else { return }
            readPart(attributeDictionary(attributes, count: count))
            phase = .part
        case .part:
            fail(.unexpectedContent(location(), found: "<\(String(cString: name))>", expected: "an empty element"))
        case .afterParts, .historyList, .historySegment, .afterHistory, .transactions, .transaction, .historyChange,
            .tombstone, .tombstoneValue, .conflictList, .conflictRecord:
            startHistoryElement(name, attributeDictionary(attributes, count: count))
        case .records:
            phase = .record
            record?(String(cString: name), attributeDictionary(attributes, count: count), location().line)
        case .record:
            fail(.unexpectedContent(location(), found: "<\(String(cString: name))>", expected: "an empty element"))
        case .schemaFileDone where readsSchemaOnly:
            // The rest of a manifest (parts, conflicts, history) is not what was asked for.
            break
        case .schemaFileDone, .end:
            fail(.unexpectedContent(location(), found: "<\(String(cString: name))>", expected: "the end of the document"))
        }
    }

    private func endElement() {
        switch phase {
        case .object: phase = .objects
        case .objects: finishObjects()
        case .part: phase = .parts
        case .parts: phase = .afterParts
        case .attributeOrRelationship: phase = .entity
        case .entity: phase = .schema
        case .schema: finishSchema()
        case .root, .afterSchema:
            let next = phase == .root ? "<schema>" : mode == .manifest ? "<parts>" : "<objects>"
            fail(.unexpectedContent(location(), found: "</folio>", expected: next))
        case .afterParts, .historyList, .historySegment, .afterHistory, .transactions, .transaction, .historyChange,
            .tombstone, .tombstoneValue, .conflictList, .conflictRecord:
            endHistoryElement()
        case .record: phase = .records
        case .records: phase = .end
        case .end: break
        case .start, .schemaFileDone: break
        }
    }

    /// The version `<schema version="1.2.0">` records, if any (docs/FORMAT.md).
    private func readSchemaVersion(_ xml: [String: String]) {
        guard let text = xml["version"] else { return }
        guard let version = Schema.Version(text) else {
            fail(.invalidSchemaDeclaration(location(), message: "schema version '\(text)' is not major.minor.patch"))
            return
        }
        schemaVersion = version
    }

    private func finishSchema() {
        do throws(SchemaError) {
            schema = try Schema(entities)
            schema?.declaredVersion = schemaVersion
        } catch {
            fail(.invalidSchema(location(), error))
            return
        }
        guard mode != .schemaFile, !readsSchemaOnly, let schema else {
            phase = .schemaFileDone
            return
        }
        if manifestFormat == 3 {
            // The manifest ends with its schema; the parts are found by listing `parts/`.
            startGraph(schema: schema)
            phase = .schemaFileDone
            return
        }
        startGraph(schema: schema)
        phase = .afterSchema
    }

    private func startGraph(schema: Schema) {
        let graph = ObjectGraph(schema: schema)
        graph.limits = limits
        self.graph = graph
        states = graph.layout.entities.indices.map { EntityLoadState(layout: graph.layout.entities[$0], entity: $0) }
        storages = graph.layout.entities.indices.map { entity in
            let layout = graph.layout.entities[entity]
            return EntityLoadStorage(linkIsToMany: (0..<layout.declaredLinkCount).map { layout.links[$0].isToMany })
        }
        entityByName = graph.layout.entityIndex
    }

    /// One `<part entity first last count file/>` of a manifest, checked on its own;
    /// the order and overlap of parts are checked once all are read (``checkParts()``).
    private func readPart(_ xml: [String: String]) {
        guard let entity = xml["entity"], graph?.layout.entityIndex[entity] != nil else {
            fail(.unknownEntity(location(), name: xml["entity"] ?? ""))
            return
        }
        guard let first = xml["first"].flatMap(UInt64.init), first > 0,
            let last = xml["last"].flatMap(UInt64.init), last >= first,
            let count = xml["count"].flatMap(Int.init), count > 0, UInt64(count) - 1 <= last - first
        else {
            fail(
                .invalidValue(
                    location(), entity: entity, attribute: "part",
                    text: ["first", "last", "count"].map { "\($0)=\(xml[$0] ?? "")" }.joined(separator: " "),
                    expected: "0 < first ≤ last and 0 < count ≤ last − first + 1"))
            return
        }
        guard let file = xml["file"], PackageManifest.isPartFileName(file), file.hasPrefix(entity + "-") else {
            fail(
                .invalidValue(
                    location(), entity: entity, attribute: "file", text: xml["file"] ?? "",
                    expected: "a part file name (\(entity)-FIRST-HASH.xml)"))
            return
        }
        if let unknown = xml.keys.sorted().first(where: { !["entity", "first", "last", "count", "file"].contains($0) }) {
            fail(.unexpectedContent(location(), found: "'\(unknown)' on <part>", expected: "entity, first, last, count and file"))
            return
        }
        parts.append(PackageManifest.Part(entity: entity, first: first, last: last, count: count, file: file))
        objectCount += count
        if objectCount > limits.maximumObjects {
            fail(.limitExceeded(location(), limit: .objects, size: objectCount, maximum: limits.maximumObjects))
        }
    }

    private func finishObjects() {
        phase = .end
        if case .part(let part) = mode {
            if objectCount != part.count {
                fail(
                    .unexpectedContent(
                        location(), found: "\(objectCount) objects",
                        expected: part.isBucket
                            ? "the \(part.count) <\(part.entity)> elements the file holds (a part holds no comments)"
                            : "the \(part.count) the manifest lists for this part"))
            }
            return
        }
        trimRows()
        finishIdentifiers()
    }

    /// Sets the graph's next identifier from the largest one read (or the declared
    /// `next-id`), refusing a document that leaves none for new objects.
    func finishIdentifiers() {
        guard let graph else { return }
        let maxID = graph.index.maxID
        if maxID == .max {
            fail(.invalidIdentifier(location(), entity: "folio", id: "\(maxID) leaves no identifier for new objects"))
            return
        }
        if sawNextID {
            if declaredNextID <= maxID {
                fail(.invalidIdentifier(location(), entity: "folio", id: "next-id \(declaredNextID) is not above the largest id \(maxID)"))
                return
            }
            graph.nextID = declaredNextID
        } else {
            graph.nextID = maxID + 1
        }
    }

    /// How many values the objects in the first `bytes` bytes of a document may
    /// hold in memory: an identifier, one cell per attribute and one per link
    /// (declared or hidden inverse) for every object. An object costs its
    /// entity's whole row even when the file writes only `<E f.id="1"/>`, so
    /// without a budget a schema of thousands of optional attributes followed by
    /// thousands of such objects — a few hundred kilobytes — would need
    /// gigabytes (objects × properties). Past the 1 Mi values any document may
    /// use, a document needs one byte per 16 values; one whose objects write a
    /// byte for every 16 properties of their entity never comes near the limit.
    /// Checked as objects are read, against the bytes read so far, so a hostile
    /// document is refused after about 1 Mi values, not after filling the budget
    /// of its whole size.
    static func valueBudget(bytes: Int) -> Int {
        baseValueBudget + 16 * max(0, bytes)
    }

    static let baseValueBudget = 1 << 20

    /// Where the parser is in the document, in bytes (of UTF-8, after any decoding).
    func bytesRead() -> Int {
        guard let input = parser?.pointee.input?.pointee else { return 0 }
        let offset = input.cur.flatMap { cur in input.base.map { cur - $0 } } ?? 0
        return Int(input.consumed) + offset
    }

    /// Adds each entity's rows ahead from the `<objects Entity="count">` hints
    /// (rows not filled are dropped at the end, ``trimRows()``). A hint
    /// is only a hint: unknown names are ignored, and all hints together reserve no
    /// more objects than the file could hold (every object takes more than 16 bytes)
    /// nor more values than its budget allows.
    private func reserveCapacity(hints: [String: String]) {
        guard let graph else { return }
        let limit = max(0, fileSize / 16)
        var total = 0
        var values = 0
        let counts = hints.compactMap { name, text -> (entity: Int, count: Int)? in
            guard let entity = graph.layout.entityIndex[name], let count = Int(text), count > 0 else { return nil }
            return (entity, count)
        }
        for (entity, count) in counts.sorted(by: { $0.entity < $1.entity }) {
            let perObject = states[entity].valuesPerObject
            let capped = min(count, limit - total, (DocumentLoader.valueBudget(bytes: fileSize) - values) / perObject)
            guard capped > 0 else { continue }
            total += capped
            values += capped * perObject
            addRows(capped, entity: entity)
        }
        graph.index.reserveCapacity(min(total + 1, limit))
    }

    func attributeDictionary(_ attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?, count: Int) -> [String: String] {
        var result: [String: String] = [:]
        guard let attributes else { return result }
        for index in 0..<count {
            let base = index * 5
            guard let localname = attributes[base], let value = attributes[base + 3], let end = attributes[base + 4] else { continue }
            if attributes[base + 1] != nil {
                fail(.unexpectedContent(location(), found: "a namespaced attribute", expected: "Folio attributes"))
                continue
            }
            result[String(cString: localname)] = XMLText.withDecodedValue(UnsafeBufferPointer(start: value, count: end - value)) {
                String(decoding: $0, as: UTF8.self)
            }
        }
        return result
    }
}
