import FolioCore

/// `schema`, `list`, `count` and `show`: reading the document.
extension Interpreter {
    // MARK: schema

    func schemaCommand(_ text: CommandLineText) throws(CommandError) {
        try expectEnd(text, after: 1)
        if options.json {
            emit(Self.result("schema", [("entities", .array(schema.entities.map(Self.json)))]))
            return
        }
        for entity in schema.entities {
            emit(entity.superentity.map { "\(entity.name) (inherits \($0))" } ?? entity.name)
            var rows: [[String]] = entity.attributes.map { [$0.name, Self.describe($0)] }
            rows += entity.relationships.map { [$0.name, Self.describe($0)] }
            // A `.unique` attribute's own group is shown by its option, above.
            rows += entity.uniquenessConstraints.filter { !Self.isUniqueOption($0, of: entity) }
                .map { ["(" + $0.joined(separator: ", ") + ")", $0.count == 1 ? "unique" : "unique together"] }
            rows += entity.indexes.map { ["(" + $0.joined(separator: ", ") + ")", "index"] }
            let width = rows.map { TerminalText.cellWidth(TerminalText.escaped($0[0])) }.max() ?? 0
            for row in rows {
                emit("  " + TerminalText.padded(TerminalText.escaped(row[0]), toCells: width) + "  " + row[1])
            }
        }
    }

    /// Whether a uniqueness constraint is one attribute's `.unique` option.
    static func isUniqueOption(_ constraint: [String], of entity: Schema.Entity) -> Bool {
        constraint.count == 1 && entity.attribute(named: constraint[0])?.isUnique == true
    }

    /// `int, optional, unique, default 3`.
    static func describe(_ attribute: Schema.Attribute) -> String {
        var parts = [attribute.type.description]
        if attribute.isOptional { parts.append("optional") }
        parts += Schema.Attribute.Option.allCases.filter(attribute.options.contains).map(\.rawValue)
        if let value = attribute.defaultStoredValue { parts.append("default \(value)") }
        return parts.joined(separator: ", ")
    }

    /// `-> Animal, to-many, inverse category, cascade` (`to-many, optional` for `[Animal]?`).
    static func describe(_ relationship: Schema.Relationship) -> String {
        var parts = ["-> \(relationship.destination)", relationship.isToMany ? "to-many" : "to-one"]
        if relationship.isOptional { parts.append("optional") }
        parts.append(relationship.inverse.map { "inverse \($0)" } ?? "no inverse")
        parts.append(relationship.deleteRule.rawValue)
        if relationship.minimumModelCount > 0 { parts.append("at least \(relationship.minimumModelCount)") }
        if relationship.maximumModelCount > 0 { parts.append("at most \(relationship.maximumModelCount)") }
        return parts.joined(separator: ", ")
    }

    static func json(_ entity: Schema.Entity) -> JSONText {
        let attributes = entity.attributes.map { attribute -> JSONText in
            var fields: [(String, JSONText)] = [
                ("name", .string(attribute.name)), ("type", .string(attribute.type.description)),
                ("optional", .bool(attribute.isOptional)),
                (
                    "options",
                    .array(
                        Schema.Attribute.Option.allCases
                            .filter(attribute.options.contains).map { .string($0.rawValue) })
                ),
            ]
            if let value = attribute.defaultStoredValue { fields.append(("default", JSONText(value))) }
            return .object(fields)
        }
        let relationships = entity.relationships.map { relationship -> JSONText in
            .object([
                ("name", .string(relationship.name)), ("destination", .string(relationship.destination)),
                ("toMany", .bool(relationship.isToMany)), ("optional", .bool(relationship.isOptional)),
                ("inverse", relationship.inverse.map(JSONText.string) ?? .null),
                ("deleteRule", .string(relationship.deleteRule.rawValue)),
                ("minimumCount", .int(relationship.minimumModelCount)),
                ("maximumCount", .int(relationship.maximumModelCount)),
            ])
        }
        let inherits: [(String, JSONText)] = entity.superentity.map { [("superentity", .string($0))] } ?? []
        return .object(
            [("name", .string(entity.name))] + inherits + [
                ("attributes", .array(attributes)),
                ("relationships", .array(relationships)),
                ("uniquenessConstraints", .array(entity.uniquenessConstraints.map { .array($0.map(JSONText.string)) })),
                ("indexes", .array(entity.indexes.map { .array($0.map(JSONText.string)) })),
            ])
    }

