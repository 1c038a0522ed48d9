import FolioCore
import Foundation

/// `undo`, `redo`, `history`, `status`, `save`, `save as`, `revert`, `quit`.
extension Interpreter {
    // MARK: undo, redo (history: Interpreter+History.swift)

    func undo(_ text: CommandLineText, redoing: Bool) throws(CommandError) {
        let verb = redoing ? "redo" : "undo"
        var steps = 1
        if text.words.count > 1 {
            let argument = text.words[1]
            guard let number = Int(argument.text), number > 0 else {
                throw CommandError("'\(argument.text)' is not a number of steps", column: argument.column)
            }
            steps = number
        }
        try expectEnd(text, after: 2)
        guard let undoManager = context.undoManager else { throw CommandError("this document has no undo manager", column: 1) }
        context.processPendingChanges()
        let available = redoing ? undoManager.redoSteps : undoManager.undoSteps
        guard available > 0 else { throw CommandError("nothing to \(verb)", column: 1) }
        guard steps <= available else {
            throw CommandError("only \(available) step\(available == 1 ? "" : "s") to \(verb)", column: text.words[1].column)
        }
        var names: [String] = []
        for _ in 0..<steps {
            let name = redoing ? undoManager.redoActionName : undoManager.undoActionName
            if redoing { undoManager.redo() } else { undoManager.undo() }
            names.append(name)
        }
        emit(names.map { "\(redoing ? "redid" : "undid") \($0.isEmpty ? "an unnamed step" : $0)" }.joined(separator: "\n"),
             or: Self.result(verb, [("steps", .array(names.map(JSONText.string))), ("unsaved", .bool(hasUnsavedChanges))]))
    }

    // MARK: status

    func status(_ text: CommandLineText) throws(CommandError) {
        try expectEnd(text, after: 1)
        context.processPendingChanges()
        let inserted = context.insertedIdentifiers.count
        let changed = context.changedIdentifiers.count
        let deleted = context.deletedIdentifiers.count
        let undoNames = context.undoManager?.undoStepNames ?? []
        let redoNames = context.undoManager?.redoStepNames ?? []
        if options.json {
            emit(Self.result("status", [("document", .string(documentURL.path)), ("unsaved", .bool(hasUnsavedChanges)),
                          ("inserted", .int(inserted)), ("changed", .int(changed)), ("deleted", .int(deleted)),
                          ("undo", .array(undoNames.map(JSONText.string))), ("redo", .array(redoNames.map(JSONText.string)))]))
            return
        }
        emit("document: \(documentURL.path)")
        emit("unsaved changes: " + (hasUnsavedChanges ? "yes (\(changeCounts))" : "no"))
        emit("undo: " + (undoNames.last.map { "\($0) (\(undoNames.count) step\(undoNames.count == 1 ? "" : "s"))" } ?? "nothing"))
        emit("redo: " + (redoNames.first.map { "\($0) (\(redoNames.count) step\(redoNames.count == 1 ? "" : "s"))" } ?? "nothing"))
    }

    /// `{"inserted": 1, "changed": 0, "deleted": 7}`.
    var changeCountsJSON: JSONText {
        .object([("inserted", .int(context.insertedIdentifiers.count)), ("changed", .int(context.changedIdentifiers.count)),
                 ("deleted", .int(context.deletedIdentifiers.count))])
    }

    /// The unsaved changes counted by object: "1 inserted, 0 changed, 7 deleted".
    public var changeCounts: String {
        "\(context.insertedIdentifiers.count) inserted, \(context.changedIdentifiers.count) changed, "
            + "\(context.deletedIdentifiers.count) deleted"
    }

    // MARK: save, save as, revert

    func save(_ text: CommandLineText) throws(CommandError) {
        if text.words.count > 1 {
            guard text.words[1].keyword == "as" else {
                throw CommandError("unexpected '\(text.words[1].text)'; did you mean 'save as PATH'?", column: text.words[1].column)
            }
            try saveAs(text)
            return
        }
        context.processPendingChanges()
        guard hasUnsavedChanges else {
            emit("no changes to save", or: Self.result("save", [("path", .string(documentURL.path)), ("saved", .bool(false))]))
            return
        }
        do { try context.save() } catch { throw failure(error) }
        emit("saved \(Self.displayPath(documentURL))",
             or: Self.result("save", [("path", .string(documentURL.path)), ("saved", .bool(true))]))
    }

