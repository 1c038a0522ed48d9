import Folio
import Foundation
import Testing
@testable import FolioREPL

/// `list ENTITY COLUMN, …`: choosing what to see, with key paths.
@Suite struct ListColumnsTests {
    @Test("list shows only the columns named, key paths through to-one relationships included")
    func namedColumns() throws {
        let session = try Session("Animals")
        #expect(
            try session.run("list Animal name, category.name, category where name beginswith 'K' sort name") == """
                name           category.name  category
                -------------  -------------  --------
                Koala          Mammal               24
                Komodo Dragon  Reptile              32
                2 Animal

                """)
        #expect(
            try session.run("list AnimalCategory id,name animals.@count animals limit 2") == """
                id  name       animals.@count  animals
                --  ---------  --------------  ---------------------
                 1  Amphibian               4  [2, 3, 4, 5]
                 6  Bird                    6  [7, 8, 9, 10, 11, 12]
                2 of 6 AnimalCategory

                """)
    }

    @Test("a key path through an empty to-one relationship shows null")
    func nullThroughRelationship() throws {
        let session = try Session("Animals")
        try session.run("insert Animal name=Stray diet=omnivorous")
        #expect(try session.run("list Animal name, category.name where name == 'Stray'").contains("Stray  null"))
    }

    @Test("a column that is no property, or goes on past an attribute or a to-many, is an error at its column")
    func columnErrors() throws {
        let session = try Session("Animals")
        #expect(session.error("list Animal nme") == CommandError("Animal has no attribute or relationship 'nme'; did you mean 'name'?", column: 13))
        #expect(
            session.error("list Animal name, category.nme")
                == CommandError("AnimalCategory has no attribute or relationship 'nme'; did you mean 'name'?", column: 28))
        #expect(session.error("list Animal name.x") == CommandError("Animal.name is an attribute: nothing follows it in a key path", column: 17))
        #expect(
            session.error("list AnimalCategory animals.name")
                == CommandError("AnimalCategory.animals is to-many: only animals.@count follows it", column: 29))
        #expect(session.error("list Animal name,,diet") == CommandError("expected a column between commas", column: 18))
    }

    @Test("with --json, named columns are each object's values, keyed by the key path")
    func jsonColumns() throws {
        let session = try Session("Animals", options: .init(json: true))
        let output = try session.run("list Animal name, category.name where name == 'Koala'")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
        let objects = try #require(object["objects"] as? [[String: Any]])
        #expect(objects.count == 1)
        let values = try #require(objects[0]["values"] as? [String: Any])
        #expect(values["name"] as? String == "Koala")
        #expect(values["category.name"] as? String == "Mammal")
    }

    @Test("--json list without a limit returns the first page, as text does, and says it cut")
    func jsonPage() throws {
        let session = try Session("Animals", options: .init(assumeYes: true, json: true))
        for index in 0..<30 { try session.run("insert Animal name=Extra\(index) diet=omnivorous") }
        let output = try session.run("list Animal")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
        #expect((object["objects"] as? [Any])?.count == Interpreter.listPageSize)
        #expect(object["total"] as? Int == 60)
        #expect(object["limit"] as? Int == Interpreter.listPageSize)
        #expect(object["truncated"] as? Bool == true)
        let small = try #require(try JSONSerialization.jsonObject(with: Data(try session.run("list AnimalCategory").utf8)) as? [String: Any])
        #expect(small["truncated"] as? Bool == false)
        let limited = try #require(try JSONSerialization.jsonObject(with: Data(try session.run("list Animal limit 55").utf8)) as? [String: Any])
        #expect((limited["objects"] as? [Any])?.count == 55)
        #expect(limited["truncated"] == nil)
    }
}
