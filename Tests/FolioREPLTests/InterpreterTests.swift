import Foundation
import Testing
@testable import FolioREPL

@Suite struct InterpreterTests {
    @Test("help lists every command")
    func helpListsCommands() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("SampleDocuments/Animals.folio")
        let interpreter = try Interpreter(opening: url)
        var output = ""
        interpreter.write = { output += $0 }
        #expect(try interpreter.execute("help") == .proceed)
        for command in Interpreter.commandNames { #expect(output.contains(command)) }
        #expect(throws: CommandError("unknown command 'frobnicate'; try 'help'", column: 1)) { try interpreter.execute("frobnicate") }
    }
}