    // MARK: list

    func list(_ text: CommandLineText) throws(CommandError) {
        let query = try listQuery(text, from: 1, to: text.words.count, usage: Self.listUsage)
        let entity = query.entity
        var descriptor = query.descriptor
        // Without a limit, text and JSON alike show the first page, and say so.
        let page = descriptor.fetchLimit == nil ? Self.listPageSize : nil
        if let page { descriptor.fetchLimit = page }
        let ids = try fetch(descriptor, filter: query.filter, sortColumns: query.sortColumns)
        let total =
            ids.count < (descriptor.fetchLimit ?? Int.max) && descriptor.fetchOffset == nil
            ? ids.count
            : try fetch(filter: query.filter) { () throws(ModelError) in
                try context.fetchCount(DynamicFetchDescriptor(entity: entity.name, predicate: query.descriptor.predicate))
            }
        let more = page.map { _ in max(0, total - (descriptor.fetchOffset ?? 0) - ids.count) } ?? 0
        if options.json {
            var fields: [(String, JSONText)] = [("entity", .string(entity.name)), ("total", .int(total))]
            if let page { fields += [("limit", .int(page)), ("truncated", .bool(more > 0))] }
            let objects: [JSONText]
            if query.named {
                let paths = query.columns.map(\.path)
                objects = try rows(ids, query.columns).enumerated().map { index, row in
                    .object([("id", .int(ids[index].id)), ("values", .object(Array(zip(paths, row.map(\.json)))))])
                }
            } else {
                objects = try ids.map { (id) throws(CommandError) in try objectJSON(id, entity) }
            }
            emit(Self.result("list", fields + [("objects", .array(objects))]))
            return
        }
        if !ids.isEmpty { for line in try table(ids, query.columns).lines() { try checkCancelled(); emit(line) } }
        if more > 0 { emit("… \(Self.number(more)) more (use limit/offset)") }
        let matched = ids.count + more  // what the query selects, beyond the page shown
        emit(
            matched == total
                ? "\(Self.number(total)) \(entity.name)"
                : "\(Self.number(matched)) of \(Self.number(total)) \(entity.name)")
    }

    static let listUsage = "list needs an entity: list ENTITY [COLUMN, …] [where PREDICATE] [sort KEY [desc]] [limit N] [offset N]"

    /// Where a clause's words end: at the next clause keyword. In a predicate a
    /// keyword next to a comparison operator is a property name (`sort == 3`).
    static func clauseEnd(_ words: [CommandLineText.Word], from start: Int, inPredicate: Bool) -> Int {
        var index = start
        while index < words.count {
            let keyword = words[index].keyword
            if ["where", "sort", "limit", "offset"].contains(keyword) {
                let operatorAround =
                    (index + 1 < words.count && isOperator(words[index + 1].keyword))
                    || (index > start && isOperator(words[index - 1].keyword))
                if !(inPredicate && operatorAround) { return index }
            }
            index += 1
        }
        return index
    }

    static func isOperator(_ word: String) -> Bool {
        if let first = word.unicodeScalars.first, "=!<>".unicodeScalars.contains(first) { return true }
        return ["contains", "beginswith", "endswith", "in", "and", "or", "not", "&&", "||"]
            .contains { word == $0 || word.hasPrefix($0 + "[") }
    }

    /// The predicate of a `where` clause.
    func whereClause(
        _ text: CommandLineText, _ arguments: [CommandLineText.Word],
        missingColumn: Int
    ) throws(CommandError) -> Filter {
        guard let first = arguments.first, let last = arguments.last else {
            throw CommandError("'where' needs a predicate, e.g. where name == 'Koala'", column: missingColumn)
        }
        return try Filter(text, first.start..<last.end)
    }

