import FolioCore
import Foundation

/// The `folio` REPL's interpreter: one command line in, text out, over a
/// document's editing context. It uses only Folio's public API and knows
/// nothing of terminals, so it is tested without one; the `folio` executable
/// adds line editing, history, completion and script mode around it.
///
/// ```swift
/// let interpreter = try Interpreter(opening: URL(fileURLWithPath: "SampleDocuments/Animals.folio"))
/// interpreter.write = { print($0, terminator: "") }
/// _ = try interpreter.execute("list Animal where diet == 'herbivorous' sort name limit 5")
/// ```
///
/// **Commands** (`help COMMAND` explains each with an example): `help`,
/// `schema`, `list`, `count`, `show`, `insert`, `set`, `link`, `unlink`,
/// `delete`, `undo`, `redo`, `history`, `changes`, `status`, `diff`, `save`,
/// `save as`, `revert`, `reopen`, `import`, `export`, `timing`, `quit`, `quit!`.
///
/// **Names.** `insert … as NAME` names the object it inserted (or updated);
/// `$NAME` then stands for it wherever an id goes (`link $rex category 6`).
///
/// **Undo.** Every command that changes the document is one undo step.
///
/// **Errors.** A command that throws leaves the document as it was; the
/// ``CommandError`` names the offending token's 1-based column in the line
/// (predicate errors included, shifted from the predicate to the line).
///
/// **Confirmation.** Destructive commands (`delete`, an `insert` that updates
/// an existing object through a unique value, `revert`, `reopen` and `quit`
/// with unsaved changes, `save as` over an existing package) first write what they
/// will do (the preview), then ask ``confirm`` unless ``Options/assumeYes``; a
/// "no" writes `cancelled` and changes nothing. With ``Options/assumeYes`` or
/// ``Options/json`` the preview goes to ``writeNote`` instead (stderr), so
/// ``write`` receives results only.
///
/// **JSON.** With ``Options/json`` every command that runs writes exactly one
/// line to ``write``: one JSON object whose `"command"` names the command
/// (see `help` for each command's fields).
public final class Interpreter {
    /// How the interpreter talks to its user.
    public struct Options: Sendable {
        /// Answer yes to every confirmation (`--yes`, scripts); previews then go
        /// to ``Interpreter/writeNote``, so ``Interpreter/write`` receives results only.
        public var assumeYes = false
        /// Results as JSON instead of text: every command writes one JSON object
        /// on one line, its `"command"` first; previews go to ``Interpreter/writeNote`` as JSON objects.
        public var json = false
        /// Open the document read-only (`--read-only`): it opens even while
        /// another process writes it, and commands that would change it are refused.
        public var readOnly = false
        /// Keep the undo of a writable document between sessions (the undo
        /// journal, `.folio-undo` in the package, written with each save):
        /// what `folio` does unless `--no-undo-journal` is given. Off by
        /// default here, for programs embedding the interpreter.
        public var keepsUndo = false
        /// Creates options.
        public init(assumeYes: Bool = false, json: Bool = false, readOnly: Bool = false) {
            self.assumeYes = assumeYes
            self.json = json
            self.readOnly = readOnly
        }
    }

    /// What the front end should do after a command.
    public enum Outcome: Equatable, Sendable {
        /// Read the next command.
        case proceed
        /// Stop: the user quit (unsaved changes were confirmed or there were none).
        case quit
    }

    /// The context every command edits. `save as` and `reopen` replace it with a context on the new package.
    public internal(set) var context: ModelContext {
        didSet { context.cancellationCheck = isCancelled }
    }
    /// The document package being edited.
    public internal(set) var documentURL: URL
    /// Options in force.
    public var options: Options
    /// Asks the user a yes/no question (the text ends with "[y/N] "); `false` means no.
    /// Not called when ``Options/assumeYes`` is set.
    public var confirm: (String) -> Bool = { _ in false }
    /// Receives command output (each piece ends with a newline).
    public var write: (String) -> Void = { FileHandle.standardOutput.write(Data($0.utf8)) }
    /// Receives notes that are not results: the preview of a destructive command
    /// when nobody is asked (``Options/assumeYes``) or output is JSON. Each piece
    /// ends with a newline; in JSON mode each line is a JSON object.
    public var writeNote: (String) -> Void = { FileHandle.standardError.write(Data($0.utf8)) }

    /// Asked between the steps of a long command, and by the library during
    /// its long fetches and deletion plans (installed as the context's
    /// `ModelContext.cancellationCheck`): `true` stops the command, which then
    /// throws ``CommandError/cancelled`` having written nothing more and
    /// changed nothing. The `folio` front end sets it to "Ctrl-C or a
    /// terminating signal came", from atomics its signal handlers set; it is
    /// called on the interpreter's thread and must be cheap.
    ///
    /// A delete is stopped only before it changes anything: once its removal
    /// has begun (after the preview and the question) it runs to the end.
    public var isCancelled: (() -> Bool)? {
        didSet { context.cancellationCheck = isCancelled }
    }

