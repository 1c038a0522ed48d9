/// What a context hands its ``SharedDocument`` to save: everything the shared document
/// needs, made by the context beforehand, so the shared document never calls back into
/// a context. The shared document answers with an ``Outcome``.
struct SaveRequest {
    /// What the shared document answers.
    enum Outcome {
        /// Published as the saved state of `generation` (and written, unless
        /// in the background); the request's transaction is in the history,
        /// built and numbered when the history is next read or written.
        case committed(baseline: ObjectGraph, generation: Int)
        /// Another context saved since ``basedOn``, or a context appeared
        /// that needs this save's change set: merge what is new and ask again.
        case stale
    }

    /// The saving context.
    var context: ObjectIdentifier
    /// The generation of the saved state the context merged last: the save
    /// is committed only if it is still the shared document's.
    var basedOn: Int
    /// A copy of the context's graph (copy-on-write): the new saved state.
    var graph: ObjectGraph
    /// The objects whose parts the save rewrites, worked out by the write
    /// (``ChangedObjects/unknown``: every part compared with the disk).
    var changed: ChangedObjects
    /// The history transaction to record, unnumbered, built when the
    /// history needs it (by the write, for an autosave).
    var transaction: PendingTransaction
    /// What other contexts merge; `nil` when the context saw no other
    /// context (describing a large change for no one would be wasted). The
    /// shared document gives it its generation.
    var changeSet: ChangeSet?
}