    /// `sort KEY [asc|desc] [, KEY [asc|desc]]…`: the keys and each key's column.
    func sortClause(
        _ arguments: [CommandLineText.Word],
        missingColumn: Int
    ) throws(CommandError) -> ([DynamicFetchDescriptor.SortKey], [Int]) {
        var pieces: [(text: String, column: Int)] = []
        for argument in arguments {
            var offset = 0
            for part in argument.text.split(separator: ",", omittingEmptySubsequences: false) {
                if !part.isEmpty { pieces.append((String(part), argument.column + offset)) }
                offset += part.unicodeScalars.count + 1
            }
        }
        var keys: [DynamicFetchDescriptor.SortKey] = []
        var columns: [Int] = []
        for piece in pieces {
            switch piece.text.lowercased() {
            case "asc", "desc":
                guard !keys.isEmpty else { throw CommandError("'\(piece.text)' needs a key before it", column: piece.column) }
                keys[keys.count - 1].ascending = piece.text.lowercased() == "asc"
            default:
                keys.append(.init(piece.text))
                columns.append(piece.column)
            }
        }
        guard !keys.isEmpty else {
            throw CommandError("'sort' needs a key, e.g. sort name desc", column: missingColumn)
        }
        return (keys, columns)
    }

    /// Fetches, mapping predicate errors to line columns and a bad sort key to its column.
    func fetch(_ descriptor: DynamicFetchDescriptor, filter: Filter?, sortColumns: [Int] = []) throws(CommandError)
        -> [PersistentIdentifier]
    {
        do {
            return try context.fetchIdentifiers(descriptor)
        } catch {
            if Self.concernsSortKey(error), !descriptor.sortBy.isEmpty {
                // The library names no column for sort keys: find the key that fails alone.
                for (key, column) in zip(descriptor.sortBy, sortColumns) {
                    let probe = DynamicFetchDescriptor(entity: descriptor.entity, predicate: try? ObjectPredicate("false"), sortBy: [key])
                    do { _ = try context.fetchIdentifiers(probe) } catch { throw failure(error, column: column) }
                }
            }
            if case .predicate(let predicateError) = error, let filter { throw filter.error(predicateError) }
            throw failure(error)
        }
    }

    /// Whether a fetch error is about a sort key (which the library places at no column).
    static func concernsSortKey(_ error: ModelError) -> Bool {
        switch error {
        case .predicate(let predicateError): return predicateError.column == 0
        case .unsortable: return true
        default: return false
        }
    }

    /// Runs a fetch-like call, mapping predicate errors to line columns.
    func fetch<T>(filter: Filter?, _ body: () throws(ModelError) -> T) throws(CommandError) -> T {
        do {
            return try body()
        } catch {
            if case .predicate(let predicateError) = error, let filter { throw filter.error(predicateError) }
            throw failure(error)
        }
    }

    /// The `list` table: a heading per column; numbers, ids and counts right-aligned.
    func table(_ ids: [PersistentIdentifier], _ columns: [ListColumn]) throws(CommandError) -> TextTable {
        var table = TextTable(headers: columns.map(\.path), rightAligned: columns.map(\.isNumeric))
        table.rows = try rows(ids, columns).map { $0.map(\.tableCell) }
        return table
    }

    /// A value for a table cell: strings bare but escaped (``TextTable/stringCell(_:quoted:limit:)``),
    /// quoted in an any-value column so "3" differs from 3; others as the package writes them.
    static func cell(_ value: Value, _ type: ValueType) -> String {
        switch value {
        case .null: return "null"
        case .string(let string): return TextTable.stringCell(string, quoted: type == .any)
        default: return TextTable.cell(value.text(as: type == .any ? value.scalarType ?? type : type) ?? value.description)
        }
    }

    func read<T>(_ body: () throws(ModelError) -> T) throws(CommandError) -> T {
        do { return try body() } catch { throw failure(error) }
    }

