/// One command of the REPL, declared once: its name, what `help` says about
/// it, whether a read-only document refuses it, what it runs and what
/// completes after it. ``Interpreter/commands`` lists them all; the
/// interpreter, `help` and completion read that list, so a command is added
/// in one place.
struct Command {
    /// What `help` says about a command.
    struct Help {
        /// Its forms, one line each.
        var usage: [String]
        /// One line, for the overview.
        var summary: String
        /// What `help COMMAND` adds.
        var details: [String]
        /// Lines to try.
        var example: [String]
    }

    /// Whether a read-only document refuses the command.
    enum Edits {
        /// It never changes the document.
        case never
        /// It changes the document.
        case always
        /// It changes the document unless the line says otherwise (`save as`
        /// writes a copy).
        case unless((CommandLineText) -> Bool)

        /// Whether this line of the command would change the document.
        func edits(_ text: CommandLineText) -> Bool {
            switch self {
            case .never: return false
            case .always: return true
            case .unless(let exempt): return !exempt(text)
            }
        }
    }

    /// The first word of its lines.
    var name: String
    /// What `help` says about it.
    var help: Help
    /// The command whose `help` entry explains this one too (`quit!` is
    /// explained with `quit`); `nil` for its own.
    var helpTopic: String?
    /// Whether a read-only document refuses it.
    var edits: Edits
    /// What runs one line of a command (its first word the command's name), on an interpreter.
    typealias Runner = (Interpreter) -> (CommandLineText) throws(CommandError) -> Interpreter.Outcome

    /// Runs one line of it.
    var run: Runner
    /// The candidates for the word being typed, given the words before it
    /// (the command's name first) and what is typed of it.
    var complete: (Interpreter, [String], String) -> [String]

    init(
        name: String, help: Help, helpTopic: String? = nil, edits: Edits = .never,
        run: @escaping Runner,
        complete: @escaping (Interpreter, [String], String) -> [String] = { _, _, _ in [] }
    ) {
        (self.name, self.help, self.helpTopic, self.edits, self.run, self.complete) = (name, help, helpTopic, edits, run, complete)
    }

    /// A runner for a command that never ends the session: `body`, then ``Interpreter/Outcome/proceed``.
    static func proceeding(_ body: @escaping (Interpreter) -> (CommandLineText) throws(CommandError) -> Void) -> Runner {
        { interpreter in
            { (text: CommandLineText) throws(CommandError) -> Interpreter.Outcome in
                try body(interpreter)(text)
                return .proceed
            }
        }
    }

    /// `save as PATH`: a copy written, the document itself unchanged.
    static func savesACopy(_ text: CommandLineText) -> Bool {
        text.words.count > 1 && text.words[1].keyword == "as"
    }
}
