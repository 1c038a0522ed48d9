import ArgumentParser
import Folio
import FolioREPL
import Foundation

/// One run of the interpreter over a document: a script or a terminal session.
enum Session {
    /// Opens the package and runs commands from `--script FILE`, piped stdin,
    /// or the terminal.
    ///
    /// - Throws: `ExitCode.failure` after printing the error when the package
    ///   or script cannot be read, or a script command fails.
    static func run(opening url: URL, options: SessionOptions) throws {
        let interpreter: Interpreter
        do {
            interpreter = try Interpreter(opening: url, options: options.interpreterOptions)
        } catch {
            Output.error("error: \(error)")
            throw ExitCode.failure
        }
        interpreter.write = Output.standard

        if let path = options.script {
            guard let file = fopen(path, "r") else {
                Output.error("error: \(path): cannot read the script: \(String(cString: strerror(errno)))")
                throw ExitCode.failure
            }
            defer { fclose(file) }
            try ScriptSession(interpreter: interpreter).run { Platform.readLine(from: file) }
        } else if Platform.isInteractive {
            try TerminalSession(interpreter: interpreter).run()
        } else {
            try ScriptSession(interpreter: interpreter).run { readLine() }
        }
    }
}
