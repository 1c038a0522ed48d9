import Folio
import Foundation
import Testing
@testable import FolioREPL

/// `diff`: the unsaved changes object by object, against the last save.
@Suite struct DiffTests {
    @Test("diff lists inserted, changed (old → new, links as +/-) and deleted objects in id order, then the counts")
    func text() throws {
        let session = try Session("Animals")
        session.answer = true
        #expect(try session.run("diff") == "no unsaved changes\n")
        try session.run("set 2 name=\"Great Crested Newt\" category=6")
        let kiwi = try firstNumber(in: try session.run("insert Animal name=Kiwi diet=omnivorous category=6"))
        try session.run("delete 3")
        #expect(
            try session.run("diff") == """
                ~ AnimalCategory#1: animals -Animal#2 -Animal#3
                ~ Animal#2: name "Newt" → "Great Crested Newt"
                ~ Animal#2: category AnimalCategory#1 → AnimalCategory#6
                - Animal#3: name="Tree Frog", diet="carnivorous", category=AnimalCategory#1
                ~ AnimalCategory#6: animals +Animal#2 +Animal#\(kiwi)
                + Animal#\(kiwi): name="Kiwi", diet="omnivorous", category=AnimalCategory#6
                1 inserted, 3 changed, 1 deleted

                """)
        // Undo takes a difference back; back at the save there is none.
        try session.run("undo 3")
        #expect(try session.run("diff") == "no unsaved changes\n")
    }

    @Test("diff shows a deleted object's values as saved, not as edited before the delete; long values are cut")
    func savedValues() throws {
        let session = try Session("Animals")
        session.answer = true
        try session.run("set 3 name=\"\(String(repeating: "x", count: 200))\"")
        try session.run("delete 3")
        let lines = try session.run("diff").split(separator: "\n")
        #expect(lines.contains("- Animal#3: name=\"Tree Frog\", diet=\"carnivorous\", category=AnimalCategory#1"))
        try session.run("undo")
        let edited = try session.run("diff").split(separator: "\n").first { $0.hasPrefix("~ Animal#3") }
        #expect(edited?.hasSuffix("…") == true, "\(edited ?? "")")
        #expect((edited?.count ?? 0) < 120)
    }

    @Test("diff --json: inserted and deleted objects with their values, changed ones with old and new")
    func json() throws {
        let session = try Session("Animals", options: .init(assumeYes: true, json: true))
        try session.run("set 2 name=Eft")
        try session.run("insert Animal name=Kiwi diet=omnivorous category=6")
        try session.run("delete 3")
        let line = try session.run("diff")
        #expect(line.split(separator: "\n").count == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["command"] as? String == "diff")
        let changed = try #require(object["changed"] as? [[String: Any]])
        let newt = try #require(changed.first { $0["id"] as? Int == 2 })
        #expect((newt["attributes"] as? [String: [String: String]])?["name"] == ["old": "Newt", "new": "Eft"])
        let category = try #require(changed.first { $0["id"] as? Int == 1 })
        let animals = (category["relationships"] as? [String: [String: [Int]]])?["animals"]
        #expect(animals?["old"]?.contains(3) == true && animals?["new"]?.contains(3) == false)
        let inserted = try #require((object["inserted"] as? [[String: Any]])?.first)
        #expect((inserted["id"] as? Int).map { $0 >> 32 != 0 } == true, "a new object's id is in its writer's lane")
        #expect((inserted["attributes"] as? [String: Any])?["name"] as? String == "Kiwi")
        #expect((inserted["relationships"] as? [String: Int])?["category"] == 6)
        let deleted = try #require((object["deleted"] as? [[String: Any]])?.first)
        #expect((deleted["attributes"] as? [String: String])?["name"] == "Tree Frog")
    }

    @Test("diff takes no arguments")
    func arguments() throws {
        let session = try Session("Animals")
        #expect(session.error("diff Animal") == CommandError("unexpected 'Animal'", column: 6))
    }
}
