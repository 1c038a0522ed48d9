import FolioCore

extension Interpreter {
    /// How the REPL spells a count or an id, wherever it prints one — tables,
    /// summaries, undo step names, history, JSON: plain digits, never grouped
    /// ("1000", not Foundation's "1,000"), so a number reads the same in every
    /// place and a script can parse it. Values (ints, doubles, decimals) are
    /// spelled by the library's one canonical text (`Value.description`,
    /// `Value.text(as:)`), which ``JSONText`` uses too.
    static func number(_ value: some BinaryInteger) -> String { String(value) }
}
