import Foundation

/// Something told each time a ``SharedDocument`` publishes a saved state: a
/// save of any context of any container on the shared document (autosaves too),
/// ``SharedDocument/deleteAllData()``, or another process's save taken in
/// (``SharedDocument/takeInOutsideSave()``).
///
/// The shared document holds its observers weakly (``DocumentObservers``) and calls them
/// after the publish, on the thread that published — the saving context's,
/// or a package watcher's queue for another process's save — with none of
/// the shared document's locks held, so an observer may read the shared document (its history, its
/// saved graph) from the call. It must return quickly: hop elsewhere for work.
protocol DocumentObserver: AnyObject, Sendable {
    /// The shared document published a saved state.
    ///
    /// - Parameter transactions: the history transactions the publish recorded
    ///   (a save's one, none for `deleteAllData()`), and for another process's
    ///   save taken in, the package's whole history: an observer keeps the
    ///   ones past its own position.
    func documentDidPublish(_ sharedDocument: SharedDocument, transactions: [StoredTransaction])
}
