import Foundation

/// Where and how a container keeps its data, as SwiftData's `ModelConfiguration`.
///
/// The initializers take SwiftData's parameters, so configurations written for
/// SwiftData compile unchanged. Folio has no iCloud and no app groups: see
/// ``CloudKitDatabase`` and ``GroupContainer`` for what those parameters mean here.
public struct ModelConfiguration: Hashable, Sendable {
    /// A name for the configuration; without a `url`, also the package's name (`Name.folio`).
    public var name: String
    /// The entities this configuration stores, as SwiftData's
    /// `ModelConfiguration(schema:)`; `nil` for all of the container's.
    ///
    /// Folio keeps all of a container's objects in the one package, so a
    /// schema given here must name only entities of the container's schema.
    public var schema: Schema?
    /// Whether data lives in memory only and is never written.
    public var isStoredInMemoryOnly: Bool
    /// Whether `save()` may write; `false` opens a document read-only.
    public var allowsSave: Bool
    /// The shared folder the package lives in when no `url` is given.
    public var groupContainer: GroupContainer
    /// The CloudKit database SwiftData would sync with; Folio always stores locally.
    public var cloudKitDatabase: CloudKitDatabase
    /// Whether, and how much of, the undo of the document's editing is kept
    /// on disk between sessions (``UndoJournalLimits``; `nil`, the default,
    /// keeps none). The journal is the file `.folio-undo` in the package,
    /// private to this user on this machine, written with each `save()`; see
    /// <doc:UndoJournal>.
    public var undoJournal: UndoJournalLimits?
    /// The package folder given to the initializer, if one was.
    private var givenURL: URL?
    /// The current directory when the configuration was made, where a package
    /// found by its name lives (unless a group container names another folder).
    private var directory: URL

    /// The document package, or `nil` for ``isStoredInMemoryOnly`` configurations.
    ///
    /// Worked out from the properties as they are now, so a configuration
    /// changed after it was made (`isStoredInMemoryOnly = true`, a new
    /// `name`) stores where it now says.
    var packageURL: URL? {
        guard !isStoredInMemoryOnly else { return nil }
        return givenURL ?? (groupContainer.folder ?? directory).appendingPathComponent(name + ".folio")
    }

    /// The document package; `/dev/null` for ``isStoredInMemoryOnly``
    /// configurations, as in SwiftData.
    public var url: URL { packageURL ?? URL(fileURLWithPath: "/dev/null") }

    /// The app group's identifier when ``groupContainer`` names one.
    public var groupAppContainerIdentifier: String? { groupContainer.identifier }

    /// The CloudKit container's identifier when ``cloudKitDatabase`` names one.
    public var cloudKitContainerIdentifier: String? { cloudKitDatabase.containerIdentifier }

    /// The package used when neither a URL, a name nor in-memory storage is
    /// given: `default.folio` in the current directory.
    public static var defaultURL: URL {
        URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("default.folio")
    }

