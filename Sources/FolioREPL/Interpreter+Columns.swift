import FolioCore

/// What `list` and `export` read: an entity, the columns to show (key paths
/// such as `category.name`), and the `where`, `sort`, `limit` and `offset` clauses.
struct ListQuery {
    var entity: Schema.Entity
    /// The columns, in order: those named, or the default table's.
    var columns: [ListColumn]
    /// Whether the columns were named (`list Animal name, category.name`).
    var named: Bool
    var descriptor: DynamicFetchDescriptor
    var filter: Filter?
    var sortColumns: [Int]
}

/// One column of `list` or `export`: a key path from the listed entity.
///
/// `name` (an attribute), `category` (a to-one relationship: the related id),
/// `animals` (a to-many: the ids), `animals.@count`, `category.name` (through
/// to-one relationships, any depth), `id`.
struct ListColumn {
    /// One hop of the path.
    enum Step {
        case toOne(String)
    }

    /// What the path ends in.
    enum Target {
        case id
        /// The object's entity: for an entity with subentities, whose objects are of several.
        case entity
        case attribute(Schema.Attribute)
        case toOne(Schema.Relationship)
        case toMany(Schema.Relationship)
        case count(Schema.Relationship)
    }

    /// The heading, as typed (`category.name`).
    var path: String
    /// The to-one relationships followed before the target.
    var steps: [Step]
    var target: Target

    /// Whether a table aligns the column right: numbers, ids and counts.
    var isNumeric: Bool {
        switch target {
        case .id, .toOne, .count: return true
        case .toMany, .entity: return false
        case .attribute(let attribute): return Self.numericTypes.contains(attribute.type)
        }
    }

    static let numericTypes: Set<ValueType> = [
        .int, .int8, .int16, .int32, .int64, .uint, .uint8, .uint16, .uint32,
        .uint64, .double, .float, .decimal,
    ]

    /// The default columns: id, the entity when it has subentities (whose
    /// objects a list includes), attributes, to-one relationships (ids),
    /// to-many (counts).
    static func defaults(of entity: Schema.Entity, hasSubentities: Bool = false) -> [ListColumn] {
        [ListColumn(path: "id", steps: [], target: .id)]
            + (hasSubentities ? [ListColumn(path: "entity", steps: [], target: .entity)] : [])
            + entity.attributes.map { ListColumn(path: $0.name, steps: [], target: .attribute($0)) }
            + entity.relationships.map {
                $0.isToMany
                    ? ListColumn(path: "\($0.name).@count", steps: [], target: .count($0))
                    : ListColumn(path: $0.name, steps: [], target: .toOne($0))
            }
    }
}

/// One cell of a `list` or `export` row, before it is spelled for a table, JSON or CSV.
enum ColumnValue {
    case value(Value, ValueType)
    /// A to-one relationship's object (`nil`: none).
    case object(PersistentIdentifier?)
    /// A to-many relationship's objects (`nil`: an optional to-many with no collection).
    case objects([PersistentIdentifier]?)
    case count(Int)

    /// The cell of a table: as `list` shows values (``Interpreter/cell(_:_:)``).
    var tableCell: String {
        switch self {
        case .value(let value, let type): return Interpreter.cell(value, type)
        case .object(let id): return id.map { Interpreter.number($0.id) } ?? "null"
        case .objects(let ids):
            return ids.map { TextTable.cell("[" + $0.map { Interpreter.number($0.id) }.joined(separator: ", ") + "]") } ?? "null"
        case .count(let count): return Interpreter.number(count)
        }
    }

    var json: JSONText {
        switch self {
        case .value(let value, _): return JSONText(value)
        case .object(let id): return id.map { .int($0.id) } ?? .null
        case .objects(let ids): return ids.map { .array($0.map { .int($0.id) }) } ?? .null
        case .count(let count): return .int(count)
        }
    }

    /// The CSV field: `nil` for null (an empty unquoted field); values as
    /// `insert` and `import` read them back (strings verbatim, collections as
    /// the package writes them, to-many ids as `[3, 4]`).
    var csvField: String? {
        switch self {
        case .value(let value, let type):
            if case .string(let string) = value { return string }
            return value.text(as: type)
        case .object(let id): return id.map { Interpreter.number($0.id) }
        case .objects(let ids): return ids.map { "[" + $0.map { Interpreter.number($0.id) }.joined(separator: ", ") + "]" }
        case .count(let count): return Interpreter.number(count)
        }
    }
}

extension Interpreter {
    /// The words that end a list of columns or a clause.
    static let listClauses = ["where", "sort", "limit", "offset"]

