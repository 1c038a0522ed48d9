import FolioCore
import Foundation

/// `insert`, `set`, `link` and `unlink`: each one undo step, validated in full before anything changes.
extension Interpreter {
    /// One `name=value` of `insert` or `set`, checked against the schema.
    enum Assignment {
        case attribute(String, Value)
        /// `nil`: `null`, no object (to-one) or no collection (an optional to-many).
        case relationship(String, [PersistentIdentifier]?)

        var name: String {
            switch self {
            case .attribute(let name, _), .relationship(let name, _): return name
            }
        }
    }

    // MARK: insert

    func insert(_ text: CommandLineText) throws(CommandError) {
        let entity = try self.entity(try word(text, 1, missing: "insert needs an entity: insert ENTITY name=value … [as NAME]"))
        // `as NAME` at the end names what is inserted, for `$NAME` later.
        let words = text.words
        let alias = words.count >= 4 && words[words.count - 2].keyword == "as" ? words[words.count - 1] : nil
        if let alias { try checkObjectName(alias) }
        let assignments = try parseAssignments(text, from: 2, to: alias == nil ? nil : words.count - 2, entity: entity)
        var values: [String: Value] = [:]
        var related: [String: [PersistentIdentifier]] = [:]
        for assignment in assignments {
            switch assignment {
            case .attribute(let name, let value): values[name] = value
            case .relationship(let name, let targets): related[name] = targets
            }
        }
        // An insert that matches a unique value updates that object (the library's upsert): ask first,
        // so a new object can be refused for what it lacks, and the answer says which it was.
        let existing = try read { () throws(ModelError) in try context.upsertMatch(entity.name, values, related: related) }
        if let existing {
            // A mistyped key would otherwise overwrite another row: say which object, and what changes, and ask.
            try previewUpsert(of: existing, entity, values, related)
            guard confirmed("Update \(existing)? [y/N] ", command: "insert") else { return }
        }
        if existing == nil {
            let missing = entity.attributes.filter { $0.isRequired && values[$0.name] == nil }.map(\.name)
            if !missing.isEmpty {
                throw CommandError(
                    "\(entity.name) needs a value for \(missing.joined(separator: ", ")) "
                        + "(not optional, no default), e.g. \(missing[0])=…", column: text.endColumn)
            }
        }
        var id: PersistentIdentifier?
        try change { () throws(CommandError) in
            // Relationships go with the insert: a unique group may have one among its members.
            let inserted = try read { () throws(ModelError) in try context.insert(entity.name, values, related: related) }
            context.undoManager?.setActionName("\(existing == nil ? "Insert" : "Update") \(inserted)")
            id = inserted
        }
        guard let id else { return }
        var name: [(String, JSONText)] = []
        if let alias {
            objectNames[alias.text] = id
            name = [("name", .string("$" + alias.text))]
        }
        emit(
            (existing == nil ? id.description : "updated existing \(id)") + (alias.map { " as $\($0.text)" } ?? ""),
            or: Self.result(
                "insert",
                [
                    ("entity", .string(id.entityName)), ("id", .int(id.id)),
                    ("inserted", .bool(existing == nil)),
                ] + name))
    }

    /// The preview of an insert that updates `existing` (its upsert match):
    /// which unique values matched, then each given value or relationship
    /// that differs from what the object holds, as `name: old → new`.
    private func previewUpsert(
        of existing: PersistentIdentifier, _ entity: Schema.Entity, _ values: [String: Value],
        _ related: [String: [PersistentIdentifier]]
    ) throws(CommandError) {
        func given(_ member: String) -> String? {
            if let value = values[member] { return value.description }
            return related[member].map { $0.first?.description ?? "null" }
        }
        // The rules whose every member was given: the upsert matched on one of them.
        let rules = entity.uniquenessConstraints.filter { $0.allSatisfy { given($0) != nil } }
        let matched = rules.map { rule in
            rule.count == 1
                ? "\(rule[0]) \(given(rule[0]) ?? "")"
                : "(\(rule.joined(separator: ", "))) = (\(rule.compactMap(given).joined(separator: ", ")))"
        }.joined(separator: " or ")
        preview("\(existing) already has \(matched), unique in \(entity.name): this insert updates it")
        var changes: [String] = []
        for (name, value) in values.sorted(by: { $0.key < $1.key }) {
            let old = try read { () throws(ModelError) in try context.value(name, of: existing) }
            if old != value { changes.append("  \(name): \(old) → \(value)") }
        }
        for (name, targets) in related.sorted(by: { $0.key < $1.key }) {
            let old = try read { () throws(ModelError) in try context.related(name, of: existing) }
            if old != targets {
                func listed(_ ids: [PersistentIdentifier]) -> String {
                    guard entity.relationship(named: name)?.isToMany == true else { return ids.first?.description ?? "null" }
                    let more = ids.count > Self.diffListLength ? ", … \(ids.count - Self.diffListLength) more" : ""
                    return "[" + ids.prefix(Self.diffListLength).map(\.description).joined(separator: ", ") + more + "]"
                }
                changes.append("  \(name): \(listed(old)) → \(listed(targets))")
            }
        }
        if changes.isEmpty { changes = ["  (every value given is the one it holds)"] }
        changes.forEach(preview)
    }

