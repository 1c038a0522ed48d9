@preconcurrency import CLibEdit
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

    /// Forgets an earlier Ctrl-C (one typed while a command ran).
    static func resetInterrupt() {
        interruptReceived.store(false, ordering: .relaxed)
        drainWakeUpPipe()
    }

    /// Whether Ctrl-C was typed since ``resetInterrupt()``; clears it.
    static func takeInterrupt() -> Bool {
        drainWakeUpPipe()
        return interruptReceived.exchange(false, ordering: .relaxed)
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
    static let readCharacter: @convention(c) (UnsafeMutablePointer<FILE>?) -> Int32 = { _ in
        guard let first = LineEditor.nextByte() else { return -1 }
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
            bytes.append(next)
        }
        guard let scalar = String(validating: bytes, as: UTF8.self)?.unicodeScalars.first else { return 0xFFFD }
        return Int32(scalar.value)
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
            var descriptors = [pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0),
                               pollfd(fd: wakeUpReadEnd, events: Int16(POLLIN), revents: 0)]
            if poll(&descriptors, nfds_t(descriptors.count), -1) < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                inputClosed = true
                return nil
            }
            if descriptors[1].revents != 0 {
                drainWakeUpPipe()
                continue  // the flag says why
            }
            if descriptors[0].revents != 0 {
                var byte: UInt8 = 0
                let count = read(STDIN_FILENO, &byte, 1)
                if count == 1 { return byte }
                if count < 0, errno == EINTR || errno == EAGAIN { continue }
                inputClosed = true  // end of file or EIO: the terminal hung up
                return nil
            }
        }
    }

    private static func drainWakeUpPipe() {
        guard wakeUpReadEnd >= 0 else { return }
        var buffer = [UInt8](repeating: 0, count: 64)
        while buffer.withUnsafeMutableBytes({ read(wakeUpReadEnd, $0.baseAddress, $0.count) }) > 0 {}
    }
}
