import FolioCore
import FolioREPL
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Unsaved work survives a signal or a crash, as an editor's swap file does.
///
/// **Where.** A recovery package is written to the user's state folder only:
/// `$XDG_STATE_HOME/folio/recovery/` (or `~/.local/state/folio/recovery/`),
/// named `NAME-HASH.folio` after the document and a hash of its absolute path,
/// through the library's "save a copy" (`ModelContext.exportPackage(to:undoJournal:)`).
/// Never beside or inside the document: a state folder inside the package is
/// refused. Unless folio runs with `--no-undo-journal`, the copy carries the
/// session's undo steps as its undo journal, written after the package (a
/// journal the replaced copy had is removed first): opening the recovery
/// package brings them back, so `undo` takes its edits back one at a time.
///
/// **SIGTERM and SIGHUP** (and, in a script, SIGINT and SIGPIPE:
/// ``terminationSignals``) only set ``pendingSignal`` and write a byte to the
/// line editor's wake-up pipe (async-signal-safe); the main thread notices at
/// the prompt or between two commands, writes the recovery package if there
/// are unsaved changes, says where on stderr, and ends by the same signal (its
/// default action), so the exit status is the conventional one (143, 129).
///
/// **Traps** (SIGILL, SIGTRAP, SIGSEGV, SIGBUS, SIGFPE, SIGABRT: a Swift
/// runtime trap, a stack overflow) run a handler on an alternate signal stack,
/// so even an exhausted stack has room. It makes a best-effort write of the
/// recovery package from the handler — not async-signal-safe, so an alarm ends
/// the attempt after 10 seconds if it deadlocks — then restores the previous
/// handler (the Swift runtime's backtracer, or the default) and raises the
/// signal again.
///
/// **Next open.** Opening a document with a recovery package prints where it is
/// (``notice(for:)``); it stays until the user deletes it.
///
/// **No background write to wait for.** The REPL's context does not autosave:
/// `save` is explicit, and `ModelContext.save()` returns once the package is
/// written, so ending by a signal's default action (which skips the library's
/// `atexit` flush of autosaves) loses nothing saved. `quit` and the end of a
/// script return from `main`, which runs that flush anyway.
enum Recovery {
    /// The signal asking folio to end (one of ``terminationSignals``), 0 when none came.
    static let pendingSignal = Atomic<Int32>(0)
    /// Where the termination handler writes a byte to wake a wait (the line
    /// editor's pipe), -1 when nothing waits.
    static let wakeUpDescriptor = Atomic<Int32>(-1)
    /// Set once a trap handler has started: a second trap does not write again.
    private static let trapping = Atomic<Bool>(false)
    /// The interpreter whose document is saved; set by ``install(for:)``.
    nonisolated(unsafe) private static var interpreter: Interpreter?
    /// The trap handlers that were in place before ours, by signal number.
    nonisolated(unsafe) private static var previousActions = [SignalAction](repeating: SignalAction(), count: 65)

    static let trapSignals: [Int32] = [SIGILL, SIGTRAP, SIGSEGV, SIGBUS, SIGFPE, SIGABRT]
    /// The signals that end folio after the unsaved work is written: SIGTERM
    /// and SIGHUP; SIGINT (Ctrl-C) in a script (the terminal session takes
    /// SIGINT over, to clear the line); SIGPIPE, when a script's output is
    /// closed (`folio X < s.txt | head -1`: its writes then fail, and the
    /// script ends at the next line).
    static let terminationSignals: [Int32] = [SIGTERM, SIGHUP, SIGINT, SIGPIPE]

    // MARK: Where

