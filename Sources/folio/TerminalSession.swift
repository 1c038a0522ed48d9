import ArgumentParser
import FolioCore
import FolioREPL
import Foundation

/// The interactive session, when stdin and stdout are terminals: a banner, a
/// prompt naming the document with `*` for unsaved changes, line editing,
/// history and completion.
///
/// Errors print `error: message` with the line and a caret under the
/// offending column (``ErrorPointer``; with `--json`, a JSON object on stderr,
/// and no banner: stdout holds JSON only), and the session goes on. A line over
/// ``Interpreter/maximumLineLength`` is read no further than the limit and
/// refused with an error. Ctrl-C discards the
/// line, or stops the command running (which changes nothing, ``Interruption``),
/// and never exits; Ctrl-D quits as `quit` does, so unsaved changes are
/// confirmed first. Confirmations read a y/N answer from the terminal.
struct TerminalSession {
    let interpreter: Interpreter

    init(interpreter: Interpreter) {
        self.interpreter = interpreter
        interpreter.confirm = TerminalSession.ask
    }

    /// Runs until `quit`, Ctrl-D, a hang-up or SIGTERM (those two write the
    /// unsaved work to a recovery package first, see ``Recovery``).
    ///
    /// - Throws: `ExitCode.failure` when the terminal went away.
    func run() throws {
        LineEditor.completer = { [interpreter] line in interpreter.completions(for: line) }
        LineEditor.start(historyPath: Platform.historyPath)
        defer { LineEditor.saveHistory() }
        if !interpreter.options.json { Output.standard(banner + "\n") }  // stdout holds JSON only

        while true {
            switch LineEditor.readLine(prompt: interpreter.prompt) {
            case .line(let line):
                LineEditor.addToHistory(line)
                // A line left unfinished (a trailing \, an open quote or bracket) goes on at "...> ".
                var input = CommandInput()
                input.append(line)
                while !input.isComplete {
                    switch LineEditor.readLine(prompt: CommandInput.continuationPrompt) {
                    case .line(let more):
                        LineEditor.addToHistory(more)
                        input.append(more)
                    case .hungUp:
                        try hangUp()
                    case .interrupted, .endOfInput, .tooLong:
                        // Ctrl-C or Ctrl-D discards the unfinished command, as psql does.
                        Output.standard("\n")
                        input = CommandInput()
                    }
                }
                if input.lines.isEmpty { continue }
                if input.byteCount > Interpreter.maximumLineLength {
                    let error = Interpreter.overlongLine(bytes: input.byteCount)
                    Output.diagnostic("error", kind: error.kind.rawValue, error.message, text: ErrorPointer.report(error, in: ""))
                    continue
                }
                if execute(input) == .quit { return }
            case .interrupted:
                Output.standard("\n")
            case .tooLong:
                let error = Interpreter.overlongLine()
                Output.diagnostic("error", kind: error.kind.rawValue, error.message, text: ErrorPointer.report(error, in: ""))
            case .endOfInput:
                Output.standard("\n")
                if execute("quit") == .quit { return }
            case .hungUp:
                try hangUp()
            }
            Recovery.endIfAsked()
        }
    }

    /// SIGHUP, SIGTERM or a terminal that went away: the unsaved work goes to a recovery package.
    private func hangUp() throws -> Never {
        LineEditor.saveHistory()
        Recovery.endIfAsked()
        Recovery.saveWork(reason: "the terminal went away")
        throw ExitCode.failure
    }

    /// "folio — Animals.folio, 36 objects. Type help."
    var banner: String {
        let context = interpreter.context
        let objects = context.schema.entities.reduce(0) { total, entity in
            total + ((try? context.fetchCount(DynamicFetchDescriptor(entity: entity.name, includesSubentities: false))) ?? 0)
        }
        let name = TerminalText.escaped(interpreter.documentURL.lastPathComponent)
        return "folio — \(name), \(objects) object\(objects == 1 ? "" : "s"). Type help."
    }

    /// Runs a line; Ctrl-C (or SIGTERM, SIGHUP) stops it (``Interruption``).
    private func execute(_ line: String) -> Interpreter.Outcome {
        var input = CommandInput()
        input.append(line)
        return execute(input)
    }

    /// Runs a command; an error points at the line of it where it falls.
    private func execute(_ input: CommandInput) -> Interpreter.Outcome {
        do {
            return try Interruption.during(interpreter) { () throws(CommandError) in try interpreter.execute(input.text) }
        } catch {
            // A terminating signal stopped it: end now, as at the prompt.
            Recovery.endIfAsked()
            if error.kind == .cancelled {
                // On a line of its own: the terminal echoed ^C wherever the output was.
                Output.diagnostic("note", kind: error.kind.rawValue, error.message, text: "\ncancelled")
                return .proceed
            }
            let (offset, column) = input.location(ofColumn: error.column)
            var located = error
            located.column = column
            Output.diagnostic(
                "error", kind: error.kind.rawValue, error.message, column: column,
                text: ErrorPointer.report(located, in: input.lines[offset]))
            return .proceed
        }
    }

    /// Asks on the terminal; only `y` or `yes` (any case) is yes. Ctrl-C or
    /// Ctrl-D answers no. Lines of the question before its last are printed,
    /// the last is the prompt.
    private static func ask(_ question: String) -> Bool {
        var lines = question.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let prompt = lines.popLast() ?? ""
        if !lines.isEmpty { Output.standard(lines.joined(separator: "\n") + "\n") }
        switch LineEditor.readLine(prompt: prompt) {
        case .line(let answer):
            let answer = answer.trimmingCharacters(in: .whitespaces).lowercased()
            return answer == "y" || answer == "yes"
        case .interrupted, .endOfInput:
            Output.standard("\n")
            return false
        case .tooLong:
            return false
        case .hungUp:
            return false
        }
    }
}
