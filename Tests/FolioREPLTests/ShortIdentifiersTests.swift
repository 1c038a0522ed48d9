import Folio
import Foundation
import Testing
@testable import FolioREPL
import FolioTestSupport

/// Short identifiers: a unique trailing part (3 digits or more) of an id's
/// digits names its object wherever an id is typed, as Git's short hashes do;
/// the full id always works.
@Suite struct ShortIdentifiersTests {
    // Lane identifiers (`lane << 32 | seq`) as two writers make them, and one legacy id (12).
    static let rex: UInt64 = 7_483_920_175_308_390_401  // Animal, ends …0401
    static let tom: UInt64 = 7_483_920_175_308_391_401  // Animal, ends …1401
    static let kit: UInt64 = 7_483_920_175_308_390_777  // Animal, ends …0777
    static let mammal: UInt64 = 7_483_920_175_308_390_402  // Category
    static let bird: UInt64 = 5_000_000_000_000_000_777  // Category, ends …0777 too
    static let reptile: UInt64 = 12  // Category, a legacy id
    /// Seven animals ending in 555, for a list of candidates cut at five.
    static let fives: [UInt64] = (1...7).map { UInt64($0) * 1_000_000_000_000_000_000 + 555 }

    /// A session on a format 1 package holding the objects above (format 1 is one file, easy to write by hand).
    static func session() throws -> Session {
        let package = temporaryPackageURL("Short")
        try FileManager.default.createDirectory(at: package, withIntermediateDirectories: true)
        let animals =
            [(rex, "Rex", mammal), (tom, "Tom", mammal), (kit, "Kit", bird)]
            + fives.enumerated().map { (UInt64($0.element), "Five\($0.offset)", reptile) }
        let categories = [(mammal, "Mammal"), (bird, "Bird"), (reptile, "Reptile")]
        func members(_ category: UInt64) -> String {
            animals.filter { $0.2 == category }.map { String($0.0) }.joined(separator: " ")
        }
        let document = """
            <?xml version="1.0" encoding="UTF-8"?>
            <folio format="1">
              <schema>
                <entity name="Category">
                  <attribute name="name" type="string"/>
                  <relationship name="animals" destination="Animal" to-many="true" inverse="category" delete-rule="nullify"/>
                </entity>
                <entity name="Animal">
                  <attribute name="name" type="string"/>
                  <relationship name="category" destination="Category" inverse="animals" delete-rule="nullify"/>
                </entity>
              </schema>
              <objects Category="\(categories.count)" Animal="\(animals.count)">
            \(categories.map { "    <Category f.id=\"\($0.0)\" name=\"\($0.1)\" animals=\"\(members($0.0))\"/>" }.joined(separator: "\n"))
            \(animals.map { "    <Animal f.id=\"\($0.0)\" name=\"\($0.1)\" category=\"\($0.2)\"/>" }.joined(separator: "\n"))
              </objects>
            </folio>

            """
        try Data(document.utf8).write(to: package.appendingPathComponent("document.xml"))
        return try Session(url: package)
    }

    @Test("a unique trailing part of 3 digits or more names the object: plain, #-prefixed and Entity#")
    func uniqueSuffixNamesTheObject() throws {
        let session = try Self.session()
        #expect(try session.run("show 1401").hasPrefix("Animal#\(Self.tom)\n"))
        #expect(try session.run("show #1401").hasPrefix("Animal#\(Self.tom)\n"))
        #expect(try session.run("show Animal#1401").hasPrefix("Animal#\(Self.tom)\n"))
        #expect(try session.run("show 0401").hasPrefix("Animal#\(Self.rex)\n"))
        #expect(try session.run("show 402").hasPrefix("Category#\(Self.mammal)\n"))
    }

    @Test("the full id always works, and a legacy id of fewer than 3 digits names its object exactly")
    func fullIdentifiers() throws {
        let session = try Self.session()
        #expect(try session.run("show \(Self.rex)").hasPrefix("Animal#\(Self.rex)\n"))
        #expect(try session.run("show Animal#\(Self.kit)").hasPrefix("Animal#\(Self.kit)\n"))
        #expect(try session.run("show 12").hasPrefix("Category#12\n"))
    }

