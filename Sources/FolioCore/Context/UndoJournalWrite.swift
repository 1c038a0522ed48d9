#if canImport(Darwin)
/// On Apple platforms Foundation's undo manager keeps closures only: there
/// is no journal to write.
struct UndoJournalWrite {}
#else
/// An undo journal handed to the shared document's writer: a context's
/// steps, taken with the graph whose rows they name, for the saved state of
/// ``generation``.
///
/// Taking it costs the editing thread a copy of the steps (the nearest
/// ``UndoJournalLimits/maximumSteps`` of each stack) and a copy-on-write copy
/// of the graph; turning it into bytes and writing them
/// (``write(to:)``) is the writer's, off the editing thread for an autosave.
/// It is written only once the package holds the state of ``generation`` (or
/// a later one), so a journal never describes a state the package has not
/// reached: a write of the package that fails leaves it waiting, and the
/// next successful write (a save, a flush, the container's teardown) writes it.
struct UndoJournalWrite: @unchecked Sendable {
    /// Which context's undo it is, and how far its undo had moved: a journal
    /// is handed again after an autosave with nothing to save only when this moved.
    struct Mark: Equatable {
        var context: ObjectIdentifier
        var registrations: Int
        var undoCount: Int
        var redoCount: Int
    }

    /// The generation of the saved state the journal applies to.
    let generation: Int
    /// The context's undo and redo steps, at most the journal's step limit of each.
    let steps: (undo: [UndoManager.RecordedStep], redo: [UndoManager.RecordedStep])
    /// A copy of the context's graph as it was saved: the rows the steps name.
    /// Never edited (the context edits its own graph), so read on any thread.
    let graph: ObjectGraph
    let mergeEpoch: Int
    let owner: String
    let limits: UndoJournalLimits
    let mark: Mark

    /// The journal: the steps by identifier, within the limits, the groups
    /// `cache` holds taken from it (see ``UndoJournal/GroupCache``).
    func capture(cache: inout UndoJournal.GroupCache) -> UndoJournal.Capture {
        UndoJournal.capture(steps, in: graph, mergeEpoch: mergeEpoch, owner: owner, limits: limits, cache: &cache)
    }

    /// Writes the journal into the package's `folder`, atomically (a durable
    /// temporary renamed into place). A failure is logged: a journal is never
    /// what makes a save fail.
    ///
    /// - Complexity: turning steps into bytes costs the steps added since
    ///   the journal `cache` was last used for; the file is written whole.
    @discardableResult
    func write(to folder: PackageFolder, cache: inout UndoJournal.GroupCache) -> UndoJournal.Capture {
        let capture = capture(cache: &cache)
        let bytes = capture.bytes
        let item = folder.item(DocumentPackage.undoJournalFileName)
        do {
            try folder.writeAtomically(item) { (descriptor: Int32) throws(PackageError) in
                try FileIO.writeAll(descriptor, bytes, path: item.path)
            }
        } catch {
            FolioLog.report("the undo journal \(item.path) was not written: \(error)")
        }
        return capture
    }
}
#endif
