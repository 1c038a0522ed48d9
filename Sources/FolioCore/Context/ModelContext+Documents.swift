import Foundation

/// Looking objects up by number and exporting the document, for generic tools such as the REPL.
extension ModelContext {
    /// The identifier of the live object with this number, whatever its entity. O(1).
    public func identifier(forNumber number: UInt64) -> PersistentIdentifier? {
        guard let ref = graph.index[number], graph.isLive(ref) else { return nil }
        return graph.identifier(for: ref)
    }

    /// Writes this context's current state — unsaved changes included — as a
    /// package at `url`, atomically; this context, its container and its
    /// change tracking are not affected (a "save a copy").
    ///
    /// An existing package at `url` is replaced only if no other container holds
    /// its write lock. The copy is a new document: its history
    /// (``fetchHistory(_:)``) starts empty, and the replaced package's goes with it.
    ///
    /// - Throws: ``ModelError/package(_:)``: ``PackageError/locked(path:)`` when
    ///   another writer holds the package at `url`, or the write's own errors;
    ///   ``ModelError/configuration(_:)`` when `url` is this context's own
    ///   package (however spelled): that is ``save()``, which a read-only
    ///   container refuses.
    ///
    /// With `undoJournal`, the copy carries this context's undo and redo steps
    /// too, as an undo journal within those limits (see
    /// ``ModelConfiguration/undoJournal``): opening the copy with a journal
    /// and ``restoreUndoJournal()`` brings them back, so `undo` there takes
    /// back the copy's unsaved edits one step at a time — what a crash
    /// recovery file needs. The journal is written after the package, and a
    /// journal the replaced package had is removed before it: a copy cut off
    /// anywhere holds no journal, or one that applies to it.
    public func exportPackage(to url: URL, undoJournal limits: UndoJournalLimits? = nil) throws(ModelError) {
        if let own = sharedDocument.package?.url, DocumentRegistry.canonicalPath(own) == DocumentRegistry.canonicalPath(url) {
            throw .configuration(
                "\(url.path) is this document's own package; save() writes it, "
                    + "and a copy goes to another path")
        }
        mergeSavedChanges()
        let copy = graph.copy()
        copy.nextID = max(copy.nextID, graph.nextID)
        do throws(PackageError) {
            // Held for the write, so no other writer's package is replaced under it.
            let lock = FileManager.default.fileExists(atPath: url.path) ? try PackageLock(path: url.path) : nil
            let package = DocumentPackage(url: url)
            if lock != nil { package.removeUndoJournal() }
            // A copy is a new document: its history starts empty (a package it replaces
            // takes its transactions and tombstones with it), and its undo only what `limits` keeps.
            _ = try package.write(copy, expecting: nil, history: HistoryLog())
            if let limits { writeUndoJournal(of: copy, into: package, limits: limits) }
            withExtendedLifetime(lock) {}
        } catch {
            throw .package(error)
        }
    }
}
