import FolioREPL
import Synchronization

/// One way a running command is stopped: Ctrl-C in a terminal session (the
/// line editor's SIGINT flag), or a signal that ends folio (``Recovery``'s
/// pending signal: SIGTERM, SIGHUP, and in a script SIGINT and SIGPIPE).
///
/// Both flags are atomics their signal handlers set, so asking is one load
/// each, made from the main thread by the interpreter between rows and by the
/// library every few thousand objects (``Interpreter/isCancelled``, installed
/// as the context's `cancellationCheck`). A stopped command throws
/// `CommandError.cancelled` having changed nothing; a terminal session then
/// says `cancelled` and shows the prompt, and a terminating signal then ends
/// folio as it does at the prompt, recovery package first. While a command
/// runs, a write to a terminal or pipe that is not being read (a table of
/// 100,000 rows nobody scrolls) is abandoned when a signal interrupts it
/// (``Output``), so a full terminal cannot keep Ctrl-C or SIGTERM waiting.
enum Interruption {
    /// Whether the running command should stop.
    static func requested() -> Bool {
        LineEditor.interruptPending || Recovery.pendingSignal.load(ordering: .relaxed) != 0
    }

    /// Runs a command (`body`) with ``requested()`` as its cancellation check,
    /// and with ``Output`` abandoning interrupted writes meanwhile.
    static func during<Result, Failure: Error>(
        _ interpreter: Interpreter,
        _ body: () throws(Failure) -> Result
    ) throws(Failure) -> Result {
        interpreter.isCancelled = requested
        Output.abandonsInterruptedWrites = true
        defer { Output.abandonsInterruptedWrites = false }
        return try body()
    }
}
