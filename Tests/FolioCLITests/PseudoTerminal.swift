import Foundation
#if canImport(Glibc)
import Glibc
import FolioTestSupport
#endif

/// A program running on a pseudo-terminal, driven like a person at a
/// keyboard: the child gets the terminal's slave side as stdin, stdout,
/// stderr and controlling terminal (a new session), so Ctrl-C typed on the
/// master raises SIGINT in it. Every read has a deadline, so a test can never
/// hang.
final class PseudoTerminal {
    let pid: pid_t
    private let master: Int32
    /// Everything the program wrote, raw.
    private(set) var output: [UInt8] = []
    private var exitStatus: Int32?

    /// Starts `executable` on a new 24×80 terminal.
    init(executable: String, arguments: [String], environment: [String: String]) throws {
        var master: Int32 = -1, slave: Int32 = -1
        var size = winsize(ws_row: 24, ws_col: 80, ws_xpixel: 0, ws_ypixel: 0)
        guard openpty(&master, &slave, nil, nil, &size) == 0 else { throw PseudoTerminalError.system("openpty", errno) }
        _ = fcntl(master, F_SETFD, FD_CLOEXEC)
        _ = fcntl(slave, F_SETFD, FD_CLOEXEC)
        defer { close(slave) }
        guard let slaveName = ttyname(slave).map({ String(cString: $0) }) else {
            close(master)
            throw PseudoTerminalError.system("ttyname", errno)
        }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // Opened after setsid (spawn attributes come first), without O_NOCTTY:
        // the terminal becomes the child's controlling terminal.
        posix_spawn_file_actions_addopen(&actions, 0, slaveName, O_RDWR, 0)
        posix_spawn_file_actions_adddup2(&actions, 0, 1)
        posix_spawn_file_actions_adddup2(&actions, 0, 2)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var defaultSignals = sigset_t()
        sigemptyset(&defaultSignals)
        for signal in [SIGINT, SIGQUIT, SIGPIPE, SIGTSTP, SIGHUP] { sigaddset(&defaultSignals, signal) }
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &defaultSignals)
        let setsid: Int32 = 0x80  // POSIX_SPAWN_SETSID (glibc), not imported into Swift
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | setsid))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard result == 0 else {
            close(master)
            throw PseudoTerminalError.system("posix_spawn", result)
        }
        self.pid = pid
        self.master = master
    }

    deinit {
        if exitStatus == nil {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
        close(master)
    }

    /// Types `text` once the program reads the terminal in raw mode (libedit at a
    /// prompt). Typed any earlier, while the line discipline is still canonical,
    /// a Ctrl-D becomes an end-of-file event that the switch to raw mode drops —
    /// on a real terminal too; a test must not race the program's prompt.
    func type(_ text: String) {
        waitForRawMode()
        send(text)
    }

    /// Waits until the terminal is in non-canonical (raw) mode; the pseudo-terminal
    /// pair shares its settings, so the master side can read them.
    @discardableResult
    func waitForRawMode(timeout: TimeInterval = Patience.seconds) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while deadline.timeIntervalSinceNow > 0 {
            var settings = termios()
            if tcgetattr(master, &settings) == 0, settings.c_lflag & tcflag_t(ICANON) == 0 { return true }
            usleep(2_000)
        }
        return false
    }

    /// Types `text` at once, whatever mode the terminal is in.
    func send(_ text: String) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            offset += written
        }
    }

    /// Types `text` as a paste does, all at once, reading the program's echo
    /// meanwhile: writing a large paste without reading would fill both
    /// directions of the terminal and block the test and the program alike.
    /// Gives up after `timeout` seconds; returns whether all was written.
    @discardableResult
    func paste(_ text: String, timeout: TimeInterval = Patience.seconds) -> Bool {
        waitForRawMode()
        let bytes = Array(text.utf8)
        var offset = 0
        let deadline = Date(timeIntervalSinceNow: timeout)
        while offset < bytes.count, deadline.timeIntervalSinceNow > 0 {
            var descriptor = pollfd(fd: master, events: Int16(POLLOUT), revents: 0)
            if poll(&descriptor, 1, 10) > 0, descriptor.revents & Int16(POLLOUT) != 0 {
                // Non-blocking: a write the queue cannot take whole takes what fits, or nothing.
                let flags = fcntl(master, F_GETFL)
                _ = fcntl(master, F_SETFL, flags | O_NONBLOCK)
                let written = bytes[offset..<min(bytes.count, offset + 4096)].withUnsafeBytes {
                    write(master, $0.baseAddress, $0.count)
                }
                _ = fcntl(master, F_SETFL, flags)
                if written > 0 { offset += written }
            }
            _ = readAvailable(waitingAtMost: 0.001)
        }
        return offset == bytes.count
    }

    /// The output so far as a person sees it on the line: escape sequences,
    /// bells and carriage returns removed.
    var screenText: String { PseudoTerminal.visibleText(output) }

    /// Reads until the visible output after `mark` (an `output.count` taken
    /// earlier) contains `text`, or `timeout` seconds pass.
    @discardableResult
    func waitFor(_ text: String, after mark: Int = 0, timeout: TimeInterval = Patience.seconds) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while true {
            if PseudoTerminal.visibleText(Array(output[min(mark, output.count)...])).contains(text) { return true }
            let remaining = deadline.timeIntervalSinceNow
            if remaining <= 0 || !readAvailable(waitingAtMost: remaining) { return false }
        }
    }

    /// Reads whatever arrives within `seconds`.
    func drain(for seconds: TimeInterval) {
        let deadline = Date(timeIntervalSinceNow: seconds)
        while deadline.timeIntervalSinceNow > 0, readAvailable(waitingAtMost: deadline.timeIntervalSinceNow) {}
    }

    /// Whether the program is still running.
    var isRunning: Bool {
        guard exitStatus == nil else { return false }
        var status: Int32 = 0
        if waitpid(pid, &status, WNOHANG) == pid {
            exitStatus = status
            return false
        }
        return true
    }

    /// Waits up to `timeout` seconds for the program to end, reading its
    /// output meanwhile; returns its exit code, or nil if it is still running
    /// or was killed by a signal.
    func waitForExit(timeout: TimeInterval = Patience.seconds) -> Int32? {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while isRunning, deadline.timeIntervalSinceNow > 0 {
            if !readAvailable(waitingAtMost: min(0.05, max(deadline.timeIntervalSinceNow, 0))) { usleep(10_000) }
        }
        // What it wrote just before it ended may still wait in the terminal: a loaded
        // machine can end the child between two reads.
        while !isRunning, readAvailable(waitingAtMost: 0.05) {}
        guard let status = exitStatus, status & 0x7f == 0 else { return nil }  // WIFEXITED
        return (status >> 8) & 0xff  // WEXITSTATUS
    }

    /// The signal that ended the program, once it has ended by one (WIFSIGNALED).
    var terminationSignal: Int32? {
        guard let status = exitStatus, status & 0x7f != 0, status & 0x7f != 0x7f else { return nil }
        return status & 0x7f
    }

    /// Reads once if output arrives within `seconds`; false on timeout, end or error.
    private func readAvailable(waitingAtMost seconds: TimeInterval) -> Bool {
        var descriptor = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, Int32(max(1, min(seconds * 1000, 60_000))))
        guard ready > 0, descriptor.revents & Int16(POLLIN) != 0 else { return false }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { read(master, $0.baseAddress, $0.count) }
        guard count > 0 else { return false }  // EIO once the child has closed the terminal
        output.append(contentsOf: buffer[..<count])
        return true
    }

    /// Drops CSI sequences (`ESC [ … final`), other two-byte escapes, BEL and CR.
    static func visibleText(_ bytes: [UInt8]) -> String {
        var visible: [UInt8] = []
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0x1b {
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "[") {
                    index += 1
                    while index < bytes.count, !(0x40...0x7e).contains(bytes[index]) { index += 1 }
                }
                index += 1
            } else {
                if byte != 0x07, byte != 0x0d { visible.append(byte) }
                index += 1
            }
        }
        return String(decoding: visible, as: UTF8.self)
    }
}

extension PseudoTerminal {
    /// The built `folio` on `package`, on a new terminal: its history in
    /// `folder` (or none), `HOME` there (no ~/.editrc of the person running
    /// the tests), `TERM=xterm`, and `extra` added to that environment.
    static func folio(
        on package: URL, in folder: TemporaryFolder, history: Bool = true,
        environment extra: [String: String] = [:]
    ) throws -> PseudoTerminal {
        try PseudoTerminal(
            executable: folioBinary.path, arguments: [package.path],
            environment: [
                "FOLIO_HISTORY": history ? folder.url.appendingPathComponent("history").path : "",
                "HOME": folder.url.path,
                "TERM": "xterm",
                "PATH": "/usr/bin:/bin",
            ].merging(extra) { _, new in new })
    }
}

enum PseudoTerminalError: Error, CustomStringConvertible {
    case system(String, Int32)

    var description: String {
        switch self {
        case .system(let call, let code): return "\(call) failed: \(String(cString: strerror(code)))"
        }
    }
}
