/// A command typed over several lines, as psql and sqlite3 read one: a line
/// continues on the next when it ends in `\` (outside quotes: the backslash
/// is dropped), or when a quote or bracket it opened is still open (the line
/// break is then part of the command: inside quotes, of the string).
/// A comment line (`#`) never continues.
///
/// ```swift
/// var input = CommandInput()
/// input.append("insert Animal name='Snow")   // false: the quote is open
/// input.append("Leopard' diet=carnivorous")  // true: complete
/// try interpreter.execute(input.text)        // name is "Snow\nLeopard"
/// ```
///
/// The front ends show ``continuationPrompt`` while a command is unfinished and
/// report an error at the physical line and column it falls on (``location(ofColumn:)``).
public struct CommandInput: Sendable {
    /// The prompt of a continuation line on a terminal.
    public static let continuationPrompt = "...> "

    /// The lines as typed, without their line breaks.
    public private(set) var lines: [String] = []
    /// The command: the lines joined by line breaks, continuation backslashes dropped.
    public private(set) var text = ""
    /// Whether the command is finished (true for no lines at all).
    public private(set) var isComplete = true
    /// The command's length in UTF-8 bytes, checked against ``Interpreter/maximumLineLength``.
    public var byteCount: Int { text.utf8.count }

    /// Starts an empty command.
    public init() {}

    /// Adds a line; returns whether the command is now complete.
    @discardableResult
    public mutating func append(_ line: String) -> Bool {
        if !lines.isEmpty { text += "\n" }
        lines.append(line)
        text += line
        let parsed = CommandLineText(text)
        if parsed.words.first?.text.hasPrefix("#") == true {
            isComplete = true
        } else if parsed.unterminatedQuote != nil || parsed.endsInsideBrackets {
            isComplete = false
        } else if line.hasSuffix("\\") {
            text.removeLast()
            isComplete = false
        } else {
            isComplete = true
        }
        return isComplete
    }

    /// The line (0-based, among ``lines``) and the 1-based column in it of a
    /// 1-based column of ``text``, as errors name them.
    public func location(ofColumn column: Int) -> (line: Int, column: Int) {
        guard column > 0 else { return (0, 0) }
        var remaining = column
        for (index, line) in lines.enumerated() {
            // The text holds each line (a continuation's backslash dropped) and a line break after it.
            let length = line.unicodeScalars.count - (index < lines.count - 1 && line.hasSuffix("\\") && !keepsBackslash(index) ? 1 : 0)
            if remaining <= length + 1 || index == lines.count - 1 { return (index, remaining) }
            remaining -= length + 1
        }
        return (0, column)
    }

    /// Whether line `index`'s final backslash is in the text (it was inside a quote or bracket).
    private func keepsBackslash(_ index: Int) -> Bool {
        let before = lines[...index].joined(separator: "\n")
        let parsed = CommandLineText(before)
        return parsed.unterminatedQuote != nil || parsed.endsInsideBrackets
    }
}