    /// Throws ``CommandError/cancelled`` when ``isCancelled`` says to stop:
    /// what a long command's loops call between steps.
    func checkCancelled() throws(CommandError) {
        if isCancelled?() == true { throw .cancelled }
    }

    /// How many rows `list` shows when no `limit` is given.
    public static let listPageSize = 50

    /// Whether each command's time is printed after it (`timing on`), as psql's `\timing`.
    public var timing = false
    /// The objects `insert … as NAME` named, for `$NAME`.
    var objectNames: [String: PersistentIdentifier] = [:]
    /// When this session began: `history` gives the time of steps older than
    /// it (brought back from the undo journal).
    let sessionStart = Date()
    /// What opening found of the last session's undo (restored steps, steps
    /// dropped, or why the journal was refused); `nil` when there was nothing to say.
    public internal(set) var undoJournalNote: String?
    /// How many undo steps the document as saved holds: steps up to this one
    /// are in the package, later ones are not. `nil` when no reachable step is
    /// the saved state (the steps that led to it were undone and replaced).
    var savePoint: Int?

    /// Opens an existing package, with an undo manager; read-only when
    /// ``Options/readOnly`` (then it takes no lock and opens even while another
    /// process writes the package).
    ///
    /// - Throws: `ModelError` when the package cannot be read, or another process
    ///   writes it and the package is not opened read-only.
    ///
    /// A writable document keeps its undo between sessions
    /// (``Options/keepsUndo``): the last session's steps come back, and
    /// ``undoJournalNote`` says what came back or why nothing did.
    public convenience init(opening url: URL, options: Options = Options()) throws {
        let keeps = options.keepsUndo && !options.readOnly
        let context = ModelContext(
            try ModelContainer(contentsOf: url, allowsSave: !options.readOnly, undoJournal: keeps ? .standard : nil))
        context.undoManager = UndoManager()
        var note: String?
        if keeps {
            do {
                let restored = try context.restoreUndoJournal()
                if restored.undoCount + restored.redoCount > 0 || !restored.dropped.isEmpty { note = restored.summary }
            } catch {
                note = error.description
            }
        }
        self.init(context: context, documentURL: url, options: options)
        undoJournalNote = note
    }

    /// Wraps an existing context. A context without an undo manager is given one:
    /// `undo`, `redo` and `history` need it.
    public init(context: ModelContext, documentURL: URL, options: Options = Options()) {
        if context.undoManager == nil { context.undoManager = UndoManager() }
        self.context = context
        self.documentURL = documentURL
        self.options = options
        savePoint = context.hasChanges ? nil : context.undoManager?.undoSteps
    }

    /// The document's name and, when there are unsaved changes, a `*`: `Animals*> `;
    /// `Animals (read-only)> ` for a document opened read-only.
    public var prompt: String {
        TerminalText.escaped(documentURL.deletingPathExtension().lastPathComponent) + (hasUnsavedChanges ? "*" : "")
            + (isReadOnly ? " (read-only)" : "") + "> "
    }

    /// Whether the document was opened read-only: commands that change it are refused.
    public var isReadOnly: Bool { !(context.container.configurations.first?.allowsSave ?? true) }

    /// Whether the document has changes not yet saved.
    public var hasUnsavedChanges: Bool { context.hasChanges }

    /// `; did you mean 'list'?` for a word no command is, or `; try 'help'`.
    static func commandHint(for name: String) -> String {
        if let other = foreignCommandHint(for: name) { return other }
        let hint = NameSuggestions.hint(for: name, among: commandNames)
        return hint.isEmpty ? "; try 'help'" : hint
    }

    /// The longest command line the `folio` front end reads, in UTF-8 bytes:
    /// 1 MiB. A longer line is refused whole, never cut: a script stops there
    /// with an error; a terminal session stops reading the line at the limit,
    /// discards the rest of it and says so. (``execute(_:)`` itself takes any
    /// length, for programs: splitting a line into words is linear.)
    public static let maximumLineLength = 1 << 20

    /// Runs one command line. Blank lines and lines starting with `#` do nothing.
    ///
    /// Complexity: splitting the line into words is linear in its length.
    ///
    /// - Throws: ``CommandError`` naming the offending token's column; the
    ///   document is unchanged by a command that throws.
    public func execute(_ line: String) throws(CommandError) -> Outcome {
        let text = CommandLineText(line)
        guard let command = text.words.first, !command.text.hasPrefix("#") else { return .proceed }
        let clock = ContinuousClock()
        let start = clock.now
        let stepsBefore = context.undoManager.map { ($0.undoSteps, $0.redoSteps) }
        let outcome = try run(text, command)
        trackSavePoint(after: command.keyword, stepsBefore: stepsBefore)
        if timing, outcome == .proceed, command.keyword != "timing" { reportTime(clock.now - start) }
        return outcome
    }