    /// `$XDG_STATE_HOME/folio/recovery` (an absolute `XDG_STATE_HOME` only, as
    /// the XDG spec says), else `~/.local/state/folio/recovery`.
    static var folder: URL? {
        let environment = ProcessInfo.processInfo.environment
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
            return URL(fileURLWithPath: state).appendingPathComponent("folio/recovery", isDirectory: true)
        }
        var home = environment["HOME"] ?? ""
        if home.isEmpty, let entry = getpwuid(getuid()), let directory = entry.pointee.pw_dir { home = String(cString: directory) }
        guard !home.isEmpty else { return nil }
        return URL(fileURLWithPath: home).appendingPathComponent(".local/state/folio/recovery", isDirectory: true)
    }

    /// `Animals-1f3a…e9.folio` in ``folder``: the document's name and a 64-bit
    /// FNV-1a hash of its absolute path, so two `Animals.folio` never collide.
    /// `nil` when there is no state folder, or it lies inside the document.
    static func url(for document: URL) -> URL? {
        let path = document.standardizedFileURL.path
        guard let folder, !(folder.standardizedFileURL.path + "/").hasPrefix(path + "/") else { return nil }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in path.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        let name = document.deletingPathExtension().lastPathComponent
        return folder.appendingPathComponent("\(name)-\(String(repeating: "0", count: 16 - hex.count))\(hex).folio")
    }

    /// "note: unsaved changes from DATE were recovered to PATH; open it with: folio PATH",
    /// when the document has a recovery package.
    static func notice(for document: URL) -> String? {
        guard let url = url(for: document),
            let attributes = (try? FileManager.default.attributesOfItem(atPath: url.appendingPathComponent(DocumentPackage.manifestFileName).path))
                ?? (try? FileManager.default.attributesOfItem(atPath: url.appendingPathComponent(DocumentPackage.documentFileName).path))
        else { return nil }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        let date = (attributes[.modificationDate] as? Date).map(formatter.string(from:)) ?? "an earlier session"
        return "note: unsaved changes from \(date) were recovered to \(url.path); open it with: folio \(url.path)"
    }

    // MARK: Writing

    /// Writes the interpreter's document, unsaved changes included, to its
    /// recovery package. Returns where, or nil when there was nothing to save.
    ///
    /// - Throws: the export's error, or a `CocoaError` when the folder cannot be made.
    static func write() throws -> URL? {
        guard let interpreter, interpreter.hasUnsavedChanges else { return nil }
        guard let url = url(for: interpreter.documentURL) else {
            throw CommandError("no state folder outside the document for a recovery package (set XDG_STATE_HOME)")
        }
        try FileManager.default.createDirectory(
            at: url.deletingLastPathComponent(), withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        // With the session's undo steps: `undo` in the recovered document takes its edits back one by one.
        try interpreter.context.exportPackage(to: url, undoJournal: interpreter.options.keepsUndo ? .standard : nil)
        return url
    }

    // MARK: Signals

    /// Remembers the interpreter and installs the termination and trap handlers.
    static func install(for interpreter: Interpreter) {
        self.interpreter = interpreter
        for signal in terminationSignals { Platform.handle(signal, with: handleTermination) }
        // A parent may have started folio with these blocked (a test runner's
        // threads block most signals): a blocked SIGTERM would never be noticed.
        var handled = sigset_t()
        sigemptyset(&handled)
        for signal in terminationSignals + trapSignals { sigaddset(&handled, signal) }
        sigprocmask(SIG_UNBLOCK, &handled, nil)
        // An alternate stack, so a stack overflow still has room for the handler.
        let size = 1 << 20
        if let memory = malloc(size) {
            var stack = stack_t(ss_sp: memory, ss_flags: 0, ss_size: size)
            sigaltstack(&stack, nil)
        }
        for signal in trapSignals {
            var action = SignalAction()
            #if canImport(Glibc)
            action.__sigaction_handler.sa_sigaction = handleTrap
            #else
            action.__sigaction_u.__sa_sigaction = handleTrap
            #endif
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_ONSTACK | SA_SIGINFO
            sigaction(signal, &action, &previousActions[Int(signal)])
        }
    }

    /// Async-signal-safe: an atomic store and a `write`.
    private static let handleTermination: @convention(c) (Int32) -> Void = { signal in
        let savedErrno = errno
        _ = Recovery.pendingSignal.compareExchange(expected: 0, desired: signal, ordering: .relaxed)
        var byte: UInt8 = 1
        let descriptor = Recovery.wakeUpDescriptor.load(ordering: .relaxed)
        if descriptor >= 0 { _ = systemWrite(descriptor, &byte, 1) }
        errno = savedErrno
    }

    /// Writes the recovery package, lets the previous handler (the Swift
    /// runtime's backtracer) report the crash, then makes sure the process ends
    /// by the signal: the default action, pending until this handler returns.
    private static let handleTrap: @convention(c) (Int32, UnsafeMutablePointer<siginfo_t>?, UnsafeMutableRawPointer?) -> Void = {
        signal, info, context in
        if !Recovery.trapping.exchange(true, ordering: .relaxed) {
            alarm(10)  // a write that deadlocks (a lock held by the crashed code) must not hang the process
            if let url = try? Recovery.write() {
                rawError("folio: crashed (signal \(signal)); unsaved changes were written to \(url.path)\n")
            }
        }
        let previous = previousActions[Int(signal)]
        #if canImport(Glibc)
        if previous.sa_flags & SA_SIGINFO != 0 {
            previous.__sigaction_handler.sa_sigaction?(signal, info, context)
        } else if let handler = previous.__sigaction_handler.sa_handler, unsafeBitCast(handler, to: Int.self) > 1 {
            handler(signal)  // not SIG_DFL (0) or SIG_IGN (1)
        }
        #endif
        resetToDefault(signal)
        raise(signal)
    }

    /// Writes to stderr with `write(2)` alone.
    private static func rawError(_ text: String) {
        var text = text
        text.withUTF8 { bytes in
            guard let base = bytes.baseAddress else { return }
            _ = systemWrite(STDERR_FILENO, base, bytes.count)
        }
    }

    /// On the main thread, at the prompt or between commands: ends folio if a
    /// SIGTERM or SIGHUP came, after writing the recovery package.
    static func endIfAsked() {
        let signal = pendingSignal.load(ordering: .relaxed)
        if signal != 0 { end(by: signal) }
    }

    /// Writes the recovery package (if there are unsaved changes), says where,
    /// and ends the process by `signal`'s default action.
    static func end(by signal: Int32) -> Never {
        let reason =
            switch signal {
            case SIGHUP: "hang-up"
            case SIGTERM: "terminated"
            case SIGINT: "interrupted"
            case SIGPIPE: "output closed"
            default: "signal \(signal)"
            }
        saveWork(reason: reason)
        resetToDefault(signal)
        var unblock = sigset_t()
        sigemptyset(&unblock)
        sigaddset(&unblock, signal)
        sigprocmask(SIG_UNBLOCK, &unblock, nil)
        raise(signal)
        exit(128 + signal)
    }

    /// Writes the recovery package if there are unsaved changes and says so on stderr.
    static func saveWork(reason: String) {
        do {
            if let url = try write() {
                Output.diagnostic(
                    "warning", kind: "recovery", "\(reason); unsaved changes were written to \(url.path)",
                    text: "folio: \(reason); unsaved changes were written to \(url.path)")
            }
        } catch {
            Output.diagnostic(
                "error", kind: "recovery", "\(reason); the unsaved changes could not be written: \(error)",
                text: "folio: \(reason); the unsaved changes could not be written: \(error)")
        }
    }
}

/// `write(2)`, named apart from ``Recovery/write()``.
private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
    Glibc.write(descriptor, bytes, count)
    #else
    Darwin.write(descriptor, bytes, count)
    #endif
}

/// `signal(signal, SIG_DFL)`.
private func resetToDefault(_ number: Int32) {
    _ = signal(number, SIG_DFL)
}

/// The C `struct sigaction` (the name alone also means the function).
private typealias SignalAction = sigaction
