import Logging

/// Where the library tells of failures no caller is left to hear.
///
/// A failed autosave with no ``ModelContext/autosaveErrorHandler``, a write that
/// fails while a container is torn down or the process exits, a typed read of a
/// model whose object is gone: Folio reports them through swift-log, at level
/// `error`, with the label ``label``, so the host program routes or silences
/// them (`LoggingSystem.bootstrap`). Until a program bootstraps a backend,
/// swift-log prints them to stderr.
public enum FolioLog {
    /// The label of the library's logger: `"Folio"`.
    public static let label = "Folio"

    /// Logs a failure that no handler receives. A logger is made per report (they
    /// are rare), so one made before the host bootstrapped is never kept.
    static func report(_ error: ModelError) {
        Logger(label: label).error("\(error)")
    }

    /// Logs a failure that was worked around: what happened and what was done instead.
    static func report(_ what: String) {
        Logger(label: label).error("\(what)")
    }
}
