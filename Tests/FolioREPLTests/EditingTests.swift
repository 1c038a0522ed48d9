import Folio
import Foundation
import Testing
@testable import FolioREPL
import FolioTestSupport

@Suite struct EditingTests {
    func related(_ session: Session, _ relationship: String, of number: UInt64) throws -> [UInt64] {
        let context = session.interpreter.context
        return try context.related(relationship, of: try #require(context.identifier(forNumber: number))).map(\.id)
    }

    func value(_ session: Session, _ attribute: String, of number: UInt64) throws -> Value {
        let context = session.interpreter.context
        return try context.value(attribute, of: try #require(context.identifier(forNumber: number)))
    }

    @Test("insert prints the new id alone, sets attributes and relationships, and is one undo step")
    func insert() throws {
        let session = try Session("Animals")
        let output = try session.run("insert Animal name=\"Snow Leopard\" diet=carnivorous category=24")
        let leopard = try firstNumber(in: output)
        #expect(output == "Animal#\(leopard)\n" && leopard >> 32 != 0)
        #expect(try value(session, "name", of: leopard) == .string("Snow Leopard"))
        #expect(try related(session, "category", of: leopard) == [24])
        #expect(try session.count("Animal", "category.name == 'Mammal'") == 8)
        #expect(session.interpreter.context.undoManager?.undoActionNames == ["Insert Animal#\(leopard)"])
        try session.run("undo")
        #expect(try session.count("Animal") == 30)
        #expect(try related(session, "animals", of: 24).count == 7)
    }

    @Test("insert with an existing unique value says first which object it would update and what would change, asks, and updates it on yes only")
    func upsert() throws {
        let session = try Session("Animals")
        // A mistyped key must not overwrite another row unasked: "no" changes nothing.
        #expect(
            try session.run("insert AnimalCategory name=Mammal") == """
                AnimalCategory#24 already has name "Mammal", unique in AnimalCategory: this insert updates it
                  (every value given is the one it holds)
                cancelled

                """)
        #expect(session.questions == ["Update AnimalCategory#24? [y/N] "])
        #expect(session.interpreter.context.undoManager?.undoActionNames == [])
        session.answer = true
        #expect(try session.run("insert AnimalCategory name=Mammal").hasSuffix("updated existing AnimalCategory#24\n"))
        #expect(try session.count("AnimalCategory") == 6)
        #expect(!session.interpreter.hasUnsavedChanges)
        let dogs = try Session("Dogs")
        #expect(
            try dogs.run("insert Person _id=2 name=\"Maria José\"") == """
                Person#6 already has _id 2, unique in Person: this insert updates it
                  name: "Maria" → "Maria José"
                cancelled

                """)
        #expect(try value(dogs, "name", of: 6) == .string("Maria"))
        dogs.answer = true
        #expect(try dogs.run("insert Person _id=2 name=\"Maria José\"").hasSuffix("updated existing Person#6\n"))
        #expect(try value(dogs, "name", of: 6) == .string("Maria José"))
        #expect(dogs.interpreter.context.undoManager?.undoActionNames == ["Update Person#6"])
    }

