import Folio
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
        let entity = try self.entity(try word(text, 1, missing: "insert needs an entity: insert ENTITY name=value …"))
        let assignments = try parseAssignments(text, from: 2, entity: entity)
        var values: [String: Value] = [:]
        var related: [String: [PersistentIdentifier]] = [:]
        for assignment in assignments {
            switch assignment {
            case .attribute(let name, let value): values[name] = value
            case .relationship(let name, let targets): related[name] = targets
            }
        }
        let countBefore = try read { () throws(ModelError) in try context.fetchCount(DynamicFetchDescriptor(entity: entity.name)) }
        var inserted = true
        let id = try change { () throws(CommandError) -> PersistentIdentifier in
            // Relationships go with the insert: a unique group may have one among its members.
            let id = try read { () throws(ModelError) in try context.insert(entity.name, values, related: related) }
            inserted = try read { () throws(ModelError) in try context.fetchCount(DynamicFetchDescriptor(entity: entity.name)) } > countBefore
            context.undoManager?.setActionName(inserted ? "Insert \(entity.name)" : "Update \(entity.name)")
            return id
        }
        emit(id.description)
    }

    // MARK: set

    func set(_ text: CommandLineText) throws(CommandError) {
        let id = try object(try word(text, 1, missing: "set needs an object id: set ID name=value …"))
        guard let entity = schema.entity(named: id.entityName) else { throw CommandError("no entity \(id.entityName)") }
        _ = try word(text, 2, missing: "set needs name=value after the id, e.g. set \(id.id) name=\"Rex\"")
        let assignments = try parseAssignments(text, from: 2, entity: entity)
        let name = assignments.count == 1 ? nil : "Set \(entity.name).\(assignments.map(\.name).joined(separator: ", "))"
        try change(named: name) { () throws(CommandError) in
            for assignment in assignments {
                switch assignment {
                case .attribute(let attribute, let value):
                    try read { () throws(ModelError) in try context.setValue(value, for: attribute, of: id) }
                case .relationship(let relationship, let targets):
                    try read { () throws(ModelError) in try context.setRelated(targets, for: relationship, of: id) }
                }
            }
        }
        emit("updated \(id)")
    }

    /// Parses and checks every `name=value` word from `start` on: names, types,
    /// optionality, related ids and their entities. Nothing is changed.
    func parseAssignments(_ text: CommandLineText, from start: Int, entity: Schema.Entity) throws(CommandError) -> [Assignment] {
        var assignments: [Assignment] = []
        var seen = Set<String>()
        for word in text.words.dropFirst(start) {
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
                throw CommandError("\(entity.name) has no attribute or relationship '\(name)'"
                                   + NameSuggestions.hint(for: name, among: properties), column: word.column)
            }
        }
        return assignments
    }

    /// A relationship's new contents: `3`, `Animal#3` or `null` for to-one;
    /// `[3, 4]`, `[]` or `null` for to-many.
    func parseTargets(_ text: CommandLineText, _ range: Range<Int>, _ relationship: Schema.Relationship,
                      subject: String) throws(CommandError) -> [PersistentIdentifier]? {
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
    private func holds(_ id: PersistentIdentifier, _ relationship: Schema.Relationship,
                       _ target: PersistentIdentifier) throws(CommandError) -> Bool {
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
            let hint = NameSuggestions.hint(for: relationshipWord.text, among: entity.relationships.map(\.name),
                                            listing: "relationships")
            throw CommandError("\(entity.name) has no relationship '\(relationshipWord.text)'" + hint,
                               column: relationshipWord.column)
        }
        let subject = "\(entity.name).\(relationship.name)"
        let targetWord = try word(text, 3, missing: "\(verb) needs the id of the \(relationship.destination) to \(verb)")
        let target = try object(targetWord, of: relationship.destination, role: subject)
        try expectEnd(text, after: 4)
        let holds = try holds(id, relationship, target)
        if unlinking {
            guard holds else {
                throw CommandError("\(id).\(relationship.name) does not hold \(target)", column: targetWord.column)
            }
            try change { () throws(CommandError) in
                try read { () throws(ModelError) in try context.unlink(id, relationship.name, from: target) }
            }
            emit("unlinked \(target) from \(id).\(relationship.name)")
        } else {
            if holds {
                emit("\(id).\(relationship.name) already holds \(target)")
                return
            }
            try change { () throws(CommandError) in
                try read { () throws(ModelError) in try context.link(id, relationship.name, to: target) }
            }
            emit("linked \(target) to \(id).\(relationship.name)")
        }
    }
}