    /// Runs one command, its first word `command`.
    private func run(_ text: CommandLineText, _ command: CommandLineText.Word) throws(CommandError) -> Outcome {
        if let column = text.unterminatedQuote { throw CommandError("unterminated string", column: column) }
        guard let entry = Self.commandsByName[command.keyword] else {
            throw CommandError("unknown command '\(command.text)'" + Self.commandHint(for: command.text), column: command.column)
        }
        if isReadOnly, entry.edits.edits(text) {
            throw CommandError(
                "\(documentURL.lastPathComponent) is open read-only: '\(command.text)' would change it "
                    + "(use 'save as PATH' to edit a copy)", column: command.column, kind: .readOnly)
        }
        return try entry.run(self)(text)
    }

    /// `quit!`: leaves without asking.
    func quitWithoutAsking(_ text: CommandLineText) throws(CommandError) -> Outcome {
        try expectEnd(text, after: 1)
        if options.json { emit(.object([("command", .string("quit!"))])) }
        return .quit
    }

    /// The error for a line over ``maximumLineLength``, of `bytes` bytes when
    /// known (the terminal session stops reading at the limit).
    public static func overlongLine(bytes: Int? = nil) -> CommandError {
        let size = bytes.map { " \($0) bytes long," } ?? ""
        return CommandError("the line is\(size) over the limit of \(maximumLineLength) bytes; nothing of it was run")
    }

    // MARK: Output

    /// Writes one line (or several, split at line feeds), with every other
    /// control character escaped: no value or name can drive the terminal.
    func emit(_ line: String) { write(TerminalText.escaped(line, keepingNewlines: true) + "\n") }

    /// Writes one JSON value on its own line.
    func emit(_ json: JSONText) { write(json.text + "\n") }

    /// Writes a result: `json` in JSON mode, else `text` (a line, or several).
    func emit(_ text: @autoclosure () -> String, or json: @autoclosure () -> JSONText) {
        if options.json { emit(json()) } else { emit(text()) }
    }

    /// A command's JSON result: `{"command": NAME, …fields}`.
    static func result(_ command: String, _ fields: [(String, JSONText)]) -> JSONText {
        .object([("command", .string(command))] + fields)
    }

    /// Writes a line of a preview: with the question on ``write`` when the user
    /// is asked; to ``writeNote`` when nobody is (``Options/assumeYes``) or the
    /// output is JSON (then as `{"level":"note","kind":"preview","message":…}`).
    func preview(_ line: String) {
        if options.json {
            writeNote(
                JSONText.object([
                    ("level", .string("note")), ("kind", .string("preview")),
                    ("message", .string(line)),
                ]).text + "\n")
        } else if options.assumeYes {
            writeNote(TerminalText.escaped(line, keepingNewlines: true) + "\n")
        } else {
            emit(line)
        }
    }

    /// Asks `question` unless told to assume yes; a "no" writes `cancelled`
    /// (in JSON: `{"command": command, "cancelled": true}`).
    func confirmed(_ question: String, command: String) -> Bool {
        if options.assumeYes || confirm(TerminalText.escaped(question, keepingNewlines: true)) { return true }
        emit("cancelled", or: Self.result(command, [("cancelled", .bool(true))]))
        return false
    }

    // MARK: Undo steps

    /// Runs `body` as one undo step, named `name` (or as the library names it),
    /// and ends the user action. If `body` throws after changing something, the
    /// change is undone before the error goes on, so a failing command leaves the
    /// document as it was.
    func change<T>(named name: String? = nil, _ body: () throws(CommandError) -> T) throws(CommandError) -> T {
        guard let undoManager = context.undoManager else {
            let result = try body()
            context.processPendingChanges()
            return result
        }
        context.processPendingChanges()  // close an automatic group someone else left open
        let stepsBefore = undoManager.undoSteps
        undoManager.beginUndoGrouping()
        do {
            let result = try body()
            if let name { undoManager.setActionName(name) }
            undoManager.endUndoGrouping()
            context.processPendingChanges()
            return result
        } catch {
            undoManager.endUndoGrouping()
            if undoManager.undoSteps > stepsBefore { undoManager.undo() }
            throw error
        }
    }

    // MARK: Arguments

    /// Throws for any word after the first `count` words.
    func expectEnd(_ text: CommandLineText, after count: Int) throws(CommandError) {
        guard text.words.count > count else { return }
        let extra = text.words[count]
        throw CommandError("unexpected '\(extra.text)'", column: extra.column)
    }

