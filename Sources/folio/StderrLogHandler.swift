import Logging

/// Prints the library's log messages as folio prints its own diagnostics:
/// `folio: message` on stderr, control characters escaped (with `--json`, an
/// object of kind `library`).
///
/// The library logs only what no caller hears (a write that fails as the
/// document is closed, an autosave failure with no handler); folio shows
/// warnings and errors and drops the rest.
struct StderrLogHandler: LogHandler {
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .warning

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let level = event.level >= .error ? "error" : "warning"
        Output.diagnostic(level, kind: "library", "\(event.message)", text: "folio: \(event.message)")
    }

    /// Routes every logger of the process here; once, before the document opens.
    static let bootstrap: Void = LoggingSystem.bootstrap { _ in StderrLogHandler() }
}
