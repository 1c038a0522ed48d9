import Foundation
import Synchronization

/// Watches a store's package for other processes' saves and takes each in
/// (``DocumentStore/takeInOutsideSave()``), so that every context on the
/// store merges it and the ``ResultsObserver``s over them update.
///
/// One ``PackageWatcher`` per store, shared by the observers over it: each
/// observer over a package keeps the watch alive, and the last to go stops it
/// (an inotify instance per observer would run into the system's limit).
/// A save of this process commits the package too and wakes the watch; the
/// store finds the package is what it wrote and takes nothing in.
final class OutsideSaveWatch: Sendable {
    private let watcher: PackageWatcher

    private struct WeakWatch {
        weak var watch: OutsideSaveWatch?
    }

    /// The live watches, by store.
    private static let watches = Mutex<[ObjectIdentifier: WeakWatch]>([:])

    private init(_ store: DocumentStore, folder: URL) throws(PackageError) {
        watcher = try PackageWatcher(folder: folder) { [weak store] in
            guard let store else { return }
            do throws(ModelError) { try store.takeInOutsideSave() } catch { ModelContainer.report(error, to: nil) }
        }
    }

    /// The watch of `store`'s package, started if none is live; `nil` for a
    /// store in memory, and for a package not written yet (nothing to watch:
    /// ask again later). A watch that cannot be started (no inotify instance
    /// left) is reported through ``FolioLog`` and `nil` returned.
    ///
    /// - Threading: any thread.
    static func shared(for store: DocumentStore) -> OutsideSaveWatch? {
        guard let package = store.package, store.writer != nil else { return nil }
        return watches.withLock { watches -> OutsideSaveWatch? in
            let key = ObjectIdentifier(store)
            if let live = watches[key]?.watch { return live }
            guard FileManager.default.fileExists(atPath: package.url.path) else { return nil }
            do throws(PackageError) {
                let watch = try OutsideSaveWatch(store, folder: package.url)
                watches = watches.filter { $0.value.watch != nil }
                watches[key] = WeakWatch(watch: watch)
                return watch
            } catch {
                ModelContainer.report(.package(error), to: nil)
                return nil
            }
        }
    }
}