    @Test("insert reads every kind of value by the attribute's type")
    func insertTypedValues() throws {
        let dogs = try Session("Dogs")
        let line =
            "insert Dog name=Buddy age=2 color=tan currentCity=Oslo citiesVisited=[Oslo, \"Bergen\"] favoriteParksByCity={Oslo: Frognerparken}"
            + " companion=int:4 owner=Person#5 favoriteToy=1"
        let output = try dogs.run(line)
        let buddy = try firstNumber(in: output)
        #expect(output == "Dog#\(buddy)\n")
        #expect(try value(dogs, "age", of: buddy) == .int(2))
        #expect(try value(dogs, "citiesVisited", of: buddy) == .set([.string("Oslo"), .string("Bergen")]))
        #expect(try value(dogs, "favoriteParksByCity", of: buddy) == .dictionary(["Oslo": .string("Frognerparken")]))
        #expect(try value(dogs, "companion", of: buddy) == .int(4))
        #expect(try related(dogs, "owner", of: buddy) == [5])
        #expect(try related(dogs, "dogs", of: 1) == [11, 14, buddy])

        let trips = try Session("Trips")
        let weekendLine = try trips.run("insert Trip name='Weekend' destination=Bergen startDate=2025-05-01 endDate=2025-05-03T12:00:00Z")
        let weekend = try firstNumber(in: weekendLine)
        #expect(weekendLine == "Trip#\(weekend)\n")
        #expect(try value(trips, "startDate", of: weekend) == Value(text: "2025-05-01", as: .date))
        #expect(try value(trips, "endDate", of: weekend) == Value(text: "2025-05-03T12:00:00Z", as: .date))

        let countries = try Session("Countries")
        let atlantisLine = try countries.run("insert Country name=Atlantis code=AT visited=false population=null")
        let atlantis = try firstNumber(in: atlantisLine)
        #expect(atlantisLine == "Country#\(atlantis)\n")
        #expect(try value(countries, "population", of: atlantis) == .null)
        #expect(try countries.run("set \(atlantis) population=7 visited=true") == "updated Country#\(atlantis)\n")
        #expect(try value(countries, "population", of: atlantis) == .int(7))
        #expect(try value(countries, "visited", of: atlantis) == .bool(true))
    }

