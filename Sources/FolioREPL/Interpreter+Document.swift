import FolioCore
import Foundation

/// `undo`, `redo`, `history`, `status`, `save`, `save as`, `revert`, `reopen`, `quit`.
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
        emit(
            names.map { "\(redoing ? "redid" : "undid") \($0.isEmpty ? "an unnamed step" : $0)" }.joined(separator: "\n"),
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
        let conflicts = context.conflicts.count
        if options.json {
            emit(
                Self.result(
                    "status",
                    [
                        ("document", .string(documentURL.path)), ("unsaved", .bool(hasUnsavedChanges)),
                        ("inserted", .int(inserted)), ("changed", .int(changed)), ("deleted", .int(deleted)),
                        ("conflicts", .int(conflicts)),
                        ("undo", .array(undoNames.map(JSONText.string))), ("redo", .array(redoNames.map(JSONText.string))),
                    ]))
            return
        }
        emit("document: \(documentURL.path)")
        emit("unsaved changes: " + (hasUnsavedChanges ? "yes (\(changeCounts))" : "no"))
        if conflicts > 0 { emit("conflicts: \(conflicts) recorded by a merge (see 'conflicts', then 'resolve')") }
        emit("undo: " + (undoNames.last.map { "\($0) (\(undoNames.count) step\(undoNames.count == 1 ? "" : "s"))" } ?? "nothing"))
        emit("redo: " + (redoNames.first.map { "\($0) (\(redoNames.count) step\(redoNames.count == 1 ? "" : "s"))" } ?? "nothing"))
    }

    /// `{"inserted": 1, "changed": 0, "deleted": 7}`.
    var changeCountsJSON: JSONText {
        .object([
            ("inserted", .int(context.insertedIdentifiers.count)), ("changed", .int(context.changedIdentifiers.count)),
            ("deleted", .int(context.deletedIdentifiers.count)),
        ])
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
        emit(
            "saved \(Self.displayPath(documentURL))",
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
        emit(
            "saved as \(Self.displayPath(url)); now editing it (undo history starts afresh)"
                + (hadChanges ? "\n\(previous.lastPathComponent) itself keeps its last saved state" : ""),
            or: Self.result(
                "save as",
                [
                    ("path", .string(url.path)), ("previous", .string(previous.path)),
                    ("previousUnsavedChanges", .bool(hadChanges)),
                ]))
    }

    /// `revert`: discards the unsaved changes (asking first) by reading the
    /// package again from disk, so what another program saved since (a `git
    /// pull`, a save made while this one was open read-only) comes in with it.
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
        let readOnlyReason = try readAgain()
        emit(
            "reverted to \(documentURL.lastPathComponent) as last saved (undo history cleared)"
                + (readOnlyReason.map { "\n" + Self.openedReadOnly($0) } ?? ""),
            or: Self.result(
                "revert",
                [("reverted", .bool(true)), ("discarded", discarded)]
                    + Self.readOnlyFields(readOnlyReason)))
    }

    /// `reopen`: reads the package again from disk, as `folio PATH` would open
    /// it now, whether or not there are unsaved changes (which it asks before
    /// discarding): the way to see what another program saved.
    func reopen(_ text: CommandLineText) throws(CommandError) {
        try expectEnd(text, after: 1)
        context.processPendingChanges()
        let hadChanges = hasUnsavedChanges
        let discarded = changeCountsJSON
        if hadChanges {
            preview("discards \(changeCounts)")
            guard confirmed("Discard unsaved changes and reopen? [y/N] ", command: "reopen") else { return }
        }
        let readOnlyReason = try readAgain()
        var objects = 0
        for entity in schema.entities {
            objects += try read { () throws(ModelError) in try context.fetchCount(DynamicFetchDescriptor(entity: entity.name, includesSubentities: false)) }
        }
        emit(
            "reopened \(documentURL.lastPathComponent): \(objects) object\(objects == 1 ? "" : "s")"
                + (hadChanges ? ", unsaved changes discarded" : "") + " (undo history cleared)"
                + (readOnlyReason.map { "\n" + Self.openedReadOnly($0) } ?? ""),
            or: Self.result(
                "reopen",
                [
                    ("path", .string(documentURL.path)), ("objects", .int(objects)),
                    ("discarded", hadChanges ? discarded : .null),
                ] + Self.readOnlyFields(readOnlyReason)))
    }

    /// Replaces the context with one on the package as it is on disk now, with
    /// a fresh undo manager. Returns why the document is now open read-only
    /// when it was open for writing and could not be again (another program
    /// took its lock in between), else `nil`.
    ///
    /// The package is read first, read-only, while the open context still
    /// holds it: a package another program left unreadable is an error, and
    /// the document stays open as it was. Only then is the open context let
    /// go — its container, and with it the package's write lock, go with it,
    /// so the package is read afresh rather than shared with the stale copy
    /// this process held — and the package opened for writing again.
    ///
    /// - Throws: the package's error when it cannot be read; nothing changed then.
    private func readAgain() throws(CommandError) -> String? {
        let wasReadOnly = isReadOnly
        let probe: ModelContext
        do { probe = ModelContext(try ModelContainer(contentsOf: documentURL, allowsSave: false)) } catch {
            throw CommandError(
                "cannot read \(documentURL.lastPathComponent) again: \(error); "
                    + "the document stays open as it was", kind: .file)
        }
        probe.undoManager = UndoManager()
        context = probe  // lets go of the old context, its container and its lock
        guard !wasReadOnly else { return nil }
        do {
            let writable = ModelContext(try ModelContainer(contentsOf: documentURL))
            writable.undoManager = UndoManager()
            context = writable
            return nil
        } catch {
            return "\(error)"
        }
    }

    /// The note when a reopened document could be opened read-only only.
    private static func openedReadOnly(_ reason: String) -> String {
        "now open read-only: \(reason) (save as PATH writes a copy)"
    }

    /// `"readOnly": true, "reason": …` when a reopen fell back to read-only.
    private static func readOnlyFields(_ reason: String?) -> [(String, JSONText)] {
        reason.map { [("readOnly", JSONText.bool(true)), ("reason", .string($0))] } ?? []
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
