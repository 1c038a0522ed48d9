import Foundation

/// Each model class's property metadata, made once per process.
///
/// `@Model`'s expansion builds `schemaMetadata` anew on every call. Caching it
/// keeps defaults written as expressions (`Date.now`, `UUID()`) the same for
/// the life of the process, so two schemas made from the same classes are
/// equal, and keeps the per-edit lookups (observer notification) cheap.
final class ModelMetadata: @unchecked Sendable {
    /// The properties, as declared, and their positions by name.
    let properties: [Schema.PropertyMetadata]
    private let positions: [String: Int]
    private let keyPaths: [AnyKeyPath: Int]

    private init(_ properties: [Schema.PropertyMetadata]) {
        self.properties = properties
        positions = Dictionary(properties.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
        keyPaths = Dictionary(properties.enumerated().map { ($1.keyPath, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The property with this name, if the class persists one.
    func property(named name: String) -> Schema.PropertyMetadata? {
        positions[name].map { properties[$0] }
    }

    /// The position of the property with this name in `schemaMetadata`: the
    /// ordinal `@Model` gives it.
    func position(named name: String) -> Int? {
        positions[name]
    }

    /// The property a key path of the class names, if the class persists it
    /// (predicates and sort descriptors name properties by key path).
    func property(for keyPath: AnyKeyPath) -> Schema.PropertyMetadata? {
        keyPaths[keyPath].map { properties[$0] }
    }

    // Guarded by `lock`; entries are immutable once made.
    private static let lock = NSLock()
    nonisolated(unsafe) private static var cache: [ObjectIdentifier: ModelMetadata] = [:]

    /// The metadata of a model class, made on first use.
    static func of(_ type: any PersistentModel.Type) -> ModelMetadata {
        let key = ObjectIdentifier(type)
        lock.lock()
        defer { lock.unlock() }
        if let cached = cache[key] { return cached }
        let made = ModelMetadata(type.schemaMetadata)
        cache[key] = made
        return made
    }
}
