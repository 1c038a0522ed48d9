import Folio
import Foundation
import Testing
@testable import FolioREPL

@Suite struct InterpreterTests {
    @Test("help lists every command and help COMMAND explains one with an example")
    func help() throws {
        let session = try Session("Animals")
        let overview = try session.run("help")
        for command in Interpreter.commandNames { #expect(overview.contains(command)) }
        let list = try session.run("help list")
        #expect(list.hasPrefix("list ENTITY [COLUMN, …] [where PREDICATE]"))
        #expect(list.contains("example:\n  list Animal name, category.name where"))
        #expect(try session.run("help quit!").hasPrefix("quit\nquit!\n"))
        #expect(session.error("help frobnicate") == CommandError("no command 'frobnicate'; try 'help'", column: 6))
        #expect(session.error("help list now") == CommandError("unexpected 'now'", column: 11))
    }

    @Test("an unknown command names its own column; blank lines and comments do nothing")
    func unknownCommandAndComments() throws {
        let session = try Session("Animals")
        #expect(session.error("frobnicate") == CommandError("unknown command 'frobnicate'; try 'help'", column: 1))
        #expect(session.error("  frobnicate x") == CommandError("unknown command 'frobnicate'; try 'help'", column: 3))
        #expect(try session.outcome("") == .proceed)
        #expect(try session.outcome("   ") == .proceed)
        #expect(try session.outcome("# delete everything") == .proceed)
        #expect(session.transcript.isEmpty)
    }

    @Test("an unterminated quote is reported at the quote's column")
    func unterminatedQuote() throws {
        let session = try Session("Animals")
        #expect(session.error("insert Animal name=\"Tree Frog") == CommandError("unterminated string", column: 20))
        #expect(session.error("count Animal where name == 'x") == CommandError("unterminated string", column: 28))
    }

    @Test("the prompt names the document and marks unsaved changes")
    func prompt() throws {
        let session = try Session("Animals")
        #expect(session.interpreter.prompt == "Animals> ")
        try session.run("set 2 name=Eft")
        #expect(session.interpreter.prompt == "Animals*> ")
        #expect(session.interpreter.hasUnsavedChanges)
        try session.run("save")
        #expect(session.interpreter.prompt == "Animals> ")
    }

    @Test("a context without an undo manager is given one")
    func wrapsContext() throws {
        let url = try sampleCopy("Countries")
        let context = ModelContext(try ModelContainer(contentsOf: url))
        let interpreter = Interpreter(context: context, documentURL: url)
        #expect(context.undoManager != nil)
        var output = ""
        interpreter.write = { output += $0 }
        _ = try interpreter.execute("set 1 visited=true")
        _ = try interpreter.execute("undo")
        #expect(output == "updated Country#1\nundid Set Country#1.visited\n")
    }

    @Test("a command that fails after changing something is undone as a whole, keeping the undo history")
    func failedChangeIsUndone() throws {
        let session = try Session("Animals")
        let kiwi = try firstNumber(in: try session.run("insert Animal name=Kiwi diet=omnivorous"))
        let context = session.interpreter.context
        let newt = try #require(context.identifier(forNumber: 2))
        #expect(throws: CommandError("boom")) {
            try session.interpreter.change { () throws(CommandError) in
                try? context.setValue(.string("Eft"), for: "name", of: newt)
                try? context.setValue(.string("herbivorous"), for: "diet", of: newt)
                throw CommandError("boom")
            }
        }
        #expect(try context.value("name", of: newt) == .string("Newt"))
        #expect(try context.value("diet", of: newt) == .string("carnivorous"))
        #expect(context.undoManager?.undoActionNames == ["Insert Animal#\(kiwi)"])
    }
}
