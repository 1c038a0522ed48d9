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
/// silently skips a destructive step. Reaching the end of the input with
/// unsaved changes is an error too (exit 1, saying what was discarded), unless
/// the user asked to save or discard them then (``AtEnd``): a script never ends
/// "successfully" having kept nothing of what it did.
final class ScriptSession {
    /// What to do with unsaved changes when the input ends.
    enum AtEnd {
        /// Fail: the changes are discarded, the message says what they were, exit 1.
        case fail
        /// Save them, as a last `save` would (`--save-at-end`).
        case save
        /// Discard them, with a note (`--discard-at-end`).
        case discard
    }

    private let interpreter: Interpreter
    private let atEnd: AtEnd
    /// The question a command asked during the current line, answered no.
    private var refusedQuestion: String?

    init(interpreter: Interpreter, atEnd: AtEnd = .fail) {
        self.interpreter = interpreter
        self.atEnd = atEnd
        interpreter.confirm = { [unowned self] question in
            refusedQuestion = question
            return false
        }
    }

    /// Runs every command the lines `nextLine` returns hold (a command may
    /// continue over several lines, ``CommandInput``) until it returns nil or a
    /// command quits. An unfinished command at the end runs as it is (and fails
    /// at what is open).
    ///
    /// - Throws: `ExitCode.failure` after printing the first error.
    func run(_ nextLine: () -> String?) throws {
        var lineNumber = 0
        var input = CommandInput()
        var firstLine = 1
        while let line = nextLine() {
            lineNumber += 1
            if input.lines.isEmpty { firstLine = lineNumber }
            let length = line.utf8.count
            if length > Interpreter.maximumLineLength {
                throw failure(lineNumber, Interpreter.overlongLine(bytes: length), in: line)
            }
            input.append(line)
            if input.byteCount > Interpreter.maximumLineLength {
                throw failure(firstLine, Interpreter.overlongLine(bytes: input.byteCount), in: input.lines[0])
            }
            guard input.isComplete else { continue }
            defer { input = CommandInput() }
            if try execute(input, at: firstLine) == .quit { return }
        }
        if !input.lines.isEmpty, try execute(input, at: firstLine) == .quit { return }
        guard interpreter.hasUnsavedChanges else { return }
        switch atEnd {
        case .save:
            do { _ = try interpreter.execute("save") } catch {
                Output.diagnostic("error", kind: error.kind.rawValue, "the save at the end of the script failed: \(error.message)")
                throw ExitCode.failure
            }
        case .discard:
            Output.diagnostic(
                "note", kind: "unsavedChanges",
                "unsaved changes discarded at the end of the script (\(interpreter.changeCounts))")
        case .fail:
            let message =
                "the script ended without save: its unsaved changes (\(interpreter.changeCounts)) were discarded; "
                + "end it with save, or run folio with --save-at-end (--discard-at-end to discard them on purpose)"
            Output.diagnostic("error", kind: "unsavedChanges", message)
            throw ExitCode.failure
        }
    }

    /// Runs one command that started at line `firstLine`; an error is reported
    /// at the line and column of the command it falls on.
    private func execute(_ input: CommandInput, at firstLine: Int) throws -> Interpreter.Outcome {
        refusedQuestion = nil
        let outcome: Interpreter.Outcome
        do {
            outcome = try Interruption.during(interpreter) { () throws(CommandError) in try interpreter.execute(input.text) }
        } catch {
            // Stopped by SIGTERM, SIGHUP, SIGINT or SIGPIPE: the script ends by that signal, recovery package first.
            Recovery.endIfAsked()
            // A refused confirmation is the cause, whatever the command made of the answer.
            throw failure(refusedQuestion.map(ScriptSession.needsYesError) ?? error, in: input, at: firstLine)
        }
        if let question = refusedQuestion { throw failure(ScriptSession.needsYesError(question), in: input, at: firstLine) }
        return outcome
    }

    /// ``failure(_:_:in:)`` at the physical line of a command over several lines.
    private func failure(_ error: CommandError, in input: CommandInput, at firstLine: Int) -> ExitCode {
        let (offset, column) = input.location(ofColumn: error.column)
        var located = error
        located.column = column
        return failure(firstLine + offset, located, in: input.lines[offset])
    }

    /// Prints `error: LINE: message`, then the line with a caret under the
    /// error's column (``ErrorPointer``); with `--json`, a JSON object. The
    /// script then ends with status 1.
    private func failure(_ lineNumber: Int, _ error: CommandError, in line: String) -> ExitCode {
        Output.diagnostic(
            "error", kind: error.kind.rawValue, error.message, line: lineNumber, column: error.column,
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
