/// One undo (or redo) action Folio records for an edit of its own: a value
/// the context applies, where an app's registration is a closure.
///
/// Being a value is what lets the undo journal keep it: a closure can only be
/// run, while a step can be read, written to disk and read back. Applying a
/// step does exactly what the closure it replaced did, and registers its own
/// inverse (the redo of an undo, the undo of a redo) as a step in turn.
enum UndoStep {
    /// Removes objects an insert or a restore put in: the undo of an insert
    /// (of a conflict's object put back too), the redo of a delete.
    case removal([ObjectRef], name: String)
    /// Puts a cell back as it was; a blob still on disk stays unread.
    case setStored(StoredValue, ObjectRef, attribute: Int, name: String)
    /// Takes back the link changes an edit made. `epoch` is the context's
    /// merge epoch when the step was recorded: when another has come since,
    /// the changes are rebased instead of reverted exactly, and a step
    /// recorded by a rebase (`exact` false) rebases again.
    case revertLinks([LinkChange], name: String, epoch: Int, exact: Bool)
    /// Puts back what a removal took (the whole cascade, with the links cut
    /// on survivors), exactly when the merge epoch is still `epoch`, else
    /// rebased; `edits` are the edits tracked on the removed objects before.
    case restore(DeletionRecord, edits: [ObjectRef: Set<Int>], name: String, epoch: Int)
    /// Puts a resolved conflict record back at `index`.
    case insertConflictRecord(MergeConflict, at: Int)
    /// Removes a conflict record again (the redo of putting it back).
    case removeConflictRecord(MergeConflict)

    /// Does what the step records to `context`, which registers the inverse step.
    func apply(to context: ModelContext) {
        switch self {
        case .removal(let refs, let name):
            _ = context.performRemoval(refs, name: name)
        case .setStored(let stored, let ref, let attribute, let name):
            context.performSetStored(stored, ref, attribute, name: name)
        case .revertLinks(let changes, let name, let epoch, let exact):
            context.revertLinks(changes, name: name, exact: exact && context.mergeEpoch == epoch)
        case .restore(let record, let edits, let name, let epoch):
            context.performRestore(record, edits: edits, name: name, exact: context.mergeEpoch == epoch)
        case .insertConflictRecord(let record, let index):
            context.insertConflictRecord(record, at: index)
        case .removeConflictRecord(let record):
            if let index = context.graph.conflicts.firstIndex(of: record) { context.removeConflictRecord(at: index) }
        }
    }
}
