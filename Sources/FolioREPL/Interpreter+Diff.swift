import FolioCore

/// `diff`: the unsaved changes, object by object, against the last save.
extension Interpreter {
    /// How many characters of a value `diff` shows before cutting it with `…`.
    static let diffValueLength = 60
    /// How many objects of a to-many relationship `diff` names before summing up the rest.
    static let diffListLength = 10

    /// One object's part in the unsaved changes.
    private enum Difference {
        case inserted, changed, deleted
    }

    /// Lists every unsaved change, in identifier order: `+ ID: name="…", …`
    /// for an insert (its values now), `- ID: …` for a delete (its values as
    /// saved), and for an edited object one `~ ID: property old → new` line per
    /// property that differs from the save. Externally stored values are never
    /// read: they are named, not shown. Ctrl-C stops it between objects.
    func diff(_ text: CommandLineText) throws(CommandError) {
        try expectEnd(text, after: 1)
        context.processPendingChanges()
        var objects: [(id: PersistentIdentifier, kind: Difference)] = []
        objects += context.insertedIdentifiers.map { ($0, .inserted) }
        objects += context.changedIdentifiers.map { ($0, .changed) }
        objects += context.deletedIdentifiers.map { ($0, .deleted) }
        objects.sort { $0.id < $1.id }
        if options.json {
            var inserted: [JSONText] = [], changed: [JSONText] = [], deleted: [JSONText] = []
            for object in objects {
                try checkCancelled()
                switch object.kind {
                case .inserted: inserted.append(try diffJSON(object.id, saved: false))
                case .deleted: deleted.append(try diffJSON(object.id, saved: true))
                case .changed: changed.append(try changeJSON(object.id))
                }
            }
            emit(Self.result("diff", [("inserted", .array(inserted)), ("changed", .array(changed)), ("deleted", .array(deleted))]))
            return
        }
        guard !objects.isEmpty else {
            emit("no unsaved changes")
            return
        }
        for object in objects {
            try checkCancelled()
            switch object.kind {
            case .inserted: emit("+ \(object.id): " + (try summary(object.id, saved: false)))
            case .deleted: emit("- \(object.id): " + (try summary(object.id, saved: true)))
            case .changed:
                for line in try changeLines(object.id) { emit("~ \(object.id): " + line) }
            }
        }
        emit(changeCounts)
    }

    // MARK: Text

    /// `name="Kiwi", diet="omnivorous", category=AnimalCategory#6`: the
    /// object's values now, or as last saved; nulls, empty to-manys and
    /// externally stored values left out.
    private func summary(_ id: PersistentIdentifier, saved: Bool) throws(CommandError) -> String {
        guard let entity = schema.entity(named: id.entityName) else { return "" }
        var parts: [String] = []
        for attribute in entity.attributes where !attribute.isExternal && !attribute.isTransient {
            let value = try attributeValue(attribute.name, of: id, saved: saved)
            if value != .null { parts.append("\(attribute.name)=\(Self.shown(value))") }
        }
        for relationship in entity.relationships {
            let related = try relatedObjects(relationship.name, of: id, saved: saved)
            if relationship.isToMany {
                if !related.isEmpty { parts.append("\(relationship.name)=\(Self.shown(related))") }
            } else if let target = related.first {
                parts.append("\(relationship.name)=\(target)")
            }
        }
        return parts.isEmpty ? "(no values)" : parts.joined(separator: ", ")
    }

    /// `name "Newt" → "Great Crested Newt"`, `category AnimalCategory#1 → null`,
    /// `animals +Animal#37 -Animal#5`: one line per property that differs from the save.
    private func changeLines(_ id: PersistentIdentifier) throws(CommandError) -> [String] {
        guard let entity = schema.entity(named: id.entityName) else { return [] }
        var lines: [String] = []
        for name in context.changedPropertyNames(of: id) {
            if let attribute = entity.attribute(named: name) {
                if attribute.isExternal {
                    lines.append("\(name) changed (stored externally, not shown)")
                    continue
                }
                let old = try attributeValue(name, of: id, saved: true)
                let new = try attributeValue(name, of: id, saved: false)
                lines.append("\(name) \(Self.shown(old)) → \(Self.shown(new))")
            } else if let relationship = entity.relationship(named: name) {
                let old = try relatedObjects(name, of: id, saved: true)
                let new = try relatedObjects(name, of: id, saved: false)
                guard relationship.isToMany else {
                    lines.append("\(name) \(old.first?.description ?? "null") → \(new.first?.description ?? "null")")
                    continue
                }
                let oldSet = Set(old), newSet = Set(new)
                let added = new.filter { !oldSet.contains($0) }, removed = old.filter { !newSet.contains($0) }
                var parts = Self.named(added, "+") + Self.named(removed, "-")
                if parts.isEmpty { parts = [old.isEmpty && new.isEmpty ? "null → []" : "reordered"] }
                lines.append("\(name) " + parts.joined(separator: " "))
            }
        }
        return lines
    }

