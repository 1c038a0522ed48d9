import Folio
import Foundation
import Testing
@testable import FolioREPL

/// Each command is declared once (`Command`, `Interpreter.commands`): what the
/// interpreter runs, what `help` says, what completes and what a read-only
/// document refuses all come from that one list.
@Suite struct CommandTableTests {
    @Test("every command in the list has its help (its own or its topic's), and names are unique")
    func everyCommandIsExplained() throws {
        #expect(Set(Interpreter.commandNames).count == Interpreter.commands.count)
        for command in Interpreter.commands {
            let topic = Interpreter.commandsByName[command.helpTopic ?? command.name]
            #expect(topic != nil, "\(command.name)")
            #expect(!(topic?.help.usage.isEmpty ?? true) && !(topic?.help.example.isEmpty ?? true), "\(command.name)")
            #expect(!command.help.summary.isEmpty, "\(command.name)")
        }
        let session = try Session("Animals")
        let overview = try session.run("help").split(separator: "\n").map(String.init)
        // The overview lists exactly the commands, in the list's order.
        let listed = overview.dropFirst().prefix(Interpreter.commands.count).map {
            String($0.drop(while: { $0 == " " }).prefix { $0 != " " })
        }
        #expect(listed == Interpreter.commandNames)
    }

    @Test("a read-only document refuses exactly the commands declared as editing, save as excepted")
    func readOnlyFollowsTheDeclaration() throws {
        let session = try Session("Animals")
        let readOnly = try Session(url: session.url, options: .init(readOnly: true))
        let lines = [
            "insert AnimalCategory name=X", "set 2 name=Y", "link 24 animals 2", "unlink 24 animals 2",
            "delete 2", "save", "import Animal from /nonexistent.csv", "resolve 1 ours",
        ]
        for line in lines {
            let name = String(line.prefix { $0 != " " })
            #expect(Interpreter.commandsByName[name]?.edits.edits(CommandLineText(line)) == true, "\(line)")
            #expect(readOnly.error(line)?.kind == .readOnly, "\(line)")
        }
        #expect(Interpreter.commandsByName["save"]?.edits.edits(CommandLineText("save as /tmp/x.folio")) == false)
        let editing = Interpreter.commands.filter { $0.edits.edits(CommandLineText($0.name)) }.map(\.name)
        #expect(Set(editing) == ["insert", "set", "link", "unlink", "delete", "save", "import", "resolve"])
        for command in Interpreter.commands where !editing.contains(command.name) && command.name != "quit" {
            #expect(readOnly.error(command.name)?.kind != .readOnly, "\(command.name)")
        }
    }
}
