import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Keeping the context's undo on disk between sessions: the undo journal,
/// written with each save (``ModelConfiguration/undoJournal``).
extension ModelContext {
    /// Whose undo a journal is: this user on this machine. A journal copied
    /// with the package to another machine or account is refused there.
    static var undoJournalOwner: String {
        var name = [CChar](repeating: 0, count: 256)
        let host =
            gethostname(&name, name.count - 1) == 0
            ? String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : "unknown host"
        return "uid \(getuid()) on \(host)"
    }

    /// Writes the undo journal beside the package's files, atomically (a
    /// durable temporary renamed into place, through the package's guarded
    /// folder), after a save wrote the package: what the journal holds then
    /// applies to the state just saved. A failure is logged and leaves the
    /// save as it is: a journal is never what makes a save fail.
    ///
    /// - Returns: the capture written, or `nil` when the configuration keeps
    ///   no journal (in memory, read-only, or ``ModelConfiguration/undoJournal`` off).
    @discardableResult
    func writeUndoJournal() -> UndoJournal.Capture? {
        #if canImport(Darwin)
        return nil
        #else
        let configuration = core.configuration
        guard let limits = configuration.undoJournal, configuration.allowsSave, let package = sharedDocument.package else {
            return nil
        }
        let steps = undoManager?.recordedSteps ?? ([], [])
        let capture = UndoJournal.capture(steps, in: graph, mergeEpoch: mergeEpoch, owner: Self.undoJournalOwner, limits: limits)
        let bytes = capture.journal.encode(layout: graph.layout)
        let folder = package.folder
        let item = folder.item(DocumentPackage.undoJournalFileName)
        do {
            try folder.writeAtomically(item) { (descriptor: Int32) throws(PackageError) in
                try FileIO.writeAll(descriptor, bytes, path: item.path)
            }
        } catch {
            FolioLog.report("the undo journal \(item.path) was not written: \(error)")
        }
        return capture
        #endif
    }
}

extension ModelContext {
    /// Brings back the undo and redo steps the last session kept in the
    /// package's undo journal (``ModelConfiguration/undoJournal``), on a
    /// context just opened, with its ``undoManager`` set and no edits yet.
    ///
    /// The journal records the content it applies to, object by object. When
    /// the document changed elsewhere since (another program, `git pull`, a
    /// merge), the steps concerning objects the change touched are dropped —
    /// and, on each stack, every step beyond them — and the others come back:
    /// nothing is ever undone onto a state it was not made for, and only this
    /// user's own steps are kept, never another person's merged edits.
    ///
    /// ```swift
    /// context.undoManager = UndoManager()
    /// let restored = try context.restoreUndoJournal()
    /// print(restored.summary)    // restored 3 undo and 0 redo steps from the last session
    /// ```
    ///
    /// - Returns: what came back and what was dropped; nothing when there is
    ///   no journal, no undo manager, or the configuration keeps none.
    /// - Throws: ``UndoJournalError`` when the journal is damaged, foreign,
    ///   of another schema or version: the document is as it was, without
    ///   undo, and the next save writes a new journal.
    @discardableResult
    public func restoreUndoJournal() throws(UndoJournalError) -> UndoJournalRestoration {
        var restoration = UndoJournalRestoration(undoCount: 0, redoCount: 0, dropped: [])
        #if canImport(Darwin)
        return restoration
        #else
        guard core.configuration.undoJournal != nil, let package = sharedDocument.package, let undoManager else { return restoration }
        let folder = package.folder
        let item = folder.item(DocumentPackage.undoJournalFileName)
        guard folder.status(item) != nil else { return restoration }
        let bytes: [UInt8]
        do { bytes = Array(try folder.readFile(item, limit: UndoJournal.maximumFileSize)) } catch {
            throw .damaged("it cannot be read: \(error)")
        }
        var journal = try UndoJournal.decode(bytes, layout: graph.layout, owner: Self.undoJournalOwner)
        mergeSavedChanges()
        guard !hasChanges, undoManager.undoCount == 0, undoManager.redoCount == 0 else {
            throw .damaged("the context has edits or undo steps of its own already")
        }
        // Steps concerning objects changed elsewhere go, with every step beyond them on their stack.
        let changed = Set(journal.changedObjects(in: graph))
        if !changed.isEmpty {
            func keep(_ stack: inout [UndoJournal.Group]) {
                guard let conflict = stack.lastIndex(where: { !$0.objects(graph.layout).isDisjoint(with: changed) }) else { return }
                restoration.dropped += stack[...conflict].reversed().map(\.name)
                stack.removeFirst(conflict + 1)
            }
            keep(&journal.undo)
            keep(&journal.redo)
        }
        let steps = try journal.undoSteps(in: graph, mergeEpoch: mergeEpoch)
        undoManager.restoreRecordedSteps(undo: steps.undo, redo: steps.redo, for: self)
        restoration.undoCount = undoManager.undoCount
        restoration.redoCount = undoManager.redoCount
        graph._checkInvariants()
        return restoration
        #endif
    }
}
