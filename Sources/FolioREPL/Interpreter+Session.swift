import FolioCore
import Foundation

/// What a session keeps between commands: names for inserted objects
/// (`insert … as rex`, then `$rex`), `timing`, and the hints for commands
/// other shells have.
extension Interpreter {
    // MARK: Names

    /// Refuses a name that `$NAME` could not spell: letters, digits and `_`, not starting with a digit.
    func checkObjectName(_ word: CommandLineText.Word) throws(CommandError) {
        let scalars = word.text.unicodeScalars
        let valid =
            scalars.first.map { !("0"..."9").contains($0) } == true
            && scalars.allSatisfy { $0 == "_" || ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) }
        guard valid else {
            throw CommandError("'\(word.text)' cannot name an object: use letters, digits and _, e.g. as rex", column: word.column)
        }
    }

    /// The object `$NAME` names, as it is now: named objects whose insert was
    /// undone, or that were deleted, are refused as ids of such objects are.
    func namedObject(_ word: CommandLineText.Word, of destination: String?, role: String?) throws(CommandError) -> PersistentIdentifier {
        let reference = CommandLineText.unquoted(word.text)
        let name = String(reference.dropFirst())
        guard let named = objectNames[name] else {
            let hint =
                objectNames.isEmpty
                ? " (insert … as \(name) names one)"
                : NameSuggestions.hint(for: reference, among: objectNames.keys.sorted().map { "$" + $0 })
            throw CommandError("no object is named \(reference)" + hint, column: word.column)
        }
        guard let id = context.identifier(forNumber: named.id), id.entityName == named.entityName else {
            if context.deletedIdentifiers.contains(named) {
                throw CommandError("\(reference) is \(named), which is deleted ('undo' brings it back)", column: word.column)
            }
            throw CommandError("\(reference) was \(named), which is no longer in the document (deleted, or its insert undone)", column: word.column)
        }
        if let destination, id.entityName != destination {
            throw CommandError("\(role ?? "it") holds \(destination) objects, not \(id) (\(reference))", column: word.column)
        }
        return id
    }

    /// `$NAME` for every named object, for completion.
    var objectNameReferences: [String] { objectNames.keys.sorted().map { "$" + $0 } }

    // MARK: timing

    /// `timing`, `timing on`, `timing off`: print each command's time after it, as psql's `\timing`.
    func timingCommand(_ text: CommandLineText) throws(CommandError) {
        try expectEnd(text, after: 2)
        if text.words.count > 1 {
            let argument = text.words[1]
            switch argument.keyword {
            case "on": timing = true
            case "off": timing = false
            default: throw CommandError("expected on or off, found '\(argument.text)'", column: argument.column)
            }
        } else {
            timing.toggle()
        }
        emit("Timing is \(timing ? "on" : "off").", or: Self.result("timing", [("on", .bool(timing))]))
    }

    /// `Time: 12.345 ms` after a command: with its results as psql prints it,
    /// or with `--json` as a note on the notes stream (stdout holds one object per command).
    func reportTime(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        let milliseconds = Double(seconds) * 1000 + Double(attoseconds) / 1e15
        let line = "Time: " + String(format: "%.3f", milliseconds) + " ms"
        if options.json {
            writeNote(
                JSONText.object([
                    ("level", .string("note")), ("kind", .string("timing")), ("message", .string(line)),
                    ("milliseconds", .number(String(format: "%.3f", milliseconds))),
                ]).text + "\n")
        } else {
            emit(line)
        }
    }

    // MARK: Other shells' commands

    /// What to use instead of a command psql, sqlite3 or SQL users type from habit.
    static func foreignCommandHint(for name: String) -> String? {
        switch name.lowercased() {
        case "\\d", "\\d+", "\\dt", "\\dt+", "\\l", ".schema", ".tables", "describe", "desc":
            return "; folio's 'schema' shows the entities, attributes and relationships, 'list ENTITY' the objects"
        case "select":
            return "; folio has no SQL: 'list ENTITY [COLUMN, …] [where PREDICATE]', "
                + "e.g. list Animal name, category.name where name beginswith 'K'"
        case "update": return "; folio's is 'set ID name=value'"
        case "\\q", ".quit", ".exit", "exit": return "; folio's is 'quit'"
        case "\\?", "\\h", ".help": return "; folio's is 'help'"
        case "\\timing", ".timer": return "; folio's is 'timing on' (or off)"
        case ".import", "\\copy", ".output", ".once":
            return "; folio's are 'import ENTITY from FILE.csv' and 'export list ENTITY … to FILE'"
        default: return nil
        }
    }
}
