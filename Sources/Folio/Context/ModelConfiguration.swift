import Foundation

/// Where and how a container keeps its data, as SwiftData's `ModelConfiguration`.
public struct ModelConfiguration: Hashable, Sendable {
    /// A name for the configuration.
    public var name: String
    /// The document package, or `nil` for ``isStoredInMemoryOnly`` configurations.
    public var url: URL?
    /// Whether data lives in memory only and is never written.
    public var isStoredInMemoryOnly: Bool
    /// Whether `save()` may write; `false` opens a document read-only.
    public var allowsSave: Bool
    /// The entities this configuration stores, as SwiftData's
    /// `ModelConfiguration(schema:)`; `nil` for all of the container's.
    ///
    /// Folio keeps all of a container's objects in the one package, so a
    /// schema given here must name only entities of the container's schema.
    public var schema: Schema?

    /// The package used when neither a URL nor in-memory storage is given:
    /// `default.folio` in the current directory.
    public static var defaultURL: URL {
        URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("default.folio")
    }

    /// Creates a configuration.
    ///
    /// - Parameters:
    ///   - name: a name for the configuration.
    ///   - schema: the entities it stores; `nil` for all of the container's.
    ///   - url: the package folder (`Name.folio`); ``defaultURL`` when `nil` and not in memory.
    ///   - isStoredInMemoryOnly: keep data in memory only.
    ///   - allowsSave: whether saving is allowed.
    public init(_ name: String? = nil, schema: Schema? = nil, url: URL? = nil, isStoredInMemoryOnly: Bool = false,
                allowsSave: Bool = true) {
        self.name = name ?? url?.deletingPathExtension().lastPathComponent ?? "default"
        self.schema = schema
        self.isStoredInMemoryOnly = isStoredInMemoryOnly
        self.url = isStoredInMemoryOnly ? nil : (url ?? ModelConfiguration.defaultURL)
        self.allowsSave = allowsSave
    }

    /// Creates an in-memory or default configuration, as SwiftData's `ModelConfiguration(isStoredInMemoryOnly:)`.
    public init(isStoredInMemoryOnly: Bool, allowsSave: Bool = true) {
        self.init(nil, url: nil, isStoredInMemoryOnly: isStoredInMemoryOnly, allowsSave: allowsSave)
    }
}
