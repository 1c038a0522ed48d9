import Folio
import Foundation
@testable import FolioREPL
import Testing

/// Unknown names get a few close suggestions, never the whole schema.
@Suite struct NameSuggestionsTests {
    @Test("close names are suggested closest first, at most three, case ignored")
    func closest() {
        #expect(NameSuggestions.closest(to: "nme", among: ["diet", "name", "category"]) == ["name"])
        #expect(NameSuggestions.closest(to: "animal", among: ["AnimalCategory", "Animal"]) == ["Animal"])
        #expect(NameSuggestions.closest(to: "catgeory", among: ["category"]) == ["category"], "a swap is one edit")
        #expect(NameSuggestions.closest(to: "frobnicate", among: Interpreter.commandNames) == [])
        let many = (0..<10).map { "item\($0)" }
        #expect(NameSuggestions.closest(to: "item", among: many) == ["item0", "item1", "item2"])
    }

    @Test("the hint says did you mean, lists a small set of names when none is close, and is empty otherwise")
    func hint() {
        #expect(NameSuggestions.hint(for: "nme", among: ["name", "diet"]) == "; did you mean 'name'?")
        #expect(NameSuggestions.hint(for: "x", among: ["ab", "ac"]) == "")
        #expect(NameSuggestions.hint(for: "zzz", among: ["category"], listing: "relationships") == "; relationships: category")
        #expect(NameSuggestions.hint(for: "zzz", among: ["a1", "b2", "c3", "d4"], listing: "entities") == "")
        #expect(
            NameSuggestions.hint(for: "Entity1", among: ["Entity1a", "Entity1b", "Entity12"])
                == "; did you mean 'Entity1a', 'Entity1b' or 'Entity12'?")
    }

    @Test("help says how errors point at the spot and how long a line may be")
    func helpText() throws {
        let session = try Session("Animals")
        let text = try session.run("help")
        #expect(text.contains("Errors name the column, show the line with ^ under it, and suggest close names"))
        #expect(text.contains("A command holds at most 1048576 bytes"))
    }

    @Test("an unknown command suggests the close command names")
    func commands() throws {
        let session = try Session("Animals")
        #expect(session.error("lst Animal") == CommandError("unknown command 'lst'; did you mean 'list'?", column: 1))
        #expect(session.error("frobnicate") == CommandError("unknown command 'frobnicate'; try 'help'", column: 1))
        #expect(session.error("help shwo") == CommandError("no command 'shwo'; did you mean 'show'?", column: 6))
    }

    @Test("unknown attributes, relationships and entities suggest close names wherever they are typed")
    func everywhere() throws {
        let session = try Session("Animals")
        #expect(session.error("insert Animal nme=x")?.message == "Animal has no attribute or relationship 'nme'; did you mean 'name'?")
        #expect(session.error("show Animl#2")?.message == "no entity named 'Animl'; did you mean 'Animal'?")
        #expect(
            session.error("count Animal where categori.name == 'Bird'")?.message
                == "Animal has no property 'categori'; did you mean 'category'?")
        #expect(session.error("link 2 categroy 1")?.message == "Animal has no relationship 'categroy'; did you mean 'category'?")
    }

    @Test("among 20,000 names at most three are suggested")
    func manyNames() {
        let names = (0..<20_000).map { "Entity\($0)" }
        #expect(NameSuggestions.closest(to: "Entity123x", among: names) == ["Entity123", "Entity1230", "Entity1231"])
        #expect(
            NameSuggestions.hint(for: "Entity123x", among: names, listing: "entities")
                == "; did you mean 'Entity123', 'Entity1230' or 'Entity1231'?")
        #expect(NameSuggestions.hint(for: "Zebra", among: names, listing: "entities") == "")
    }

    /// A document holds at most 9,999 entities (``DocumentLimits/maximumAttributesPerElement``).
    @Test("a schema of 9,999 entities suggests at most three of them for an unknown entity, never the list")
    func largeSchema() throws {
        let entities = (0..<9_999).map { Schema.Entity("Entity\($0)", attributes: [.init("name", .string)]) }
        let schema = try Schema(entities)
        let container = try ModelContainer(for: schema, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let interpreter = Interpreter(
            context: ModelContext(container),
            documentURL: URL(fileURLWithPath: "/nonexistent/Large.folio"))
        for (line, column) in [("list Entity123x", 6), ("count Entity99990", 7), ("insert Entty5 name=x", 8)] {
            do {
                _ = try interpreter.execute(line)
                Issue.record("\(line) should fail")
            } catch {
                #expect(error.column == column)
                let named = error.message.components(separatedBy: "'Entity").count - 2  // the typed name is quoted too
                #expect((1...NameSuggestions.limit).contains(named), "\(error.message)")
                #expect(error.message.utf8.count < 200, "\(error.message)")
            }
        }
        do {
            _ = try interpreter.execute("list Zebra")
            Issue.record("list Zebra should fail")
        } catch {
            #expect(error.message == "no entity named 'Zebra'")
        }
    }
}
