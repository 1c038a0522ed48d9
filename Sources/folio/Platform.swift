#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import FolioREPL
import Foundation

/// Writes straight to the standard file descriptors, unbuffered, so command
/// output, errors and libedit's prompts reach the terminal or pipe in the
/// order they were produced. Retries writes interrupted by a signal (the
/// terminal session's SIGINT handler is installed without `SA_RESTART`).
enum Output {
    /// Writes `text` to stdout as is.
    static func standard(_ text: String) {
        write(text, to: STDOUT_FILENO)
    }

    /// Writes `line` and a newline to stderr, control characters escaped
    /// (an error may echo a name or value from a hostile document).
    static func error(_ line: String) {
        write(TerminalText.escaped(line, keepingNewlines: true) + "\n", to: STDERR_FILENO)
    }

    /// Writes `text` to stderr as is (JSON notes, already escaped).
    static func standardError(_ text: String) {
        write(text, to: STDERR_FILENO)
    }

    /// `--json`: errors, warnings and notes on stderr are JSON objects (``diagnostic(_:kind:_:line:column:text:)``).
    nonisolated(unsafe) static var json = false

    /// Writes an error, warning or note to stderr: `text` (by default
    /// `LEVEL: message`) for people; with ``json``, one JSON object on one line,
    /// `{"level", "kind", "message", "line", "column"}`, `line` (1-based, in a
    /// script) and `column` (1-based) only when known.
    static func diagnostic(
        _ level: String, kind: String, _ message: String, line: Int? = nil, column: Int = 0,
        text: String? = nil
    ) {
        guard json else {
            error(text ?? "\(level): \(message)")
            return
        }
        var fields: [(String, JSONText)] = [("level", .string(level)), ("kind", .string(kind)), ("message", .string(message))]
        if let line { fields.append(("line", .int(line))) }
        if column > 0 { fields.append(("column", .int(column))) }
        standardError(JSONText.object(fields).text + "\n")
    }

    /// Set while a command runs (``Interruption/during(_:_:)``): a write a
    /// signal interrupts (`EINTR`, or cut short) is given up when the signal
    /// asks the command to stop, rather than waiting on a terminal or pipe
    /// nobody reads. Off between commands, so the recovery warning after a
    /// SIGTERM is written whole.
    nonisolated(unsafe) static var abandonsInterruptedWrites = false

    private static func write(_ text: String, to descriptor: Int32) {
        var text = text
        text.withUTF8 { bytes in
            guard let base = bytes.baseAddress else { return }
            var offset = 0
            while offset < bytes.count {
                // Ending by a signal: the last words (where the recovery package went) wait at most
                // 0.2 s for a terminal or pipe that takes nothing (one not read, or stopped by Ctrl-S), never forever.
                if Recovery.pendingSignal.load(ordering: .relaxed) != 0 {
                    var ready = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                    if poll(&ready, 1, 200) == 0 { return }
                }
                #if canImport(Glibc)
                let written = Glibc.write(descriptor, base + offset, bytes.count - offset)
                #else
                let written = Darwin.write(descriptor, base + offset, bytes.count - offset)
                #endif
                if written < 0 {
                    if errno == EINTR {
                        if abandonsInterruptedWrites, Interruption.requested() { return }
                        continue
                    }
                    return  // a closed pipe or full disk: nothing useful left to do with the text
                }
                offset += written
                // Cut short: by a signal, or a terminal that takes no more for now.
                if offset < bytes.count, abandonsInterruptedWrites, Interruption.requested() { return }
            }
        }
    }
}

/// Questions about the process's environment.
enum Platform {
    /// Installs `handler` for `signal` without `SA_RESTART`, so a blocked read
    /// returns (`EINTR`) and the loop waiting in it notices the signal.
    static func handle(_ signal: Int32, with handler: @escaping @convention(c) (Int32) -> Void) {
        var action = sigaction()
        #if canImport(Glibc)
        action.__sigaction_handler.sa_handler = handler
        #else
        action.__sigaction_u.__sa_handler = handler
        #endif
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0
        sigaction(signal, &action, nil)
    }

    /// Whether stdin and stdout are both terminals: the condition for a terminal session.
    static var isInteractive: Bool { isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1 }

    /// The history file: `$FOLIO_HISTORY` when set (empty turns history off),
    /// else `~/.folio_history`; nil when there is no home directory either.
    static var historyPath: String? {
        let environment = ProcessInfo.processInfo.environment
        if let path = environment["FOLIO_HISTORY"] { return path.isEmpty ? nil : path }
        if let home = environment["HOME"], !home.isEmpty { return home + "/.folio_history" }
        if let entry = getpwuid(getuid()), let home = entry.pointee.pw_dir { return String(cString: home) + "/.folio_history" }
        return nil
    }

    /// The absolute path of this running executable, symbolic links resolved
    /// (`/proc/self/exe` on Linux), or nil when it cannot be told.
    static var executablePath: String? {
        #if os(Linux)
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"), path.hasPrefix("/") {
            return path
        }
        #endif
        return Bundle.main.executableURL?.resolvingSymlinksInPath().path
    }

    /// The next line of `file` without its line ending (`\n` or `\r\n`), or nil at its end.
    static func readLine(from file: UnsafeMutablePointer<FILE>) -> String? {
        var buffer: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(buffer) }
        let count = getline(&buffer, &capacity, file)
        guard count >= 0, let buffer else { return nil }
        var line = String(decoding: UnsafeRawBufferPointer(start: buffer, count: count), as: UTF8.self)
        if line.hasSuffix("\r\n") || line.hasSuffix("\n") { line.removeLast() }  // "\r\n" is one Character
        return line
    }
}
