import Foundation
import Testing
@testable import FolioREPL

@Suite struct CompletionTests {
    let session: Session
    init() throws { session = try Session("Animals") }
    func complete(_ line: String) -> [String] { session.interpreter.completions(for: line) }

    @Test("the first word completes to command names")
    func commands() {
        #expect(complete("") == Interpreter.commandNames)
        #expect(complete("li") == ["list", "link"])
        #expect(complete("qu") == ["quit", "quit!"])
        #expect(complete("help un") == ["unlink", "undo"])
        #expect(complete("frob ") == [])
    }

    @Test("entity names after list, count, insert, delete and delete all")
    func entities() {
        #expect(complete("list ") == ["AnimalCategory", "Animal"])
        #expect(complete("list AnimalC") == ["AnimalCategory"])
        #expect(complete("count Ani") == ["AnimalCategory", "Animal"])
        #expect(complete("insert A") == ["AnimalCategory", "Animal"])
        #expect(complete("delete all ") == ["AnimalCategory", "Animal"])
        #expect(complete("delete A") == ["AnimalCategory", "Animal"])
        #expect(complete("delete e") == ["everything"])
    }

    @Test("clause keywords after list ENTITY; property names in a predicate; attribute names after sort")
    func listClauses() {
        #expect(complete("list Animal ") == ["where", "sort", "limit", "offset", "name", "diet", "category"])
        #expect(complete("list Animal s") == ["sort"])
        #expect(complete("list Animal where ") == ["name", "diet", "category"])
        #expect(complete("list Animal where d") == ["diet"])
        #expect(complete("list Animal where diet == 'x' ") == ["name", "diet", "category", "sort", "limit", "offset"])
        #expect(complete("list Animal sort ") == ["name", "diet"])
        #expect(complete("list Animal sort name ") == ["asc", "desc", "where", "limit", "offset"])
        #expect(complete("list Animal sort name, ") == ["name", "diet"])
        #expect(complete("list Animal limit ") == [])
        #expect(complete("list Animal limit 5 ") == ["where", "sort", "offset"])
        #expect(complete("list Plant ") == [])
        #expect(complete("count Animal ") == ["where"])
        #expect(complete("delete Animal ") == ["where"])
        #expect(complete("save ") == ["as"])
    }

    @Test("attribute and relationship names with '=' after insert ENTITY and set ID, skipping those given")
    func assignments() {
        #expect(complete("insert Animal ") == ["name=", "diet=", "category="])
        #expect(complete("insert Animal name=Kiwi d") == ["diet="])
        #expect(complete("insert Animal name=Kiwi ") == ["diet=", "category="])
        #expect(complete("set 2 ") == ["name=", "diet=", "category="])
        #expect(complete("set Animal#2 c") == ["category="])
        #expect(complete("set 24 a") == ["animals="])
        #expect(complete("set 999 ") == [])
    }

    @Test("relationship names after link ID; the destination's ids after link ID RELATIONSHIP")
    func links() {
        #expect(complete("link 24 ") == ["animals"])
        #expect(complete("unlink 2 c") == ["category"])
        #expect(complete("link 2 category ") == ["1", "6", "13", "18", "24", "32"])
        #expect(complete("link 2 category 1") == ["1", "13", "18"])
        #expect(complete("link 2 category AnimalCategory#1") == ["AnimalCategory#1", "AnimalCategory#13", "AnimalCategory#18"])
        #expect(complete("unlink 1 animals ") == ["2", "3", "4", "5"])
        #expect(complete("link 2 category 1 ") == [])
    }

