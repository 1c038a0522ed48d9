import Foundation

/// Taking in another process's save: the package read as it is now, its
/// difference from the saved graph published as a change set every context merges.
extension SharedDocument {
    /// Takes in what another process saved since this shared document last read or
    /// wrote the package: reads the package as it is now and publishes the
    /// difference from the saved graph as a change set, as another context's
    /// save is published, with the package's graph as the saved graph and its
    /// history and fingerprint as this shared document's. Every context of every
    /// container on this shared document merges it at its next access, keeping its own
    /// unsaved edits (``ModelContext/mergeSavedChanges()``).
    ///
    /// Nothing is done — and `false` returned — when the package is still what
    /// this shared document read or wrote, when it is in memory, or when saves of this
    /// shared document are not written yet (a pending or failed background write: the
    /// package changed under a holder of its write lock, and that write reports
    /// the conflict; taking the package in would lose those saves).
    ///
    /// A package saved with another schema (a later version) is brought to this
    /// shared document's schema as an open would (a lightweight migration).
    ///
    /// - Returns: whether the package had changed and was taken in (its
    ///   change set may be empty: another process deleted history only).
    /// - Throws: ``ModelError/package(_:)`` when the package cannot be read;
    ///   ``ModelError/migration(package:_:)`` when it cannot be brought to this
    ///   shared document's schema. The shared document is then as it was.
    /// - Complexity: a read of the package, then O(objects) to compare it with
    ///   the saved graph, column by column (``ObjectGraph/changedIdentifiers(since:)``);
    ///   the change set holds the objects that differ.
    /// - Threading: any thread. Holds the writer's lock throughout (no write of
    ///   this shared document runs meanwhile, and ``isCurrent`` waits for it), and the
    ///   shared document's lock only to compare and publish, not while reading.
    @discardableResult
    func takeInOutsideSave() throws(ModelError) -> Bool {
        guard let package, let writer else { return false }
        let taken = try writer.exclusively { () throws(ModelError) -> Bool in
            guard !isCurrentLocked else { return false }
            // Taken before the read, as an open does: a commit during the read makes the
            // shared document not current again, and the next call takes in what it added.
            let newFingerprint = package.fingerprint
            let read: (graph: ObjectGraph, history: HistoryLog)
            do throws(PackageError) { read = try package.readDocument(limits: .standard) } catch { throw .package(error) }
            lock.lock()
            defer { lock.unlock() }
            // Saves of this shared document the package does not hold yet: not taken over.
            guard disk?.writtenGeneration == generation else { return false }
            let graph = try Self.lightweightMigration(of: read.graph, to: savedGraph.schema, package: package.url.path)
            let changeSet = Self.changeSet(from: savedGraph, to: graph, generation: generation + 1)
            var history = read.history
            if !package.writesFormat2 { history.adoptFileLayout(in: package.folder, limits: graph.limits) }
            self.history = history
            commit(changeSet, graph: graph)
            disk?.tookIn(fingerprint: newFingerprint, schema: read.graph.schema, generation: generation)
            pruneChangeSets()
            return true
        }
        if taken {
            // The package's whole history as taken in: observers keep what is past their position.
            notifyObservers {
                do throws(ModelError) { return try historyTransactions() } catch {
                    ModelContainer.report(error, to: nil)
                    return []
                }
            }
        }
        return taken
    }

    /// What turns `old` into `new`, two versions of one document under one
    /// schema: the identifiers of the objects `new` holds differently
    /// (inserted or changed) and of those it no longer holds, and its conflict
    /// records when they differ.
    ///
    /// - Complexity: O(objects of both) to compare, then O(changed objects).
    static func changeSet(from old: ObjectGraph, to new: ObjectGraph, generation: Int) -> ChangeSet {
        var changeSet = ChangeSet(generation: generation)
        let candidates: [UInt64]
        if let changed = new.changedIdentifiers(since: old) {
            candidates = changed.sorted()
        } else {
            // Not comparable column by column: every object of either is a candidate.
            var all = Set<UInt64>()
            for graph in [old, new] {
                for table in graph.tables {
                    for row in 0..<table.rowCount where table.isLive[row] { all.insert(table.ids[row]) }
                }
            }
            candidates = all.sorted()
        }
        for id in candidates {
            if let ref = new.index[id], new.isLive(ref) {
                changeSet.upserts.append(id)
            } else if let ref = old.index[id], old.isLive(ref) {
                changeSet.deletions.append(id)
            }
        }
        if new.conflicts != old.conflicts { changeSet.conflicts = new.conflicts }
        return changeSet
    }
}