    // MARK: set

    func set(_ text: CommandLineText) throws(CommandError) {
        let id = try object(try word(text, 1, missing: "set needs an object id: set ID name=value …"))
        guard let entity = schema.entity(named: id.entityName) else { throw CommandError("no entity \(id.entityName)") }
        _ = try word(text, 2, missing: "set needs name=value after the id, e.g. set \(id.id) name=\"Rex\"")
        let assignments = try parseAssignments(text, from: 2, entity: entity)
        try checkUniqueness(of: assignments, for: id, in: text)
        try change(named: "Set \(id).\(assignments.map(\.name).joined(separator: ", "))") { () throws(CommandError) in
            for assignment in assignments {
                switch assignment {
                case .attribute(let attribute, let value):
                    try read { () throws(ModelError) in try context.setValue(value, for: attribute, of: id) }
                case .relationship(let relationship, let targets):
                    try read { () throws(ModelError) in try context.setRelated(targets, for: relationship, of: id) }
                }
            }
        }
        emit(
            "updated \(id)",
            or: Self.result(
                "set",
                [
                    ("entity", .string(id.entityName)), ("id", .int(id.id)),
                    ("properties", .array(assignments.map { .string($0.name) })),
                ]))
    }

    /// Refuses assignments that would give `id` — or an object a to-many
    /// assignment takes over, through its to-one inverse — values another
    /// object holds in a unique attribute or constraint: the save's rule,
    /// asked before anything changes, so the refusal comes now, once, and
    /// leaves no undo step.
    func checkUniqueness(
        of assignments: [Assignment], for id: PersistentIdentifier,
        in text: CommandLineText
    ) throws(CommandError) {
        var values: [String: Value] = [:]
        var related: [String: [PersistentIdentifier]?] = [:]
        for assignment in assignments {
            switch assignment {
            case .attribute(let name, let value): values[name] = value
            case .relationship(let name, let targets): related[name] = targets
            }
        }
        let words = text.words.dropFirst(2)
        try refuseUniquenessConflicts(setting: values, related: related, of: id) { members in
            words.first { word in members.contains { word.text.hasPrefix($0 + "=") } }?.column ?? 0
        }
        for (name, targets) in related {
            guard let inverse = inverse(of: name, in: id.entityName), !inverse.isToMany else { continue }
            let column = words.first { $0.text.hasPrefix(name + "=") }?.column ?? 0
            for target in targets ?? [] {
                try refuseUniquenessConflicts(setting: [:], related: [inverse.name: [id]], of: target) { _ in column }
            }
        }
    }

    /// The inverse of an entity's relationship, from the schema.
    func inverse(of relationship: String, in entity: String) -> Schema.Relationship? {
        guard let declared = schema.entity(named: entity)?.relationship(named: relationship),
            let inverse = declared.inverse
        else { return nil }
        return schema.entity(named: declared.destination)?.relationship(named: inverse)
    }