    @Test("ids after show, set, link and delete, as numbers or Entity#number")
    func ids() {
        #expect(complete("show 3") == ["3", "30", "31", "32", "33", "34", "35", "36"])
        #expect(complete("show Animal#3") == ["Animal#3", "Animal#30", "Animal#31", "Animal#33", "Animal#34", "Animal#35", "Animal#36"])
        #expect(complete("show Ani") == [])
        #expect(
            complete("show AnimalCategory#") == [
                "AnimalCategory#1", "AnimalCategory#6", "AnimalCategory#13",
                "AnimalCategory#18", "AnimalCategory#24", "AnimalCategory#32",
            ])
        #expect(complete("show ").count == 36)
        #expect(complete("set 1") == ["1", "10", "11", "12", "13", "14", "15", "16", "17", "18", "19"])
        #expect(complete("link 2") == ["2", "20", "21", "22", "23", "24", "25", "26", "27", "28", "29"])
        #expect(complete("delete 3") == ["3", "30", "31", "32", "33", "34", "35", "36"])
        #expect(complete("delete 2 3") == ["3", "30", "31", "32", "33", "34", "35", "36"])
        #expect(complete("show 2 ") == [])
    }

    @Test("ids complete in numeric order, and listed for the terminal they still sort that way as text (#2 before #10)")
    func numericOrder() {
        let ids = complete("show ")
        #expect(ids.compactMap { Int($0) } == (1...36).map { $0 })
        // libedit sorts its listing as text, case-insensitively: padding keeps numeric order.
        let listed = Interpreter.completionListing(ids)
        #expect(listed.sorted { $0.lowercased() < $1.lowercased() } == listed)
        #expect(listed.prefix(3) == [" 1", " 2", " 3"])
        #expect(
            Interpreter.completionListing(complete("show AnimalCategory#")) == [
                "AnimalCategory# 1", "AnimalCategory# 6", "AnimalCategory#13",
                "AnimalCategory#18", "AnimalCategory#24", "AnimalCategory#32",
            ])
        #expect(Interpreter.completionListing(["all", "everything", "9", "10"]) == ["all", "everything", " 9", "10"])
        #expect(Interpreter.completionListing(["list", "link"]) == ["list", "link"])
        #expect(complete("save ") == ["as"])
        #expect(complete("save a") == ["as"])
    }

    @Test("key paths complete through to-one relationships: category. offers the category's properties")
    func keyPaths() {
        #expect(complete("list Animal where category") == ["category", "category."])
        #expect(complete("list Animal where category.") == ["category.name", "category.animals"])
        #expect(complete("list Animal where category.n") == ["category.name"])
        #expect(complete("list AnimalCategory where animals") == ["animals", "animals.@count"])
        #expect(complete("list AnimalCategory where animals.") == ["animals.@count"])
        #expect(complete("list Animal name, category.") == ["category.name", "category.animals"])
        #expect(complete("count Animal where category.na") == ["category.name"])
        #expect(complete("list Animal where diet.") == [])
    }

    @Test("after link ID, the relationships of that object's entity, by number, Entity#number or $name")
    func linkRelationships() throws {
        #expect(complete("link 2 ") == ["category"])
        #expect(complete("link Animal#2 ") == ["category"])
        #expect(complete("unlink 24 ") == ["animals"])
        try session.run("insert AnimalCategory name=Marsupial as marsupials")
        #expect(complete("link $") == ["$marsupials"])
        #expect(complete("link $marsupials ") == ["animals"])
        #expect(complete("link 2 category $") == ["$marsupials"])
        #expect(complete("link 24 animals $") == [])
    }

    @Test("export, import and timing complete their keywords")
    func transferKeywords() {
        #expect(complete("export ") == ["list", "AnimalCategory", "Animal"])
        #expect(complete("export list Animal name ") == ["where", "sort", "limit", "offset", "name", "diet", "category", "to"])
        #expect(complete("export list Animal to out.csv ") == ["--format", "--force"])
        #expect(complete("export list Animal to out.csv --format ") == ["csv", "json"])
        #expect(complete("import ") == ["AnimalCategory", "Animal"])
        #expect(complete("import Animal ") == ["from"])
        #expect(complete("timing ") == ["on", "off"])
    }
}
