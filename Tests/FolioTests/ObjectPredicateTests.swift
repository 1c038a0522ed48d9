import Foundation
import Testing
import Folio
@testable import FolioCore
import FolioTestSupport

/// A small zoo whose every object is known, so each predicate's matches can be
/// listed exactly. Animals, in insertion (row) order:
///
/// | name   | age | weight | born       | notes              | category |
/// |--------|-----|--------|------------|--------------------|----------|
/// | Rex    | 3   | 12.5   | 2019-05-01 | Good boy           | Mammal   |
/// | rosie  | 7   | 4.0    | 2021-02-10 | nil                | Mammal   |
/// | Tweety | 1   | 0.25   | 2022-07-04 | Says "hi"          | Bird     |
/// | Polly  | 12  | 0.9    | 2010-01-01 | it's ok            | Bird     |
/// | Nemo   | 2   | 0.1    | 2020-01-01 | nil                | none     |
/// | Ghost  | -1  | -3.5   | 2000-01-01 | two⏎lines⇥tab\     | none     |
///
/// Categories: Mammal (Rex, rosie), Bird (Tweety, Polly), Reptile (none).
private struct PredicateZoo {
    let context: ModelContext
    let mammal: PersistentIdentifier
    let bird: PersistentIdentifier
    let reptile: PersistentIdentifier
    private(set) var animals: [String: PersistentIdentifier] = [:]

    static let ghostNotes = "two\nlines\ttab\\"

