import Foundation

/// Telling observers (``DocumentObserver``) of every saved state the shared document
/// publishes, and watching the package for other processes' saves while any
/// observer is registered.
extension SharedDocument {
    /// Registers `observer`, weakly, to be told of every saved state this
    /// shared document publishes from now on, and starts watching the package (when it
    /// exists on disk) so that another process's save is taken in and told too.
    func addObserver(_ observer: any DocumentObserver) {
        observers.add(observer)
        watchPackageIfObserved()
    }

    /// Unregisters the observer with identity `id` (an observer's `deinit`);
    /// the package watcher stops with the last one.
    func removeObserver(_ id: ObjectIdentifier) {
        observers.remove(id)
    }

    /// Whether a package watcher runs for this shared document's observers (tests).
    var isWatchingPackage: Bool { observers.isWatching }

    /// Tells every observer that a saved state was published, with the
    /// transactions it recorded (``DocumentObserver/documentDidPublish(_:transactions:)``);
    /// `transactions` is only called when an observer is registered. Call with
    /// none of the shared document's locks held (the writer's or the shared document's).
    func notifyObservers(_ transactions: () -> [StoredTransaction]) {
        let live = observers.live
        guard !live.isEmpty else { return }
        // A package created by this save can be watched from now on.
        watchPackageIfObserved()
        let recorded = transactions()
        for observer in live { observer.documentDidPublish(self, transactions: recorded) }
    }

    /// Starts the package watcher if observers are registered, the package
    /// exists on disk, and none runs yet. Its wake-ups take in another
    /// process's save (``takeInOutsideSave()``), which tells the observers;
    /// a failure to read it is logged (``FolioLog``), and taken in at the next wake-up.
    /// When the folder watched was replaced under its path (as a merge written
    /// over ours does), the watcher is dropped and the folder now at the path
    /// watched instead.
    ///
    /// - Returns: whether a watcher runs now.
    @discardableResult
    func watchPackageIfObserved() -> Bool {
        guard let package else { return false }
        observers.watchIfObserved { () -> PackageWatcher? in
            guard FileManager.default.fileExists(atPath: package.url.path) else { return nil }
            do throws(PackageError) {
                return try PackageWatcher(folder: package.url) { [weak self] in
                    guard let self else { return }
                    // The folder watched was replaced (a merge written over ours): watch the one in its
                    // place before taking it in, so a save after that is not missed. Its end is not
                    // awaited: a shared document's open lock file keeps the old folder's inode, and its IN_IGNORED, back.
                    if observers.dropReplacedWatcher() { watchPackageIfObserved() }
                    // Nothing at the path: moved aside by a replacement under way, whose removal of the
                    // old folder's files wakes this again; or gone, which a read would only report.
                    guard FileIO.fileExists(package.url.path) else { return }
                    do throws(ModelError) { try takeInOutsideSave() } catch { ModelContainer.report(error, to: nil) }
                }
            } catch {
                ModelContainer.report(.package(error), to: nil)
                return nil
            }
        }
        return observers.isWatching
    }
}
