import FolioCore
import Foundation

/// `export` and `import`: rows out to a CSV or JSON file, and in from CSV.
extension Interpreter {
    /// The largest file `import` reads (256 MiB, the largest value a document holds).
    static let maximumImportSize = 256 << 20

    // MARK: export

    /// `export [list] ENTITY [COLUMN, …] [where …] [sort …] [limit N] [offset N] to PATH [--format csv|json] [--force]`:
    /// what `list` would show, every row of it (no page limit), written to a
    /// new file. The format is `--format`'s, else the path's extension's
    /// (`.json`; anything else is CSV). An existing file is replaced only with
    /// `--force`; a path in or at a document package is refused, links included.
    func export(_ text: CommandLineText) throws(CommandError) {
        let words = text.words
        var end = words.count
        var force = false
        var format: String?
        // Options after the path, in any order.
        while end > 1 {
            let word = words[end - 1]
            if word.keyword == "--force" {
                force = true
                end -= 1
            } else if end > 2, words[end - 2].keyword == "--format" {
                guard ["csv", "json"].contains(word.keyword) else {
                    throw CommandError("'--format' takes csv or json, not '\(word.text)'", column: word.column)
                }
                format = word.keyword
                end -= 2
            } else if word.keyword == "--format" {
                throw CommandError("'--format' needs csv or json", column: text.endColumn)
            } else {
                break
            }
        }
        guard end >= 3, words[end - 2].keyword == "to" else {
            throw CommandError(
                "export needs 'to PATH' at the end: " + Self.exportUsage,
                column: end < words.count ? words[end].column : text.endColumn)
        }
        let pathWord = words[end - 1]
        let start = words.count > 1 && words[1].keyword == "list" && schema.entity(named: words[1].text) == nil ? 2 : 1
        let query = try listQuery(text, from: start, to: end - 2, usage: "export needs an entity: " + Self.exportUsage)
        let url = try exportTarget(pathWord, force: force)
        let asJSON = (format ?? (url.pathExtension.lowercased() == "json" ? "json" : "csv")) == "json"
        let ids = try fetch(query.descriptor, filter: query.filter, sortColumns: query.sortColumns)
        let rows = try rows(ids, query.columns)
        var output = ""
        if asJSON {
            let paths = query.columns.map(\.path)
            output =
                rows.isEmpty
                ? "[]\n"
                : "[\n" + rows.map { JSONText.object(Array(zip(paths, $0.map(\.json)))).text }.joined(separator: ",\n") + "\n]\n"
        } else {
            output = CSVText.line(query.columns.map(\.path))
            for row in rows { output += CSVText.line(row.map(\.csvField)) }
        }
        do {
            // Without --force the file is created, never replaced (O_EXCL); with it, replaced whole (a rename).
            try Data(output.utf8).write(to: url, options: force ? .atomic : .withoutOverwriting)
        } catch {
            throw CommandError("cannot write \(Self.displayPath(url)): \(Self.reason(error))", column: pathWord.column, kind: .file)
        }
        let formatName = asJSON ? "json" : "csv"
        emit(
            "exported \(Self.number(rows.count)) \(query.entity.name) to \(Self.displayPath(url))",
            or: Self.result(
                "export",
                [
                    ("entity", .string(query.entity.name)), ("rows", .int(rows.count)),
                    ("path", .string(url.path)), ("format", .string(formatName)),
                ]))
    }

    static let exportUsage = "export list ENTITY [COLUMN, …] [where PREDICATE] [sort KEY] [limit N] to PATH [--format csv|json] [--force]"