    /// Throws, naming the other holder and the values, when setting `values`
    /// and `related` on `id` would break a uniqueness rule (the library's
    /// check, ``Folio/ModelContext/uniquenessConflicts(setting:related:of:)``);
    /// `column` says where in the line, given the rule's member names.
    func refuseUniquenessConflicts(
        setting values: [String: Value], related: [String: [PersistentIdentifier]?],
        of id: PersistentIdentifier, column: ([String]) -> Int
    ) throws(CommandError) {
        let conflicts = try read { () throws(ModelError) in
            try context.uniquenessConflicts(setting: values, related: related, of: id)
        }
        guard let conflict = conflicts.first else { return }
        let members = conflict.relationship.components(separatedBy: ", ")
        let others = conflict.related.map(\.description).joined(separator: ", ")
        /// The member's value after the edit: as given, or as the object holds it.
        func shown(_ member: String) -> String {
            if let value = values[member] { return value.description }
            if let targets = related[member] { return targets?.first?.description ?? "null" }
            if let value = try? context.value(member, of: id) { return value.description }
            return (try? context.related(member, of: id))?.first?.description ?? "null"
        }
        if members.count == 1 {
            throw CommandError(
                "\(others) already has \(members[0]) \(shown(members[0])), and \(id.entityName).\(members[0]) is unique",
                column: column(members), kind: .edit)
        }
        throw CommandError(
            "\(others) already has (\(conflict.relationship)) = (\(members.map(shown).joined(separator: ", "))), "
                + "and together they are unique", column: column(members), kind: .edit)
    }

    /// Parses and checks every `name=value` word from `start` on: names, types,
    /// optionality, related ids and their entities. Nothing is changed.
    func parseAssignments(
        _ text: CommandLineText, from start: Int, to end: Int? = nil,
        entity: Schema.Entity
    ) throws(CommandError) -> [Assignment] {
        var assignments: [Assignment] = []
        var seen = Set<String>()
        for word in text.words[..<(end ?? text.words.count)].dropFirst(start) {
            guard let equals = word.text.unicodeScalars.firstIndex(of: "=") else {
                throw CommandError("expected name=value, found '\(word.text)'", column: word.column)
            }
            let name = String(word.text.unicodeScalars[..<equals])
            let valueStart = word.start + word.text.unicodeScalars.distance(from: word.text.unicodeScalars.startIndex, to: equals) + 1
            guard !name.isEmpty else { throw CommandError("expected a name before '='", column: word.column) }
            guard seen.insert(name).inserted else { throw CommandError("'\(name)' is given twice", column: word.column) }
            if let attribute = entity.attribute(named: name) {
                let value = try ValueLiteral.parse(text.scalars, valueStart..<word.end, as: attribute.type, for: "\(entity.name).\(name)")
                if value == .null, !attribute.isOptional, attribute.type != .any {
                    throw CommandError("\(entity.name).\(name) is not optional; it cannot be null", column: valueStart + 1)
                }
                assignments.append(.attribute(name, value))
            } else if let relationship = entity.relationship(named: name) {
                let targets = try parseTargets(text, valueStart..<word.end, relationship, subject: "\(entity.name).\(name)")
                assignments.append(.relationship(name, targets))
            } else {
                let properties = entity.attributes.map(\.name) + entity.relationships.map(\.name)
                throw CommandError(
                    "\(entity.name) has no attribute or relationship '\(name)'"
                        + NameSuggestions.hint(for: name, among: properties), column: word.column)
            }
        }
        return assignments
    }

    /// A relationship's new contents: `3`, `Animal#3` or `null` for to-one;
    /// `[3, 4]`, `[]` or `null` for to-many.
    func parseTargets(
        _ text: CommandLineText, _ range: Range<Int>, _ relationship: Schema.Relationship,
        subject: String
    ) throws(CommandError) -> [PersistentIdentifier]? {
        let raw = text.text(range)
        guard !raw.isEmpty else { throw CommandError("missing object id for \(subject)", column: range.lowerBound + 1) }
        if raw == "null" { return nil }
        func target(_ text: String, column: Int) throws(CommandError) -> PersistentIdentifier {
            let word = CommandLineText.Word(text: text, start: column - 1, end: column - 1 + text.unicodeScalars.count)
            return try object(word, of: relationship.destination, role: subject)
        }
        guard relationship.isToMany else {
            if raw.hasPrefix("[") { throw CommandError("\(subject) is to-one: give one id or null", column: range.lowerBound + 1) }
            return [try target(raw, column: range.lowerBound + 1)]
        }
        guard raw.hasPrefix("["), raw.hasSuffix("]") else {
            throw CommandError("\(subject) is to-many: give a list of ids, e.g. [3, 4]", column: range.lowerBound + 1)
        }
        var targets: [PersistentIdentifier] = []
        var offset = range.lowerBound + 2  // just after '['
        for part in raw.dropFirst().dropLast().split(separator: ",", omittingEmptySubsequences: false) {
            let leading = part.prefix { $0 == " " }.unicodeScalars.count
            let trimmed = part.trimmingCharacters(in: .whitespaces)
            if !trimmed.isEmpty {
                let id = try target(trimmed, column: offset + leading)
                if targets.contains(id) { throw CommandError("\(id) is in the list twice", column: offset + leading) }
                targets.append(id)
            } else if raw != "[]", !raw.dropFirst().dropLast().allSatisfy(\.isWhitespace) {
                throw CommandError("expected an id between commas", column: offset)
            }
            offset += part.unicodeScalars.count + 1
        }
        return targets
    }

