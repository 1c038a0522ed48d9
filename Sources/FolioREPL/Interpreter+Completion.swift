import FolioCore

/// Tab completion: what may come at the cursor, by position in the command.
extension Interpreter {
    /// The most object ids offered at once (documents can hold millions).
    public static let idCompletionLimit = 100

    /// Completion candidates for the word being typed at the end of `line`:
    /// command names first, then entity, attribute and relationship names,
    /// keywords and ids, depending on the position. Each candidate is a whole
    /// word that starts with what is typed (attribute names end in `=`).
    ///
    /// ```swift
    /// interpreter.completions(for: "li")              // ["link", "list"]
    /// interpreter.completions(for: "list An")         // ["AnimalCategory", "Animal"]
    /// interpreter.completions(for: "insert Animal d") // ["diet="]
    /// ```
    public func completions(for line: String) -> [String] {
        let text = CommandLineText(line)
        var words = text.words.map(\.text)
        let prefix = text.endsWithSpace || words.isEmpty ? "" : words.removeLast()
        var seen = Set<String>()
        return candidates(after: words, prefix: prefix).filter { $0.hasPrefix(prefix) && seen.insert($0).inserted }
    }

    private func candidates(after words: [String], prefix: String) -> [String] {
        guard let command = words.first?.lowercased() else { return Self.commandNames }
        return Self.commandsByName[command]?.complete(self, words, prefix) ?? []
    }

    /// The schema's entity names.
    var entityNames: [String] { schema.entities.map(\.name) }

    /// `list ENTITY …`.
    func listCompletions(after words: [String], prefix: String) -> [String] {
        guard words.count > 1 else { return entityNames }
        guard let entity = schema.entity(named: words[1]) else { return [] }
        return listCandidates(entity, Array(words.dropFirst(2)), prefix: prefix)
    }

    /// `export [list] ENTITY … to PATH [--format csv|json] [--force]`.
    func exportCompletions(after words: [String], prefix: String) -> [String] {
        let position = words.count
        let start = words.count > 1 && words[1].lowercased() == "list" ? 2 : 1
        guard position > start else { return start == 1 ? ["list"] + entityNames : entityNames }
        guard let entity = schema.entity(named: words[start]) else { return [] }
        if let to = words.lastIndex(where: { $0.lowercased() == "to" }), to > start {
            if position == to + 1 { return [] }
            return words.last?.lowercased() == "--format" ? ["csv", "json"] : ["--format", "--force"]
        }
        return listCandidates(entity, Array(words.dropFirst(start + 1)), prefix: prefix) + ["to"]
    }

    /// `count ENTITY [where …]`.
    func countCompletions(after words: [String], prefix: String) -> [String] {
        guard words.count > 1 else { return entityNames }
        guard let entity = schema.entity(named: words[1]) else { return [] }
        return words.count == 2 ? ["where"] : keyPaths(entity, prefix: prefix)
    }

    /// `insert ENTITY NAME=VALUE …`.
    func insertCompletions(after words: [String], prefix: String) -> [String] {
        guard words.count > 1 else { return entityNames }
        guard let entity = schema.entity(named: words[1]) else { return [] }
        return assignmentNames(entity, given: words.dropFirst(2))
    }

    /// `set ID NAME=VALUE …`.
    func setCompletions(after words: [String], prefix: String) -> [String] {
        guard words.count > 1 else { return ids(prefix: prefix) }
        guard let entity = entity(ofID: words[1]) else { return [] }
        return assignmentNames(entity, given: words.dropFirst(2))
    }

    /// `link ID RELATIONSHIP ID` and `unlink`: an unlink offers the objects related now.
    func linkCompletions(after words: [String], prefix: String, unlinking: Bool) -> [String] {
        switch words.count {
        case 1: return ids(prefix: prefix)
        case 2: return entity(ofID: words[1]).map { $0.relationships.map(\.name) } ?? []
        case 3:
            guard let source = objectID(words[1]), let entity = schema.entity(named: source.entityName),
                let relationship = entity.relationship(named: words[2])
            else { return [] }
            if unlinking {
                let related = (try? context.related(relationship.name, of: source)) ?? []
                return related.map { prefix.contains("#") ? $0.description : String($0.id) }
            }
            return ids(prefix: prefix, entity: relationship.destination)
        default: return []
        }
    }

    /// `delete ID …`, `delete ENTITY where …`, `delete all ENTITY`, `delete everything`.
    func deleteCompletions(after words: [String], prefix: String) -> [String] {
        guard words.count > 1 else { return ["all", "everything"] + entityNames + ids(prefix: prefix) }
        if words[1] == "all" { return words.count == 2 ? entityNames : [] }
        if let entity = schema.entity(named: words[1]) { return words.count == 2 ? ["where"] : keyPaths(entity, prefix: prefix) }
        return words[1] == "everything" ? [] : ids(prefix: prefix)
    }

