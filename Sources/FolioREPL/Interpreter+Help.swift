/// `help` and `help COMMAND`.
extension Interpreter {
    /// What `help` says about one command.
    struct CommandHelp {
        var usage: [String]
        var summary: String
        var details: [String]
        var example: [String]
    }

    static let help: [String: CommandHelp] = [
        "help": .init(usage: ["help [COMMAND]"], summary: "list the commands, or explain one",
                      details: [], example: ["help list"]),
        "schema": .init(usage: ["schema"], summary: "show entities, attributes and relationships",
                        details: ["Attributes with their type and options (optional, unique, transient, externalStorage,",
                                  "default); relationships with destination, to-one or to-many (optional: may hold no",
                                  "collection), inverse and delete rule;",
                                  "then attributes unique together, as (city, day)."],
                        example: ["schema"]),
        "list": .init(usage: ["list ENTITY [COLUMN, …] [where PREDICATE] [sort KEY [asc|desc], …] [limit N] [offset N]"],
                      summary: "show objects as a table",
                      details: ["COLUMNs are key paths: name, category (an id), category.name, animals (ids),",
                                "animals.@count, id. Without them: id, attributes, to-one relationships as ids, to-many as counts, aligned by",
                                "terminal cells (CJK and emoji take two). Strings are shown bare with \\ \" and control",
                                "characters escaped as in JSON (\\\\ \\\" \\n \\t \\u001b); in double quotes when empty, null,",
                                "with spaces at either end, or in an any-value column (so \"3\" differs from 3).",
                                "Without a limit the first \(listPageSize) rows are shown (--json too: \"truncated\" says so).",
                                "Predicates compare with",
                                "== != < <= > >= contains beginswith endswith in, joined by and/or/not;",
                                "key paths follow to-one relationships (category.name) or count (animals.@count).",
                                "Literals are written as insert takes them: \"quoted\" or 'quoted' strings, numbers,",
                                "dates 2025-07-01 or 2025-07-01T09:30:00Z, true/false, null, lists {a, b} or [a, b];",
                                "a bare literal is read as the type it is compared with, and a bare word is a property",
                                "name, so quote strings. sort takes any attribute but arrays, sets and dictionaries:",
                                "null first, numbers by value (2.5 before 3), any-values by kind, then value."],
                      example: ["list Animal name, category.name where diet == 'herbivorous' sort name limit 5",
                                "list Trip where startDate >= 2025-07-01 sort startDate desc"]),
        "count": .init(usage: ["count ENTITY [where PREDICATE]"], summary: "print how many objects match",
                       details: [], example: ["count Animal where category.name == 'Mammal'"]),
        "show": .init(usage: ["show ID"], summary: "show every attribute and relationship of one object",
                      details: ["IDs are written 42 or Animal#42; a long id also by its last digits, 3 or more",
                                "(401 for 7483920175308390401), when no other object's id ends so (as in every command)."],
                      example: ["show Animal#2"]),
        "insert": .init(usage: ["insert ENTITY NAME=VALUE … [as NAME]"], summary: "insert an object and print its id",
                        details: ["Values (the literals where takes too): \"quoted\" or 'quoted' (with \\\" \\\\ \\n \\t \\uXXXX)",
                                  "or bare words; numbers; true/false; dates 2024-03-06 or 2024-03-06T05:06:07Z; null;",
                                  "lists [a, b]; dictionaries {k: v}; to-one relationships by id, to-many as [id, id].",
                                  "Attributes that are not optional and have no default must be given. When a unique",
                                  "attribute (or every attribute and to-one relationship of a unique-together group)",
                                  "matches an existing object, that object is updated instead (SwiftData's upsert): insert",
                                  "first says which object and what would change, and asks, as delete does (--yes answers",
                                  "yes; a script without --yes stops there), then prints 'updated existing ID'.",
                                  "'as NAME' names the object for the session: $NAME then stands for its id wherever",
                                  "an id goes (set, link, show, delete, relationship values)."],
                        example: ["insert Animal name=\"Snow Leopard\" diet=carnivorous category=24",
                                  "insert AnimalCategory name=Marsupial as marsupials", "link $marsupials animals 2"]),
        "set": .init(usage: ["set ID NAME=VALUE …"], summary: "change attributes and relationships of an object",
                     details: ["Values as for insert; a to-one relationship takes an id or null; an optional",
                               "to-many takes [] (an empty collection) or null (none). A value another object holds",
                               "in a unique attribute (or unique-together group) is refused at once; nothing changes."],
                     example: ["set 2 name=\"Great Crested Newt\" category=1", "set 2 category=null"]),
        "link": .init(usage: ["link ID RELATIONSHIP ID"], summary: "add an object to a relationship (to-one: replace)",
                      details: [], example: ["link 24 animals 2"]),
        "unlink": .init(usage: ["unlink ID RELATIONSHIP ID"], summary: "remove an object from a relationship",
                        details: [], example: ["unlink 24 animals 2"]),
        "delete": .init(usage: ["delete ID …", "delete ENTITY where PREDICATE", "delete all ENTITY", "delete everything"],
                        summary: "delete objects, with their delete rules",
                        details: ["Shows what will go first (cascades, links cut on survivors, deny rules that will make",
                                  "save refuse) and asks; with --yes it does not ask, and the preview goes to stderr",
                                  "so stdout holds results only."],
                        example: ["delete 24", "delete Country where visited == false", "delete all Animal"]),
        "undo": .init(usage: ["undo [N]"], summary: "undo the last command (or the last N)",
                      details: ["Each command that changes the document is one step. Undoing back to what was",
                                "last saved leaves no unsaved changes (no * in the prompt)."], example: ["undo 2"]),
        "redo": .init(usage: ["redo [N]"], summary: "redo what undo undid", details: [], example: ["redo"]),
        "history": .init(usage: ["history"], summary: "list the undo steps, oldest first, and the redoable ones",
                         details: ["Each step names the objects it changed (Insert Animal#37, Set Animal#2.name);",
                                   "'-- saved' marks the state the package holds, '> you are here' the current one."],
                         example: ["history"]),
        "changes": .init(usage: ["changes [since TOKEN]"], summary: "list the saved transactions of the document's history",
                         details: ["Every save records one transaction: the objects it inserted, updated (with the",
                                   "properties changed) and deleted, and the preserveValueOnDeletion values of the",
                                   "deleted. The history is kept in the package, for every program that saves it.",
                                   "TOKEN is a transaction number: 'changes since 12' lists those saved after it.",
                                   "(history lists this session's undo steps.)"],
                         example: ["changes", "changes since 12"]),
        "status": .init(usage: ["status"], summary: "show the document, unsaved changes, undo and redo",
                        details: [], example: ["status"]),
        "diff": .init(usage: ["diff"], summary: "list the unsaved changes object by object",
                      details: ["Against the last save, in id order: '+ ID: name=value, …' for an inserted object,",
                                "'- ID: …' for a deleted one (its values as saved), and for an edited one a line per",
                                "property that differs: '~ ID: name old → new', to-many relationships as +ID -ID.",
                                "Externally stored values are named, never read. (changes lists saved transactions;",
                                "status counts.) With --json: inserted, changed (old and new) and deleted objects."],
                      example: ["diff"]),
        "conflicts": .init(usage: ["conflicts"], summary: "list the conflicts a merge recorded in the document",
                           details: ["A merge (folio merge, or git with 'folio git setup') keeps one choice where both",
                                     "sides changed one value (ours) and records base, ours and theirs here, numbered",
                                     "for resolve. Objects a merge removed (deleted on one side and edited on the other,",
                                     "cascades, unique clashes) are recorded whole. Conflicts are saved until resolved."],
                           example: ["conflicts"]),
        "resolve": .init(usage: ["resolve N|all ours|theirs|base|merged", "resolve N to VALUE"],
                         summary: "resolve a recorded conflict: keep one version (undoable)",
                         details: ["ours, theirs, base: the value (or the whole object) of that side; merged: the",
                                   "document as the merge left it; to VALUE: a value typed as for set (ids for a",
                                   "relationship). Each resolution is one undo step; save writes it."],
                         example: ["resolve 1 theirs", "resolve 2 to \"omnivorous\"", "resolve all ours"]),
        "save": .init(usage: ["save", "save as PATH"], summary: "write the document; or write a copy and edit that",
                      details: ["save refuses while a deny rule is broken. save as writes the document with its unsaved",
                                "changes to PATH and goes on editing the new package (undo history starts afresh)."],
                      example: ["save", "save as \"Animals copy.folio\""]),
        "import": .init(usage: ["import ENTITY from FILE.csv"], summary: "insert one object per row of a CSV file",
                        details: ["The first line names the columns: attributes, and relationships (to-one by id or",
                                  "$NAME, to-many as [3, 4]); no id column. Values are read as insert reads them;",
                                  "an empty unquoted field gives no value (null or the default), \"\" an empty string.",
                                  "All or nothing: one undo step, and on any error, named at the file's line and",
                                  "column, nothing is inserted. Rows matching a unique value update that object."],
                        example: ["import Animal from animals.csv"]),
        "export": .init(usage: ["export list ENTITY [COLUMN, …] [where …] [sort …] [limit N] [offset N] to FILE",
                                "  [--format csv|json] [--force]"],
                        summary: "write what list would show, every row, to a CSV or JSON file",
                        details: ["The format is --format's, else the file's extension (.json, otherwise CSV). CSV has",
                                  "a header of the columns; null is an empty field, import reads the file back. JSON is",
                                  "an array of objects keyed by column. An existing file is replaced only with --force;",
                                  "a document package, or a path inside one (links followed), is refused."],
                        example: ["export list Animal name, diet, category where diet == 'carnivorous' to carnivores.csv",
                                  "export list AnimalCategory to categories.json --force"]),
        "timing": .init(usage: ["timing [on|off]"], summary: "print how long each command took (Time: 1.234 ms)",
                        details: ["Like psql's \\timing. Without on or off it switches. With --json the time is a",
                                  "note on stderr ({\"kind\":\"timing\",\"milliseconds\":…})."],
                        example: ["timing on"]),
        "revert": .init(usage: ["revert"], summary: "discard unsaved changes (asks first)",
                        details: ["Reads the package again from disk, so what another program saved since comes in",
                                  "too; the undo history is cleared. Without unsaved changes it does nothing: use reopen."],
                        example: ["revert"]),
        "reopen": .init(usage: ["reopen"], summary: "read the document again from disk (asks first if there are unsaved changes)",
                        details: ["As folio PATH would open it now: shows what another program saved since this one",
                                  "read it (a git pull, a save while this one was open --read-only); the unsaved changes",
                                  "and the undo history are discarded. If the package cannot be read, nothing changes."],
                        example: ["reopen"]),
        "quit": .init(usage: ["quit", "quit!"], summary: "leave; quit asks first when there are unsaved changes",
                      details: ["quit! leaves without asking. If folio is killed (SIGTERM, SIGHUP) or crashes with",
                                "unsaved changes, they are written to a recovery package under",
                                "$XDG_STATE_HOME/folio/recovery (or ~/.local/state/folio/recovery), named when the",
                                "document is next opened."], example: ["quit"]),
    ]

