import Foundation
import FolioCore

/// `conflicts` and `resolve`: what a merge recorded, and choosing one by one.
extension Interpreter {
    /// Lists the conflicts the document records, numbered from 1 for `resolve`:
    /// `1. Animal#…401.diet: both changed it — base "grass", ours "meat" (kept), theirs "fish"`.
    func conflictsCommand(_ text: CommandLineText) throws(CommandError) {
        try expectEnd(text, after: 1)
        let conflicts = context.conflicts
        if options.json {
            emit(Self.result("conflicts", [("conflicts", .array(conflicts.map(Self.conflictJSON)))]))
            return
        }
        guard !conflicts.isEmpty else {
            emit("no conflicts")
            return
        }
        for (number, conflict) in conflicts.enumerated() {
            emit("\(number + 1). " + Self.describe(conflict))
        }
        emit("resolve one with 'resolve N ours|theirs|base|merged' or 'resolve N to VALUE'")
    }

    /// `resolve N|all ours|theirs|base|merged`, `resolve N to VALUE`.
    func resolveCommand(_ text: CommandLineText) throws(CommandError) {
        let words = text.words
        guard words.count >= 3 else {
            throw CommandError(
                "usage: resolve N ours|theirs|base|merged, or resolve N to VALUE",
                column: words.count > 1 ? words[1].column : words[0].end + 1)
        }
        let conflicts = context.conflicts
        let chosen: [MergeConflict]
        if words[1].keyword == "all" {
            chosen = conflicts
        } else {
            guard let number = Int(words[1].text), number >= 1, number <= conflicts.count else {
                let range = conflicts.isEmpty ? "there are no conflicts" : "1 to \(conflicts.count)"
                throw CommandError(
                    "'\(words[1].text)' is not a conflict number (\(range); see 'conflicts')",
                    column: words[1].column)
            }
            chosen = [conflicts[number - 1]]
        }
        let resolution: MergeConflict.Resolution
        switch words[2].keyword {
        case "ours": resolution = .ours
        case "theirs": resolution = .theirs
        case "base": resolution = .base
        case "merged": resolution = .merged
        case "to":
            guard chosen.count == 1, let conflict = chosen.first else {
                throw CommandError("'resolve all to VALUE' cannot be: give one conflict's number", column: words[1].column)
            }
            guard words.count >= 4 else { throw CommandError("a value is missing after 'to'", column: words[2].end + 1) }
            resolution = .content(try content(for: conflict, in: text, from: words[3].column))
        default:
            throw CommandError(
                "'\(words[2].text)' is not a choice: ours, theirs, base, merged, or to VALUE",
                column: words[2].column)
        }
        if words[2].keyword != "to" { try expectEnd(text, after: 3) }
        // One command, one undo step: `resolve all` is undone at once, and is all or nothing.
        try change(named: chosen.count == 1 ? "Resolve Conflict" : "Resolve \(chosen.count) Conflicts") {
            () throws(CommandError) in
            for conflict in chosen {
                do throws(ModelError) {
                    try context.resolve(conflict, keeping: resolution)
                } catch {
                    throw failure(error, column: words[1].column)
                }
            }
        }
        let left = context.conflicts.count
        emit(
            "resolved \(chosen.count == 1 ? "1 conflict" : "\(chosen.count) conflicts"); \(left) left",
            or: Self.result(
                "resolve",
                [
                    ("resolved", .int(chosen.count)), ("left", .int(left)),
                    ("unsaved", .bool(hasUnsavedChanges)),
                ]))
    }

    /// The version typed after `to`, read as the conflict's property takes it:
    /// a value of the attribute's type, or object ids for a relationship.
    private func content(for conflict: MergeConflict, in text: CommandLineText, from column: Int) throws(CommandError)
        -> MergeConflict.Content
    {
        guard !conflict.concernsWholeObject, let property = conflict.property,
            let entity = schema.entity(named: conflict.entityName)
        else {
            throw CommandError("a whole object cannot be typed: choose ours, theirs, base or merged", column: column)
        }
        let range = (column - 1)..<text.scalars.count
        if let attribute = entity.attributes.first(where: { $0.name == property }) {
            var type = attribute.type
            if conflict.key != nil, case .dictionary(let element) = type { type = element }
            return .value(try ValueLiteral.parse(text.scalars, range, as: type, for: "\(entity.name).\(property)"))
        }
        guard let relationship = entity.relationships.first(where: { $0.name == property }) else {
            throw CommandError("\(entity.name) has no property '\(property)'", column: column)
        }
        var targets: [PersistentIdentifier] = []
        for word in text.words where word.column >= column {
            let cleaned = word.text.trimmingCharacters(in: CharacterSet(charactersIn: "[],"))
            guard !cleaned.isEmpty, cleaned != "null" else { continue }
            targets.append(
                try object(
                    CommandLineText.Word(text: cleaned, start: word.start, end: word.end),
                    of: relationship.destination, role: "a \(relationship.name) target"))
        }
        return .related(targets)
    }

    /// One conflict in words.
    static func describe(_ conflict: MergeConflict) -> String {
        let place =
            conflict.id.description + (conflict.property.map { "." + $0 } ?? "")
            + (conflict.key.map { "[\"\($0)\"]" } ?? "")
        func shown(_ content: MergeConflict.Content?) -> String {
            switch content {
            case nil: return "none"
            case .value(let value)?: return Self.shown(value)
            case .related(let ids)?: return ids.isEmpty ? "none" : ids.map(\.description).joined(separator: " ")
            case .object(let properties)?:
                let values = properties.keys.sorted().compactMap { name -> String? in
                    guard case .value(let value)? = properties[name], value != .null else { return nil }
                    return "\(name)=\(Self.shown(value))"
                }
                return "{" + values.prefix(4).joined(separator: ", ") + (values.count > 4 ? ", …" : "") + "}"
            }
        }
        let what: String
        switch conflict.kind {
        case .value: what = "both sides changed it"
        case .deletedAndEdited: what = "one side deleted it, the other edited it (deleted)"
        case .danglingLink: what = "it linked to an object the merge deleted (link removed)"
        case .cascade: what = "it linked to an object the merge deleted (deleted by cascade)"
        case .deny: what = "an object the merge deleted was denied and kept"
        case .uniqueness: what = "it shared unique values with another object (removed)"
        case .linkTaken: what = "another object took its one-to-one link"
        case .count: what = "the relationship holds too few or too many objects"
        }
        var line = "\(place): \(what)"
        if conflict.base != nil { line += " — base \(shown(conflict.base))," } else { line += " —" }
        line += " ours \(shown(conflict.ours))" + (conflict.kind == .value ? " (kept)" : "")
        line += ", theirs \(shown(conflict.theirs))"
        return line
    }

    /// One conflict as JSON.
    static func conflictJSON(_ conflict: MergeConflict) -> JSONText {
        func json(_ content: MergeConflict.Content?) -> JSONText {
            switch content {
            case nil: return .null
            case .value(let value)?: return .string(value.description)
            case .related(let ids)?: return .array(ids.map { .string($0.description) })
            case .object(let properties)?:
                return .object(properties.keys.sorted().map { ($0, json(properties[$0])) })
            }
        }
        return .object([
            ("kind", .string(conflict.kind.rawValue)), ("object", .string(conflict.id.description)),
            ("property", conflict.property.map(JSONText.string) ?? .null),
            ("key", conflict.key.map(JSONText.string) ?? .null),
            ("base", json(conflict.base)), ("ours", json(conflict.ours)), ("theirs", json(conflict.theirs)),
        ])
    }
}
