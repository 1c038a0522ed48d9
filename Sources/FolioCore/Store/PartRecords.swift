import Foundation

/// One part file read as plain records — its objects as ``ObjectState``s,
/// links as identifiers unresolved, and its conflict records — and written
/// back: how a merge driver merges one part without the rest of the package.
///
/// Reading goes through ``DocumentLoader`` (its `records` mode), so a part
/// is parsed with the loader's safety and limits; each object's cells are
/// read by the same value text as a package load. A link names objects of
/// other parts, which are not read: it stays a list of identifiers.
struct PartRecords {
    /// The part's entity.
    var entity: Schema.Entity
    /// Its objects, by identifier.
    var states: [UInt64: ObjectState] = [:]
    /// Its conflict records, in file order.
    var conflicts: [MergeConflict] = []
    /// The root element's XML attributes, kept when written back.
    var root: [String: String] = [:]

    /// Reads the part file at `path`, whose objects are `entityName`'s.
    ///
    /// - Parameter blobs: the package's `blobs` folder, for externally stored
    ///   values a merge must compare (two different files in one cell); `nil`
    ///   when there is none to read.
    /// - Throws: ``PackageError`` for a file that is not such a part, naming
    ///   its line.
    static func read(path: String, entity entityName: String, schema: Schema, blobs: PackageFolder?)
        throws(PackageError) -> PartRecords
    {
        try read(item: PackageFolder.item(atPath: path), entity: entityName, schema: schema, blobs: blobs)
    }

    /// Reads a package's part file, reached the package's guarded way (``read(path:entity:schema:blobs:)``).
    static func read(item: PackageFolder.Item, entity entityName: String, schema: Schema, blobs: PackageFolder?)
        throws(PackageError) -> PartRecords
    {
        try read(path: item.path, entity: entityName, schema: schema, blobs: blobs) { (loader) throws(PackageError) in
            try loader.parse(item)
        }
    }

    /// Reads a part file's bytes held in memory (some of its lines, each at its
    /// line number: see ``PartLines``), errors naming the file at `path`.
    static func read(bytes: [UInt8], path: String, entity entityName: String, schema: Schema, blobs: PackageFolder?)
        throws(PackageError) -> PartRecords
    {
        try read(path: path, entity: entityName, schema: schema, blobs: blobs) { (loader) throws(PackageError) in
            try loader.parse(bytes: bytes, path: path)
        }
    }

    /// Reads a part file through `parse`, which runs the loader over its bytes.
    private static func read(
        path: String, entity entityName: String, schema: Schema, blobs: PackageFolder?,
        parse: (DocumentLoader) throws(PackageError) -> Void
    ) throws(PackageError) -> PartRecords {
        let location = PackageError.Location(file: path, line: 0, column: 0)
        guard let entity = schema.entity(named: entityName) else { throw .unknownEntity(location, name: entityName) }
        var records = PartRecords(entity: entity)
        var failure: PackageError?
        let loader = DocumentLoader(file: path, mode: .records)
        loader.record = { name, xml, line in
            guard failure == nil else { return }
            let here = PackageError.Location(file: path, line: line, column: 0)
            if name == ConflictRecordXML.elementName {
                guard let conflict = ConflictRecordXML.read(xml, entity: entityName, schema: schema) else {
                    failure = .unexpectedContent(
                        here, found: "a conflict record that does not read",
                        expected: "<f.conflict> as docs/FORMAT.md describes")
                    return
                }
                records.conflicts.append(conflict)
                return
            }
            guard name == entityName else {
                failure = .unexpectedContent(here, found: "<\(name)>", expected: "<\(entityName)> objects")
                return
            }
            do throws(PackageError) {
                let (id, state) = try Self.state(xml, entity: entity, at: here, blobs: blobs)
                guard records.states.updateValue(state, forKey: id) == nil else {
                    throw .invalidIdentifier(here, entity: entityName, id: "\(id) (twice in the part)")
                }
            } catch {
                failure = error
            }
        }
        try parse(loader)
        if let failure { throw failure }
        records.root = loader.recordsRoot
        return records
    }

