import Foundation

/// What writes a document's saved states to its package, and what it knows
/// of the package on disk: its commit file's fingerprint and its schema as
/// last read or written, the generation it holds, the objects saved since it
/// was last written, why the last background write failed, and its write lock.
///
/// A value: its holder keeps it under the lock that guards the saved state it
/// describes, so a background write takes a saved state together with what is
/// unwritten of it (taken apart, a save in between would have its objects
/// cleared from the unwritten ones without being written). Writes themselves
/// are ordered by the holder's ``BackgroundWriter``.
///
/// The holder's requesters — the contexts whose autosaves a background write
/// carries — are known here by identity only.
struct PackageWriter {
    let package: DocumentPackage
    /// The package's commit file as last read or written (`nil`: there was none).
    private(set) var fingerprint: FileFingerprint?
    /// The schema of the package as on disk (`nil`: nothing written yet): what
    /// a migration plan would start from, which an in-memory migration does not
    /// change until a save writes it.
    private(set) var schema: Schema?
    /// The generation of the saved state the package holds: behind the holder's
    /// while a background write is pending or after one failed.
    private(set) var writtenGeneration = 0
    /// The objects saved since the package was last written successfully:
    /// a write rewrites the parts holding them, and a failed write leaves them here.
    private var unwrittenChanges = ChangedObjects()
    /// Why the last background write failed, until a write succeeds.
    private(set) var failure: PackageError?
    /// The requesters still to be told of ``failure`` (those whose autosaves it carried).
    private var unreportedFailure: Set<ObjectIdentifier> = []
    /// The requesters whose autosaves the next background write carries.
    private var autosavers: Set<ObjectIdentifier> = []
    /// Whether a background job is queued and has not started: a new one would find nothing more to write.
    private var isQueued = false
    /// Held while a container that may write the package is open on the holder.
    private(set) var lock: PackageLock? {
        // Only a lock taken is shown: one let go stays in the slot (weakly) while
        // another holder going away still holds it open.
        didSet { if let lock { slot.held = lock } }
    }
    /// Shows the process's registry the lock, weakly (see ``PackageLockSlot``).
    let slot: PackageLockSlot
    #if DEBUG
    /// A test seam, compiled into debug builds only: runs at the start of every
    /// background write, with the writer's lock held and before the state to write
    /// is taken. It may block, to hold the writer while a test looks at the
    /// state in between, and may return an error for the write to fail with
    /// instead of writing.
    var beforeBackgroundWrite: (@Sendable () -> PackageError?)?
    #endif

    init(package: DocumentPackage, fingerprint: FileFingerprint?, schema: Schema?, lock: PackageLock?, slot: PackageLockSlot) {
        self.package = package
        self.fingerprint = fingerprint
        self.schema = schema
        self.lock = lock
        self.slot = slot
    }

    /// Whether the package on disk is still what was last read or written.
    var isCurrent: Bool { FileFingerprint.matches(fingerprint, package.commitItem) }

    /// What the next write must rewrite.
    var unwritten: ChangedObjects { unwrittenChanges }

    /// Adds a save's changed objects to what is unwritten, as they are: an
    /// autosave's list still to be worked out is worked out by its write.
    mutating func addUnwritten(_ changed: ChangedObjects) {
        unwrittenChanges.formUnion(changed)
    }

    /// Everything is on disk.
    private mutating func clearUnwritten() {
        unwrittenChanges = ChangedObjects()
    }

    /// The one place the package is written with a saved state (the migration
    /// at open aside). Call with the writer's lock held.
    ///
    /// - Returns: the fingerprint of the document just written.
    /// - Parameter changed: the objects changed since the package was last
    ///   written, worked out here (on the writing thread).
    private static func write(
        _ graph: ObjectGraph, to package: DocumentPackage, expecting expected: FileFingerprint?,
        changed: ChangedObjects, history: HistoryLog
    ) throws(PackageError) -> FileFingerprint? {
        try package.write(graph, expecting: .some(expected), changed: changed.identifiers(), history: history)
    }

    /// Writes `graph` and `history` on this thread as the package's content for
    /// `generation`, and records it: nothing is left unwritten. Call with the
    /// writer's lock and the holder's lock held.
    mutating func write(
        _ graph: ObjectGraph, generation written: Int, changed: ChangedObjects,
        history: inout HistoryLog
    ) throws(PackageError) {
        try didWrite(
            graph.schema, generation: written,
            fingerprint: try Self.write(graph, to: package, expecting: fingerprint, changed: changed, history: history))
        history.didWrite(history)
        clearUnwritten()
    }

