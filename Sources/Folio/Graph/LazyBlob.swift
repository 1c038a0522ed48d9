import Foundation

/// An externally stored value that is still on disk: the graph holds this in
/// an attribute's cell instead of the bytes, which are read the first time the
/// value is read, then kept.
///
/// The graph knows nothing of files: the store makes each reference with the
/// closure that reads and checks the file, so the layering holds. A reference
/// is a class shared by every copy of the graph (other contexts, the
/// container's saved state, undo), so the bytes are read at most once.
/// Saving an unchanged lazy value never reads it: its file name is known.
final class LazyBlob: @unchecked Sendable {
    /// The blob's file name in the package (`ID-ATTRIBUTE-HASH.bin`).
    let name: String
    /// Where the file was when the package was read.
    let path: String
    private var read: @Sendable () throws -> Data
    private let lock = NSLock()
    private var cached: Data?

    init(name: String, path: String, read: @escaping @Sendable () throws -> Data) {
        self.name = name
        self.path = path
        self.read = read
    }

    /// Replaces how the bytes are read: the store calls this before it removes the
    /// file, with a reader of a mapping that outlives the file's name.
    func redirect(_ read: @escaping @Sendable () throws -> Data) {
        lock.withLock { self.read = read }
    }

    /// Whether the bytes have been read already.
    var isLoaded: Bool { lock.withLock { cached != nil } }

    /// The bytes: read (and checked) on first use and kept, unless `caching` is
    /// false (a copy to another package needs them once, not for ever).
    ///
    /// - Throws: whatever the store's reader throws (a `PackageError`).
    func load(caching: Bool = true) throws -> Data {
        lock.lock()
        let current = cached
        let reader = read
        lock.unlock()
        if let current { return current }
        let data = try reader()
        if caching { lock.withLock { cached = data } }
        return data
    }
}

/// What an attribute's cell holds: a value, or a blob still on disk.
///
/// Undo, change sets and migration move cells, so that carrying an unread blob
/// from one graph or state to another never reads it.
enum StoredValue: Equatable {
    case value(Value)
    case blob(LazyBlob)

    static func == (lhs: StoredValue, rhs: StoredValue) -> Bool {
        switch (lhs, rhs) {
        case (.value(let a), .value(let b)): return a == b
        case (.blob(let a), .blob(let b)): return a === b || a.path == b.path
        default: return false
        }
    }
}
