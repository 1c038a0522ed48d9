import Foundation
import Logging
import Synchronization

/// The library's log messages in a test process: captured, never printed.
///
/// A test that makes the library log (a write that fails as a container is
/// dropped, a typed read of a deleted object with no handler) calls
/// ``capture()`` first, then finds its messages with ``messages(containing:)``:
/// stderr stays clean, and the report is asserted rather than printed. The
/// test targets share one process, and swift-log is bootstrapped once per
/// process, so this is its only bootstrap.
public enum LibraryLog {
    private static let captured = Mutex<[String]>([])

    private static let bootstrap: Void = LoggingSystem.bootstrap { label in CapturingHandler(label: label) }

    /// Routes every logger made from now on into the capture (once per process).
    public static func capture() { bootstrap }

    /// The messages logged so far that contain `text` (tests run in parallel:
    /// pass something only this test's messages hold, such as its package's path).
    public static func messages(containing text: String) -> [String] {
        captured.withLock { $0.filter { $0.contains(text) } }
    }

    private struct CapturingHandler: LogHandler {
        let label: String
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let line = "\(label) \(event.level): \(event.message)"
            LibraryLog.captured.withLock { $0.append(line) }
        }
    }
}