    @Test("an ambiguous trailing part is an error listing the candidates, at most five")
    func ambiguous() throws {
        let session = try Self.session()
        #expect(
            session.error("show 401")
                == CommandError(
                    "'401' is ambiguous: it ends 2 ids (Animal#\(Self.rex), Animal#\(Self.tom)); type more of its digits, or the whole id",
                    column: 6))
        #expect(
            session.error("show 777")
                == CommandError(
                    "'777' is ambiguous: it ends 2 ids (Category#\(Self.bird), Animal#\(Self.kit)); type more of its digits, or the whole id",
                    column: 6))
        let five = Self.fives.prefix(5).map { "Animal#\($0)" }.joined(separator: ", ")
        #expect(
            session.error("show 555")
                == CommandError(
                    "'555' is ambiguous: it ends 7 ids (\(five) and 2 more); type more of its digits, or the whole id", column: 6))
    }

    @Test("the entity typed, or the one the place takes, narrows the candidates")
    func entityNarrows() throws {
        let session = try Self.session()
        #expect(try session.run("show Animal#777").hasPrefix("Animal#\(Self.kit)\n"))
        #expect(try session.run("show Category#777").hasPrefix("Category#\(Self.bird)\n"))
        // link's target and a relationship value take the relationship's destination.
        #expect(try session.run("link 1401 category 777") == "linked Category#\(Self.bird) to Animal#\(Self.tom).category\n")
        try session.run("insert Animal name=Zed category=777 as zed")
        #expect(try session.count("Animal", "category.name == 'Bird'") == 3)
        try session.run("set 0401 category=777")
        #expect(try session.count("Animal", "category.name == 'Bird'") == 4)
        try session.run("set Category#777 animals=[0401, 1401]")
        #expect(try session.count("Animal", "category.name == 'Bird'") == 2)
    }

    @Test("fewer than 3 digits, or digits no id ends with, name nothing; a deleted object says so")
    func noMatch() throws {
        let session = try Self.session()
        #expect(session.error("show 01") == CommandError("no object #1", column: 6))
        #expect(session.error("show 9999") == CommandError("no object #9999", column: 6))
        #expect(session.error("show Category#1401") == CommandError("no object Category#1401", column: 6))
        session.answer = true
        try session.run("delete 1401")
        #expect(session.error("show 1401") == CommandError("Animal#\(Self.tom) is deleted ('undo' brings it back)", column: 6))
        try session.run("undo")
        #expect(try session.run("show 1401").hasPrefix("Animal#\(Self.tom)\n"))
    }

    @Test("tab completion knows the entity of an object named by a short id")
    func completion() throws {
        let session = try Self.session()
        #expect(session.interpreter.completions(for: "link 0401 ").contains("category"))
    }

    @Test("matching by trailing digits: leading zeros count, shorter ids never match")
    func matching() throws {
        let ids = [
            PersistentIdentifier(entityName: "A", id: 401), PersistentIdentifier(entityName: "A", id: 10_401),
            PersistentIdentifier(entityName: "A", id: 21_401),
        ]
        guard case .one(let one) = Interpreter.shortIdentifierMatch("0401", among: ids) else {
            Issue.record("0401 should name 10401 only among these")
            return
        }
        #expect(one.id == 10_401)
        guard case .several(let several, let count) = Interpreter.shortIdentifierMatch("401", among: ids) else {
            Issue.record("401 should be ambiguous")
            return
        }
        #expect(count == 3 && several.map(\.id) == [401, 10_401, 21_401])
        guard case .none = Interpreter.shortIdentifierMatch("01", among: ids) else {
            Issue.record("two digits should name nothing")
            return
        }
        guard case .none = Interpreter.shortIdentifierMatch("12345678901234567890", among: ids) else {
            Issue.record("twenty digits are no trailing part")
            return
        }
    }
}