    /// `+Animal#3 +Animal#4 … and 12 more` (with `sign`), the first ``diffListLength`` named.
    private static func named(_ ids: [PersistentIdentifier], _ sign: String) -> [String] {
        var parts = ids.prefix(diffListLength).map { sign + $0.description }
        if ids.count > diffListLength { parts.append("… and \(ids.count - diffListLength) more") }
        return parts
    }

    /// A value as `show` writes it, cut at ``diffValueLength`` characters.
    static func shown(_ value: Value) -> String {
        let text = value.description
        return text.count > diffValueLength ? String(text.prefix(diffValueLength - 1)) + "…" : text
    }

    /// `[Animal#2, Animal#3, … 5 more]`.
    private static func shown(_ ids: [PersistentIdentifier]) -> String {
        let more = ids.count > diffListLength ? ", … \(ids.count - diffListLength) more" : ""
        return "[" + ids.prefix(diffListLength).map(\.description).joined(separator: ", ") + more + "]"
    }

    // MARK: Reading both states

    private func attributeValue(_ name: String, of id: PersistentIdentifier, saved: Bool) throws(CommandError) -> Value {
        try read { () throws(ModelError) in saved ? try context.savedValue(name, of: id) ?? .null : try context.value(name, of: id) }
    }

    private func relatedObjects(_ name: String, of id: PersistentIdentifier, saved: Bool) throws(CommandError) -> [PersistentIdentifier] {
        try read { () throws(ModelError) in saved ? try context.savedRelated(name, of: id) ?? [] : try context.related(name, of: id) }
    }

    // MARK: JSON

    /// An inserted object as it is now, or a deleted one as last saved:
    /// `{"entity", "id", "attributes": {…}, "relationships": {…}}`, externally stored values left out.
    private func diffJSON(_ id: PersistentIdentifier, saved: Bool) throws(CommandError) -> JSONText {
        guard let entity = schema.entity(named: id.entityName) else { return .null }
        var attributes: [(String, JSONText)] = []
        for attribute in entity.attributes where !attribute.isExternal && !attribute.isTransient {
            attributes.append((attribute.name, JSONText(try attributeValue(attribute.name, of: id, saved: saved))))
        }
        var relationships: [(String, JSONText)] = []
        for relationship in entity.relationships {
            relationships.append(
                (
                    relationship.name,
                    Self.json(
                        try relatedObjects(relationship.name, of: id, saved: saved),
                        toMany: relationship.isToMany)
                ))
        }
        return .object([
            ("entity", .string(id.entityName)), ("id", .int(id.id)),
            ("attributes", .object(attributes)), ("relationships", .object(relationships)),
        ])
    }

    /// A changed object: each differing attribute as `{"old", "new"}`
    /// (`{"externalStorage": true}` for one stored externally, not read), each
    /// differing relationship as `{"old": ids, "new": ids}`.
    private func changeJSON(_ id: PersistentIdentifier) throws(CommandError) -> JSONText {
        guard let entity = schema.entity(named: id.entityName) else { return .null }
        var attributes: [(String, JSONText)] = []
        var relationships: [(String, JSONText)] = []
        for name in context.changedPropertyNames(of: id) {
            if let attribute = entity.attribute(named: name) {
                if attribute.isExternal {
                    attributes.append((name, .object([("externalStorage", .bool(true))])))
                } else {
                    attributes.append(
                        (
                            name,
                            .object([
                                ("old", JSONText(try attributeValue(name, of: id, saved: true))),
                                ("new", JSONText(try attributeValue(name, of: id, saved: false))),
                            ])
                        ))
                }
            } else if let relationship = entity.relationship(named: name) {
                relationships.append(
                    (
                        name,
                        .object([
                            ("old", Self.json(try relatedObjects(name, of: id, saved: true), toMany: relationship.isToMany)),
                            ("new", Self.json(try relatedObjects(name, of: id, saved: false), toMany: relationship.isToMany)),
                        ])
                    ))
            }
        }
        return .object([
            ("entity", .string(id.entityName)), ("id", .int(id.id)),
            ("attributes", .object(attributes)), ("relationships", .object(relationships)),
        ])
    }

    /// A to-one as an id or null, a to-many as an array of ids.
    private static func json(_ ids: [PersistentIdentifier], toMany: Bool) -> JSONText {
        toMany ? .array(ids.map { .int($0.id) }) : ids.first.map { .int($0.id) } ?? .null
    }
}