    /// Parses `ENTITY [COLUMN, …] [where …] [sort …] [limit N] [offset N]`,
    /// the words `start..<end` of the line (`start` is the entity's).
    func listQuery(_ text: CommandLineText, from start: Int, to end: Int, usage: String) throws(CommandError) -> ListQuery {
        let words = Array(text.words[..<end])
        guard start < words.count else {
            throw CommandError(usage, column: end < text.words.count ? text.words[end].column : text.endColumn)
        }
        let entity = try self.entity(words[start])
        var index = start + 1
        var columnWords: [CommandLineText.Word] = []
        while index < words.count, !Self.listClauses.contains(words[index].keyword) {
            columnWords.append(words[index])
            index += 1
        }
        let columns = try parseColumns(columnWords, of: entity)
        var query = ListQuery(
            entity: entity, columns: columns.isEmpty ? ListColumn.defaults(of: entity, hasSubentities: !schema.subentities(of: entity.name).isEmpty) : columns,
            named: !columns.isEmpty, descriptor: DynamicFetchDescriptor(entity: entity.name),
            filter: nil, sortColumns: [])
        var seen = Set<String>()
        let endColumn = end < text.words.count ? text.words[end].column : text.endColumn
        while index < words.count {
            let clause = words[index]
            guard seen.insert(clause.keyword).inserted else {
                throw CommandError("'\(clause.keyword)' is given twice", column: clause.column)
            }
            let clauseEnd = Self.clauseEnd(words, from: index + 1, inPredicate: clause.keyword == "where")
            let arguments = Array(words[(index + 1)..<clauseEnd])
            let missingColumn = clauseEnd < words.count ? words[clauseEnd].column : endColumn
            switch clause.keyword {
            case "where":
                query.filter = try whereClause(text, arguments, missingColumn: missingColumn)
                query.descriptor.predicate = query.filter?.predicate
            case "sort":
                (query.descriptor.sortBy, query.sortColumns) = try sortClause(arguments, missingColumn: missingColumn)
            default:
                guard let argument = arguments.first else {
                    throw CommandError("'\(clause.keyword)' needs a number", column: missingColumn)
                }
                guard let number = Int(argument.text), number >= 0 else {
                    throw CommandError("'\(argument.text)' is not a number of rows", column: argument.column)
                }
                if arguments.count > 1 { throw CommandError("unexpected '\(arguments[1].text)'", column: arguments[1].column) }
                if clause.keyword == "limit" { query.descriptor.fetchLimit = number } else { query.descriptor.fetchOffset = number }
            }
            index = clauseEnd
        }
        return query
    }

    /// `name, category.name animals.@count`: key paths separated by commas or spaces.
    func parseColumns(_ words: [CommandLineText.Word], of entity: Schema.Entity) throws(CommandError) -> [ListColumn] {
        var columns: [ListColumn] = []
        for word in words {
            var offset = 0
            for part in word.text.split(separator: ",", omittingEmptySubsequences: false) {
                let column = word.column + offset
                offset += part.unicodeScalars.count + 1
                if part.isEmpty {
                    if offset > 1, offset <= word.text.unicodeScalars.count { throw CommandError("expected a column between commas", column: column) }
                    continue
                }
                columns.append(try self.column(String(part), of: entity, at: column))
            }
        }
        return columns
    }

    /// Resolves a key path against the schema; errors name the part at fault.
    func column(_ path: String, of entity: Schema.Entity, at column: Int) throws(CommandError) -> ListColumn {
        let parts = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        var current = entity
        var steps: [ListColumn.Step] = []
        var partColumn = column
        for (index, part) in parts.enumerated() {
            let isLast = index == parts.count - 1
            defer { partColumn += part.unicodeScalars.count + 1 }
            if let attribute = current.attribute(named: part) {
                guard isLast else {
                    throw CommandError(
                        "\(current.name).\(part) is an attribute: nothing follows it in a key path",
                        column: partColumn + part.unicodeScalars.count)
                }
                return ListColumn(path: path, steps: steps, target: .attribute(attribute))
            }
            if let relationship = current.relationship(named: part) {
                if isLast {
                    return ListColumn(path: path, steps: steps, target: relationship.isToMany ? .toMany(relationship) : .toOne(relationship))
                }
                if relationship.isToMany {
                    guard parts[index + 1] == "@count", index + 2 == parts.count else {
                        throw CommandError(
                            "\(current.name).\(part) is to-many: only \(part).@count follows it",
                            column: partColumn + part.unicodeScalars.count + 1)
                    }
                    return ListColumn(path: path, steps: steps, target: .count(relationship))
                }
                guard let destination = schema.entity(named: relationship.destination) else {
                    throw CommandError("no entity \(relationship.destination)", column: partColumn)
                }
                steps.append(.toOne(relationship.name))
                current = destination
                continue
            }
            if part == "id", isLast { return ListColumn(path: path, steps: steps, target: .id) }
            if part == "entity", isLast { return ListColumn(path: path, steps: steps, target: .entity) }
            let names = current.attributes.map(\.name) + current.relationships.map(\.name)
            throw CommandError(
                "\(current.name) has no attribute or relationship '\(part)'"
                    + NameSuggestions.hint(for: part, among: names), column: partColumn)
        }
        throw CommandError("expected a column", column: column)
    }

    /// The value of one column for one object.
    func columnValue(_ column: ListColumn, of id: PersistentIdentifier) throws(CommandError) -> ColumnValue {
        var object = id
        for step in column.steps {
            guard case .toOne(let name) = step else { continue }
            guard let next = try read({ () throws(ModelError) in try context.related(name, of: object) }).first else {
                if case .attribute(let attribute) = column.target { return .value(.null, attribute.type) }
                return .object(nil)
            }
            object = next
        }
        switch column.target {
        case .id:
            return .object(object)
        case .entity:
            return .value(.string(object.entityName), .string)
        case .attribute(let attribute):
            return .value(try read { () throws(ModelError) in try context.value(attribute.name, of: object) }, attribute.type)
        case .toOne(let relationship):
            return .object(try read { () throws(ModelError) in try context.related(relationship.name, of: object) }.first)
        case .toMany(let relationship):
            return .objects(try read { () throws(ModelError) in try context.relatedCollection(relationship.name, of: object) })
        case .count(let relationship):
            return .count(try read { () throws(ModelError) in try context.related(relationship.name, of: object) }.count)
        }
    }

    /// Every row of `ids`, a value per column.
    func rows(_ ids: [PersistentIdentifier], _ columns: [ListColumn]) throws(CommandError) -> [[ColumnValue]] {
        var rows: [[ColumnValue]] = []
        rows.reserveCapacity(ids.count)
        for id in ids {
            try checkCancelled()
            var row: [ColumnValue] = []
            for column in columns { row.append(try columnValue(column, of: id)) }
            rows.append(row)
        }
        return rows
    }
}
