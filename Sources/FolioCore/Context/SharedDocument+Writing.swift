import Foundation

/// Writing the package with the saved state: an autosave's write in the
/// background, an explicit flush, a failed write reported to the contexts
/// whose autosaves it carried. What the package on disk holds is the shared document's
/// ``PackageWriter``, under the shared document's lock; writes are ordered by its
/// ``BackgroundWriter``.
extension SharedDocument {
    /// Hands the package's write to the background writer, for the autosave of `context`.
    /// Call with the lock held.
    func scheduleBackgroundWrite(for context: ObjectIdentifier?) {
        guard let writer, let written = disk?.writtenGeneration, written < generation,
            disk?.needsJob(for: context) == true
        else { return }
        // Weakly, and only while the write lock is held: a job never keeps a shared document alive
        // past its teardown, which waits for that lock (and writes, if the job had not).
        writer.schedule { [weak self] in
            self?.backgroundJobStarted()
            writer.exclusively { self?.writeInBackground() }
        }
    }

    /// A background job has started (see ``PackageWriter/jobStarted()``).
    private func backgroundJobStarted() {
        lock.lock()
        defer { lock.unlock() }
        disk?.jobStarted()
    }

    /// The background writer's job, run with the write lock held: writes the
    /// latest saved state, if the package does not hold it yet. The shared document's
    /// lock is held only to take the state and to record the outcome, not while
    /// writing, so contexts save (in memory) and merge meanwhile.
    private func writeInBackground() {
        #if DEBUG
        let injected = beforeBackgroundWrite?()
        #else
        let injected: PackageError? = nil
        #endif
        // The autosaves' history transactions are built here, off the shared document's lock
        // (a reader that needs one meanwhile builds it, once); recorded under it below.
        let waiting = lock.withLock { self.history.pending }
        for entry in waiting { _ = entry.transaction.transaction }
        lock.lock()
        recordPendingHistory()
        guard let written = disk?.writtenGeneration, written < generation, let taken = disk?.takeBackgroundWrite() else {
            disk?.dropAutosavers()
            lock.unlock()
            return
        }
        // Immutable from here: the saved graph is replaced by later saves, never edited.
        let graph = savedGraph, target = generation, history = self.history
        lock.unlock()
        var result: Result<FileFingerprint?, PackageError>
        if let injected {
            result = .failure(injected)
        } else {
            do throws(PackageError) { result = .success(try taken.write(graph, history: history)) } catch { result = .failure(error) }
        }
        lock.lock()
        defer { lock.unlock() }
        do throws(PackageError) {
            let fingerprint = try result.get()
            try disk?.didWrite(graph.schema, generation: target, fingerprint: fingerprint)
            self.history.didWrite(history)
        } catch {
            disk?.backgroundWriteFailed(taken, error)
            // No context to tell (every one that autosaved is gone): logged, never silently.
            if taken.carried.allSatisfy({ contextGenerations[$0] == nil }) { ModelContainer.report(.package(error), to: nil) }
        }
    }

    #if DEBUG
    /// A test seam, compiled into debug builds only (``PackageWriter/beforeBackgroundWrite``);
    /// in memory there is no background write, and setting it does nothing.
    var beforeBackgroundWrite: (@Sendable () -> PackageError?)? {
        get { lock.withLock { disk?.beforeBackgroundWrite } }
        set { lock.withLock { disk?.beforeBackgroundWrite = newValue } }
    }
    #endif

    /// The failure of a background write that carried `context`'s autosave, once:
    /// the context reports it to its ``ModelContext/autosaveErrorHandler``.
    func takeWriteFailure(for context: ObjectIdentifier) -> ModelError? {
        lock.lock()
        defer { lock.unlock() }
        return disk?.takeFailure(for: context).map { .package($0) }
    }

    /// Whether a background write failed and no write has succeeded since.
    var hasFailedWrite: Bool {
        lock.lock()
        defer { lock.unlock() }
        guard let disk else { return false }
        return disk.failure != nil && disk.writtenGeneration < generation
    }

    /// An autosave with nothing new of its own, after a failed background write:
    /// writes the saved state again, in the background.
    func retryFailedWrite(for context: ObjectIdentifier) {
        lock.lock()
        defer { lock.unlock() }
        guard disk?.failure != nil else { return }
        scheduleBackgroundWrite(for: context)
    }

    /// Makes the package hold the latest saved state: waits for the write under
    /// way, then writes on this thread what is still unwritten (a queued
    /// autosave, or one whose write failed).
    ///
    /// - Throws: ``ModelError/package(_:)`` when that write fails; the state stays
    ///   unwritten, for the next save.
    func flush() throws(ModelError) {
        guard let writer else { return }
        try writer.exclusively { () throws(ModelError) in
            lock.lock()
            defer { lock.unlock() }
            guard let written = disk?.writtenGeneration, written < generation else { return }
            recordPendingHistory()
            // Read before the write: the write's access to `disk` excludes any other.
            let unwritten = disk?.unwritten ?? ChangedObjects()
            do throws(PackageError) {
                try disk?.write(savedGraph, generation: generation, changed: unwritten, history: &history)
            } catch {
                disk?.writeFailed(error)
                throw .package(error)
            }
        }
        _ = writer.exclusively { writePendingUndoJournal() }
    }

    /// ``flush()`` where no one can be told of a failure (a container's
    /// teardown, the shared document's, the process's exit): the failure is logged (``FolioLog``).
    func flushReportingFailure() {
        do { try flush() } catch { ModelContainer.report(error, to: nil) }
    }

    /// Tests only: waits until the background writes scheduled so far have run.
    func waitForBackgroundWrites() {
        writer?.drain()
    }

    /// Whether the package on disk holds the latest saved state.
    var isWritten: Bool {
        lock.lock()
        defer { lock.unlock() }
        guard let disk else { return true }
        return disk.writtenGeneration == generation
    }

    /// Flushes every shared document open in this process: run at exit, so that no saved
    /// state is lost to a program that ends right after an autosave.
    static func flushAll() {
        for sharedDocument in DocumentRegistry.shared.liveDocuments() { sharedDocument.flushReportingFailure() }
    }

    /// Installs ``flushAll()`` as an `atexit` handler, once, when the first shared document with a package is made.
    static let installExitFlush: Void = {
        atexit { SharedDocument.flushAll() }
    }()
}
