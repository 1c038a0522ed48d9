/// Why a REPL command failed: a message and the 1-based column of the
/// offending token in the command line (0 when it concerns the whole line).
public struct CommandError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What went wrong, for people.
    public var message: String
    /// Where in the line, 1-based; 0 for the whole line.
    public var column: Int

    /// Creates an error.
    public init(_ message: String, column: Int = 0) {
        self.message = message
        self.column = column
    }

    /// `column N: message`, or the message alone; control characters a message
    /// echoes from the line or the document are escaped (``TerminalText``).
    public var description: String {
        let text = TerminalText.escaped(message)
        return column > 0 ? "column \(column): \(text)" : text
    }
}