    func help(_ text: CommandLineText) throws(CommandError) {
        if text.words.count > 1 {
            let topic = text.words[1]
            try expectEnd(text, after: 2)
            let name = topic.keyword == "quit!" ? "quit" : topic.keyword
            guard let entry = Self.help[name] else {
                throw CommandError("no command '\(topic.text)'" + Self.commandHint(for: topic.text), column: topic.column)
            }
            if options.json {
                emit(Self.result("help", [("topic", .string(name)), ("usage", .array(entry.usage.map(JSONText.string))),
                                          ("summary", .string(entry.summary)),
                                          ("details", .array(entry.details.map(JSONText.string))),
                                          ("examples", .array(entry.example.map(JSONText.string)))]))
                return
            }
            for usage in entry.usage { emit(usage) }
            emit("  " + entry.summary)
            for line in entry.details { emit("  " + line) }
            emit("example:")
            for line in entry.example { emit("  " + line) }
            return
        }
        let names = Self.commandNames.filter { $0 != "quit!" }
        if options.json {
            emit(Self.result("help", [("commands", .array(names.compactMap { name in
                Self.help[name].map { .object([("name", .string(name)), ("usage", .array($0.usage.map(JSONText.string))),
                                               ("summary", .string($0.summary))]) }
            }))]))
            return
        }
        let width = names.map(\.count).max() ?? 0
        emit("commands:")
        for name in names {
            guard let entry = Self.help[name] else { continue }
            emit("  " + name + String(repeating: " ", count: width - name.count) + "  " + entry.summary)
        }
        emit("  quit!" + String(repeating: " ", count: max(0, width - 5)) + "  leave without asking")
        emit("'help COMMAND' explains one, with an example.")
        emit("folio --json writes each command's result as one JSON object on one line (its \"command\" first),")
        emit("and errors on stderr as JSON objects with level, kind, message, line and column;")
        emit("with --yes, previews of destructive commands go to stderr: stdout holds results only.")
        emit("Errors name the column, show the line with ^ under it, and suggest close names for an unknown one.")
        emit("A line ending in \\, or with a quote or bracket still open, continues on the next (...> ).")
        emit("A command holds at most \(Self.maximumLineLength) bytes; a longer one is refused whole.")
        emit("Ctrl-C stops a running command (a long list, changes, a delete's preview): it changes nothing.")
    }
}
