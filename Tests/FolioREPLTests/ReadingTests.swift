import Folio
import Foundation
import Testing
@testable import FolioREPL
import FolioTestSupport

@Suite struct ReadingTests {
    @Test("schema shows attributes with types and options and relationships with destination, shape, inverse and rule")
    func schema() throws {
        let session = try Session("Animals")
        #expect(
            try session.run("schema") == """
                AnimalCategory
                  name     string, unique
                  animals  -> Animal, to-many, inverse category, cascade
                Animal
                  name      string
                  diet      string
                  category  -> AnimalCategory, to-one, inverse animals, nullify

                """)
        let countries = try Session("Countries")
        #expect(try countries.run("schema").contains("  population  int, optional\n"))
        let trips = try Session("Trips")
        #expect(try trips.run("schema").contains("  destinationWeather  string, transient\n"))
        #expect(session.error("schema Animal") == CommandError("unexpected 'Animal'", column: 8))
    }

    @Test("schema lists uniqueness constraints, and an insert matching one updates the object it matches")
    func uniquenessConstraints() throws {
        let url = try sampleCopy("Animals").deletingLastPathComponent().appendingPathComponent("Tours.folio")
        let schema = try Schema([
            .init(
                "Tour", attributes: [.init("city", .string), .init("day", .int), .init("note", .string, isOptional: true)],
                uniquenessConstraints: [["city", "day"]])
        ])
        var rome: UInt64 = 0
        do {  // the setup's container releases the package's write lock when it goes
            let setup = ModelContext(try ModelContainer(for: schema, configurations: ModelConfiguration(url: url)))
            rome = try setup.insert("Tour", ["city": .string("Rome"), "day": .int(3)]).id
            try setup.save()
        }
        let session = try Session(url: url)
        #expect(
            try session.run("schema") == """
                Tour
                  city         string
                  day          int
                  note         string, optional
                  (city, day)  unique together

                """)
        session.answer = true  // the upsert asks first
        #expect(try session.run("insert Tour city=Rome day=3 note=again").hasSuffix("updated existing Tour#\(rome)\n"))
        let day4 = try session.run("insert Tour city=Rome day=4")
        let day4ID = try firstNumber(in: day4)
        #expect(day4 == "Tour#\(day4ID)\n" && day4ID != rome)
        #expect(try session.count("Tour") == 2)
    }

    @Test("schema lists the indexes, and list … where finds objects through them with the scan's result")
    func indexes() throws {
        let url = try sampleCopy("Animals").deletingLastPathComponent().appendingPathComponent("Herd.folio")
        let schema = try Schema([
            .init(
                "Cow", attributes: [.init("name", .string), .init("age", .int), .init("weight", .double)],
                indexes: [["name"], ["age", "weight"]])
        ])
        do {  // the setup's container releases the package's write lock when it goes
            let setup = ModelContext(try ModelContainer(for: schema, configurations: ModelConfiguration(url: url)))
            for (name, age, weight) in [("Daisy", 3, 500.0), ("Bella", 5, 620.0), ("Rosie", 3, 480.0), ("Molly", 3, 530.0)] {
                try setup.insert("Cow", ["name": .string(name), "age": .int(Int64(age)), "weight": .double(weight)])
            }
            try setup.save()
        }
        let session = try Session(url: url)
        #expect(
            try session.run("schema") == """
                Cow
                  name           string
                  age            int
                  weight         double
                  (name)         index
                  (age, weight)  index

                """)
        let indexed = try session.run("list Cow where age == 3 and weight >= 500")
        #expect(indexed.contains("Daisy") && indexed.contains("Molly") && !indexed.contains("Rosie") && !indexed.contains("Bella"))
        // The same question no index can answer (a disjunction): the same rows, in the same order.
        #expect(try session.run("list Cow where (age == 3 and weight >= 500) or false") == indexed)
        #expect(try session.run("list Cow where name == 'Bella'").contains("Bella"))
        let json = try Session(url: url, options: .init(json: true))
        let listed = try #require(try JSONSerialization.jsonObject(with: Data(json.run("schema").utf8)) as? [String: Any])
        let entities = try #require(listed["entities"] as? [[String: Any]])
        #expect(entities.first?["indexes"] as? [[String]] == [["name"], ["age", "weight"]])
    }

    @Test("schema lists a constraint over a to-one relationship, and an insert naming the same object updates it")
    func uniquenessOverRelationships() throws {
        let url = try sampleCopy("Animals").deletingLastPathComponent().appendingPathComponent("Flows.folio")
        let schema = try Schema([
            .init(
                "Flow",
                attributes: [
                    .init("label", .string, options: [.unique]), .init("step", .int),
                    .init("note", .string, isOptional: true),
                ],
                relationships: [.init("snapshot", to: "Snapshot", inverse: "flows")],
                uniquenessConstraints: [["snapshot", "step"]]),
            .init(
                "Snapshot", attributes: [.init("name", .string)],
                relationships: [.init("flows", to: "Flow", toMany: true, inverse: "snapshot")]),
        ])
        var snap: UInt64 = 0, flow: UInt64 = 0
        do {  // the setup's container releases the package's write lock when it goes
            let setup = ModelContext(try ModelContainer(for: schema, configurations: ModelConfiguration(url: url)))
            let snapshot = try setup.insert("Snapshot", ["name": .string("1.0")])
            snap = snapshot.id
            flow = try setup.insert("Flow", ["label": .string("a"), "step": .int(1)], related: ["snapshot": [snapshot]]).id
            try setup.save()
        }
        let session = try Session(url: url)
        // The unique attribute shows as its option, not again as a constraint.
        #expect(
            try session.run("schema") == """
                Flow
                  label             string, unique
                  step              int
                  note              string, optional
                  snapshot          -> Snapshot, to-one, inverse flows, nullify
                  (snapshot, step)  unique together
                Snapshot
                  name   string
                  flows  -> Flow, to-many, inverse snapshot, nullify

                """)
        session.answer = true  // the upsert asks first
        #expect(try session.run("insert Flow label=b step=1 snapshot=\(snap) note=again").hasSuffix("updated existing Flow#\(flow)\n"))
        let inserted = try session.run("insert Flow label=c step=1 snapshot=null")
        let new = try firstNumber(in: inserted)
        #expect(inserted == "Flow#\(new)\n")
        #expect(try session.count("Flow") == 2)
        // Giving the new flow the snapshot the first has at the same step is refused when it is made, by set or link.
        let clash = "Flow#\(flow) already has (snapshot, step) = (Snapshot#\(snap), 1), and together they are unique"
        let digits = "\(new)".count - 1, snapDigits = "\(snap)".count - 1
        #expect(session.error("set \(new) snapshot=\(snap)") == CommandError(clash, column: 7 + digits))
        #expect(session.error("link \(new) snapshot \(snap)") == CommandError(clash, column: 17 + digits))
        #expect(session.error("link \(snap) flows \(new)")?.message == clash)
        #expect(session.error("set \(snap) flows=[\(flow), \(new)]") == CommandError(clash, column: 7 + snapDigits))
        #expect(session.interpreter.context.undoManager?.undoActionNames == ["Update Flow#\(flow)", "Insert Flow#\(new)"])
        #expect(try session.run("set \(new) snapshot=\(snap) step=2") == "updated Flow#\(new)\n")
        try session.run("save")
    }

    @Test("where takes the literals insert takes: bare dates and date-times, quoted strings with the same escapes, lists")
    func predicateLiterals() throws {
        let trips = try Session("Trips")
        // What insert stores from a bare date, where finds with the same text.
        try trips.run("insert Trip name=Solstice destination=Oslo startDate=2025-06-21 endDate=2025-06-22T12:00:00Z")
        #expect(try trips.count("Trip") == 7)
        #expect(try trips.run("count Trip where startDate > 2025-07-01") == "3\n")
        #expect(try trips.run("count Trip where startDate == 2025-06-21") == "1\n")
        #expect(try trips.run("count Trip where endDate == 2025-06-22T12:00:00Z and startDate >= 2025-06-21T00:00:00Z") == "1\n")
        #expect(try trips.run("count Trip where startDate in [2025-06-21, 2026-01-10]") == "2\n")
        #expect(try trips.run("count Trip where name == \"Sol\\u0073tice\"") == "1\n")
        #expect(
            trips.error("list Trip where startDate > 2025-7-01")
                == CommandError(
                    "'2025-7-01' is not a number or a date (dates are written 2025-07-01 or 2025-07-01T09:30:00Z)", column: 29))
        #expect(trips.error("list Trip where name == 'a\\qb'") == CommandError("unknown escape '\\q'", column: 27))
        #expect(trips.error("insert Trip name='a\\qb'") == CommandError("unknown escape '\\q'", column: 20))
        // help says so.
        let help = try trips.run("help list")
        #expect(help.contains("Literals are written as insert takes them"))
        #expect(help.contains("dates 2025-07-01 or 2025-07-01T09:30:00Z"))
        #expect(try trips.run("help insert").contains("the literals where takes too"))
    }

    @Test("list prints an aligned table: id, attributes, to-one ids, to-many counts, then a count line")
    func listTable() throws {
        let session = try Session("Animals")
        #expect(
            try session.run("list AnimalCategory") == """
                id  name          animals.@count
                --  ------------  --------------
                 1  Amphibian                  4
                 6  Bird                       6
                13  Fish                       4
                18  Invertebrate               5
                24  Mammal                     7
                32  Reptile                    4
                6 AnimalCategory

                """)
        #expect(
            try session.run("list Animal where diet == 'herbivorous' sort name desc limit 3") == """
                id  name               diet         category
                --  -----------------  -----------  --------
                19  Monarch Butterfly  herbivorous        18
                28  Koala              herbivorous        24
                11  Hummingbird        herbivorous         6
                3 of 9 Animal

                """)
        #expect(
            try session.run("list Animal where category.name == 'Fish' sort diet, name desc offset 1 limit 2") == """
                id  name               diet         category
                --  -----------------  -----------  --------
                16  Great White Shark  carnivorous        13
                14  Goldfish           omnivorous         13
                2 of 4 Animal

                """)
        #expect(try session.run("list Animal where name == 'Dodo'") == "0 Animal\n")
    }

    @Test("a keyword next to an operator in a predicate is a property name, not a clause")
    func keywordInPredicate() throws {
        let session = try Session("Animals")
        #expect(session.error("list Animal where sort == 1 limit 2") == CommandError("Animal has no property 'sort'", column: 19))
    }

    @Test("list shows the first 50 rows of a long result, then how many more")
    func listTruncates() throws {
        let session = try Session("Countries")
        session.answer = true
        for index in 0..<40 { try session.run("insert Country name=C\(index) code=X\(index) visited=false") }
        let output = try session.run("list Country")
        let lines = output.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 2 + 50 + 2 + 1)
        #expect(lines[52] == "… 14 more (use limit/offset)")
        #expect(lines[53] == "64 Country")
        #expect(try session.run("list Country limit 60").split(separator: "\n").count == 2 + 60 + 1)
    }

    @Test("list takes any offset and limit up to Int.max without trapping; a number past Int's range is not a number of rows")
    func listExtremeWindows() throws {
        let session = try Session("Animals")
        #expect(try session.run("list Animal offset 1 limit 9223372036854775807").hasSuffix("\n29 of 30 Animal\n"))
        #expect(try session.run("list Animal offset 9223372036854775807 limit 9223372036854775807") == "0 of 30 Animal\n")
        #expect(try session.run("list Animal sort name offset 29 limit 9223372036854775807").hasSuffix("\n1 of 30 Animal\n"))
        #expect(
            session.error("list Animal limit 9223372036854775808")
                == CommandError(
                    "'9223372036854775808' is not a number of rows", column: 19))
    }

    @Test("list errors name the column: entity, predicate (shifted to the line), sort key, numbers, clauses")
    func listErrors() throws {
        let session = try Session("Animals")
        #expect(
            session.error("list")
                == CommandError(
                    "list needs an entity: list ENTITY [COLUMN, …] [where PREDICATE] [sort KEY [desc]] [limit N] [offset N]", column: 5))
        #expect(session.error("list Animl") == CommandError("no entity named 'Animl'; did you mean 'Animal'?", column: 6))
        #expect(
            session.error("list Animal where name = = 'x'")
                == CommandError(
                    "expected a value or a property name, found '='", column: 26))
        #expect(session.error("list Animal where nme == 'x' sort name") == CommandError("Animal has no property 'nme'; did you mean 'name'?", column: 19))
        #expect(session.error("list Animal where") == CommandError("'where' needs a predicate, e.g. where name == 'Koala'", column: 18))
        #expect(session.error("list Animal where sort name") == CommandError("'where' needs a predicate, e.g. where name == 'Koala'", column: 19))
        #expect(session.error("list Animal sort nam") == CommandError("cannot sort by 'nam': Animal has no property 'nam'; did you mean 'name'?", column: 18))
        #expect(
            session.error("list Animal sort name, category")
                == CommandError(
                    "cannot sort by 'category': 'category' is a relationship; sort by one of its attributes", column: 24))
        #expect(session.error("list Animal sort") == CommandError("'sort' needs a key, e.g. sort name desc", column: 17))
        #expect(session.error("list Animal sort desc") == CommandError("'desc' needs a key before it", column: 18))
        #expect(session.error("list Animal limit ten") == CommandError("'ten' is not a number of rows", column: 19))
        #expect(session.error("list Animal offset -1") == CommandError("'-1' is not a number of rows", column: 20))
        #expect(session.error("list Animal limit") == CommandError("'limit' needs a number", column: 18))
        #expect(session.error("list Animal limit 5 6") == CommandError("unexpected '6'", column: 21))
        #expect(session.error("list Animal limit 5 limit 6") == CommandError("'limit' is given twice", column: 21))
        #expect(session.error("list Animal frob") == CommandError("Animal has no attribute or relationship 'frob'", column: 13))
    }

    @Test("count prints the number alone; with where it counts matches")
    func count() throws {
        let session = try Session("Countries")
        #expect(try session.run("count Country") == "24\n")
        #expect(try session.run("count Country where visited == true") == "12\n")
        #expect(try session.run("count Country where population == nil") == "1\n")
        #expect(session.error("count") == CommandError("count needs an entity: count ENTITY [where PREDICATE]", column: 6))
        #expect(session.error("count Contry") == CommandError("no entity named 'Contry'; did you mean 'Country'?", column: 7))
        #expect(session.error("count Country visited") == CommandError("unexpected 'visited'; expected where", column: 15))
        #expect(session.error("count Country where visted == true") == CommandError("Country has no property 'visted'; did you mean 'visited'?", column: 21))
        #expect(
            session.error("count Country where visited == ")
                == CommandError(
                    "expected a value or a property name, found end of predicate", column: 31))
    }

    @Test("show prints every attribute and relationship; ids as 42 or Entity#42")
    func show() throws {
        let session = try Session("Animals")
        let expected = """
            AnimalCategory#1
              name     "Amphibian"
              animals  [Animal#2, Animal#3, Animal#4, Animal#5]

            """
        #expect(try session.run("show 1") == expected)
        #expect(try session.run("show AnimalCategory#1") == expected)
        #expect(try session.run("show #1") == expected)
        #expect(
            try session.run("show 2") == """
                Animal#2
                  name      "Newt"
                  diet      "carnivorous"
                  category  AnimalCategory#1

                """)
        let dogs = try Session("Dogs")
        let rex = try dogs.run("show Dog#13")
        #expect(rex.contains("  citiesVisited        [\"Portland\",\"Seattle\"]\n"))
        #expect(rex.contains("  companion            3\n"))
        #expect(rex.contains("  owner                Person#6\n"))
    }

    @Test("show errors name the id's column")
    func showErrors() throws {
        let session = try Session("Animals")
        session.answer = true
        #expect(session.error("show") == CommandError("show needs an object id, e.g. show 42 or show Animal#42", column: 5))
        #expect(session.error("show abc") == CommandError("'abc' is not an object id (write 42 or Animal#42)", column: 6))
        #expect(session.error("show 999") == CommandError("no object #999", column: 6))
        #expect(session.error("show Animal#999") == CommandError("no object Animal#999", column: 6))
        #expect(session.error("show AnimalCategory#2") == CommandError("#2 is Animal#2, not AnimalCategory", column: 6))
        #expect(session.error("show Plant#2") == CommandError("no entity named 'Plant'; entities: AnimalCategory, Animal", column: 6))
        #expect(session.error("show 2 3") == CommandError("unexpected '3'", column: 8))
        try session.run("delete 2")
        #expect(session.error("show  2") == CommandError("Animal#2 is deleted ('undo' brings it back)", column: 7))
    }

    @Test("count with 7,000 and 100,000 or-terms answers", .tags(.long), .onlyInLongRuns)
    func hugePredicates() throws {
        let session = try Session("Animals")
        for terms in [7_000, 100_000] {
            let predicate = (0..<terms).map { "name == 'n\($0)'" }.joined(separator: " or ")
            #expect(try session.run("count Animal where \(predicate) or name == 'Newt'") == "1\n", "\(terms) terms")
        }
    }

    @Test("nesting past the limit is an error naming its column")
    func deepPredicates() throws {
        let session = try Session("Animals")
        let deep = String(repeating: "(", count: 101) + "name == 'Newt'" + String(repeating: ")", count: 101)
        let error = try #require(session.error("count Animal where \(deep)"))
        #expect(error.column == 20 + 100)
        #expect(error.message.contains("nests more than 100 levels"))
    }
}