    @Test("insert errors name the column of the offending token and change nothing")
    func insertErrors() throws {
        let session = try Session("Animals")
        #expect(session.error("insert") == CommandError("insert needs an entity: insert ENTITY name=value … [as NAME]", column: 7))
        #expect(session.error("insert Animl name=x") == CommandError("no entity named 'Animl'; did you mean 'Animal'?", column: 8))
        #expect(session.error("insert Animal age=3") == CommandError("Animal has no attribute or relationship 'age'", column: 15))
        #expect(session.error("insert Animal name") == CommandError("expected name=value, found 'name'", column: 15))
        #expect(session.error("insert Animal name=Tree Frog") == CommandError("expected name=value, found 'Frog'", column: 25))
        #expect(session.error("insert Animal =x") == CommandError("expected a name before '='", column: 15))
        #expect(session.error("insert Animal name=a name=b") == CommandError("'name' is given twice", column: 22))
        #expect(session.error("insert Animal name=\"a\"b") == CommandError("unexpected 'b' after the value for Animal.name", column: 23))
        #expect(
            session.error("insert Animal category=2")
                == CommandError(
                    "Animal.category holds AnimalCategory objects, not Animal#2", column: 24))
        #expect(session.error("insert Animal category=[1]") == CommandError("Animal.category is to-one: give one id or null", column: 24))
        #expect(session.error("insert Animal category=99") == CommandError("no object #99", column: 24))
        #expect(
            session.error("insert AnimalCategory animals=3")
                == CommandError(
                    "AnimalCategory.animals is to-many: give a list of ids, e.g. [3, 4]", column: 31))
        #expect(
            session.error("insert AnimalCategory animals=[2, 1]")
                == CommandError(
                    "AnimalCategory.animals holds Animal objects, not AnimalCategory#1", column: 35))
        #expect(session.error("insert AnimalCategory animals=[2, 2]") == CommandError("Animal#2 is in the list twice", column: 35))
        #expect(session.error("insert AnimalCategory animals=[2,,3]") == CommandError("expected an id between commas", column: 34))
        #expect(try session.count("Animal") == 30)
        #expect(try session.count("AnimalCategory") == 6)
        #expect(!session.interpreter.hasUnsavedChanges)
        #expect(session.interpreter.context.undoManager?.canUndo == false)

        let dogs = try Session("Dogs")
        #expect(dogs.error("insert Dog age=abc") == CommandError("'abc' is not a valid int for Dog.age", column: 16))
        #expect(dogs.error("insert Dog citiesVisited=[Oslo, Oslo]") == CommandError("\"Oslo\" is in the set twice", column: 33))
        #expect(dogs.error("insert Dog age=[3]") == CommandError("Dog.age holds one int, not a list", column: 16))
        let countries = try Session("Countries")
        #expect(
            countries.error("insert Country name=X visited=maybe")
                == CommandError(
                    "'maybe' is not a valid bool for Country.visited", column: 31))
        #expect(
            countries.error("insert Country name=X visited=null")
                == CommandError(
                    "Country.visited is not optional; it cannot be null", column: 31))
        #expect(
            countries.error("insert Country name=X population=1e3")
                == CommandError(
                    "'1e3' is not a valid int for Country.population", column: 34))
        let trips = try Session("Trips")
        #expect(
            trips.error("insert Trip name=T startDate=2025-13-01")
                == CommandError(
                    "'2025-13-01' is not a valid date for Trip.startDate", column: 30))
    }

    @Test("set changes attributes and to-one relationships by id or null, as one undo step")
    func set() throws {
        let session = try Session("Animals")
        #expect(try session.run("set 2 name=\"Great Crested Newt\" diet=insectivorous") == "updated Animal#2\n")
        #expect(try value(session, "name", of: 2) == .string("Great Crested Newt"))
        #expect(try value(session, "diet", of: 2) == .string("insectivorous"))
        #expect(session.interpreter.context.undoManager?.undoActionNames == ["Set Animal#2.name, diet"])
        try session.run("undo")
        #expect(try value(session, "name", of: 2) == .string("Newt"))
        #expect(try value(session, "diet", of: 2) == .string("carnivorous"))

        try session.run("set 5 category=24")
        #expect(try related(session, "category", of: 5) == [24])
        #expect(try related(session, "animals", of: 1) == [2, 3, 4])
        try session.run("set Animal#5 category=null")
        #expect(try related(session, "category", of: 5) == [])
        try session.run("set 5 category=AnimalCategory#6")
        #expect(try related(session, "category", of: 5) == [6])
        try session.run("set 24 animals=[2, 3]")
        #expect(try related(session, "animals", of: 24) == [2, 3])
        #expect(try related(session, "animals", of: 1) == [4])
        #expect(session.interpreter.context.undoManager?.undoCount == 4)

        let dogs = try Session("Dogs")
        try dogs.run("set 11 companion=null")
        #expect(try value(dogs, "companion", of: 11) == .null)
        try dogs.run("set 11 companion=\"3\" citiesVisited=[]")
        #expect(try value(dogs, "companion", of: 11) == .string("3"))
        #expect(try value(dogs, "citiesVisited", of: 11) == .set([]))
    }

    @Test("set errors name the column and leave the object as it was")
    func setErrors() throws {
        let session = try Session("Animals")
        #expect(session.error("set") == CommandError("set needs an object id: set ID name=value …", column: 4))
        #expect(session.error("set 2") == CommandError("set needs name=value after the id, e.g. set 2 name=\"Rex\"", column: 6))
        #expect(session.error("set x name=y") == CommandError("'x' is not an object id (write 42 or Animal#42)", column: 5))
        #expect(session.error("set 2 nme=x") == CommandError("Animal has no attribute or relationship 'nme'; did you mean 'name'?", column: 7))
        #expect(session.error("set 2 name=x name=y") == CommandError("'name' is given twice", column: 14))
        #expect(session.error("set 2 name=Eft category=999") == CommandError("no object #999", column: 25))
        #expect(
            session.error("set 2 name=Eft category=3")
                == CommandError(
                    "Animal.category holds AnimalCategory objects, not Animal#3", column: 25))
        #expect(try value(session, "name", of: 2) == .string("Newt"))
        #expect(!session.interpreter.hasUnsavedChanges)
    }

    @Test("set to a value another object holds in a unique attribute is refused at the set, in one line, changing nothing")
    func setUniqueConflict() throws {
        let session = try Session("Animals")
        try session.run("set 2 name=Eft")
        try session.run("undo")
        let undo = session.interpreter.context.undoManager
        let (steps, redo) = (undo?.undoActionNames, undo?.redoActionNames)
        let error = session.error("set 24 name=Bird")
        #expect(error == CommandError("AnimalCategory#6 already has name \"Bird\", and AnimalCategory.name is unique", column: 8))
        #expect(error.map { !$0.description.contains("\n") } == true)
        // Nothing changed: no undo step, the redo step still there, nothing unsaved.
        #expect(undo?.undoActionNames == steps)
        #expect(undo?.redoActionNames == redo)
        #expect(try value(session, "name", of: 24) == .string("Mammal"))
        #expect(!session.interpreter.hasUnsavedChanges)
        // With the other assignments too; an object's own value is no conflict; save still works.
        #expect(session.error("set 24 name=Mammal name=Bird")?.message == "'name' is given twice")
        #expect(try session.run("set 24 name=Mammal") == "updated AnimalCategory#24\n")
        #expect(try session.run("set 24 name=Mammals") == "updated AnimalCategory#24\n")
        #expect(try session.run("save").contains("saved"))
        #expect(try session.run("link 24 animals 2").hasPrefix("linked"))
    }

    @Test("insert refuses a new object without its required attributes, naming them; defaults and optionals may be left out")
    func insertRequired() throws {
        let session = try Session("Animals")
        #expect(
            session.error("insert Animal name=Okapi")
                == CommandError(
                    "Animal needs a value for diet (not optional, no default), e.g. diet=…", column: 25))
        #expect(
            session.error("insert Animal")
                == CommandError(
                    "Animal needs a value for name, diet (not optional, no default), e.g. name=…", column: 14))
        #expect(try session.count("Animal") == 30)
        #expect(session.interpreter.context.undoManager?.undoActionNames == [])
        let okapi = try session.run("insert Animal name=Okapi diet=herbivorous")
        #expect(okapi == "Animal#\(try firstNumber(in: okapi))\n")
        // An insert that updates an existing object needs nothing more than its key.
        session.answer = true
        #expect(try session.run("insert AnimalCategory name=Bird").hasSuffix("updated existing AnimalCategory#6\n"))
        // A transient attribute and an optional one need no value.
        let trips = try Session("Trips")
        let weekend = try trips.run("insert Trip name=Weekend destination=Bergen startDate=2025-05-01 endDate=2025-05-03")
        #expect(weekend == "Trip#\(try firstNumber(in: weekend))\n")
        let countries = try Session("Countries")
        #expect(countries.error("insert Country name=Atlantis")?.message.hasPrefix("Country needs a value for code, visited") == true)
        let atlantis = try countries.run("insert Country name=Atlantis code=AT visited=false")
        #expect(atlantis == "Country#\(try firstNumber(in: atlantis))\n")
    }

    @Test("link and unlink edit relationships, one undo step each")
    func linkAndUnlink() throws {
        let session = try Session("Animals")
        #expect(try session.run("link 24 animals 2") == "linked Animal#2 to AnimalCategory#24.animals\n")
        #expect(try related(session, "category", of: 2) == [24])
        #expect(try related(session, "animals", of: 1) == [3, 4, 5])
        #expect(try session.run("link 2 category 24") == "Animal#2.category already holds AnimalCategory#24\n")
        #expect(try session.run("unlink AnimalCategory#24 animals Animal#2") == "unlinked Animal#2 from AnimalCategory#24.animals\n")
        #expect(try related(session, "category", of: 2) == [])
        #expect(
            session.interpreter.context.undoManager?.undoActionNames == [
                "Link Animal#2 to AnimalCategory#24.animals", "Unlink Animal#2 from AnimalCategory#24.animals",
            ])
        try session.run("undo 2")
        #expect(try related(session, "animals", of: 1) == [2, 3, 4, 5])

        let dogs = try Session("Dogs")
        try dogs.run("link 5 clubs 10")
        #expect(try related(dogs, "members", of: 10) == [6, 8, 5])
    }

    @Test("link and unlink errors name the column")
    func linkErrors() throws {
        let session = try Session("Animals")
        #expect(session.error("link") == CommandError("link needs link ID RELATIONSHIP ID, e.g. link 2 category 1", column: 5))
        #expect(
            session.error("link 2")
                == CommandError(
                    "link needs a relationship of Animal: link ID RELATIONSHIP ID, e.g. link 2 category 1", column: 7))
        #expect(session.error("link 2 categry 1") == CommandError("Animal has no relationship 'categry'; did you mean 'category'?", column: 8))
        #expect(session.error("link 2 name 1") == CommandError("Animal has no relationship 'name'; relationships: category", column: 8))
        #expect(session.error("link 2 category") == CommandError("link needs the id of the AnimalCategory to link", column: 16))
        #expect(session.error("link 2 category 3") == CommandError("Animal.category holds AnimalCategory objects, not Animal#3", column: 17))
        #expect(session.error("link 2 category 1 x") == CommandError("unexpected 'x'", column: 19))
        #expect(session.error("link 999 category 1") == CommandError("no object #999", column: 6))
        #expect(session.error("unlink 2 category 6") == CommandError("Animal#2.category does not hold AnimalCategory#6", column: 19))
        #expect(!session.interpreter.hasUnsavedChanges)
    }

    @Test("show, list, set and save work on an externally stored string as on any other attribute")
    func externalString() throws {
        let folder = try temporaryFolderURL("repl-tests")
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("Notes.folio")
        let graph = ObjectGraph(
            schema: try Schema([
                .init(
                    "Note",
                    attributes: [
                        .init("title", .string),
                        .init("notes", .string, isOptional: true, options: [.externalStorage]),
                    ])
            ]))
        let first = try graph.insert("Note", ["title": .string("first"), "notes": .string("kept beside the XML ✓")]).id
        let second = try graph.insert("Note", ["title": .string("second")]).id
        try DocumentPackage(url: url).write(graph)

        let session = try Session(url: url)
        #expect(try session.run("show \(first)").contains("kept beside the XML ✓"))
        #expect(try session.run("list Note where notes contains 'beside'").contains("first"))
        #expect(!(try session.run("list Note where notes contains 'beside'").contains("second")))
        try session.run("set \(second) notes=\"now it has notes\"")
        try session.run("save")
        #expect(try value(session, "notes", of: second) == .string("now it has notes"))
        let blobs = try FileManager.default.contentsOfDirectory(atPath: url.appendingPathComponent("blobs").path)
        #expect(blobs.count == 2)
        let reopened = try reopen(url)
        #expect(try reopened.value("notes", of: PersistentIdentifier(entityName: "Note", id: second)) == .string("now it has notes"))
        #expect(try session.count("Note", "notes == nil") == 0)
        #expect(try session.count("Note", "notes beginswith 'now'") == 1)
    }

    @Test("an optional to-many shows null until it has a collection; set takes [] and null for it")
    func optionalToMany() throws {
        let folder = try temporaryFolderURL("repl-tests")
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("Baskets.folio")
        let graph = ObjectGraph(
            schema: try Schema([
                .init(
                    "Basket", attributes: [.init("name", .string)],
                    relationships: [.init("fruits", to: "Fruit", toMany: true, isOptional: true, inverse: "basket")]),
                .init("Fruit", attributes: [.init("name", .string)], relationships: [.init("basket", to: "Basket", inverse: "fruits")]),
            ]))
        let basket = try graph.insert("Basket", ["name": .string("b")]).id
        let fruit = try graph.insert("Fruit", ["name": .string("f")]).id
        try DocumentPackage(url: url).write(graph)

        let session = try Session(url: url)
        #expect(try session.run("schema").contains("-> Fruit, to-many, optional, inverse basket"))
        #expect(try session.run("show \(basket)").contains("fruits  null"))
        try session.run("set \(basket) fruits=[]")
        #expect(try session.run("show \(basket)").contains("fruits  []"))
        try session.run("set \(basket) fruits=[\(fruit)]")
        #expect(try session.run("show \(basket)").contains("fruits  [Fruit#\(fruit)]"))
        try session.run("set \(basket) fruits=null")
        #expect(try session.run("show \(basket)").contains("fruits  null"))
        try session.run("undo")
        #expect(try related(session, "fruits", of: basket) == [fruit])
        try session.run("set \(fruit) basket=null")
        try session.run("save")
        let reopened = try reopen(url)
        #expect(try reopened.relatedCollection("fruits", of: PersistentIdentifier(entityName: "Basket", id: basket)) == [])
    }
}
