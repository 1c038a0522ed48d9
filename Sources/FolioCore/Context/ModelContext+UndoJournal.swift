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
    static let undoJournalOwner: String = {
        var name = [CChar](repeating: 0, count: 256)
        let host =
            gethostname(&name, name.count - 1) == 0
            ? String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : "unknown host"
        return "uid \(getuid()) on \(host)"
    }()

    #if !canImport(Darwin)
    /// The journal of this context's undo for the state it has just saved,
    /// or `nil` when the configuration keeps none (in memory, read-only, or
    /// ``ModelConfiguration/undoJournal`` off). Costs a copy of the nearest
    /// steps and a copy-on-write copy of the graph, nothing in proportion to
    /// the document.
    private func undoJournalWrite() -> UndoJournalWrite? {
        let configuration = core.configuration
        guard let limits = configuration.undoJournal, configuration.allowsSave, sharedDocument.package != nil else { return nil }
        let steps = undoManager?.recordedSteps(nearest: limits.maximumSteps) ?? ([], [])
        return UndoJournalWrite(
            generation: baseGeneration, steps: steps, graph: graph.copy(), mergeEpoch: mergeEpoch,
            owner: Self.undoJournalOwner, limits: limits, mark: undoJournalMark)
    }

    private var undoJournalMark: UndoJournalWrite.Mark {
        UndoJournalWrite.Mark(
            context: ObjectIdentifier(self), registrations: undoRegistrationCount,
            undoCount: undoManager?.undoCount ?? 0, redoCount: undoManager?.redoCount ?? 0)
    }
    #endif

    /// Writes the undo journal beside the package's files, atomically (a
    /// durable temporary renamed into place, through the package's guarded
    /// folder), after an explicit save wrote the package: what the journal
    /// holds then applies to the state just saved. A failure is logged and
    /// leaves the save as it is: a journal is never what makes a save fail.
    ///
    /// A context without an undo manager writes none: it has no steps, and an
    /// empty journal would replace the one another context keeps (which
    /// tells by content what this save changed).
    ///
    /// - Returns: the capture written, or `nil` when the configuration keeps
    ///   no journal (in memory, read-only, or ``ModelConfiguration/undoJournal`` off)
    ///   or the context has no undo manager.
    @discardableResult
    func writeUndoJournal() -> UndoJournal.Capture? {
        #if canImport(Darwin)
        return nil
        #else
        guard undoManager != nil, let journal = undoJournalWrite() else { return nil }
        return sharedDocument.writeUndoJournal(journal)
        #endif
    }

    /// Writes the journal of this context's undo into `package`, a copy of
    /// `copy` (``exportPackage(to:undoJournal:)``), whose rows are this
    /// context's graph's; a failure is logged.
    func writeUndoJournal(of copy: ObjectGraph, into package: DocumentPackage, limits: UndoJournalLimits) {
        #if !canImport(Darwin)
        let journal = UndoJournalWrite(
            generation: 0, steps: undoManager?.recordedSteps(nearest: limits.maximumSteps) ?? ([], []), graph: copy,
            mergeEpoch: mergeEpoch, owner: Self.undoJournalOwner, limits: limits, mark: undoJournalMark)
        var cache = UndoJournal.GroupCache()
        journal.write(to: package.folder, cache: &cache)
        #endif
    }

    /// After an autosave: hands the journal of this context's undo to the
    /// background writer, which writes it once the package holds the state
    /// just saved — off the editing thread, which only copies the steps
    /// (``UndoJournalWrite``). A context without an undo manager hands none:
    /// it would replace another context's journal with an empty one.
    ///
    /// - Parameter ifMoved: after an autosave with nothing to save, only
    ///   when the undo moved (an undo or redo that left no change) since the
    ///   last journal handed, or one is still waiting for a failed write.
    func scheduleUndoJournalWrite(ifMoved: Bool = false) {
        #if !canImport(Darwin)
        guard undoManager != nil, core.configuration.undoJournal != nil, core.configuration.allowsSave else { return }
        if ifMoved, !sharedDocument.undoJournalMoved(undoJournalMark) { return }
        guard let journal = undoJournalWrite() else { return }
        sharedDocument.scheduleUndoJournal(journal)
        #endif
    }
}

extension ModelContext {
    /// Brings back the undo and redo steps the last session kept in the
    /// package's undo journal (``ModelConfiguration/undoJournal``), on a
    /// context just opened, with its ``undoManager`` set and no edits yet.
    ///
    /// The journal records the content it applies to, property by property.
    /// When the document changed elsewhere since (another program, `git
    /// pull`, a merge), a step stays when the change did not meet it, as the
    /// merge engine tells two edits apart: it added or removed no object the
    /// step names and changed none of the properties the step touches (a
    /// relationship on both its ends, a list whole). A step the change meets
    /// is dropped — and, on each stack, every step beyond it — and named in
    /// the result: nothing is ever undone onto a state it was not made for,
    /// and only this user's own steps are kept, never another person's
    /// merged edits.
    ///
    /// ```swift
    /// context.undoManager = UndoManager()
    /// let restored = try context.restoreUndoJournal()
    /// print(restored.summary)    // restored 3 undo and 0 redo steps from the last session
    /// ```
    ///
    /// - Returns: what came back and what was dropped; nothing when there is
    ///   no journal, no undo manager, or the configuration keeps none.
    /// The steps are tried on a copy of the graph first, undone and redone:
    /// a journal whose steps would break the document (a link kept on one
    /// side only, a link to a deleted object, a unique value taken twice) is
    /// refused whole, and the context's graph is left as it was.
    ///
    /// - Throws: ``UndoJournalError`` when the journal is damaged, foreign,
    ///   of another schema or version, or its steps do not fit the document
    ///   (``UndoJournalError/inconsistent(_:)``): the document is as it was,
    ///   without undo, and the next save writes a new journal.
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
        // Steps meeting a change made elsewhere go, with every step beyond them on their stack.
        let changes = journal.changes(in: graph)
        if !changes.isEmpty {
            func keep(_ stack: inout [UndoJournal.Group]) {
                guard let conflict = stack.lastIndex(where: { $0.footprint(graph.layout).meets(changes) }) else { return }
                restoration.dropped += stack[...conflict].reversed().map(\.name)
                stack.removeFirst(conflict + 1)
            }
            keep(&journal.undo)
            keep(&journal.redo)
        }
        // Tried on a copy first: the steps must keep the graph sound, undone
        // and redone, before this context's graph is given a row for them.
        let scratch = graph.copy()
        let trial = try journal.undoSteps(in: scratch, mergeEpoch: mergeEpoch)
        try UndoJournal.validate(undo: trial.undo, redo: trial.redo, on: scratch, mergeEpoch: mergeEpoch)
        let steps = try journal.undoSteps(in: graph, mergeEpoch: mergeEpoch)
        undoManager.restoreRecordedSteps(undo: steps.undo, redo: steps.redo, for: self)
        restoration.undoCount = undoManager.undoCount
        restoration.redoCount = undoManager.redoCount
        graph._checkInvariants()
        return restoration
        #endif
    }
}
