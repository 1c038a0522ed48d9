import Foundation

/// The unread blobs open documents hold, by file identity, so a save that is
/// about to remove a blob file first keeps the bytes of any reference still
/// alive (an undo can bring back the object that held it). Weak: a reference
/// no graph holds any more is simply forgotten.
enum BlobRegistry {
    private final class Weak {
        weak var blob: LazyBlob?
        init(_ blob: LazyBlob) { self.blob = blob }
    }

    private static let lock = NSLock()
    nonisolated(unsafe) private static var references: [FileIdentity: [Weak]] = [:]
    nonisolated(unsafe) private static var addedSincePrune = 0

    static func register(_ blob: LazyBlob, identity: FileIdentity) {
        lock.withLock {
            references[identity, default: []].append(Weak(blob))
            addedSincePrune += 1
            // Amortised O(1): forget dead references once as many were added as are kept.
            guard addedSincePrune > max(1024, references.count) else { return }
            addedSincePrune = 0
            references = references.compactMapValues { list in
                let live = list.filter { $0.blob != nil }
                return live.isEmpty ? nil : live
            }
        }
    }

    /// Keeps the bytes of every live reference to this file reachable once its
    /// name is removed: the file is mapped (not read), and the reference reads
    /// — and checks — the mapping when it next needs the bytes.
    static func preserve(_ identity: FileIdentity, item: PackageFolder.Item) {
        // An inode number is reused once freed: a reference whose own file went
        // without passing here (removed by hand) can share this identity with an
        // unrelated file, whose bytes it must not take. Its own path tells: it
        // names this very inode only while that file is still there.
        let blobs = lock.withLock { (references.removeValue(forKey: identity) ?? []).compactMap(\.blob) }
            .filter { $0.item.package.status($0.item)?.identity == identity }
        guard !blobs.isEmpty else { return }
        guard let mapped = try? item.package.mapFile(item) else {
            for blob in blobs { _ = try? blob.load() }  // cannot map: read it now instead
            return
        }
        // Read ones too: a copy into another package takes the file's bytes, not the value's.
        for blob in blobs {
            let name = blob.name, original = blob.path
            blob.redirect { () throws(PackageError) -> Data in try DocumentPackage.checkBlob(mapped, path: original, name: name) }
        }
    }
}

extension LazyBlob {
    /// The blob's file, reached its package's guarded way.
    var item: PackageFolder.Item { PackageFolder(path: packagePath).item(name, in: folder) }
}
