import Testing
@testable import FolioREPL

@Suite struct CommandLineTextTests {
    func words(_ line: String) -> [String] { CommandLineText(line).words.map(\.text) }

    @Test("words split at spaces; quotes and brackets group; columns count from 1")
    func grouping() {
        #expect(
            words("insert Animal name=\"Tree Frog\" tags=[a, b] map={k: v w}") == ["insert", "Animal", "name=\"Tree Frog\"", "tags=[a, b]", "map={k: v w}"])
        #expect(words("  list\tAnimal   where (a == 1 or b == 2)") == ["list", "Animal", "where", "(a == 1 or b == 2)"])
        #expect(words("list Animal where name == 'a b' sort name") == ["list", "Animal", "where", "name", "==", "'a b'", "sort", "name"])
        #expect(CommandLineText("  set  2").words.map(\.column) == [3, 8])
        #expect(CommandLineText("set 2 name=\"x\\\" y\"").words.count == 3)
    }

    @Test("a quote inside a word is a letter; an opening quote without its end is reported")
    func quotes() {
        #expect(words("set 2 name=it's diet=x") == ["set", "2", "name=it's", "diet=x"])
        #expect(words("set 2 name=a\"b c") == ["set", "2", "name=a\"b", "c"])
        #expect(CommandLineText("set 2 name=it's").unterminatedQuote == nil)
        #expect(CommandLineText("set 2 name='it").unterminatedQuote == 12)
        #expect(CommandLineText.unquoted("'it\\'s'") == "it's")
        #expect(CommandLineText.unquoted("plain") == "plain")
    }

    @Test("an apostrophe in a bare value reaches the document as typed")
    func apostrophe() throws {
        let session = try Session("Animals")
        try session.run("set 2 name=Newt's diet=carnivorous")
        #expect(try session.run("show 2").contains("name      \"Newt's\""))
    }
}
