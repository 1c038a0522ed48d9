import Foundation

/// An externally stored value that is still on disk: the graph holds this in
/// an attribute's cell instead of the value, which is read the first time it
/// is used, then kept.
///
/// The graph knows nothing of files or of how a value becomes bytes: the store
/// makes each reference with the closure that reads and checks the file and
/// the one that turns its bytes into the attribute's value (docs/FORMAT.md,
/// "External storage"), so the layering holds. A reference is a class shared
/// by every copy of the graph (other contexts, the container's saved state,
/// undo), so a blob is read and decoded at most once. Saving an unchanged lazy
/// value never reads it: its file name is known.
final class LazyBlob: @unchecked Sendable {
    /// The blob's file name in the package (`ID-ATTRIBUTE-HASH.bin`).
    let name: String
    /// The package folder the file was in when the package was read.
    let packagePath: String
    /// The package's subfolder holding the file (`blobs`).
    let folder: String
    /// Where the file was when the package was read, for messages and comparisons.
    var path: String { packagePath + "/" + folder + "/" + name }
    private var read: @Sendable () throws -> Data
    private let decode: @Sendable (Data) throws -> Value
    private let lock = NSLock()
    private var cached: Value?

    /// - Parameters:
    ///   - read: reads the file's bytes, checked against the hash in its name.
    ///   - decode: turns those bytes into the attribute's value; the identity
    ///     (`.data`) for a `data` attribute.
    init(
        name: String, package: String, folder: String, read: @escaping @Sendable () throws -> Data,
        decode: @escaping @Sendable (Data) throws -> Value = { .data($0) }
    ) {
        self.name = name
        self.packagePath = package
        self.folder = folder
        self.read = read
        self.decode = decode
    }

    /// Replaces how the bytes are read: the store calls this before it removes the
    /// file, with a reader of a mapping that outlives the file's name.
    func redirect(_ read: @escaping @Sendable () throws -> Data) {
        lock.withLock { self.read = read }
    }

    /// Whether the value has been read already.
    var isLoaded: Bool { lock.withLock { cached != nil } }

    /// The value, if it has been read already; never reads.
    var loadedValue: Value? { lock.withLock { cached } }

    /// The value: read, checked and decoded on first use, then kept.
    ///
    /// - Throws: whatever the store's reader or decoder throws (a `PackageError`).
    func load() throws -> Value {
        lock.lock()
        let current = cached
        let reader = read
        lock.unlock()
        if let current { return current }
        let value = try decode(try reader())
        lock.withLock { cached = value }
        return value
    }

    /// The file's bytes, read (and checked) now and not kept: a copy to another
    /// package needs them once, not for ever.
    ///
    /// - Throws: whatever the store's reader throws (a `PackageError`).
    func bytes() throws -> Data {
        // The bytes of a data value are the value itself: no need to read them again.
        if case .data(let data)? = loadedValue { return data }
        let reader = lock.withLock { read }
        return try reader()
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