    /// The file `export` may write: not a package, not in one (the real folder,
    /// links resolved), not a link or a folder, and new unless `force`.
    func exportTarget(_ word: CommandLineText.Word, force: Bool) throws(CommandError) -> URL {
        let path = NSString(string: CommandLineText.unquoted(word.text)).expandingTildeInPath
        guard !path.isEmpty else { throw CommandError("export needs a file name after 'to'", column: word.column) }
        let url = URL(fileURLWithPath: path).standardizedFileURL
        func refuse(_ message: String) -> CommandError { CommandError(message, column: word.column, kind: .file) }
        let folder = url.deletingLastPathComponent()
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw refuse("the folder \(Self.displayPath(folder)) does not exist")
        }
        for candidate in [url, folder, folder.resolvingSymlinksInPath()] {
            if let package = Self.enclosingPackage(candidate) {
                throw refuse("\(Self.displayPath(package)) is a document package: export writes files outside packages")
            }
        }
        if let type = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.type] as? FileAttributeType {
            switch type {
            case .typeSymbolicLink: throw refuse("\(Self.displayPath(url)) is a symbolic link; export does not follow links")
            case .typeRegular:
                if !force { throw refuse("\(Self.displayPath(url)) exists; add --force to replace it") }
            default: throw refuse("\(Self.displayPath(url)) exists and is not a file")
            }
        }
        return url
    }

    /// The document package `url` is or lies in: a folder named `*.folio` or
    /// holding a package's `manifest.xml` or `document.xml`.
    static func enclosingPackage(_ url: URL) -> URL? {
        var current = url
        while current.path != "/" && !current.path.isEmpty {
            var isDirectory: ObjCBool = false
            if current.pathExtension.lowercased() == "folio" { return current }
            if FileManager.default.fileExists(atPath: current.path, isDirectory: &isDirectory), isDirectory.boolValue,
                [DocumentPackage.manifestFileName, DocumentPackage.documentFileName].contains(where: {
                    FileManager.default.fileExists(atPath: current.appendingPathComponent($0).path)
                })
            {
                return current
            }
            current = current.deletingLastPathComponent()
        }
        return nil
    }

    /// A file error's reason, without Foundation's wrapping.
    static func reason(_ error: any Error) -> String {
        let nsError = error as NSError
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        if nsError.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(nsError.code))) }
        return nsError.localizedDescription
    }

    // MARK: import

    /// `import ENTITY from FILE.csv`: one object per row, the header naming
    /// attributes and relationships (to-one by id, to-many as `[3, 4]`). Values
    /// are read as `insert` reads them; an unquoted empty field gives no value
    /// (null, or the default). All or nothing: one undo step, and on any error —
    /// which names the file's line and column — nothing is inserted.
    func importRows(_ text: CommandLineText) throws(CommandError) {
        let usage = "import ENTITY from FILE.csv"
        let entity = try self.entity(try word(text, 1, missing: "import needs an entity: " + usage))
        let from = try word(text, 2, missing: "import needs 'from FILE.csv': " + usage)
        guard from.keyword == "from" else { throw CommandError("expected 'from', found '\(from.text)'", column: from.column) }
        let pathWord = try word(text, 3, missing: "import needs a file after 'from': " + usage)
        try expectEnd(text, after: 4)
        let path = NSString(string: CommandLineText.unquoted(pathWord.text)).expandingTildeInPath
        let url = URL(fileURLWithPath: path)
        let name = Self.displayPath(url)
        func fileError(_ message: String) -> CommandError { CommandError(message, column: pathWord.column, kind: .file) }
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path) else {
            throw fileError("\(name) does not exist")
        }
        // Never block on a FIFO or read a device: regular files only (a link to one is followed).
        let type =
            (try? FileManager.default.attributesOfItem(atPath: url.resolvingSymlinksInPath().path))?[.type]
            as? FileAttributeType ?? attributes[.type] as? FileAttributeType
        guard type == .typeRegular else { throw fileError("\(name) is not a regular file") }
        if let size = attributes[.size] as? Int, size > Self.maximumImportSize {
            throw fileError("\(name) is \(Self.number(size)) bytes, over the import limit of \(Self.number(Self.maximumImportSize))")
        }
        let data: Data
        do { data = try Data(contentsOf: url) } catch { throw fileError("cannot read \(name): \(Self.reason(error))") }
        guard let contents = String(validating: data, as: UTF8.self) else { throw fileError("\(name) is not UTF-8 text") }
        func at(_ line: Int, _ column: Int, _ message: String, kind: CommandError.Kind = .command) -> CommandError {
            CommandError("\(name) line \(Self.number(line)), column \(Self.number(column)): \(message)", column: pathWord.column, kind: kind)
        }
        let rows: [CSVText.Row]
        do { rows = try CSVText.rows(contents) } catch { throw at(error.line, error.column, error.message) }
        guard let header = rows.first else { throw fileError("\(name) is empty: its first line names the columns") }
        // The header: attributes and relationships of the entity, each once.
        var properties: [(name: String, attribute: Schema.Attribute?, relationship: Schema.Relationship?)] = []
        for field in header.fields {
            if properties.contains(where: { $0.name == field.text }) {
                throw at(field.line, field.column, "'\(field.text)' is given twice")
            }
            if let attribute = entity.attribute(named: field.text) {
                properties.append((field.text, attribute, nil))
            } else if let relationship = entity.relationship(named: field.text) {
                properties.append((field.text, nil, relationship))
            } else if field.text == "id" {
                throw at(
                    field.line, field.column,
                    "ids are given by the document: leave the id column out "
                        + "(export list \(entity.name) COLUMN, … names the columns to write)")
            } else {
                let names = entity.attributes.map(\.name) + entity.relationships.map(\.name)
                throw at(
                    field.line, field.column,
                    "\(entity.name) has no attribute or relationship '\(field.text)'"
                        + NameSuggestions.hint(for: field.text, among: names))
            }
        }
        // Every row parsed and checked before anything changes.
        var objects: [(line: Int, values: [String: Value], related: [String: [PersistentIdentifier]])] = []
        for row in rows.dropFirst() {
            guard row.fields.count == properties.count else {
                let column = row.fields.count > properties.count ? row.fields[properties.count].column : row.endColumn
                throw at(row.line, column, "expected \(properties.count) fields as the header names, found \(row.fields.count)")
            }
            var values: [String: Value] = [:]
            var related: [String: [PersistentIdentifier]] = [:]
            for (field, property) in zip(row.fields, properties) {
                if field.text.isEmpty, !field.quoted { continue }  // no value: null, or the default
                let subject = "\(entity.name).\(property.name)"
                let valueColumn = field.column + (field.quoted ? 1 : 0)
                do throws(CommandError) {
                    if let attribute = property.attribute {
                        // Strings verbatim (a CSV field is already unquoted); others as insert reads them.
                        let value =
                            attribute.type == .string
                            ? .string(field.text)
                            : try ValueLiteral.parse(field.text, as: attribute.type, for: subject)
                        if value == .null, !attribute.isOptional, attribute.type != .any {
                            throw CommandError("\(subject) is not optional; it cannot be null", column: 1)
                        }
                        values[property.name] = value
                    } else if let relationship = property.relationship {
                        let fieldText = CommandLineText(field.text)
                        related[property.name] =
                            try parseTargets(
                                fieldText, 0..<fieldText.scalars.count, relationship,
                                subject: subject) ?? []
                    }
                } catch {
                    throw at(field.line, valueColumn + max(error.column, 1) - 1, error.message, kind: error.kind)
                }
            }
            objects.append((row.line, values, related))
        }
        var inserted = 0, updated = 0
        try change(named: "Import \(Self.number(objects.count)) \(entity.name)") { () throws(CommandError) in
            for object in objects {
                let existing = try read { () throws(ModelError) in try context.upsertMatch(entity.name, object.values, related: object.related) }
                if existing == nil {
                    let missing = entity.attributes.filter { $0.isRequired && object.values[$0.name] == nil }.map(\.name)
                    if !missing.isEmpty {
                        throw at(object.line, 1, "\(entity.name) needs a value for \(missing.joined(separator: ", ")) (not optional, no default)")
                    }
                }
                do throws(ModelError) {
                    _ = try context.insert(entity.name, object.values, related: object.related)
                } catch {
                    throw at(object.line, 1, error.description, kind: .edit)
                }
                if existing == nil { inserted += 1 } else { updated += 1 }
            }
        }
        emit(
            "imported \(Self.number(inserted)) \(entity.name) from \(name)"
                + (updated > 0 ? " (\(Self.number(updated)) updated existing objects)" : ""),
            or: Self.result(
                "import",
                [
                    ("entity", .string(entity.name)), ("path", .string(url.path)),
                    ("inserted", .int(inserted)), ("updated", .int(updated)),
                ]))
    }
}
