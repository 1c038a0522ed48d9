import Foundation

/// Something told each time a ``DocumentStore`` publishes a saved state: a
/// save of any context of any container on the store (autosaves too),
/// ``DocumentStore/deleteAllData()``, or another process's save taken in
/// (``DocumentStore/takeInOutsideSave()``).
///
/// The store holds its observers weakly (``StoreObservers``) and calls them
/// after the publish, on the thread that published — the saving context's,
/// or a package watcher's queue for another process's save — with none of
/// the store's locks held, so an observer may read the store (its history, its
/// saved graph) from the call. It must return quickly: hop elsewhere for work.
protocol StoreObserver: AnyObject, Sendable {
    /// The store published a saved state.
    ///
    /// - Parameter transactions: the history transactions the publish recorded
    ///   (a save's one, none for `deleteAllData()`), and for another process's
    ///   save taken in, the package's whole history: an observer keeps the
    ///   ones past its own position.
    func storeDidPublish(_ store: DocumentStore, transactions: [StoredTransaction])
}