    /// `{"id": 2, "entity": "Animal", "attributes": {…}, "relationships": {"category": 1, "animals": [..]}}`.
    func objectJSON(_ id: PersistentIdentifier, _ entity: Schema.Entity) throws(CommandError) -> JSONText {
        .object(try objectFields(id, entity))
    }

    /// ``objectJSON(_:_:)``'s fields, for `show` to put after its `"command"`.
    func objectFields(_ id: PersistentIdentifier, _ entity: Schema.Entity) throws(CommandError) -> [(String, JSONText)] {
        try checkCancelled()  // list --json makes one per row
        // An object of a subentity (listed with its superentity) has properties of its own too.
        let entity = id.entityName == entity.name ? entity : schema.entity(named: id.entityName) ?? entity
        var attributes: [(String, JSONText)] = []
        for attribute in entity.attributes {
            attributes.append((attribute.name, JSONText(try read { () throws(ModelError) in try context.value(attribute.name, of: id) })))
        }
        var relationships: [(String, JSONText)] = []
        for relationship in entity.relationships {
            let related = try read { () throws(ModelError) in try context.relatedCollection(relationship.name, of: id) }
            relationships.append(
                (
                    relationship.name,
                    relationship.isToMany
                        ? related.map { .array($0.map { .int($0.id) }) } ?? .null : related?.first.map { .int($0.id) } ?? .null
                ))
        }
        return [
            ("id", .int(id.id)), ("entity", .string(entity.name)),
            ("attributes", .object(attributes)), ("relationships", .object(relationships)),
        ]
    }

    // MARK: count

    func count(_ text: CommandLineText) throws(CommandError) {
        let words = text.words
        let entity = try self.entity(try word(text, 1, missing: "count needs an entity: count ENTITY [where PREDICATE]"))
        var filter: Filter?
        if words.count > 2 {
            guard words[2].keyword == "where" else {
                throw CommandError("unexpected '\(words[2].text)'; expected where", column: words[2].column)
            }
            filter = try whereClause(text, Array(words[3...]), missingColumn: text.endColumn)
        }
        let descriptor = DynamicFetchDescriptor(entity: entity.name, predicate: filter?.predicate)
        let number = try fetch(filter: filter) { () throws(ModelError) in try context.fetchCount(descriptor) }
        emit(String(number), or: Self.result("count", [("entity", .string(entity.name)), ("count", .int(number))]))
    }

    // MARK: show

    func show(_ text: CommandLineText) throws(CommandError) {
        let id = try object(try word(text, 1, missing: "show needs an object id, e.g. show 42 or show Animal#42"))
        try expectEnd(text, after: 2)
        guard let entity = schema.entity(named: id.entityName) else { throw CommandError("no entity \(id.entityName)") }
        if options.json {
            emit(Self.result("show", try objectFields(id, entity)))
            return
        }
        emit(id.description)
        let width =
            (entity.attributes.map(\.name) + entity.relationships.map(\.name))
            .map { TerminalText.cellWidth(TerminalText.escaped($0)) }.max() ?? 0
        func line(_ name: String, _ value: String) {
            emit("  " + TerminalText.padded(TerminalText.escaped(name), toCells: width) + "  " + value)
        }
        for attribute in entity.attributes {
            line(attribute.name, try read { () throws(ModelError) in try context.value(attribute.name, of: id) }.description)
        }
        for relationship in entity.relationships {
            // An optional to-many with no collection shows as null, as SwiftData's nil.
            guard let related = try read({ () throws(ModelError) in try context.relatedCollection(relationship.name, of: id) }) else {
                line(relationship.name, "null")
                continue
            }
            if relationship.isToMany {
                let shown = related.prefix(Self.listPageSize).map(\.description)
                let more = related.count > shown.count ? ", … \(related.count - shown.count) more" : ""
                line(relationship.name, "[" + shown.joined(separator: ", ") + more + "]")
            } else {
                line(relationship.name, related.first?.description ?? "null")
            }
        }
    }
}
