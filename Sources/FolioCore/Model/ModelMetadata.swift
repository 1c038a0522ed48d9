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
        // A subclass's inherited properties answer to their superclasses' key paths too.
        let named = properties.enumerated().flatMap { position, property in
            ([property.keyPath] + property.inheritedKeyPaths).map { ($0, position) }
        }
        keyPaths = Dictionary(named, uniquingKeysWith: { first, _ in first })
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
    ///
    /// A subclass's (a class whose superclass is a `PersistentModel`) are its
    /// superclass's, rooted at the subclass, then its own (those of its
    /// `_$ownSchemaMetadata` whose key paths start at the class itself: a
    /// class `@Model` did not expand inherits its superclass's): the order
    /// of its entity's properties.
    static func of(_ type: any PersistentModel.Type) -> ModelMetadata {
        let key = ObjectIdentifier(type)
        lock.lock()
        if let cached = cache[key] {
            lock.unlock()
            return cached
        }
        lock.unlock()
        // Made outside the lock: a subclass's needs its superclass's first.
        let properties: [Schema.PropertyMetadata]
        if let superclass = type.persistentSuperclass {
            let own = type._$ownSchemaMetadata.filter { Swift.type(of: $0.keyPath).rootType == type }
            properties = of(superclass).properties.map { $0.rerooted(to: type) } + own
        } else {
            properties = type.schemaMetadata
        }
        let made = ModelMetadata(properties)
        lock.lock()
        defer { lock.unlock() }
        // Another thread may have made it meanwhile: the first made is kept, so defaults stay the same.
        if let cached = cache[key] { return cached }
        cache[key] = made
        return made
    }
}