    // MARK: link, unlink

    /// Whether `id` holds `target` through `relationship`, asked of the side
    /// that answers without listing a large to-many: a to-one on either side
    /// is one read, so linking into a category of a million animals stays O(1).
    private func holds(
        _ id: PersistentIdentifier, _ relationship: Schema.Relationship,
        _ target: PersistentIdentifier
    ) throws(CommandError) -> Bool {
        let inverse = relationship.inverse.flatMap { schema.entity(named: relationship.destination)?.relationship(named: $0) }
        if relationship.isToMany, let inverse {
            return try read { () throws(ModelError) in try context.related(inverse.name, of: target) }.contains(id)
        }
        return try read { () throws(ModelError) in try context.related(relationship.name, of: id) }.contains(target)
    }

    func link(_ text: CommandLineText, unlinking: Bool) throws(CommandError) {
        let verb = unlinking ? "unlink" : "link"
        let usage = "\(verb) ID RELATIONSHIP ID, e.g. \(verb) 2 category 1"
        let id = try object(try word(text, 1, missing: "\(verb) needs \(usage)"))
        guard let entity = schema.entity(named: id.entityName) else { throw CommandError("no entity \(id.entityName)") }
        let relationshipWord = try word(text, 2, missing: "\(verb) needs a relationship of \(entity.name): \(usage)")
        guard let relationship = entity.relationship(named: relationshipWord.text) else {
            let hint = NameSuggestions.hint(
                for: relationshipWord.text, among: entity.relationships.map(\.name),
                listing: "relationships")
            throw CommandError(
                "\(entity.name) has no relationship '\(relationshipWord.text)'" + hint,
                column: relationshipWord.column)
        }
        let subject = "\(entity.name).\(relationship.name)"
        let targetWord = try word(text, 3, missing: "\(verb) needs the id of the \(relationship.destination) to \(verb)")
        let target = try object(targetWord, of: relationship.destination, role: subject)
        try expectEnd(text, after: 4)
        let holds = try holds(id, relationship, target)
        func result(changed: Bool) -> JSONText {
            Self.result(
                verb,
                [
                    ("entity", .string(id.entityName)), ("id", .int(id.id)),
                    ("relationship", .string(relationship.name)),
                    ("target", .object([("entity", .string(target.entityName)), ("id", .int(target.id))])),
                    ("changed", .bool(changed)),
                ])
        }
        if unlinking {
            guard holds else {
                throw CommandError("\(id).\(relationship.name) does not hold \(target)", column: targetWord.column)
            }
            try change(named: "Unlink \(target) from \(id).\(relationship.name)") { () throws(CommandError) in
                try read { () throws(ModelError) in try context.unlink(id, relationship.name, from: target) }
            }
            emit("unlinked \(target) from \(id).\(relationship.name)", or: result(changed: true))
        } else {
            if holds {
                emit("\(id).\(relationship.name) already holds \(target)", or: result(changed: false))
                return
            }
            // Linking sets a to-one on one side or the other: refused now if that breaks a uniqueness rule.
            if !relationship.isToMany {
                try refuseUniquenessConflicts(setting: [:], related: [relationship.name: [target]], of: id) { _ in targetWord.column }
            } else if let inverse = inverse(of: relationship.name, in: entity.name), !inverse.isToMany {
                try refuseUniquenessConflicts(setting: [:], related: [inverse.name: [id]], of: target) { _ in targetWord.column }
            }
            try change(named: "Link \(target) to \(id).\(relationship.name)") { () throws(CommandError) in
                try read { () throws(ModelError) in try context.link(id, relationship.name, to: target) }
            }
            emit("linked \(target) to \(id).\(relationship.name)", or: result(changed: true))
        }
    }
}
