import FolioREPL
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reading keys, Ctrl-C and hang-ups.
///
/// SIGINT only sets a flag and writes a byte to a pipe (the self-pipe trick);
/// its handler is installed without `SA_RESTART`. SIGHUP and SIGTERM do the
/// same through ``Recovery`` (its flag, this pipe), so a closed terminal or a
/// `kill` ends the session at the prompt, where the unsaved work is written to
/// a recovery package. libedit reads every key
/// through ``readCharacter``, which waits on the terminal and the pipe
/// together and checks the flag before each wait, so a Ctrl-C typed at any
/// moment of a `readline` call ends it: `readline` returns nil and
/// ``LineEditor/readLine(prompt:)`` tells Ctrl-C from Ctrl-D by the flag.
/// (Waiting in libedit's own `read` would lose a signal that arrives just
/// before it.)
extension LineEditor {
    /// Set by the SIGINT handler.
    private static let interruptReceived = Atomic<Bool>(false)
    /// The pipe's write end, for the handler; -1 until installed.
    private static let wakeUpWriteEnd = Atomic<Int32>(-1)
    nonisolated(unsafe) private static var wakeUpReadEnd: Int32 = -1
    /// Set when reading the terminal fails or ends: it went away.
    nonisolated(unsafe) static var inputClosed = false

    /// Bytes read from the terminal and not yet given to libedit: one `read`
    /// takes all a paste has delivered, not a byte per system call.
    nonisolated(unsafe) private static var pending = [UInt8](repeating: 0, count: 1 << 16)
    nonisolated(unsafe) private static var pendingCount = 0
    nonisolated(unsafe) private static var pendingIndex = 0
    /// Bytes given to libedit for the current line, to stop at the limit.
    nonisolated(unsafe) private static var lineBytes = 0
    /// Set when the current line went over ``Interpreter/maximumLineLength``.
    nonisolated(unsafe) private(set) static var lineWasTooLong = false

    /// Whether Tab completes (or, deep in a long line, inserts itself).
    nonisolated(unsafe) private static var tabCompletes = true

    /// Starts counting the bytes of a new line; Tab completes again.
    static func startLine() {
        lineBytes = 0
        lineWasTooLong = false
        if !tabCompletes {
            _ = libedit?.parseAndBind("bind ^I rl_complete")
            tabCompletes = true
        }
    }

    /// Past ``LineEditor/completionLimit`` bytes into a line, Tab inserts a
    /// tab: libedit converts the whole line at every completion, so each Tab of
    /// a long pasted line of tab-separated values would cost a pass over the line.
    private static func countLineByte() {
        lineBytes += 1
        if tabCompletes, lineBytes > Int(completionLimit) {
            _ = libedit?.parseAndBind("bind ^I ed-insert")
            tabCompletes = false
        }
    }

    /// Installs the SIGINT handler and the pipe it shares with SIGHUP and SIGTERM (``Recovery``).
    static func installInterruptHandler() {
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) == 0 {
            for end in ends {
                _ = fcntl(end, F_SETFD, FD_CLOEXEC)
                _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            }
            wakeUpReadEnd = ends[0]
            wakeUpWriteEnd.store(ends[1], ordering: .relaxed)
            Recovery.wakeUpDescriptor.store(ends[1], ordering: .relaxed)
        }
        interruptReceived.store(false, ordering: .relaxed)

