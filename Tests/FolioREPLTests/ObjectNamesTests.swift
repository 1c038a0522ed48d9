import Folio
import Testing
@testable import FolioREPL

/// `insert … as NAME`, then `$NAME` wherever an id goes.
@Suite struct ObjectNamesTests {
    @Test("insert … as NAME names the new object; $NAME then works in link, set, show, delete and relationship values")
    func names() throws {
        let session = try Session("Animals")
        session.answer = true
        let inserted = try session.run("insert AnimalCategory name=Marsupial as marsupials")
        let marsupials = try firstNumber(in: inserted)
        #expect(inserted == "AnimalCategory#\(marsupials) as $marsupials\n")
        let koalaLine = try session.run("insert Animal name=Koala2 diet=herbivorous category=$marsupials as koala")
        let koala = try firstNumber(in: koalaLine)
        #expect(koalaLine == "Animal#\(koala) as $koala\n" && koala == marsupials + 1)
        #expect(try session.run("link $marsupials animals 2") == "linked Animal#2 to AnimalCategory#\(marsupials).animals\n")
        #expect(try session.run("set $koala name=Wombat") == "updated Animal#\(koala)\n")
        #expect(try session.run("show $koala").hasPrefix("Animal#\(koala)\n  name      \"Wombat\""))
        #expect(try session.count("Animal", "category.name == 'Marsupial'") == 2)
        try session.run("delete $koala")
        #expect(
            session.error("show $koala")
                == CommandError("$koala was Animal#\(koala), which is no longer in the document (deleted, or its insert undone)", column: 6))
        try session.run("save")
        try session.run("delete $marsupials")
        #expect(
            session.error("link $marsupials animals 3")
                == CommandError("$marsupials is AnimalCategory#\(marsupials), which is deleted ('undo' brings it back)", column: 6))
    }

    @Test("an unknown name, a name of the wrong entity and a name that cannot be typed are errors at their column")
    func nameErrors() throws {
        let session = try Session("Animals")
        #expect(session.error("show $rex") == CommandError("no object is named $rex (insert … as rex names one)", column: 6))
        let rex = try firstNumber(in: try session.run("insert Animal name=Rex diet=carnivorous as rex"))
        #expect(session.error("show $rx") == CommandError("no object is named $rx; did you mean '$rex'?", column: 6))
        #expect(
            session.error("link 2 category $rex")
                == CommandError("Animal.category holds AnimalCategory objects, not Animal#\(rex) ($rex)", column: 17))
        #expect(
            session.error("insert Animal name=Max diet=x as 2x")
                == CommandError("'2x' cannot name an object: use letters, digits and _, e.g. as rex", column: 34))
        try session.run("undo")
        #expect(
            session.error("show $rex") == CommandError("$rex was Animal#\(rex), which is no longer in the document (deleted, or its insert undone)", column: 6))
    }

    @Test("an insert that updates an existing object by its unique value names that object")
    func upsertNames() throws {
        let session = try Session("Trips")
        session.answer = true  // the upsert is asked first (issue 33 item 10)
        let output = try session.run("insert Trip name='Spring Break' destination=Mexico startDate=2025-03-01 endDate=2025-03-08 as spring")
        #expect(session.questions.count == 1)
        #expect(output.hasSuffix("updated existing Trip#1 as $spring\n"), "\(output)")
        #expect(try session.run("show $spring").hasPrefix("Trip#1\n"))
    }
}
