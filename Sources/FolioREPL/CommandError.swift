/// Why a REPL command failed: a message, the 1-based column of the
/// offending token in the command line (0 when it concerns the whole line),
/// and what kind of failure it is, for programs reading `--json` errors.
public struct CommandError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What kind of failure, as `--json` names it in `"kind"`.
    public enum Kind: String, Sendable, CaseIterable {
        /// The command line is wrong: an unknown command or name, a missing or
        /// unexpected word, a value that does not parse or fit.
        case command
        /// The `where` predicate does not parse or cannot be applied.
        case predicate
        /// The document refused the change: a value of the wrong type, an
        /// unknown object, a limit.
        case edit
        /// `save` found broken rules (deny, uniqueness, counts); nothing was written.
        case validation
        /// Reading or writing the package failed.
        case file
        /// The document is open read-only.
        case readOnly
        /// A question needed an answer nobody could give: a script without `--yes`.
        case confirmation
        /// The user stopped the command (Ctrl-C, or a signal that ends folio)
        /// before it finished; it changed nothing (``Interpreter/isCancelled``).
        case cancelled
    }

    /// The error of a command stopped by ``Interpreter/isCancelled``: `cancelled`.
    public static let cancelled = CommandError("cancelled", kind: .cancelled)

    /// What went wrong, for people.
    public var message: String
    /// Where in the line, 1-based; 0 for the whole line.
    public var column: Int
    /// What kind of failure; it classifies the message and takes no part in equality.
    public var kind: Kind

    /// Creates an error.
    public init(_ message: String, column: Int = 0, kind: Kind = .command) {
        self.message = message
        self.column = column
        self.kind = kind
    }

    /// Errors are equal when their message and column are: the kind is derived from where they came from.
    public static func == (lhs: CommandError, rhs: CommandError) -> Bool {
        lhs.message == rhs.message && lhs.column == rhs.column
    }

    /// `column N: message`, or the message alone; control characters a message
    /// echoes from the line or the document are escaped (``TerminalText``).
    public var description: String {
        let text = TerminalText.escaped(message)
        return column > 0 ? "column \(column): \(text)" : text
    }
}
