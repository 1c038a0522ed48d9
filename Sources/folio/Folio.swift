import ArgumentParser
import Folio
import FolioREPL
import Foundation

/// `folio`: edit Folio document packages from the terminal or a script.
@main
struct FolioCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "folio",
        abstract: "Edit, delete, undo and save Folio document packages.")

    @Argument(help: "The document package (Name.folio) to open.")
    var path: String

    @Flag(name: .long, help: "Answer yes to every confirmation.")
    var yes = false

    @Option(name: .long, help: "Run the commands in this file instead of reading them from the terminal.")
    var script: String?

    mutating func run() throws {
        let interpreter = try Interpreter(opening: URL(fileURLWithPath: path), options: .init(assumeYes: yes))
        var lineNumber = 0
        while let line = readLine() {
            lineNumber += 1
            do {
                if try interpreter.execute(line) == .quit { return }
            } catch {
                FileHandle.standardError.write(Data("error: \(lineNumber): \(error)\n".utf8))
                throw ExitCode.failure
            }
        }
    }
}