    /// After `list ENTITY`: columns (key paths) and clause keywords; key paths in a
    /// predicate; sortable attribute names after `sort`.
    private func listCandidates(_ entity: Schema.Entity, _ words: [String], prefix: String) -> [String] {
        let clauses = ["where", "sort", "limit", "offset"]
        let used = Set(words.map { $0.lowercased() }.filter(clauses.contains))
        let open = clauses.filter { !used.contains($0) }
        guard let lastClause = words.lastIndex(where: { clauses.contains($0.lowercased()) }) else {
            return open + keyPaths(entity, prefix: prefix)
        }
        let clause = words[lastClause].lowercased()
        let argumentCount = words.count - lastClause - 1
        switch clause {
        case "where":
            return argumentCount == 0 ? keyPaths(entity, prefix: prefix) : keyPaths(entity, prefix: prefix) + open
        case "sort":
            // Only what a fetch can sort by: not collections or composites.
            guard argumentCount > 0, !(words.last?.hasSuffix(",") ?? false) else {
                return entity.attributes.filter(\.type.isSortable).map(\.name)
            }
            return ["asc", "desc"] + open
        default:
            return argumentCount == 0 ? [] : open
        }
    }

    private func propertyNames(_ entity: Schema.Entity) -> [String] {
        entity.attributes.map(\.name) + entity.relationships.map(\.name)
    }

    /// Key paths for the word being typed: `category.` offers `category.name`,
    /// `category.animals.@count` and so on through to-one relationships; without
    /// a dot, the entity's properties, a to-one relationship also as `category.`
    /// to go on.
    private func keyPaths(_ entity: Schema.Entity, prefix: String) -> [String] {
        var current = entity
        var base = ""
        let parts = prefix.split(separator: ".", omittingEmptySubsequences: false).dropLast()
        for part in parts {
            guard let relationship = current.relationship(named: String(part)), !relationship.isToMany,
                let destination = schema.entity(named: relationship.destination)
            else {
                if let relationship = current.relationship(named: String(part)), relationship.isToMany, part == parts.last {
                    return [base + part + ".@count"]
                }
                return []
            }
            base += part + "."
            current = destination
        }
        var names: [String] = []
        for attribute in current.attributes { names.append(base + attribute.name) }
        for relationship in current.relationships {
            let path = base + relationship.name
            names.append(path)
            // A relationship typed whole goes on: `category` offers `category.`, `animals` `animals.@count`.
            if prefix == path { names.append(path + (relationship.isToMany ? ".@count" : ".")) }
        }
        return names
    }

    /// `name=` for every attribute and relationship not already given.
    private func assignmentNames(_ entity: Schema.Entity, given: ArraySlice<String>) -> [String] {
        let used = Set(given.compactMap { $0.split(separator: "=", maxSplits: 1).first.map(String.init) })
        return propertyNames(entity).filter { !used.contains($0) }.map { $0 + "=" }
    }

    private func objectID(_ text: String) -> PersistentIdentifier? {
        if text.hasPrefix("$") {
            guard let named = objectNames[String(text.dropFirst())], let id = context.identifier(forNumber: named.id),
                id.entityName == named.entityName
            else { return nil }
            return id
        }
        guard let (entityName, number) = Self.parseID(text) else { return nil }
        if let id = context.identifier(forNumber: number) {
            return entityName == nil || entityName == id.entityName ? id : nil
        }
        guard case .one(let id) = shortIdentifierMatch(text.split(separator: "#").last ?? "", entity: entityName) else { return nil }
        return id
    }

    private func entity(ofID text: String) -> Schema.Entity? {
        objectID(text).flatMap { schema.entity(named: $0.entityName) }
    }

    /// Candidates as a terminal should list them after a second Tab. libedit
    /// sorts that listing as text, which puts `10` before `2`; ids (`42`,
    /// `Animal#42`) are therefore padded with spaces before their number to one
    /// width (` 2`, `10`), so text order is numeric order. Other words are left as they are.
    ///
    /// ```swift
    /// Interpreter.completionListing(["2", "10", "Animal#3", "all"])  // [" 2", "10", "Animal# 3", "all"]
    /// ```
    public static func completionListing(_ candidates: [String]) -> [String] {
        func split(_ word: String) -> (prefix: Substring, number: Substring)? {
            let hash = word.lastIndex(of: "#")
            let number = hash.map { word[word.index(after: $0)...] } ?? word[...]
            guard !number.isEmpty, number.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            return (word[..<(hash.map { word.index(after: $0) } ?? word.startIndex)], number)
        }
        let width = candidates.compactMap { split($0)?.number.count }.max() ?? 0
        return candidates.map { word in
            guard let (prefix, number) = split(word) else { return word }
            return prefix + String(repeating: " ", count: width - number.count) + number
        }
    }

    /// Live ids matching what is typed: numbers (`4` → 4, 40, 41…), or `Entity#number`
    /// once a `#` is typed; at most ``idCompletionLimit``.
    func ids(prefix: String, entity: String? = nil) -> [String] {
        if prefix.hasPrefix("$") {
            return objectNameReferences.filter { entity == nil || objectID($0)?.entityName == entity }
        }
        let entities = entity.map { [$0] } ?? schema.entities.map(\.name)
        let qualified = prefix.contains("#")
        guard qualified || prefix.allSatisfy(\.isNumber) else { return [] }
        var result: [(UInt64, String)] = []
        for name in entities {
            if qualified, !(name + "#").hasPrefix(prefix), !prefix.hasPrefix(name + "#") { continue }
            for id in (try? context.fetchIdentifiers(DynamicFetchDescriptor(entity: name, includesSubentities: entity != nil))) ?? [] {
                let word = qualified ? id.description : String(id.id)
                if word.hasPrefix(prefix) { result.append((id.id, word)) }
            }
        }
        return result.sorted { $0.0 < $1.0 }.prefix(Self.idCompletionLimit).map(\.1)
    }
}