    /// Creates a configuration whose package is found by its name, as
    /// SwiftData's `ModelConfiguration(_:schema:isStoredInMemoryOnly:allowsSave:groupContainer:cloudKitDatabase:)`.
    ///
    /// The package is `Name.folio` (`default.folio` without a name) in the
    /// current directory, or in the group's folder for a ``GroupContainer``
    /// with an identifier. A name or identifier that is not a plain file name
    /// (empty, `.`, `..`, or holding `/`) is refused by the container.
    ///
    /// - Parameters:
    ///   - name: a name for the configuration and its package.
    ///   - schema: the entities it stores; `nil` for all of the container's.
    ///   - isStoredInMemoryOnly: keep data in memory only.
    ///   - allowsSave: whether saving is allowed.
    ///   - groupContainer: the shared folder to keep the package in.
    ///   - cloudKitDatabase: accepted for SwiftData's sake; data stays local.
    public init(
        _ name: String? = nil, schema: Schema? = nil, isStoredInMemoryOnly: Bool = false,
        allowsSave: Bool = true, groupContainer: GroupContainer = .automatic,
        cloudKitDatabase: CloudKitDatabase = .automatic
    ) {
        self.name = name ?? "default"
        self.schema = schema
        self.isStoredInMemoryOnly = isStoredInMemoryOnly
        self.allowsSave = allowsSave
        self.groupContainer = groupContainer
        self.cloudKitDatabase = cloudKitDatabase
        directory = URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true)
    }

    /// Creates a configuration for the package at `url`, as SwiftData's
    /// `ModelConfiguration(_:schema:url:allowsSave:cloudKitDatabase:)`.
    ///
    /// - Parameters:
    ///   - name: a name for the configuration; the package's name when `nil`.
    ///   - schema: the entities it stores; `nil` for all of the container's.
    ///   - url: the package folder (`Name.folio`).
    ///   - allowsSave: whether saving is allowed; `false` opens the package read-only.
    ///   - cloudKitDatabase: accepted for SwiftData's sake; data stays local.
    public init(
        _ name: String? = nil, schema: Schema? = nil, url: URL, allowsSave: Bool = true,
        cloudKitDatabase: CloudKitDatabase = .automatic
    ) {
        self.name = name ?? url.deletingPathExtension().lastPathComponent
        self.schema = schema
        isStoredInMemoryOnly = false
        self.allowsSave = allowsSave
        groupContainer = .none
        self.cloudKitDatabase = cloudKitDatabase
        givenURL = url
        directory = URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true)
    }

    /// Creates an in-memory or default configuration, as SwiftData's `ModelConfiguration(isStoredInMemoryOnly:)`.
    public init(isStoredInMemoryOnly: Bool, allowsSave: Bool = true) {
        self.init(nil, isStoredInMemoryOnly: isStoredInMemoryOnly, allowsSave: allowsSave)
    }

    /// Why the package's place cannot be used, when a name or group
    /// identifier would put it outside the folder it names; the container
    /// refuses such a configuration.
    var packageLocationProblem: String? {
        guard givenURL == nil, !isStoredInMemoryOnly else { return nil }
        if !Self.isPlainFileName(name) {
            return "configuration name '\(name)' is not a plain file name; give a url to put the package elsewhere"
        }
        if let group = groupContainer.identifier, !Self.isPlainFileName(group) {
            return "group container '\(group)' is not a plain folder name"
        }
        return nil
    }

    private static func isPlainFileName(_ name: String) -> Bool {
        !name.isEmpty && name != "." && name != ".." && !name.contains("/") && !name.contains("\0")
    }
}

extension ModelConfiguration {
    /// The app-group folder SwiftData would keep the store in.
    ///
    /// Linux has no app groups. `.automatic` and `.none` keep the package in
    /// the current directory, as SwiftData does for an app with no group
    /// entitlement; `.identifier(_:)` keeps it in a folder of that name under
    /// `$XDG_DATA_HOME` (`~/.local/share` when unset), which every program of
    /// the user that names the same identifier shares.
    public struct GroupContainer: Hashable, Sendable {
        let identifier: String?
        private let isNone: Bool

        /// The first app group the program belongs to; on Linux, none.
        public static let automatic = GroupContainer(identifier: nil, isNone: false)
        /// No app group: the package lives in the current directory.
        public static let none = GroupContainer(identifier: nil, isNone: true)
        /// The app group with this identifier: a folder of that name under `$XDG_DATA_HOME`.
        public static func identifier(_ groupName: String) -> GroupContainer {
            GroupContainer(identifier: groupName, isNone: false)
        }

        /// Where packages of this group live; `nil` for the current directory.
        var folder: URL? {
            guard let identifier else { return nil }
            let environment = ProcessInfo.processInfo.environment
            let dataHome =
                environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
                ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.local/share")
            return URL(fileURLWithPath: dataHome, isDirectory: true).appendingPathComponent(identifier, isDirectory: true)
        }
    }

    /// The CloudKit database SwiftData would mirror the store to.
    ///
    /// Folio has no CloudKit: every choice stores locally. `.none` and
    /// `.automatic` behave as SwiftData's do on a device without an iCloud
    /// account; `.private(_:)` is accepted and also local-only.
    public struct CloudKitDatabase: Hashable, Sendable {
        let containerIdentifier: String?
        private let isNone: Bool

        /// Mirror to the app's CloudKit container if it has one; Folio stores locally.
        public static let automatic = CloudKitDatabase(containerIdentifier: nil, isNone: false)
        /// No CloudKit: the store is local.
        public static let none = CloudKitDatabase(containerIdentifier: nil, isNone: true)
        /// The private database of the named CloudKit container; Folio stores locally.
        public static func `private`(_ container: String) -> CloudKitDatabase {
            CloudKitDatabase(containerIdentifier: container, isNone: false)
        }
    }
}