    /// Records a successful write of the saved state of `generation`, whose schema is `schema`.
    mutating func didWrite(_ schema: Schema, generation written: Int, fingerprint: FileFingerprint?) throws(PackageError) {
        self.fingerprint = fingerprint
        self.schema = schema
        writtenGeneration = max(writtenGeneration, written)
        failure = nil
        unreportedFailure.removeAll()
        // A package the holder created: hold it from now on.
        if lock == nil {
            // The lock a going holder still holds, if any: a second `flock` would be refused by it.
            if let held = slot.held { lock = held } else { lock = try PackageLock(path: package.url.path) }
        }
    }

    /// Records that a write of the saved state failed with `error` (the next save, flush or teardown writes again).
    mutating func writeFailed(_ error: PackageError) {
        failure = error
    }

    /// Records that the package holds what another process saved, read with
    /// `fingerprint` and `schema`, as the holder's saved state of `generation`.
    mutating func tookIn(fingerprint: FileFingerprint?, schema: Schema, generation: Int) {
        self.fingerprint = fingerprint
        self.schema = schema
        writtenGeneration = generation
        clearUnwritten()
    }

    // MARK: Writing in the background

    /// Notes that the next background write carries `requester`'s autosave;
    /// whether a job must be queued for it (none is queued and not started).
    mutating func needsJob(for requester: ObjectIdentifier?) -> Bool {
        if let requester { autosavers.insert(requester) }
        defer { isQueued = true }
        return !isQueued
    }

    /// A background job has started: from now on a new saved state needs a
    /// new job, since this one may already have taken its snapshot.
    mutating func jobStarted() {
        isQueued = false
    }

    /// What a background write takes with the saved state it writes.
    struct BackgroundWrite {
        let package: DocumentPackage
        let expected: FileFingerprint?
        /// What was unwritten: a failed write puts it back.
        let changed: ChangedObjects
        /// The requesters whose autosaves it carries.
        let carried: Set<ObjectIdentifier>

        /// Writes `graph` and `history`, off the holder's lock: `graph` is an
        /// immutable snapshot. Call with the writer's lock held.
        func write(_ graph: ObjectGraph, history: HistoryLog) throws(PackageError) -> FileFingerprint? {
            try PackageWriter.write(graph, to: package, expecting: expected, changed: changed, history: history)
        }
    }

    /// Takes what is unwritten and the requesters carried, for a background write.
    mutating func takeBackgroundWrite() -> BackgroundWrite {
        let taken = BackgroundWrite(package: package, expected: fingerprint, changed: unwritten, carried: autosavers)
        clearUnwritten()
        autosavers.removeAll()
        return taken
    }

    /// A background job found nothing to write: the autosaves it would have carried are on disk.
    mutating func dropAutosavers() {
        autosavers.removeAll()
    }

    /// Records that `write` failed with `error`: what it took is unwritten
    /// again, and its requesters are to be told.
    mutating func backgroundWriteFailed(_ write: BackgroundWrite, _ error: PackageError) {
        failure = error
        addUnwritten(write.changed)
        unreportedFailure.formUnion(write.carried)
    }

    /// The failure of a background write that carried `requester`'s autosave, once.
    mutating func takeFailure(for requester: ObjectIdentifier) -> PackageError? {
        guard let failure, unreportedFailure.remove(requester) != nil else { return nil }
        return failure
    }

    /// Forgets a requester that is going away.
    mutating func forget(_ requester: ObjectIdentifier) {
        autosavers.remove(requester)
        unreportedFailure.remove(requester)
    }

    // MARK: The write lock

    /// For a container that may save joining a holder opened read-only so
    /// far: takes the write lock, if the package is still what was last read;
    /// whether it is (or the lock was already held).
    mutating func lockForSaving() throws(PackageError) -> Bool {
        guard lock == nil else { return true }
        guard isCurrent else { return false }
        guard FileManager.default.fileExists(atPath: package.url.path) else { return true }
        let taken: PackageLock
        // The lock a going holder still holds, if any: a second `flock` would be refused by it.
        if let held = slot.held {
            taken = held
        } else {
            taken = try PackageLock(path: package.url.path)
        }
        // Another process may have saved between the check and the lock.
        guard isCurrent else { return false }
        lock = taken
        return true
    }

    /// Lets the write lock go (the holder's teardown).
    mutating func releaseLock() {
        lock = nil
    }
}
