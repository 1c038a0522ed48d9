import Foundation

/// The document's history: read (from the package when another process
/// wrote it since), transactions deleted, and saves' transactions recorded
/// when first needed.
extension SharedDocument {
    /// Builds and appends the transactions of saves the history holds
    /// pending (``HistoryLog/recordPending(in:limits:schema:cache:)``), before
    /// the history is read or written. Call with the lock held.
    func recordPendingHistory() {
        guard history.hasPending else { return }
        history.recordPending(in: package?.folder, limits: savedGraph.limits, schema: savedGraph.schema, cache: &headsCache)
    }

    /// Every transaction of the document's history, oldest first.
    ///
    /// When another process has written the package since this shared document read or
    /// wrote it, the history is read from the package as it is now (which holds
    /// that process's transactions); otherwise from this shared document, which also
    /// holds the transactions of saves still being written.
    ///
    /// - Throws: ``ModelError/package(_:)`` for a history segment missing or damaged.
    func historyTransactions() throws(ModelError) -> [StoredTransaction] {
        if let package, !isCurrent {
            var attempts = 0
            while true {
                let before = FileIO.identity(package.commitPath)
                do {
                    let onDisk = package.readHistory()
                    return try onDisk.log.transactions(in: package.folder, limits: .standard, schema: onDisk.schema)
                } catch {
                    // A writer's commit may remove the segments the manifest read named: read again.
                    attempts += 1
                    guard attempts < DocumentPackage.maximumReadAttempts, before != FileIO.identity(package.commitPath) else {
                        throw .package(error)
                    }
                }
            }
        }
        lock.lock()
        defer { lock.unlock() }
        recordPendingHistory()
        do { return try history.transactions(in: package?.folder, limits: savedGraph.limits, schema: savedGraph.schema) } catch { throw .package(error) }
    }

    /// Deletes the transactions `shouldDelete` selects from the history, and
    /// writes the package at once (with whatever autosaves left unwritten):
    /// the segment files that held them are replaced, so none of their bytes
    /// stays in the package.
    ///
    /// - Returns: how many transactions were deleted.
    /// - Throws: ``ModelError/package(_:)`` when a segment cannot be read or the
    ///   write fails (the history is then as it was); ``ModelError/saveNotAllowed``
    ///   for a read-only configuration.
    @discardableResult
    func deleteHistory(allowsSave: Bool, where shouldDelete: (StoredTransaction) -> Bool) throws(ModelError) -> Int {
        // A read-only configuration changes nothing, in memory too (as its saves are refused).
        guard allowsSave else { throw .saveNotAllowed }
        guard let writer else { return try deleteHistoryLocked(where: shouldDelete) }
        return try writer.exclusively { () throws(ModelError) -> Int in try deleteHistoryLocked(where: shouldDelete) }
    }

    private func deleteHistoryLocked(where shouldDelete: (StoredTransaction) -> Bool) throws(ModelError) -> Int {
        lock.lock()
        defer { lock.unlock() }
        recordPendingHistory()
        var history = self.history
        let removed: Int
        do { removed = try history.remove(where: shouldDelete, in: package?.folder, limits: savedGraph.limits, schema: savedGraph.schema) } catch {
            throw .package(error)
        }
        guard removed > 0 else { return 0 }
        if disk != nil {
            // Read before the write: the write's access to `disk` excludes any other.
            let unwritten = disk?.unwritten ?? ChangedObjects()
            do throws(PackageError) {
                try disk?.write(savedGraph, generation: generation, changed: unwritten, history: &history)
            } catch {
                throw .package(error)
            }
        }
        self.history = history
        return removed
    }
}