    init() throws {
        context = try makeContext(try zooSchema())
        mammal = try context.insert("AnimalCategory", ["name": .string("Mammal")])
        bird = try context.insert("AnimalCategory", ["name": .string("Bird")])
        reptile = try context.insert("AnimalCategory", ["name": .string("Reptile")])
        let rows: [(String, Int64, Double, String, Value, PersistentIdentifier?)] = [
            ("Rex", 3, 12.5, "2019-05-01", .string("Good boy"), mammal),
            ("rosie", 7, 4.0, "2021-02-10", .null, mammal),
            ("Tweety", 1, 0.25, "2022-07-04", .string(#"Says "hi""#), bird),
            ("Polly", 12, 0.9, "2010-01-01", .string("it's ok"), bird),
            ("Nemo", 2, 0.1, "2020-01-01", .null, nil),
            ("Ghost", -1, -3.5, "2000-01-01", .string(Self.ghostNotes), nil),
        ]
        for (name, age, weight, born, notes, category) in rows {
            let animal = try context.insert(
                "Animal",
                [
                    "name": .string(name), "age": .int(age), "weight": .double(weight),
                    "born": .date(try #require(DateText.parse(born))), "notes": notes,
                ])
            if let category { try context.link(animal, "category", to: category) }
            animals[name] = animal
        }
        context.processPendingChanges()
    }

    /// The names of the objects a predicate selects, in fetch order.
    func names(_ predicate: String, entity: String = "Animal") throws -> [String] {
        let descriptor = DynamicFetchDescriptor(entity: entity, predicate: try ObjectPredicate(predicate))
        return try names(descriptor)
    }

    func names(_ descriptor: DynamicFetchDescriptor) throws -> [String] {
        try context.fetchIdentifiers(descriptor).map { id in
            guard case .string(let name) = try context.value("name", of: id) else { return "?" }
            return name
        }
    }

    func count(_ predicate: String, entity: String = "Animal") throws -> Int {
        try context.fetchCount(DynamicFetchDescriptor(entity: entity, predicate: try ObjectPredicate(predicate)))
    }

    /// The error parsing or applying a predicate gives, or `nil` when it works.
    func error(_ predicate: String, entity: String = "Animal") -> Folio.ObjectPredicateError? {
        let parsed: ObjectPredicate
        do { parsed = try ObjectPredicate(predicate) } catch { return error }
        do {
            _ = try context.fetchIdentifiers(DynamicFetchDescriptor(entity: entity, predicate: parsed))
            return nil
        } catch {
            if case .predicate(let error) = error { return error }
            return Folio.ObjectPredicateError("not a predicate error: \(error)", column: -1)
        }
    }
}

/// The error parsing a predicate gives, or `nil` when it parses.
private func parseError(_ text: String) -> Folio.ObjectPredicateError? {
    do { _ = try ObjectPredicate(text); return nil } catch { return error }
}

@Suite struct ObjectPredicateTests {
    // MARK: Operators

    @Test("== and = both test equality; != and <> both test inequality")
    func equalityOperators() throws {
        let zoo = try PredicateZoo()
        #expect(try zoo.names("name == \"Rex\"") == ["Rex"])
        #expect(try zoo.names("name = \"Rex\"") == ["Rex"])
        #expect(try zoo.names("age == 12") == ["Polly"])
        #expect(try zoo.names("age = 12") == ["Polly"])
        #expect(try zoo.names("name != \"Rex\"") == ["rosie", "Tweety", "Polly", "Nemo", "Ghost"])
        #expect(try zoo.names("name <> \"Rex\"") == ["rosie", "Tweety", "Polly", "Nemo", "Ghost"])
        #expect(try zoo.names("age != 3") == ["rosie", "Tweety", "Polly", "Nemo", "Ghost"])
        #expect(try zoo.names("age <> 3") == ["rosie", "Tweety", "Polly", "Nemo", "Ghost"])
        #expect(try zoo.names("name == \"Nobody\"").isEmpty)
    }

    @Test("<, <=, > and >= order integers, doubles and strings")
    func orderingOperators() throws {
        let zoo = try PredicateZoo()
        #expect(try zoo.names("age < 3") == ["Tweety", "Nemo", "Ghost"])
        #expect(try zoo.names("age <= 3") == ["Rex", "Tweety", "Nemo", "Ghost"])
        #expect(try zoo.names("age > 3") == ["rosie", "Polly"])
        #expect(try zoo.names("age >= 3") == ["Rex", "rosie", "Polly"])
        #expect(try zoo.names("weight < 0.9") == ["Tweety", "Nemo", "Ghost"])
        #expect(try zoo.names("weight <= 0.9") == ["Tweety", "Polly", "Nemo", "Ghost"])
        #expect(try zoo.names("weight > 4.0") == ["Rex"])
        #expect(try zoo.names("weight >= 4.0") == ["Rex", "rosie"])
        // Strings order by Unicode scalars: every capital comes before "r".
        #expect(try zoo.names("name < \"P\"") == ["Nemo", "Ghost"])
        #expect(try zoo.names("name >= \"Tweety\"") == ["rosie", "Tweety"])
    }

    @Test("contains, beginswith and endswith match substrings, case-sensitively without [c]")
    func stringOperators() throws {
        let zoo = try PredicateZoo()
        #expect(try zoo.names("name contains \"e\"") == ["Rex", "rosie", "Tweety", "Nemo"])
        #expect(try zoo.names("name contains \"ll\"") == ["Polly"])
        #expect(try zoo.names("name beginswith \"R\"") == ["Rex"])
        #expect(try zoo.names("name beginswith \"r\"") == ["rosie"])
        #expect(try zoo.names("name endswith \"y\"") == ["Tweety", "Polly"])
        #expect(try zoo.names("name endswith \"Y\"").isEmpty)
        // A missing value contains nothing.
        #expect(try zoo.names("notes contains \"o\"") == ["Rex", "Polly", "Ghost"])
    }

    @Test("the empty string is a substring, a prefix and a suffix of every string")
    func emptyNeedle() throws {
        let zoo = try PredicateZoo()
        #expect(try zoo.names("name beginswith \"\"").count == 6)
        #expect(try zoo.names("name endswith \"\"").count == 6)
        #expect(try zoo.names("name contains \"\"").count == 6)
        #expect(try zoo.names("name contains[c] ''").count == 6)
    }

    @Test("[c] makes every string operator case-insensitive")
    func caseInsensitive() throws {
        let zoo = try PredicateZoo()
        #expect(try zoo.names("name ==[c] \"REX\"") == ["Rex"])
        #expect(try zoo.names("name == \"REX\"").isEmpty)
        #expect(try zoo.names("name !=[c] \"rex\"") == ["rosie", "Tweety", "Polly", "Nemo", "Ghost"])
        #expect(try zoo.names("name beginswith[c] \"r\"") == ["Rex", "rosie"])
        #expect(try zoo.names("name endswith[c] \"Y\"") == ["Tweety", "Polly"])
        #expect(try zoo.names("name contains[c] \"E\"") == ["Rex", "rosie", "Tweety", "Nemo"])
        #expect(try zoo.names("name in[c] {\"ROSIE\", \"ghost\"}") == ["rosie", "Ghost"])
        #expect(try zoo.names("name <[c] \"p\"") == ["Nemo", "Ghost"])
    }

    @Test("in {…} matches any listed literal; an empty list matches nothing")
    func inList() throws {
        let zoo = try PredicateZoo()
        #expect(try zoo.names("name in {\"Rex\", 'Polly', \"Nobody\"}") == ["Rex", "Polly"])
        #expect(try zoo.names("age in {1, 2, 3}") == ["Rex", "Tweety", "Nemo"])
        #expect(try zoo.names("age in {-1, 12}") == ["Polly", "Ghost"])
        #expect(try zoo.names("age in {7.0}") == ["rosie"])
        #expect(try zoo.names("weight in {4, 0.25}") == ["rosie", "Tweety"])
        #expect(try zoo.names("notes in {nil, \"Good boy\"}") == ["Rex", "rosie", "Nemo"])
        #expect(try zoo.names("age in {}").isEmpty)
        #expect(try zoo.names("not age in {1, 2, 3}") == ["rosie", "Polly", "Ghost"])
    }

    @Test("operator and logical keywords are case-insensitive")
    func keywordCase() throws {
        let zoo = try PredicateZoo()
        #expect(try zoo.names("name BEGINSWITH \"R\" OR name EndsWith \"y\"") == ["Rex", "Tweety", "Polly"])
        #expect(try zoo.names("NOT age > 2 AND name CONTAINS \"o\"") == ["Nemo", "Ghost"])
        #expect(try zoo.names("age IN {3, 7}") == ["Rex", "rosie"])
        #expect(try zoo.names("notes == NIL") == ["rosie", "Nemo"])
        #expect(try zoo.names("TRUE").count == 6)
    }

    // MARK: Logic and precedence

    @Test("and, or, not and their symbols &&, ||, ! combine comparisons")
    func logic() throws {
        let zoo = try PredicateZoo()
        #expect(try zoo.names("age > 2 and age < 10") == ["Rex", "rosie"])
        #expect(try zoo.names("age > 2 && age < 10") == ["Rex", "rosie"])
        #expect(try zoo.names("age < 2 or age > 10") == ["Tweety", "Polly", "Ghost"])
        #expect(try zoo.names("age < 2 || age > 10") == ["Tweety", "Polly", "Ghost"])
        #expect(try zoo.names("not age > 2") == ["Tweety", "Nemo", "Ghost"])
        #expect(try zoo.names("!(age > 2)") == ["Tweety", "Nemo", "Ghost"])
        #expect(try zoo.names("! age > 2") == ["Tweety", "Nemo", "Ghost"])
        #expect(try zoo.names("not not age > 2") == ["Rex", "rosie", "Polly"])
        #expect(try zoo.names("age > 2 && weight < 5") == ["rosie", "Polly"])
        #expect(try zoo.names("age == 1 || age == 2 || age == 3") == ["Rex", "Tweety", "Nemo"])
    }

    @Test("and binds tighter than or, not tighter than and, and parentheses override both")
    func precedence() throws {
        let zoo = try PredicateZoo()
        // age == 1 or (age == 3 and weight > 100)
        #expect(try zoo.names("age == 1 or age == 3 and weight > 100") == ["Tweety"])
        #expect(try zoo.names("age == 3 and weight > 100 or age == 1") == ["Tweety"])
        #expect(try zoo.names("(age == 1 or age == 3) and weight > 100").isEmpty)
        #expect(try zoo.names("(age == 1 or age == 3) and weight > 1") == ["Rex"])
        // (not age == 1) and age < 5
        #expect(try zoo.names("not age == 1 and age < 5") == ["Rex", "Nemo", "Ghost"])
        #expect(try zoo.names("not (age == 1 and age < 5)") == ["Rex", "rosie", "Polly", "Nemo", "Ghost"])
        #expect(try zoo.names("((((age == 7))))") == ["rosie"])

        let tree = try ObjectPredicate("a == 1 or b == 2 and c == 3").root
        guard case .or(let terms) = tree, terms.count == 2, case .and = terms[1] else {
            Issue.record("expected or([_, and([_, _])]), got \(tree)")
            return
        }
        let left = try ObjectPredicate("a == 1 and b == 2 or c == 3").root
        guard case .or(let terms) = left, terms.count == 2, case .and = terms[0] else {
            Issue.record("expected or([and([_, _]), _]), got \(left)")
            return
        }
        let negated = try ObjectPredicate("not a == 1 and b == 2").root
        guard case .and(let terms) = negated, terms.count == 2, case .not = terms[0] else {
            Issue.record("expected and([not(_), _]), got \(negated)")
            return
        }
    }

    @Test("true and false are constant predicates")
    func constants() throws {
        let zoo = try PredicateZoo()
        #expect(try zoo.names("true").count == 6)
        #expect(try zoo.names("false").isEmpty)
        #expect(try zoo.names("not false").count == 6)
        #expect(try zoo.names("true and age == 3") == ["Rex"])
        #expect(try zoo.names("false or age == 3") == ["Rex"])
        #expect(try zoo.count("true", entity: "AnimalCategory") == 3)
    }

    // MARK: Literals

    @Test("integer, negative, decimal-point and exponent literals compare by value")
    func numberLiterals() throws {
        let zoo = try PredicateZoo()
        #expect(try zoo.names("age == -1") == ["Ghost"])
        #expect(try zoo.names("age < -0.5") == ["Ghost"])
        #expect(try zoo.names("age>-1") == ["Rex", "rosie", "Tweety", "Polly", "Nemo"])
        #expect(try zoo.names("weight == 0.25") == ["Tweety"])
        #expect(try zoo.names("weight == -3.5") == ["Ghost"])
        #expect(try zoo.names("weight >= 1e1") == ["Rex"])
        #expect(try zoo.names("weight < 1.5e-1") == ["Nemo", "Ghost"])
        #expect(try zoo.names("weight == 125E-1") == ["Rex"])
        #expect(try zoo.names("age < 18446744073709551615").count == 6)  // UInt64.max, above every Int64
        #expect(try zoo.names("age > -9223372036854775808").count == 6)
    }

    @Test("numbers compare by value across integer and double types")
    func crossTypeNumbers() throws {
        let zoo = try PredicateZoo()
        #expect(try zoo.names("age == 3.0") == ["Rex"])
        #expect(try zoo.names("age > 2.5") == ["Rex", "rosie", "Polly"])
        #expect(try zoo.names("age < 2.5 and age > 1.5") == ["Nemo"])
        #expect(try zoo.names("weight == 4") == ["rosie"])
        #expect(try zoo.names("weight > 4") == ["Rex"])
        #expect(try zoo.names("weight < 0") == ["Ghost"])
        // Two attributes of different numeric types compared with each other.
        #expect(try zoo.names("age < weight") == ["Rex"])
        #expect(try zoo.names("weight > age") == ["Rex"])
    }

    @Test("double- and single-quoted strings read \\\", \\', \\\\, \\n and \\t escapes")
    func stringLiterals() throws {
        let zoo = try PredicateZoo()
        #expect(try zoo.names(#"notes == "Says \"hi\"""#) == ["Tweety"])
        #expect(try zoo.names(#"notes == 'Says "hi"'"#) == ["Tweety"])
        #expect(try zoo.names(#"notes == 'it\'s ok'"#) == ["Polly"])
        #expect(try zoo.names(#"notes == "it's ok""#) == ["Polly"])
        #expect(try zoo.names(#"notes == "two\nlines\ttab\\""#) == ["Ghost"])
        #expect(try zoo.names(#"notes == 'two\nlines\ttab\\'"#) == ["Ghost"])
        #expect(try zoo.names(#"notes endswith "\\""#) == ["Ghost"])
        #expect(try zoo.names("name == 'Rex'") == ["Rex"])
        #expect(try zoo.names("name == ''").isEmpty)
        #expect(try zoo.names("name == \"Rex and age > 100\"").isEmpty)  // keywords inside strings are text
    }

    @Test("nil and null equal only a missing value; != nil selects the rest")
    func nilHandling() throws {
        let zoo = try PredicateZoo()
        #expect(try zoo.names("notes == nil") == ["rosie", "Nemo"])
        #expect(try zoo.names("notes == null") == ["rosie", "Nemo"])
        #expect(try zoo.names("notes != nil") == ["Rex", "Tweety", "Polly", "Ghost"])
        #expect(try zoo.names("nil == notes") == ["rosie", "Nemo"])
        #expect(try zoo.names("notes == \"\"").isEmpty)
        // A missing value is not equal to any string, so != selects it.
        #expect(try zoo.names("notes != \"Good boy\"") == ["rosie", "Tweety", "Polly", "Nemo", "Ghost"])
        // A non-optional attribute is never nil.
        #expect(try zoo.names("age == nil").isEmpty)
        #expect(try zoo.names("age != nil").count == 6)
        #expect(try zoo.names("name == nil").isEmpty)
    }

    @Test("a literal on the left flips the comparison")
    func literalOnTheLeft() throws {
        let zoo = try PredicateZoo()
        #expect(try zoo.names("5 < age") == ["rosie", "Polly"])
        #expect(try zoo.names("5 > age") == ["Rex", "Tweety", "Nemo", "Ghost"])
        #expect(try zoo.names("12 <= age") == ["Polly"])
        #expect(try zoo.names("-1 >= age") == ["Ghost"])
        #expect(try zoo.names("3 == age") == ["Rex"])
        #expect(try zoo.names("3 != age").count == 5)
        #expect(try zoo.names("\"Rex\" = name") == ["Rex"])
        #expect(try zoo.names("0.5 > weight") == ["Tweety", "Nemo", "Ghost"])
        #expect(try zoo.names("\"2020-01-01\" < born") == ["rosie", "Tweety"])
        // Only the symmetric and ordering operators can be flipped.
        let error = zoo.error("\"e\" contains name")
        #expect(error?.column == 1)
    }

    @Test("dates compare with ISO 8601 strings, bare dates meaning midnight UTC")
    func dates() throws {
        let zoo = try PredicateZoo()
        #expect(try zoo.names("born < \"2020-01-01\"") == ["Rex", "Polly", "Ghost"])
        #expect(try zoo.names("born >= \"2020-01-01\"") == ["rosie", "Tweety", "Nemo"])
        #expect(try zoo.names("born == \"2020-01-01\"") == ["Nemo"])
        #expect(try zoo.names("born == '2020-01-01T00:00:00Z'") == ["Nemo"])
        #expect(try zoo.names("born > \"2020-01-01T00:00:00Z\"") == ["rosie", "Tweety"])
        #expect(try zoo.names("born < \"2020-01-01T00:00:00.5Z\" and born > \"2019-12-31T23:59:59Z\"") == ["Nemo"])
        #expect(try zoo.names("born in {\"2010-01-01\", \"2000-01-01\"}") == ["Polly", "Ghost"])
        #expect(try zoo.names("born > \"2019-01-01\" and born < \"2021-12-31\"") == ["Rex", "rosie", "Nemo"])
        let error = zoo.error("born < \"yesterday\"")
        #expect(error?.column == 8)
        #expect(error?.message.contains("yesterday") == true)
    }

    @Test("bare ISO dates and date-times are literals, as insert writes them, in comparisons, lists and on either side")
    func bareDates() throws {
        let zoo = try PredicateZoo()
        #expect(try zoo.names("born < 2020-01-01") == ["Rex", "Polly", "Ghost"])
        #expect(try zoo.names("born >= 2020-01-01") == ["rosie", "Tweety", "Nemo"])
        #expect(try zoo.names("born == 2020-01-01T00:00:00Z") == ["Nemo"])
        #expect(try zoo.names("born < 2020-01-01T00:00:00.5Z and born > 2019-12-31T23:59:59Z") == ["Nemo"])
        #expect(try zoo.names("2020-01-01 < born") == ["rosie", "Tweety"])
        #expect(try zoo.names("born in {2010-01-01, 2000-01-01}") == ["Polly", "Ghost"])
        #expect(try zoo.names("born in [2010-01-01, 2000-01-01]") == ["Polly", "Ghost"])
        #expect(try zoo.names("born>2022-01-01") == ["Tweety"])
        // A bare literal is read as the type it is compared with: a string attribute reads its text.
        #expect(try zoo.names("name == 2020-01-01").isEmpty)
        #expect(try zoo.names("age == 3 and born == 2019-05-01") == ["Rex"])
        let error = zoo.error("born < 2020-13-01")
        #expect(error?.column == 8)
        #expect(error?.message.contains("2020-13-01") == true)
    }

    @Test("quoted strings take insert's escapes, \\u and \\r included, and an unknown escape is refused at its column")
    func insertEscapes() throws {
        let zoo = try PredicateZoo()
        #expect(try zoo.names(#"name == "\u0052ex""#) == ["Rex"])
        #expect(try zoo.names(#"notes == 'it\'s ok'"#) == ["Polly"])
        #expect(parseError(#"name == "a\qb""#) == Folio.ObjectPredicateError("unknown escape '\\q'", column: 11))
        #expect(parseError(#"name == "\u12""#)?.column == 10)
    }

    @Test("a \\u escape takes exactly four hex digits: a sign among them is an unknown escape, not a code point")
    func unicodeEscapeIsFourHexDigits() throws {
        // UInt32(_:radix:) reads "+052" as 0x52: "\u+052ex" must not be "Rex".
        for text in [#"name == "\u+052ex""#, #"name == "\u+52ex""#] {
            #expect(parseError(text)?.column == 10, "\(text)")
        }
    }

    @Test("a sort by a collection attribute is refused with the entity and attribute, even on an empty result")
    func unsortable() throws {
        let schema = try Schema([
            .init(
                "Dog",
                attributes: [
                    .init("name", .string), .init("cities", .set(.string)), .init("parks", .dictionary(.string)),
                    .init("toys", .array(.string)), .init("shape", .codable), .init("companion", .any),
                ],
                relationships: [.init("owner", to: "Person", inverse: "dogs")]),
            .init(
                "Person", attributes: [.init("tags", .array(.string))],
                relationships: [.init("dogs", to: "Dog", toMany: true, inverse: "owner")]),
        ])
        let context = try makeContext(schema)
        try context.insert("Dog", ["name": .string("Rex"), "cities": .set([.string("Oslo")])])
        for (key, entity, attribute) in [
            ("cities", "Dog", "cities"), ("parks", "Dog", "parks"), ("toys", "Dog", "toys"),
            ("shape", "Dog", "shape"), ("owner.tags", "Person", "tags"),
        ] {
            for predicate in [nil, try ObjectPredicate("false")] {
                let descriptor = DynamicFetchDescriptor(entity: "Dog", predicate: predicate, sortBy: [.init("name"), .init(key)])
                #expect(throws: ModelError.unsortable(entity: entity, attribute: attribute)) {
                    try context.fetchIdentifiers(descriptor)
                }
            }
        }
        #expect(
            ModelError.unsortable(entity: "Dog", attribute: "cities").description
                == "cannot sort by Dog.cities: arrays, sets, dictionaries and composite values have no order")
        #expect(try context.fetchIdentifiers(DynamicFetchDescriptor(entity: "Dog", sortBy: [.init("companion")])).count == 1)
        #expect(schema.entities[0].attributes.filter(\.type.isSortable).map(\.name) == ["name", "companion"])
    }

    // MARK: Key paths

    @Test("key paths follow to-one relationships; a missing destination reads as nil")
    func toOnePaths() throws {
        let zoo = try PredicateZoo()
        #expect(try zoo.names("category.name == \"Mammal\"") == ["Rex", "rosie"])
        #expect(try zoo.names("category.name beginswith[c] 'b'") == ["Tweety", "Polly"])
        #expect(try zoo.names("category.name == nil") == ["Nemo", "Ghost"])
        #expect(try zoo.names("category.name != \"Mammal\"") == ["Tweety", "Polly", "Nemo", "Ghost"])
        #expect(try zoo.names("category == nil") == ["Nemo", "Ghost"])
        #expect(try zoo.names("category != nil") == ["Rex", "rosie", "Tweety", "Polly"])
        #expect(try zoo.names("category.name in {\"Bird\", \"Reptile\"} and age > 1") == ["Polly"])
        // Pending link edits are seen.
        try zoo.context.link(try #require(zoo.animals["Nemo"]), "category", to: zoo.reptile)
        #expect(try zoo.names("category.name == \"Reptile\"") == ["Nemo"])
        #expect(try zoo.names("category == nil") == ["Ghost"])
    }

    @Test("@count counts a to-many, also at the end of a to-one path")
    func countOfToMany() throws {
        let zoo = try PredicateZoo()
        #expect(try zoo.names("animals.@count == 2", entity: "AnimalCategory") == ["Mammal", "Bird"])
        #expect(try zoo.names("animals.@count == 0", entity: "AnimalCategory") == ["Reptile"])
        #expect(try zoo.names("animals.@count > 1 and name endswith \"l\"", entity: "AnimalCategory") == ["Mammal"])
        #expect(try zoo.names("animals.@count >= 1.5", entity: "AnimalCategory") == ["Mammal", "Bird"])
        #expect(try zoo.names("0 < animals.@count", entity: "AnimalCategory") == ["Mammal", "Bird"])
        #expect(try zoo.names("category.animals.@count == 2") == ["Rex", "rosie", "Tweety", "Polly"])
        try zoo.context.link(try #require(zoo.animals["Nemo"]), "category", to: zoo.reptile)
        try zoo.context.link(try #require(zoo.animals["Tweety"]), "category", to: zoo.mammal)
        #expect(try zoo.names("animals.@count == 1", entity: "AnimalCategory") == ["Bird", "Reptile"])
        #expect(try zoo.names("animals.@count == 3", entity: "AnimalCategory") == ["Mammal"])
        // @count of a to-one is refused.
        #expect(zoo.error("category.@count == 1")?.column == 1)
    }

    // MARK: Errors

    @Test("an unknown property is reported at its column when the predicate is applied")
    func unknownProperty() throws {
        let zoo = try PredicateZoo()
        let error = zoo.error("age > 2 and colour == \"red\"")
        #expect(error?.column == 13)
        #expect(error?.message.contains("colour") == true)
        #expect(zoo.error("age < height")?.column == 7)
        #expect(zoo.error("colour == 1")?.column == 1)
        #expect(zoo.error("name == \"x\"", entity: "AnimalCategory") == nil)
        #expect(zoo.error("age == 1", entity: "AnimalCategory")?.column == 1)
        // Parsing alone does not know the entity.
        #expect(parseError("colour == 1") == nil)
    }

    @Test("an unterminated string is reported at its opening quote")
    func unterminatedString() {
        let error = parseError("name == \"Rex")
        #expect(error?.column == 9)
        #expect(error?.message.contains("unterminated") == true)
        #expect(parseError("name == 'Rex\" and age > 1")?.column == 9)
        #expect(parseError("age > 1 and name == \"Rex\\\"")?.column == 21)  // the escaped quote does not close it
    }

    @Test("an unexpected character is reported at its column")
    func unexpectedCharacter() {
        #expect(parseError("age > 2 # 3")?.column == 9)
        #expect(parseError("age ~ 3")?.column == 5)
        #expect(parseError("age > 2 & age < 3")?.column == 9)
        #expect(parseError("age > 2 | age < 3")?.column == 9)
        #expect(parseError("age == +3")?.column == 8)
        let error = parseError("age ; 3")
        #expect(error?.column == 5)
        #expect(error?.message.contains(";") == true)
    }

    @Test("a missing operator is reported where the operator should be")
    func missingOperator() {
        #expect(parseError("age 3")?.column == 5)
        #expect(parseError("name \"Rex\"")?.column == 6)
        #expect(parseError("age")?.column == 4)
        #expect(parseError("age > 2 and name")?.column == 17)
        #expect(parseError("age > 2 and")?.column == 12)
        #expect(parseError("")?.column == 1)
        #expect(parseError("(age > 2")?.column == 9)
    }

    @Test("a to-many used without @count is refused at its column")
    func toManyWithoutCount() throws {
        let zoo = try PredicateZoo()
        let error = zoo.error("name == \"x\" and animals > 0", entity: "AnimalCategory")
        #expect(error?.column == 17)
        #expect(error?.message.contains("@count") == true)
        #expect(zoo.error("animals.name == \"Rex\"", entity: "AnimalCategory")?.column == 1)
        #expect(zoo.error("category.animals == nil")?.column == 1)
    }

    @Test("anything after a complete predicate is refused at its column")
    func trailingGarbage() {
        #expect(parseError("age > 2 3")?.column == 9)
        #expect(parseError("age > 2)")?.column == 8)
        #expect(parseError("age > 2 name == \"x\"")?.column == 9)
        #expect(parseError("true false")?.column == 6)
        #expect(parseError("age > 2 and age < 3 ,")?.column == 21)
    }

    @Test("other malformed predicates are refused")
    func otherErrors() throws {
        let zoo = try PredicateZoo()
        #expect(parseError("3 == 3") == nil)  // parses, but
        #expect(zoo.error("3 == 3") != nil)  // a comparison needs a property
        #expect(zoo.error("age == {1, 2}") != nil)  // a list goes with "in"
        #expect(zoo.error("age in 3") != nil)
        #expect(zoo.error("name.@count == 1") != nil)
        #expect(zoo.error("age == 1.2.3") != nil)
        #expect(parseError("age in {1, age}") != nil)
        #expect(parseError("category. == 1") != nil)
        let deep = String(repeating: "(", count: 500) + "age == 1" + String(repeating: ")", count: 500)
        #expect(parseError(deep) != nil)
    }

    // MARK: Other attribute types

    @Test("integer widths, unsigned, float, decimal, bool and optional numbers compare by value")
    func otherTypes() throws {
        let context = try makeContext(try kitchenSinkSchema())
        let a = try context.insert(
            "Thing",
            [
                "v_string": .string("A"), "v_int8": .int(2), "v_uint16": .uint(300), "v_float": .float(1.5),
                "v_decimal": .decimal(Decimal(string: "1.25")!), "v_bool": .bool(true), "o_double": .double(2.5),
                "tags": .set([.string("red"), .string("blue")]), "scores": .array([.double(1), .double(2.5)]),
                "counts": .dictionary(["k": .int(1)]),
            ])
        let b = try context.insert(
            "Thing",
            [
                "v_string": .string("B"), "v_int8": .int(-3), "v_uint16": .uint(7), "v_float": .float(-0.5),
                "v_decimal": .decimal(10), "v_bool": .bool(false), "o_int": .int(5),
            ])
        let c = try context.insert("Thing", ["v_string": .string("C"), "v_uint64": .uint(.max), "o_int": .int(0)])
        func matches(_ text: String) throws -> [PersistentIdentifier] {
            try context.fetchIdentifiers(DynamicFetchDescriptor(entity: "Thing", predicate: try ObjectPredicate(text)))
        }
        #expect(try matches("v_int8 == 2.0") == [a])
        #expect(try matches("v_int8 < 0") == [b])
        #expect(try matches("v_int8 > -3.5") == [a, b, c])
        #expect(try matches("v_uint16 > 10") == [a])
        #expect(try matches("v_uint16 >= 7.0") == [a, b])
        #expect(try matches("v_uint16 > -1") == [a, b, c])
        #expect(try matches("v_uint64 == 18446744073709551615") == [c])
        #expect(try matches("v_uint64 > 9223372036854775807") == [c])
        #expect(try matches("v_float == 1.5") == [a])
        #expect(try matches("v_float < 0") == [b])
        #expect(try matches("v_decimal == 1.25") == [a])
        #expect(try matches("v_decimal > 2") == [b])
        #expect(try matches("v_decimal < 1.3") == [a, c])
        #expect(try matches("v_bool == true") == [a])
        #expect(try matches("v_bool = false") == [b, c])
        #expect(try matches("true == v_bool") == [a])
        #expect(try matches("o_int == nil") == [a])
        #expect(try matches("o_int != nil") == [b, c])
        #expect(try matches("o_int == 0") == [c])
        #expect(try matches("o_int >= 0") == [b, c])
        #expect(try matches("o_double > 2") == [a])
        #expect(try matches("o_double == nil") == [b, c])
        #expect(try matches("tags contains \"red\"") == [a])
        #expect(try matches("scores contains 2.5") == [a])
        #expect(try matches("scores contains 1") == [a])
        #expect(try matches("counts contains \"k\"") == [a])
        #expect(try matches("v_string in {\"A\", \"C\"}") == [a, c])
    }

    // MARK: Sorting and windows

    @Test("sorting by an attribute, ascending and descending, with ties in insertion order")
    func sortByAttribute() throws {
        let zoo = try PredicateZoo()
        #expect(
            try zoo.names(DynamicFetchDescriptor(entity: "Animal", sortBy: [.init("age")]))
                == ["Ghost", "Tweety", "Nemo", "Rex", "rosie", "Polly"])
        #expect(
            try zoo.names(DynamicFetchDescriptor(entity: "Animal", sortBy: [.init("age", ascending: false)]))
                == ["Polly", "rosie", "Rex", "Nemo", "Tweety", "Ghost"])
        #expect(
            try zoo.names(DynamicFetchDescriptor(entity: "Animal", sortBy: [.init("name")]))
                == ["Ghost", "Nemo", "Polly", "Rex", "Tweety", "rosie"])
        #expect(
            try zoo.names(DynamicFetchDescriptor(entity: "Animal", sortBy: [.init("weight", ascending: false)]))
                == ["Rex", "rosie", "Polly", "Tweety", "Nemo", "Ghost"])
        #expect(
            try zoo.names(DynamicFetchDescriptor(entity: "Animal", sortBy: [.init("born")]))
                == ["Ghost", "Polly", "Rex", "Nemo", "rosie", "Tweety"])
        // nil sorts first ascending; equal keys keep insertion order.
        #expect(
            try zoo.names(DynamicFetchDescriptor(entity: "Animal", sortBy: [.init("notes")]))
                == ["rosie", "Nemo", "Rex", "Tweety", "Polly", "Ghost"])
        #expect(
            try zoo.names(
                DynamicFetchDescriptor(
                    entity: "Animal", predicate: try ObjectPredicate("age > 1"),
                    sortBy: [.init("age", ascending: false)]))
                == ["Polly", "rosie", "Rex", "Nemo"])
    }

    @Test("sorting through a to-one path, with several keys")
    func sortByPath() throws {
        let zoo = try PredicateZoo()
        #expect(
            try zoo.names(DynamicFetchDescriptor(entity: "Animal", sortBy: [.init("category.name")]))
                == ["Nemo", "Ghost", "Tweety", "Polly", "Rex", "rosie"])
        #expect(
            try zoo.names(DynamicFetchDescriptor(entity: "Animal", sortBy: [.init("category.name", ascending: false)]))
                == ["Rex", "rosie", "Tweety", "Polly", "Nemo", "Ghost"])
        #expect(
            try zoo.names(
                DynamicFetchDescriptor(
                    entity: "Animal",
                    sortBy: [.init("category.name"), .init("age", ascending: false)]))
                == ["Nemo", "Ghost", "Polly", "Tweety", "rosie", "Rex"])
    }

    @Test("an unknown sort key is refused")
    func unknownSortKey() throws {
        let zoo = try PredicateZoo()
        let error = #expect(throws: ModelError.self) {
            try zoo.context.fetchIdentifiers(DynamicFetchDescriptor(entity: "Animal", sortBy: [.init("colour")]))
        }
        guard case .predicate(let predicateError) = error else {
            Issue.record("expected a predicate error, got \(String(describing: error))")
            return
        }
        #expect(predicateError.message.contains("colour"))
    }

    @Test("a sort key the predicate language accepts is honoured, never silently ignored")
    func sortByCount() throws {
        let zoo = try PredicateZoo()
        try zoo.context.link(try #require(zoo.animals["Nemo"]), "category", to: zoo.reptile)
        try zoo.context.link(try #require(zoo.animals["Ghost"]), "category", to: zoo.mammal)
        // Mammal 3, Bird 2, Reptile 1.
        let descriptor = DynamicFetchDescriptor(entity: "AnimalCategory", sortBy: [.init("animals.@count")])
        do {
            let sorted = try zoo.names(descriptor)
            #expect(sorted == ["Reptile", "Bird", "Mammal"], "sorting by animals.@count was accepted but did not sort")
        } catch {
            // Refusing the key is also acceptable; ignoring it is not.
        }
    }

    @Test("fetchLimit and fetchOffset window the sorted matches; fetchCount ignores them")
    func windows() throws {
        let zoo = try PredicateZoo()
        let byAge = [DynamicFetchDescriptor.SortKey("age")]
        #expect(try zoo.names(DynamicFetchDescriptor(entity: "Animal", sortBy: byAge, fetchLimit: 2)) == ["Ghost", "Tweety"])
        #expect(try zoo.names(DynamicFetchDescriptor(entity: "Animal", sortBy: byAge, fetchOffset: 4)) == ["rosie", "Polly"])
        #expect(
            try zoo.names(DynamicFetchDescriptor(entity: "Animal", sortBy: byAge, fetchLimit: 2, fetchOffset: 1))
                == ["Tweety", "Nemo"])
        #expect(try zoo.names(DynamicFetchDescriptor(entity: "Animal", sortBy: byAge, fetchLimit: 10, fetchOffset: 5)) == ["Polly"])
        #expect(try zoo.names(DynamicFetchDescriptor(entity: "Animal", sortBy: byAge, fetchOffset: 6)).isEmpty)
        #expect(try zoo.names(DynamicFetchDescriptor(entity: "Animal", sortBy: byAge, fetchOffset: 60)).isEmpty)
        #expect(try zoo.names(DynamicFetchDescriptor(entity: "Animal", sortBy: byAge, fetchLimit: 0)).isEmpty)
        #expect(try zoo.names(DynamicFetchDescriptor(entity: "Animal", fetchLimit: 3)) == ["Rex", "rosie", "Tweety"])
        let older = try ObjectPredicate("age > 1")
        let window = DynamicFetchDescriptor(entity: "Animal", predicate: older, sortBy: byAge, fetchLimit: 2, fetchOffset: 1)
        #expect(try zoo.names(window) == ["Rex", "rosie"])
        #expect(try zoo.context.fetchCount(window) == 4)
        #expect(try zoo.context.fetchCount(DynamicFetchDescriptor(entity: "Animal", fetchLimit: 1, fetchOffset: 2)) == 6)
    }

    @Test("includePendingChanges: false reads the last saved state")
    func savedStateOnly() throws {
        let zoo = try PredicateZoo()
        let context = zoo.context
        func saved(_ text: String?) -> DynamicFetchDescriptor {
            DynamicFetchDescriptor(entity: "Animal", predicate: text.map { try! ObjectPredicate($0) }, includePendingChanges: false)
        }
        // Nothing saved yet.
        #expect(try context.fetchCount(saved(nil)) == 0)
        #expect(try zoo.names(saved("true")).isEmpty)
        try context.save()
        #expect(try zoo.names(saved("age > 5")) == ["rosie", "Polly"])

        try context.setValue(.int(30), for: "age", of: try #require(zoo.animals["Rex"]))
        try context.delete(try #require(zoo.animals["Polly"]))
        try context.insert("Animal", ["name": .string("Newbie"), "age": .int(9)])
        try context.insert("Animal", ["name": .string("Newer"), "age": .int(10)])
        try context.link(try #require(zoo.animals["Nemo"]), "category", to: zoo.reptile)

        #expect(try zoo.names("age > 5") == ["Rex", "rosie", "Newbie", "Newer"])
        #expect(try zoo.names(saved("age > 5")) == ["rosie", "Polly"])
        #expect(try context.fetchCount(saved(nil)) == 6)
        #expect(try context.fetchCount(DynamicFetchDescriptor(entity: "Animal")) == 7)
        #expect(try context.fetchCount(saved("age > 5")) == 2)
        #expect(try zoo.names(saved("category.name == nil")) == ["Nemo", "Ghost"])
        #expect(try zoo.names("category.name == nil") == ["Ghost", "Newbie", "Newer"])
        #expect(try context.fetchIdentifiers(saved("name == \"Polly\"")) == [try #require(zoo.animals["Polly"])])
        var sortedSaved = saved(nil)
        sortedSaved.sortBy = [.init("age", ascending: false)]
        sortedSaved.fetchLimit = 2
        #expect(try zoo.names(sortedSaved) == ["Polly", "rosie"])

        try context.save()
        #expect(try zoo.names(saved("age > 5")) == ["Rex", "rosie", "Newbie", "Newer"])
        #expect(try context.fetchCount(saved(nil)) == 7)
    }

    @Test("a predicate keeps its text and the all predicate matches everything")
    func textAndAll() throws {
        let zoo = try PredicateZoo()
        let text = "age > 2 and name beginswith[c] 'r'"
        #expect(try ObjectPredicate(text).description == text)
        #expect(try ObjectPredicate(text).text == text)
        #expect(try zoo.context.fetchCount(DynamicFetchDescriptor(entity: "Animal", predicate: .all)) == 6)
    }

    @Test("7,000 and 100,000 or-terms parse, compile and match, without deep recursion", .tags(.long), .onlyInLongRuns)
    func longChainsOfOr() throws {
        let zoo = try PredicateZoo()
        for terms in [7_000, 100_000] {
            let text = (0..<terms).map { "age == \($0 - 1)" }.joined(separator: " or ")
            // Ages -1, 1, 2, 3, 7 and 12 are all below 7,000: every animal matches.
            #expect(try zoo.count(text) == 6, "\(terms) terms")
        }
        let conjunction = (0..<100_000).map { _ in "age > -5" }.joined(separator: " && ")
        #expect(try zoo.count(conjunction) == 6)
        let mixed = (0..<50_000).map { "(age == \($0) and weight > 0)" }.joined(separator: " || ")
        #expect(try zoo.names(mixed) == ["Rex", "rosie", "Tweety", "Polly", "Nemo"])
    }

    @Test("parentheses or not nested past the documented limit are refused with the column where the limit is hit")
    func deepNestingIsRefused() throws {
        let zoo = try PredicateZoo()
        let limit = ObjectPredicate.maximumNesting
        #expect(limit == 100)
        let atLimit = String(repeating: "(", count: limit - 1) + "age > 2" + String(repeating: ")", count: limit - 1)
        #expect(try zoo.count(atLimit) == 3)
        for depth in [limit + 1, 100_000] {
            let parentheses = String(repeating: "(", count: depth) + "age > 2" + String(repeating: ")", count: depth)
            let error = try #require(zoo.error(parentheses))
            #expect(error.message.contains("nests more than 100 levels"))
            #expect(error.column == limit + 1)
            let nots = String(repeating: "not ", count: depth) + "age > 2"
            #expect(zoo.error(nots)?.column == 4 * limit + 1)
        }
    }

    @Test(
        "in with a long list matches as a short one does: exact scalars, nil, numbers; 200,000 literals cost no scan per object", .tags(.long), .onlyInLongRuns)
    func longInLists() throws {
        let zoo = try PredicateZoo()
        let filler = (0..<200_000).map { "'n\($0)'" }.joined(separator: ", ")
        #expect(try zoo.names("name in {\(filler), 'Rex', 'Polly'}") == ["Rex", "Polly"])
        #expect(try zoo.names("notes in {\(filler), nil}") == ["rosie", "Nemo"])
        // "Ze\u{301}" and "Z\u{e9}" are equal Strings with different scalars: only exact scalars match, as in ==.
        _ = try zoo.context.insert("Animal", ["name": .string("Ze\u{301}")])
        #expect(try zoo.names("name in {\(filler), 'Z\u{e9}'}").isEmpty)
        #expect(try zoo.names("name == 'Z\u{e9}'").isEmpty)
        #expect(try zoo.names("name in {\(filler), 'Ze\u{301}'}") == ["Ze\u{301}"])
        let numbers = (100...200).map(String.init).joined(separator: ", ")
        #expect(try zoo.names("age in {\(numbers), 3, 7.0}") == ["Rex", "rosie"])
        #expect(try zoo.names("name in[c] {\(filler), 'rex'}") == ["Rex"])
    }
}