    /// One object element's identifier and state.
    private static func state(
        _ xml: [String: String], entity: Schema.Entity, at location: PackageError.Location,
        blobs: PackageFolder?
    ) throws(PackageError) -> (UInt64, ObjectState) {
        guard let idText = xml["f.id"], let id = UInt64(idText), id > 0 else {
            throw .invalidIdentifier(location, entity: entity.name, id: xml["f.id"] ?? "")
        }
        var attributes: [String: StoredValue] = [:]
        for attribute in entity.attributes where !attribute.isTransient {
            let text = xml[attribute.name] ?? xml[attribute.name + DocumentWriter.escapedSuffix].flatMap(JSONParser.unescapeBody)
            guard let text else {
                attributes[attribute.name] = .value(.null)
                continue
            }
            if attribute.isExternal {
                let name = text
                let type = attribute.type
                let entityName = entity.name, attributeName = attribute.name
                let reference = LazyBlob(
                    name: name, package: blobs?.path ?? "", folder: DocumentPackage.blobsFolderName,
                    read: { () throws(PackageError) -> Data in
                        guard let blobs else {
                            throw .missingBlob(location, entity: entityName, attribute: attributeName, file: name)
                        }
                        return try DocumentPackage.readBlob(
                            blobs.item(name, in: DocumentPackage.blobsFolderName),
                            missing: .missingBlob(
                                location, entity: entityName,
                                attribute: attributeName, file: name))
                    },
                    decode: { data in
                        guard let value = BlobText.value(of: data, as: type, maximumNesting: ValueText.maximumNesting) else {
                            throw PackageError.invalidValue(
                                location, entity: entityName, attribute: attributeName,
                                text: name, expected: type.description)
                        }
                        return value
                    })
                attributes[attribute.name] = .blob(reference)
                continue
            }
            guard let value = ValueText.decode(text, as: attribute.type) else {
                throw .invalidValue(
                    location, entity: entity.name, attribute: attribute.name, text: text,
                    expected: attribute.type.description)
            }
            attributes[attribute.name] = .value(value)
        }
        var links: [String: ObjectState.Link] = [:]
        for relationship in entity.relationships {
            guard let text = xml[relationship.name] else {
                links[relationship.name] = .init([], absent: relationship.isToMany && relationship.isOptional)
                continue
            }
            var ids: [UInt64] = []
            for word in text.split(separator: " ") {
                guard let number = UInt64(word), number > 0 else {
                    throw .invalidIdentifier(location, entity: entity.name, id: String(word))
                }
                ids.append(number)
            }
            links[relationship.name] = .init(ids)
        }
        return (id, ObjectState(entity: entity.name, attributes: attributes, links: links))
    }

    /// The part file's bytes: the declaration, the root as read, then each
    /// object by ascending identifier, one per line, each followed by its
    /// conflict records (those of objects no longer here at their place).
    func bytes(schema: Schema) -> Data {
        var buffer = ByteBuffer()
        Self.appendHeader(root: root, entity: entity.name, count: states.count, to: &buffer)
        var recordsByID: [UInt64: [MergeConflict]] = [:]
        for conflict in conflicts { recordsByID[conflict.id.id, default: []].append(conflict) }
        for id in Set(states.keys).union(recordsByID.keys).sorted() {
            if let state = states[id] { appendObject(id, state, to: &buffer) }
            for conflict in recordsByID[id] ?? [] { ConflictRecordXML.append(conflict, schema: schema, to: &buffer) }
        }
        buffer.append("</objects>\n")
        return buffer.withUnsafeBytes { Data($0) }
    }

    /// A part file's first two lines: the declaration, and the root with the
    /// XML attributes `root` (a part as read) in name order.
    static func appendHeader(root: [String: String], entity: String, count: Int, to buffer: inout ByteBuffer) {
        buffer.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<objects")
        for name in root.keys.sorted() {
            // A format-2 root counts the objects (`Animal="30"`): the count is the merged one.
            let text = name == entity ? String(count) : root[name] ?? ""
            DocumentWriter.appendText(text, name: name, to: &buffer)
        }
        buffer.append(">\n")
    }

    /// One object's line, as ``DocumentWriter`` writes it: attributes then
    /// relationships in declaration order, nil and empty lists left out.
    func appendObject(_ id: UInt64, _ state: ObjectState, to buffer: inout ByteBuffer) {
        buffer.append("  <")
        buffer.append(string: entity.name)
        buffer.append(" f.id=\"")
        buffer.append(uint: id)
        buffer.append("\"")
        for attribute in entity.attributes where !attribute.isTransient {
            switch state.attributes[attribute.name] {
            case .blob(let blob)?: DocumentWriter.appendText(blob.name, name: attribute.name, to: &buffer)
            case .value(let value)? where value != .null:
                DocumentWriter.appendText(ValueText.encode(value, as: attribute.type), name: attribute.name, to: &buffer)
            default: continue
            }
        }
        for relationship in entity.relationships {
            guard let link = state.links[relationship.name], !link.absent else { continue }
            if link.ids.isEmpty, !(relationship.isToMany && relationship.isOptional) { continue }
            DocumentWriter.appendText(link.ids.map(String.init).joined(separator: " "), name: relationship.name, to: &buffer)
        }
        buffer.append("/>\n")
    }
}
