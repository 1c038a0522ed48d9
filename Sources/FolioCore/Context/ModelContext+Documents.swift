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
    public func exportPackage(to url: URL) throws(ModelError) {
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
            // A copy is a new document: its history starts empty (a package it replaces
            // takes its transactions and tombstones with it), as its undo history does.
            _ = try DocumentPackage(url: url).write(copy, expecting: nil, history: HistoryLog())
            withExtendedLifetime(lock) {}
        } catch {
            throw .package(error)
        }
    }
}
