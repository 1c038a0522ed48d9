/// Writing the undo journal in step with the package: a journal handed by a
/// context's save or autosave is written by the shared document's writer once
/// the package holds the state it applies to, never before.
extension SharedDocument {
    /// The undo journal waiting for the package to hold its state, and the
    /// mark of the last one handed over. Guarded by the shared document's lock.
    struct UndoJournalQueue {
        var pending: UndoJournalWrite?
        #if !canImport(Darwin)
        var lastMark: UndoJournalWrite.Mark?
        /// The groups of the last journal written, in journal form and bytes:
        /// the next write encodes only the steps added since.
        var groups = UndoJournal.GroupCache()
        #endif
    }

    #if !canImport(Darwin)
    /// Whether a journal handed now would differ from the last one: another
    /// context's, or its undo moved since. A journal still waiting counts as moved.
    func undoJournalMoved(_ mark: UndoJournalWrite.Mark) -> Bool {
        lock.withLock { undoJournal.pending != nil || undoJournal.lastMark != mark }
    }

    /// An autosave's journal: waits, replacing one still waiting (it is newer),
    /// and the background writer writes it after the package write the
    /// autosave queued before it (the writer's queue runs in order).
    func scheduleUndoJournal(_ journal: UndoJournalWrite) {
        guard let writer else { return }
        lock.withLock {
            undoJournal.pending = journal
            undoJournal.lastMark = journal.mark
        }
        writer.schedule { [weak self] in
            _ = writer.exclusively { () -> UndoJournal.Capture? in self?.writePendingUndoJournal() }
        }
    }

    /// An explicit save's journal, written now (after the write under way),
    /// on this thread: the save has just written the package.
    @discardableResult
    func writeUndoJournal(_ journal: UndoJournalWrite) -> UndoJournal.Capture? {
        guard let writer else { return nil }
        lock.withLock {
            undoJournal.pending = journal
            undoJournal.lastMark = journal.mark
        }
        return writer.exclusively { writePendingUndoJournal() }
    }
    #endif

    /// Writes the journal waiting, if the package now holds the state it
    /// applies to (or a later one); else leaves it waiting, for the next
    /// write of the package. Call with the writer's lock held (so journals
    /// land in the order they were handed), not the shared document's: the
    /// journal is made and written outside it.
    @discardableResult
    func writePendingUndoJournal() -> UndoJournal.Capture? {
        #if canImport(Darwin)
        return nil
        #else
        guard let package else { return nil }
        lock.lock()
        guard let pending = undoJournal.pending, let written = disk?.writtenGeneration, written >= pending.generation else {
            lock.unlock()
            return nil
        }
        undoJournal.pending = nil
        // Taken out for the write (the writer's lock keeps writes one at a
        // time), so the shared document's lock is not held while encoding.
        var groups = undoJournal.groups
        undoJournal.groups = UndoJournal.GroupCache()
        lock.unlock()
        let capture = pending.write(to: package.folder, cache: &groups)
        lock.withLock { undoJournal.groups = groups }
        return capture
        #endif
    }
}