    /// The `index`th word, or an error pointing past the end of the line saying what is missing.
    func word(_ text: CommandLineText, _ index: Int, missing: @autoclosure () -> String) throws(CommandError) -> CommandLineText.Word {
        guard index < text.words.count else { throw CommandError(missing(), column: text.endColumn) }
        return text.words[index]
    }

    /// The document's schema.
    var schema: Schema { context.schema }

    /// The entity a word names.
    func entity(_ word: CommandLineText.Word) throws(CommandError) -> Schema.Entity {
        if let entity = schema.entity(named: word.text) { return entity }
        throw CommandError("no entity named '\(word.text)'" + entityHint(for: word.text), column: word.column)
    }

    /// `; did you mean 'Animal'?` for a name no entity has: a few close names, never the whole schema.
    func entityHint(for name: String) -> String {
        NameSuggestions.hint(for: name, among: schema.entities.map(\.name), listing: "entities")
    }

    /// Parses `42`, `#42` or `Animal#42` into an entity name (if given) and a number.
    static func parseID(_ text: String) -> (entity: String?, number: UInt64)? {
        let parts = text.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
        let numberText = parts.count == 2 ? parts[1] : parts[0]
        guard let number = UInt64(numberText), numberText.allSatisfy(\.isASCII) else { return nil }
        let entity = parts.count == 2 && !parts[0].isEmpty ? String(parts[0]) : nil
        return (entity, number)
    }

    /// The live object a word names: `42`, `#42` or `Animal#42`, or a unique trailing part
    /// of at least 3 of its id's digits (`401` for `7483920175308390401`, see
    /// ``shortIdentifierMinimum``); `destination` is the entity it must be of, with `role`
    /// saying why in the message (a short id is looked for among that entity's objects).
    func object(_ word: CommandLineText.Word, of destination: String? = nil, role: String? = nil)
        throws(CommandError) -> PersistentIdentifier
    {
        let text = CommandLineText.unquoted(word.text)
        if text.hasPrefix("$") { return try namedObject(word, of: destination, role: role) }
        guard let (entityName, number) = Self.parseID(text) else {
            throw CommandError("'\(text)' is not an object id (write 42 or Animal#42)", column: word.column)
        }
        if let entityName, schema.entity(named: entityName) == nil {
            throw CommandError("no entity named '\(entityName)'" + entityHint(for: entityName), column: word.column)
        }
        let id: PersistentIdentifier
        if let exact = context.identifier(forNumber: number) {
            id = exact
        } else if let deleted = context.deletedIdentifiers.first(where: { $0.id == number }) {
            throw CommandError("\(deleted) is deleted ('undo' brings it back)", column: word.column)
        } else if let short = try shortIdentifier(
            text.split(separator: "#").last ?? "", entity: entityName ?? destination,
            typed: text, column: word.column)
        {
            id = short
        } else {
            throw CommandError("no object \(entityName.map { "\($0)#\(number)" } ?? "#\(number)")", column: word.column)
        }
        if let entityName, entityName != id.entityName {
            throw CommandError("#\(number) is \(id), not \(entityName)", column: word.column)
        }
        // A relationship into a hierarchy holds objects of its destination's subentities too.
        if let destination, !schema.entity(id.entityName, isKindOf: destination) {
            throw CommandError("\(role ?? "it") holds \(destination) objects, not \(id)", column: word.column)
        }
        return id
    }

    /// A library error as a command error at `column`.
    func failure(_ error: ModelError, column: Int = 0) -> CommandError {
        let kind: CommandError.Kind
        switch error {
        case .graph, .refusedInserts, .conflictNotRecorded: kind = .edit
        case .validation: kind = .validation
        case .package: kind = .file
        case .predicate, .unsortable: kind = .predicate
        case .saveNotAllowed: kind = .readOnly
        case .schema, .migration, .configuration: kind = .file
        case .cancelled: return .cancelled
        }
        return CommandError(error.description, column: column, kind: kind)
    }
}

/// A `where` clause: the predicate and where its text starts in the line, to
/// shift the predicate's error columns onto the line's.
struct Filter {
    var predicate: ObjectPredicate
    /// Index in the line of the predicate's first scalar.
    var start: Int

    /// Parses the predicate text in `range` of the line.
    init(_ text: CommandLineText, _ range: Range<Int>) throws(CommandError) {
        start = range.lowerBound
        do {
            predicate = try ObjectPredicate(text.text(range))
        } catch {
            throw Filter.shift(error, start: range.lowerBound)
        }
    }

    /// A predicate error with its column moved from the predicate to the line.
    func error(_ error: FolioCore.ObjectPredicateError) -> CommandError { Filter.shift(error, start: start) }

    static func shift(_ error: FolioCore.ObjectPredicateError, start: Int) -> CommandError {
        CommandError(error.message, column: start + max(error.column, 1), kind: .predicate)
    }
}
