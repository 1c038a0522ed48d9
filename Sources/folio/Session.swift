import ArgumentParser
import FolioCore
import FolioREPL
import Foundation

/// One run of the interpreter over a document: a script or a terminal session.
enum Session {
    /// Opens the package and runs commands from `--script FILE`, piped stdin,
    /// or the terminal. Says first when an earlier session left a recovery
    /// package for the document, and writes one if SIGTERM, SIGHUP or a trap
    /// ends this session with unsaved changes (``Recovery``).
    ///
    /// - Throws: `ExitCode.failure` after printing the error when the package
    ///   or script cannot be read, or a script command fails.
    static func run(opening url: URL, options: SessionOptions) throws {
        Output.json = options.json
        StderrLogHandler.bootstrap
        let interpreter: Interpreter
        // Said plainly, before the library's reasons why a package cannot be read.
        guard FileManager.default.fileExists(atPath: url.path) else {
            Output.diagnostic(
                "error", kind: "open",
                "\(url.relativePath) does not exist "
                    + "(folio new PATH --schema FILE creates a document)")
            throw ExitCode.failure
        }
        do {
            interpreter = try Interpreter(opening: url, options: options.interpreterOptions)
        } catch {
            Output.diagnostic("error", kind: "open", "\(error)")
            throw ExitCode.failure
        }
        interpreter.write = Output.standard
        interpreter.writeNote = Output.standardError
        if let notice = Recovery.notice(for: url) {
            Output.diagnostic("note", kind: "recovery", notice.hasPrefix("note: ") ? String(notice.dropFirst(6)) : notice, text: notice)
        }
        // Said at the prompt only: a script's diagnostics are its errors.
        if let note = interpreter.undoJournalNote, Platform.isInteractive {
            Output.diagnostic("note", kind: "undo", note)
        }
        Recovery.install(for: interpreter)
        // A SIGTERM or SIGHUP while a script waits for its next line ends the read (no SA_RESTART).
        func nextLine(_ read: () -> String?) -> String? {
            Recovery.endIfAsked()
            let line = read()
            Recovery.endIfAsked()
            return line
        }

        if let path = options.script {
            guard FileManager.default.fileExists(atPath: path) else {
                Output.diagnostic("error", kind: "script", "\(path): the script does not exist")
                throw ExitCode.failure
            }
            guard let file = fopen(path, "r") else {
                Output.diagnostic("error", kind: "script", "\(path): cannot read the script: \(String(cString: strerror(errno)))")
                throw ExitCode.failure
            }
            defer { fclose(file) }
            try ScriptSession(interpreter: interpreter, atEnd: options.atEnd).run { nextLine { Platform.readLine(from: file) } }
        } else if Platform.isInteractive {
            try TerminalSession(interpreter: interpreter).run()
        } else {
            // Not Swift's readLine(): it retries getline on EINTR forever once stdin's error flag is set.
            guard let input = fdopen(STDIN_FILENO, "r") else {
                Output.diagnostic("error", kind: "script", "cannot read standard input: \(String(cString: strerror(errno)))")
                throw ExitCode.failure
            }
            try ScriptSession(interpreter: interpreter, atEnd: options.atEnd).run { nextLine { Platform.readLine(from: input) } }
        }
    }
}
