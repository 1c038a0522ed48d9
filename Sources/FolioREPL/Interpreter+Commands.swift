/// Every REPL command, declared once (``Command``): the interpreter runs
/// them from here, `help` explains them, completion offers them, and a
/// read-only document refuses those that edit. Adding a command is one entry
/// here and the method it runs. The order is `help`'s.
extension Interpreter {
    // Immutable, built once; its closures capture nothing (each takes the interpreter it runs on).
    nonisolated(unsafe) static let commands: [Command] = [
        Command(
            name: "help",
            help: .init(
                usage: ["help [COMMAND]"], summary: "list the commands, or explain one",
                details: [], example: ["help list"]),
            run: Command.proceeding(Interpreter.help),
            complete: { _, words, _ in words.count == 1 ? Interpreter.commandNames : [] }),
        Command(
            name: "schema",
            help: .init(
                usage: ["schema"], summary: "show entities, attributes and relationships",
                details: [
                    "Attributes with their type and options (optional, unique, transient, externalStorage,",
                    "default); relationships with destination, to-one or to-many (optional: may hold no",
                    "collection), inverse and delete rule;",
                    "then attributes unique together, as (city, day).",
                ],
                example: ["schema"]),
            run: Command.proceeding(Interpreter.schemaCommand)),
        Command(
            name: "list",
            help: .init(
                usage: ["list ENTITY [COLUMN, …] [where PREDICATE] [sort KEY [asc|desc], …] [limit N] [offset N]"],
                summary: "show objects as a table",
                details: [
                    "COLUMNs are key paths: name, category (an id), category.name, animals (ids),",
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
                    "null first, numbers by value (2.5 before 3), any-values by kind, then value.",
                ],
                example: [
                    "list Animal name, category.name where diet == 'herbivorous' sort name limit 5",
                    "list Trip where startDate >= 2025-07-01 sort startDate desc",
                ]),
            run: Command.proceeding(Interpreter.list),
            complete: { $0.listCompletions(after: $1, prefix: $2) }),
        Command(
            name: "count",
            help: .init(
                usage: ["count ENTITY [where PREDICATE]"], summary: "print how many objects match",
                details: [], example: ["count Animal where category.name == 'Mammal'"]),
            run: Command.proceeding(Interpreter.count),
            complete: { $0.countCompletions(after: $1, prefix: $2) }),
        Command(
            name: "show",
            help: .init(
                usage: ["show ID"], summary: "show every attribute and relationship of one object",
                details: [
                    "IDs are written 42 or Animal#42; a long id also by its last digits, 3 or more",
                    "(401 for 7483920175308390401), when no other object's id ends so (as in every command).",
                ],
                example: ["show Animal#2"]),
            run: Command.proceeding(Interpreter.show),
            complete: { interpreter, words, prefix in words.count == 1 ? interpreter.ids(prefix: prefix) : [] }),
        Command(
            name: "insert",
            help: .init(
                usage: ["insert ENTITY NAME=VALUE … [as NAME]"], summary: "insert an object and print its id",
                details: [
                    "Values (the literals where takes too): \"quoted\" or 'quoted' (with \\\" \\\\ \\n \\t \\uXXXX)",
                    "or bare words; numbers; true/false; dates 2024-03-06 or 2024-03-06T05:06:07Z; null;",
                    "lists [a, b]; dictionaries {k: v}; to-one relationships by id, to-many as [id, id].",
                    "Attributes that are not optional and have no default must be given. When a unique",
                    "attribute (or every attribute and to-one relationship of a unique-together group)",
                    "matches an existing object, that object is updated instead (SwiftData's upsert): insert",
                    "first says which object and what would change, and asks, as delete does (--yes answers",
                    "yes; a script without --yes stops there), then prints 'updated existing ID'.",
                    "'as NAME' names the object for the session: $NAME then stands for its id wherever",
                    "an id goes (set, link, show, delete, relationship values).",
                ],
                example: [
                    "insert Animal name=\"Snow Leopard\" diet=carnivorous category=24",
                    "insert AnimalCategory name=Marsupial as marsupials", "link $marsupials animals 2",
                ]),
            edits: .always,
            run: Command.proceeding(Interpreter.insert),
            complete: { $0.insertCompletions(after: $1, prefix: $2) }),
        Command(
            name: "set",
            help: .init(
                usage: ["set ID NAME=VALUE …"], summary: "change attributes and relationships of an object",
                details: [
                    "Values as for insert; a to-one relationship takes an id or null; an optional",
                    "to-many takes [] (an empty collection) or null (none). A value another object holds",
                    "in a unique attribute (or unique-together group) is refused at once; nothing changes.",
                ],
                example: ["set 2 name=\"Great Crested Newt\" category=1", "set 2 category=null"]),
            edits: .always,
            run: Command.proceeding(Interpreter.set),
            complete: { $0.setCompletions(after: $1, prefix: $2) }),
        Command(
            name: "link",
            help: .init(
                usage: ["link ID RELATIONSHIP ID"], summary: "add an object to a relationship (to-one: replace)",
                details: [], example: ["link 24 animals 2"]),
            edits: .always,
            run: Command.proceeding(Interpreter.linkCommand),
            complete: { $0.linkCompletions(after: $1, prefix: $2, unlinking: false) }),
        Command(
            name: "unlink",
            help: .init(
                usage: ["unlink ID RELATIONSHIP ID"], summary: "remove an object from a relationship",
                details: [], example: ["unlink 24 animals 2"]),
            edits: .always,
            run: Command.proceeding(Interpreter.unlinkCommand),
            complete: { $0.linkCompletions(after: $1, prefix: $2, unlinking: true) }),
        Command(
            name: "delete",
            help: .init(
                usage: ["delete ID …", "delete ENTITY where PREDICATE", "delete all ENTITY", "delete everything"],
                summary: "delete objects, with their delete rules",
                details: [
                    "Shows what will go first (cascades, links cut on survivors, deny rules that will make",
                    "save refuse) and asks; with --yes it does not ask, and the preview goes to stderr",
                    "so stdout holds results only.",
                ],
                example: ["delete 24", "delete Country where visited == false", "delete all Animal"]),
            edits: .always,
            run: Command.proceeding(Interpreter.delete),
            complete: { $0.deleteCompletions(after: $1, prefix: $2) }),
        Command(
            name: "undo",
            help: .init(
                usage: ["undo [N]"], summary: "undo the last command (or the last N)",
                details: [
                    "Each command that changes the document is one step. Undoing back to what was",
                    "last saved leaves no unsaved changes (no * in the prompt).",
                ], example: ["undo 2"]),
            run: Command.proceeding(Interpreter.undoCommand)),
        Command(
            name: "redo",
            help: .init(usage: ["redo [N]"], summary: "redo what undo undid", details: [], example: ["redo"]),
            run: Command.proceeding(Interpreter.redoCommand)),
        Command(
            name: "history",
            help: .init(
                usage: ["history"], summary: "list the undo steps, oldest first, and the redoable ones",
                details: [
                    "Each step names the objects it changed (Insert Animal#37, Set Animal#2.name);",
                    "'-- saved' marks the state the package holds, '> you are here' the current one.",
                ],
                example: ["history"]),
            run: Command.proceeding(Interpreter.history)),
        Command(
            name: "changes",
            help: .init(
                usage: ["changes [since TOKEN]"], summary: "list the saved transactions of the document's history",
                details: [
                    "Every save records one transaction: the objects it inserted, updated (with the",
                    "properties changed) and deleted, and the preserveValueOnDeletion values of the",
                    "deleted. The history is kept in the package, for every program that saves it.",
                    "TOKEN is a transaction number: 'changes since 12' lists those saved after it.",
                    "(history lists this session's undo steps.)",
                ],
                example: ["changes", "changes since 12"]),
            run: Command.proceeding(Interpreter.changes)),
        Command(
            name: "status",
            help: .init(
                usage: ["status"], summary: "show the document, unsaved changes, undo and redo",
                details: [], example: ["status"]),
            run: Command.proceeding(Interpreter.status)),
        Command(
            name: "diff",
            help: .init(
                usage: ["diff"], summary: "list the unsaved changes object by object",
                details: [
                    "Against the last save, in id order: '+ ID: name=value, …' for an inserted object,",
                    "'- ID: …' for a deleted one (its values as saved), and for an edited one a line per",
                    "property that differs: '~ ID: name old → new', to-many relationships as +ID -ID.",
                    "Externally stored values are named, never read. (changes lists saved transactions;",
                    "status counts.) With --json: inserted, changed (old and new) and deleted objects.",
                ],
                example: ["diff"]),
            run: Command.proceeding(Interpreter.diff)),
        Command(
            name: "conflicts",
            help: .init(
                usage: ["conflicts"], summary: "list the conflicts a merge recorded in the document",
                details: [
                    "A merge (folio merge, or git with 'folio git setup') keeps one choice where both",
                    "sides changed one value (ours) and records base, ours and theirs here, numbered",
                    "for resolve. Objects a merge removed (deleted on one side and edited on the other,",
                    "cascades, unique clashes) are recorded whole. Conflicts are saved until resolved.",
                ],
                example: ["conflicts"]),
            run: Command.proceeding(Interpreter.conflictsCommand)),
        Command(
            name: "resolve",
            help: .init(
                usage: ["resolve N|all ours|theirs|base|merged", "resolve N to VALUE"],
                summary: "resolve a recorded conflict: keep one version (undoable)",
                details: [
                    "ours, theirs, base: the value (or the whole object) of that side; merged: the",
                    "document as the merge left it; to VALUE: a value typed as for set (ids for a",
                    "relationship). Each resolution is one undo step; save writes it.",
                ],
                example: ["resolve 1 theirs", "resolve 2 to \"omnivorous\"", "resolve all ours"]),
            edits: .always,
            run: Command.proceeding(Interpreter.resolveCommand)),
        Command(
            name: "save",
            help: .init(
                usage: ["save", "save as PATH"], summary: "write the document; or write a copy and edit that",
                details: [
                    "save refuses while a deny rule is broken. save as writes the document with its unsaved",
                    "changes to PATH and goes on editing the new package (undo history starts afresh).",
                ],
                example: ["save", "save as \"Animals copy.folio\""]),
            edits: .unless(Command.savesACopy),
            run: Command.proceeding(Interpreter.save),
            complete: { _, words, _ in words.count == 1 ? ["as"] : [] }),
        Command(
            name: "revert",
            help: .init(
                usage: ["revert"], summary: "discard unsaved changes (asks first)",
                details: [
                    "Reads the package again from disk, so what another program saved since comes in",
                    "too; the undo history is cleared. Without unsaved changes it does nothing: use reopen.",
                ],
                example: ["revert"]),
            run: Command.proceeding(Interpreter.revert)),
        Command(
            name: "reopen",
            help: .init(
                usage: ["reopen"], summary: "read the document again from disk (asks first if there are unsaved changes)",
                details: [
                    "As folio PATH would open it now: shows what another program saved since this one",
                    "read it (a git pull, a save while this one was open --read-only); the unsaved changes",
                    "and the undo history are discarded. If the package cannot be read, nothing changes.",
                ],
                example: ["reopen"]),
            run: Command.proceeding(Interpreter.reopen)),
        Command(
            name: "import",
            help: .init(
                usage: ["import ENTITY from FILE.csv"], summary: "insert one object per row of a CSV file",
                details: [
                    "The first line names the columns: attributes, and relationships (to-one by id or",
                    "$NAME, to-many as [3, 4]); no id column. Values are read as insert reads them;",
                    "an empty unquoted field gives no value (null or the default), \"\" an empty string.",
                    "All or nothing: one undo step, and on any error, named at the file's line and",
                    "column, nothing is inserted. Rows matching a unique value update that object.",
                ],
                example: ["import Animal from animals.csv"]),
            edits: .always,
            run: Command.proceeding(Interpreter.importRows),
            complete: { interpreter, words, _ in words.count == 1 ? interpreter.entityNames : words.count == 2 ? ["from"] : [] }),
        Command(
            name: "export",
            help: .init(
                usage: [
                    "export list ENTITY [COLUMN, …] [where …] [sort …] [limit N] [offset N] to FILE",
                    "  [--format csv|json] [--force]",
                ],
                summary: "write what list would show, every row, to a CSV or JSON file",
                details: [
                    "The format is --format's, else the file's extension (.json, otherwise CSV). CSV has",
                    "a header of the columns; null is an empty field, import reads the file back. JSON is",
                    "an array of objects keyed by column. An existing file is replaced only with --force;",
                    "a document package, or a path inside one (links followed), is refused.",
                ],
                example: [
                    "export list Animal name, diet, category where diet == 'carnivorous' to carnivores.csv",
                    "export list AnimalCategory to categories.json --force",
                ]),
            run: Command.proceeding(Interpreter.export),
            complete: { $0.exportCompletions(after: $1, prefix: $2) }),
        Command(
            name: "timing",
            help: .init(
                usage: ["timing [on|off]"], summary: "print how long each command took (Time: 1.234 ms)",
                details: [
                    "Like psql's \\timing. Without on or off it switches. With --json the time is a",
                    "note on stderr ({\"kind\":\"timing\",\"milliseconds\":…}).",
                ],
                example: ["timing on"]),
            run: Command.proceeding(Interpreter.timingCommand),
            complete: { _, words, _ in words.count == 1 ? ["on", "off"] : [] }),
        Command(
            name: "quit",
            help: .init(
                usage: ["quit", "quit!"], summary: "leave; quit asks first when there are unsaved changes",
                details: [
                    "quit! leaves without asking. If folio is killed (SIGTERM, SIGHUP) or crashes with",
                    "unsaved changes, they are written to a recovery package under",
                    "$XDG_STATE_HOME/folio/recovery (or ~/.local/state/folio/recovery), named when the",
                    "document is next opened.",
                ], example: ["quit"]),
            run: Interpreter.quit),
        Command(
            name: "quit!",
            help: .init(usage: ["quit!"], summary: "leave without asking", details: [], example: []), helpTopic: "quit",
            run: Interpreter.quitWithoutAsking),
    ]

    /// The commands by name.
    nonisolated(unsafe) static let commandsByName: [String: Command] = Dictionary(uniqueKeysWithValues: commands.map { ($0.name, $0) })

    func linkCommand(_ text: CommandLineText) throws(CommandError) { try link(text, unlinking: false) }
    func unlinkCommand(_ text: CommandLineText) throws(CommandError) { try link(text, unlinking: true) }
    func undoCommand(_ text: CommandLineText) throws(CommandError) { try undo(text, redoing: false) }
    func redoCommand(_ text: CommandLineText) throws(CommandError) { try undo(text, redoing: true) }

    /// The command names, in `help`'s order: for help, completion and suggestions.
    public static let commandNames = commands.map(\.name)
}