    /// A path as the user would type it: relative to the working directory when
    /// the file is inside it, else absolute.
    static func displayPath(_ url: URL) -> String {
        let path = url.standardizedFileURL.path
        let directory = FileManager.default.currentDirectoryPath
        // Empty when getcwd fails (the directory was removed): nothing to be relative to.
        guard directory.hasPrefix("/") else { return path }
        let prefix = directory.hasSuffix("/") ? directory : directory + "/"
        return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path
    }

    /// Writes the document, unsaved changes included, to a new package and goes on
    /// editing that one, with a fresh context (and so a fresh undo history).
    private func saveAs(_ text: CommandLineText) throws(CommandError) {
        let pathWord = try word(text, 2, missing: "save as needs a path, e.g. save as Copy.folio")
        try expectEnd(text, after: 3)
        let path = NSString(string: CommandLineText.unquoted(pathWord.text)).expandingTildeInPath
        guard !path.isEmpty else { throw CommandError("save as needs a path", column: pathWord.column) }
        let url = URL(fileURLWithPath: path)
        if url.standardizedFileURL.path == documentURL.standardizedFileURL.path {
            throw CommandError("that is this document's own path; use 'save'", column: pathWord.column)
        }
        // A folder holding anything Folio did not write is refused outright, before any question.
        do { try DocumentPackage(url: url).checkWritableTarget() } catch {
            throw CommandError(error.description, column: pathWord.column)
        }
        if FileManager.default.fileExists(atPath: url.path) {
            preview("\(Self.displayPath(url)) exists")
            guard confirmed("Replace it? [y/N] ", command: "save as") else { return }
        }
        context.processPendingChanges()
        let hadChanges = hasUnsavedChanges
        do { try context.exportPackage(to: url) } catch { throw failure(error, column: pathWord.column) }
        let reopened: ModelContext
        do {
            reopened = ModelContext(try ModelContainer(contentsOf: url))
        } catch {
            throw CommandError("saved \(url.path) but could not open it: \(error)", column: pathWord.column)
        }
        reopened.undoManager = UndoManager()
        let previous = documentURL
        context = reopened
        documentURL = url
        emit("saved as \(Self.displayPath(url)); now editing it (undo history starts afresh)"
             + (hadChanges ? "\n\(previous.lastPathComponent) itself keeps its last saved state" : ""),
             or: Self.result("save as", [("path", .string(url.path)), ("previous", .string(previous.path)),
                                         ("previousUnsavedChanges", .bool(hadChanges))]))
    }

    func revert(_ text: CommandLineText) throws(CommandError) {
        try expectEnd(text, after: 1)
        context.processPendingChanges()
        guard hasUnsavedChanges else {
            emit("no unsaved changes", or: Self.result("revert", [("reverted", .bool(false))]))
            return
        }
        let discarded = changeCountsJSON
        preview("discards \(changeCounts)")
        guard confirmed("Discard unsaved changes? [y/N] ", command: "revert") else { return }
        context.rollback()
        emit("reverted to \(documentURL.lastPathComponent) as last saved (undo history cleared)",
             or: Self.result("revert", [("reverted", .bool(true)), ("discarded", discarded)]))
    }

    // MARK: quit

    func quit(_ text: CommandLineText) throws(CommandError) -> Outcome {
        try expectEnd(text, after: 1)
        context.processPendingChanges()
        guard hasUnsavedChanges else {
            if options.json { emit(Self.result("quit", [])) }
            return .quit
        }
        let discarded = changeCountsJSON
        preview("unsaved changes: \(changeCounts)")
        guard confirmed("Quit without saving? [y/N] ", command: "quit") else { return .proceed }
        if options.json { emit(Self.result("quit", [("discarded", discarded)])) }
        return .quit
    }
}