        Platform.handle(SIGINT, with: handleInterrupt)
    }

    /// Whether Ctrl-C was typed since the last line was read: a command
    /// running then is cancelled (``Interruption``). Leaves it set; the next
    /// ``LineEditor/readLine(prompt:)`` forgets it.
    static var interruptPending: Bool { interruptReceived.load(ordering: .relaxed) }

    /// Forgets an earlier Ctrl-C (one typed while a command ran).
    static func resetInterrupt() {
        interruptReceived.store(false, ordering: .relaxed)
        drainWakeUpPipe()
    }

    /// Whether Ctrl-C was typed since ``resetInterrupt()``; clears it. Input
    /// read ahead before the Ctrl-C is dropped, as the terminal drops its own.
    static func takeInterrupt() -> Bool {
        drainWakeUpPipe()
        let interrupted = interruptReceived.exchange(false, ordering: .relaxed)
        if interrupted { pendingCount = 0; pendingIndex = 0 }
        return interrupted
    }

    /// Async-signal-safe: an atomic store and a `write`.
    private static let handleInterrupt: @convention(c) (Int32) -> Void = { _ in
        LineEditor.interruptReceived.store(true, ordering: .relaxed)
        LineEditor.wakeUp()
    }

    private static func wakeUp() {
        let savedErrno = errno
        var byte: UInt8 = 1
        _ = write(wakeUpWriteEnd.load(ordering: .relaxed), &byte, 1)
        errno = savedErrno
    }

    /// libedit's `rl_getc_function`: the next character typed, as a Unicode
    /// scalar value (libedit stores it as one wide character, so UTF-8 is
    /// decoded here), or -1 on Ctrl-C or when the terminal is gone.
    ///
    /// A line that reaches ``Interpreter/maximumLineLength`` ends there: the
    /// rest of it, up to its end of line, is read and dropped, and libedit gets
    /// a newline; ``lineWasTooLong`` tells ``LineEditor/readLine(prompt:)`` to
    /// refuse the line.
    static let readCharacter: @convention(c) (UnsafeMutablePointer<FILE>?) -> Int32 = { _ in
        LineEditor.protectLineBuffer()
        guard let first = LineEditor.nextByte() else { return -1 }
        if LineEditor.lineBytes == 0, LineEditor.pendingCount - LineEditor.pendingIndex >= LineEditor.pasteThreshold {
            return LineEditor.takePastedLine(startingWith: first)
        }
        LineEditor.countLineByte()
        if LineEditor.lineBytes > Interpreter.maximumLineLength, first != 0x0A, first != 0x0D {
            LineEditor.lineWasTooLong = true
            guard LineEditor.discardRestOfLine() else { return -1 }
            return 0x0D
        }
        let length: Int
        switch first {
        case 0..<0x80: return Int32(first)
        case 0xC2...0xDF: length = 2
        case 0xE0...0xEF: length = 3
        case 0xF0...0xF4: length = 4
        default: return 0xFFFD
        }
        var bytes = [first]
        while bytes.count < length {
            guard let next = LineEditor.nextByte() else { return -1 }
            LineEditor.countLineByte()
            bytes.append(next)
        }
        guard let scalar = String(validating: bytes, as: UTF8.self)?.unicodeScalars.first else { return 0xFFFD }
        return Int32(scalar.value)
    }

    /// A line that starts with this many bytes already read is pasted, not
    /// typed (a person's keys arrive a few bytes per read).
    private static let pasteThreshold = 1024
    /// The pasted line read past libedit, for ``LineEditor/readLine(prompt:)``.
    nonisolated(unsafe) private static var pastedLine: [UInt8]?

    /// Reads a pasted line whole, past libedit: libedit handles each byte as a
    /// key (insert, redraw), so a paste of a megabyte would take it seconds; this
    /// echoes the line once and hands libedit only its end. Tab is text here,
    /// never a completion. The line is taken with ``takePastedLine()``.
    /// - Returns: CR for libedit (which then ends an empty line), or -1 on Ctrl-C
    ///   or when the terminal is gone.
    private static func takePastedLine(startingWith first: UInt8) -> Int32 {
        var line: [UInt8] = []
        var byte = first
        while byte != 0x0A, byte != 0x0D {
            if line.count == Interpreter.maximumLineLength {
                lineWasTooLong = true
                guard discardRestOfLine() else { return -1 }
                break
            }
            line.append(byte)
            guard let next = nextByte() else { return -1 }
            byte = next
        }
        lineBytes = line.count
        pastedLine = line
        // Shown as typed text is, control characters escaped; the prompt is already out.
        Output.standard(TerminalText.escaped(String(decoding: line, as: UTF8.self), keepingNewlines: false))
        return 0x0D
    }

    /// The line ``takePastedLine(startingWith:)`` read, once.
    static func takePastedLine() -> String? {
        defer { pastedLine = nil }
        return pastedLine.map { String(decoding: $0, as: UTF8.self) }
    }

    /// Reads a line without libedit: the prompt, then bytes up to the end of
    /// the line, edited by the terminal itself (it is left in its usual
    /// line mode). Ctrl-C, the length limit and hang-ups as with libedit;
    /// Ctrl-D on an empty line (the terminal's end of input) ends the input.
    static func readPlainLine(prompt: String) -> Input {
        Output.standard(prompt)
        lineBytes = 0
        lineWasTooLong = false
        var line: [UInt8] = []
        while true {
            guard let byte = nextByte() else {
                if takeInterrupt() { return .interrupted }
                if Recovery.pendingSignal.load(ordering: .relaxed) != 0 { return .hungUp }
                // The terminal's end of input (Ctrl-D): a later read waits again,
                // unless the input keeps ending (the terminal went away unannounced).
                plainEndsInARow += 1
                guard plainEndsInARow <= 3 else { return .hungUp }
                inputClosed = false
                if line.isEmpty { return .endOfInput }
                break
            }
            plainEndsInARow = 0
            if byte == 0x0A || byte == 0x0D { break }
            if line.count == Interpreter.maximumLineLength {
                lineWasTooLong = true
                guard discardRestOfLine() else { return .hungUp }
                return .tooLong
            }
            line.append(byte)
        }
        return .line(String(decoding: line, as: UTF8.self))
    }

    /// Ends of input read in a row by ``readPlainLine(prompt:)``.
    nonisolated(unsafe) private static var plainEndsInARow = 0

    /// Reads and drops input up to and including the end of the line (CR or
    /// LF), or until none comes for a moment (a paste without a final newline).
    /// False on Ctrl-C or when the terminal is gone.
    private static func discardRestOfLine() -> Bool {
        while true {
            if pendingIndex == pendingCount {
                var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
                if poll(&descriptor, 1, 200) == 0 { return true }
            }
            guard let byte = nextByte() else { return false }
            if byte == 0x0A || byte == 0x0D { return true }
        }
    }

    /// One byte from the terminal, or nil on Ctrl-C or when it is gone (then
    /// ``inputClosed`` is set, for good).
    private static func nextByte() -> UInt8? {
        while true {
            if Recovery.pendingSignal.load(ordering: .relaxed) != 0 {
                inputClosed = true
                return nil
            }
            if interruptReceived.load(ordering: .relaxed) { return nil }
            if pendingIndex < pendingCount {
                defer { pendingIndex += 1 }
                return pending[pendingIndex]
            }
            guard fillPending() else { return nil }
        }
    }

    /// Waits for input and reads what has arrived, up to 64 KiB, into
    /// ``pending``; false on Ctrl-C or when the terminal is gone.
    private static func fillPending() -> Bool {
        while true {
            if Recovery.pendingSignal.load(ordering: .relaxed) != 0 {
                inputClosed = true
                return false
            }
            if interruptReceived.load(ordering: .relaxed) { return false }
            var descriptors = [
                pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wakeUpReadEnd, events: Int16(POLLIN), revents: 0),
            ]
            if poll(&descriptors, nfds_t(descriptors.count), -1) < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                inputClosed = true
                return false
            }
            if descriptors[1].revents != 0 {
                drainWakeUpPipe()
                continue  // the flag says why
            }
            if descriptors[0].revents != 0 {
                let count = pending.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
                pendingCount = max(count, 0)
                pendingIndex = 0
                if count > 0 { return true }
                if count < 0, errno == EINTR || errno == EAGAIN { continue }
                inputClosed = true  // end of file or EIO: the terminal hung up
                return false
            }
        }
    }

    private static func drainWakeUpPipe() {
        guard wakeUpReadEnd >= 0 else { return }
        var buffer = [UInt8](repeating: 0, count: 64)
        while buffer.withUnsafeMutableBytes({ read(wakeUpReadEnd, $0.baseAddress, $0.count) }) > 0 {}
    }
}
