import ArgumentParser
import FolioREPL
import Foundation

/// Script mode: commands from a file or a pipe, no banner and no prompt, only
/// each command's output on stdout.
///
/// The first failing command stops the script: `error: LINE: message` on
/// stderr (LINE is 1-based), the line with a caret under the offending column
/// (with `--json`, a JSON object with its line, column, message and kind),
/// and exit status 1. A line longer than ``Interpreter/maximumLineLength`` is
/// such an error. A command that asks for
/// confirmation fails the same way unless `--yes` was given, so a script never
/// silently skips a destructive step. Reaching the end of the input exits 0;
/// unsaved changes are then discarded with a warning (scripts `save`
/// explicitly).
final class ScriptSession {
    private let interpreter: Interpreter
    /// The question a command asked during the current line, answered no.
    private var refusedQuestion: String?

    init(interpreter: Interpreter) {
        self.interpreter = interpreter
        interpreter.confirm = { [unowned self] question in
            refusedQuestion = question
            return false
        }
    }

    /// Runs every line `nextLine` returns until it returns nil or a command quits.
    ///
    /// - Throws: `ExitCode.failure` after printing the first error.
    func run(_ nextLine: () -> String?) throws {
        var lineNumber = 0
        while let line = nextLine() {
            lineNumber += 1
            refusedQuestion = nil
            let length = line.utf8.count
            if length > Interpreter.maximumLineLength {
                throw failure(lineNumber, Interpreter.overlongLine(bytes: length), in: line)
            }
            let outcome: Interpreter.Outcome
            do {
                outcome = try interpreter.execute(line)
            } catch {
                // A refused confirmation is the cause, whatever the command made of the answer.
                throw failure(lineNumber, refusedQuestion.map(ScriptSession.needsYesError) ?? error, in: line)
            }
            if let question = refusedQuestion { throw failure(lineNumber, ScriptSession.needsYesError(question), in: line) }
            if outcome == .quit { return }
        }
        if interpreter.hasUnsavedChanges {
            Output.diagnostic("warning", kind: "unsavedChanges", "unsaved changes discarded (end of script without save)")
        }
    }

    /// Prints `error: LINE: message`, then the line with a caret under the
    /// error's column (``ErrorPointer``); with `--json`, a JSON object. The
    /// script then ends with status 1.
    private func failure(_ lineNumber: Int, _ error: CommandError, in line: String) -> ExitCode {
        Output.diagnostic("error", kind: error.kind.rawValue, error.message, line: lineNumber, column: error.column,
                          text: ErrorPointer.report(error, in: line, lineNumber: lineNumber))
        return .failure
    }

    /// ``needsYes(_:)`` as an error of the whole line.
    static func needsYesError(_ question: String) -> CommandError {
        CommandError(needsYes(question), kind: .confirmation)
    }

    /// Why a script cannot go on after a question: `needs confirmation ("Quit
    /// without saving?"); run folio with --yes …`, from the question's last
    /// line without its `[y/N]`.
    static func needsYes(_ question: String) -> String {
        let lastLine = question.split(whereSeparator: \.isNewline).last.map(String.init) ?? question
        var text = lastLine.trimmingCharacters(in: .whitespaces)
        if text.hasSuffix("[y/N]") { text = String(text.dropLast(5)).trimmingCharacters(in: .whitespaces) }
        return "needs confirmation (\"\(text)\"); run folio with --yes to answer yes in a script"
    }
}
