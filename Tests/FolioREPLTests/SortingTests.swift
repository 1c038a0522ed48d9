import Folio
import Foundation
import Testing
@testable import FolioREPL

/// `list … sort KEY`: values sort in Folio's total order, the two directions
/// mirror each other, and keys with no order are refused at their column.
@Suite struct SortingTests {
    /// The ids a list prints, in order (the first column of its table).
    func ids(_ session: Session, _ line: String) throws -> [String] {
        try session.run(line).split(separator: "\n").dropFirst(2).dropLast()
            .compactMap { $0.split(separator: " ").first.map(String.init) }
    }

    @Test("sort by an any-value: null, booleans, numbers by value, strings, dates; desc is asc reversed")
    func anyValues() throws {
        let dogs = try Session("Dogs")
        // Wolfie: none, Luna: true, Daisy: 2.5, Rex: 3, Max: "Wolfie", Bella: "a cat named Tom", Charlie: a date.
        let ascending = try ids(dogs, "list Dog sort companion")
        #expect(ascending == ["12", "15", "17", "13", "11", "14", "16"])
        #expect(try ids(dogs, "list Dog sort companion desc") == Array(ascending.reversed()))
        #expect(try ids(dogs, "list Dog sort companion asc limit 3 offset 2") == ["17", "13", "11"])
        // Ties keep id order in both directions; the second key orders them.
        #expect(try ids(dogs, "list Dog sort color, companion desc") == ["13", "16", "11", "14", "12", "17", "15"])
    }

    @Test("sets, arrays and dictionaries are refused as sort keys at their column, naming the attribute")
    func collectionsRefused() throws {
        let dogs = try Session("Dogs")
        let message = "cannot sort by Dog.citiesVisited: arrays, sets, dictionaries and composite values have no order"
        #expect(dogs.error("list Dog sort citiesVisited") == CommandError(message, column: 15))
        #expect(dogs.error("list Dog sort name, citiesVisited desc") == CommandError(message, column: 21))
        #expect(dogs.error("list Dog where age > 100 sort favoriteParksByCity")?.column == 31)
        #expect(dogs.error("list Person sort dogs") != nil)
        #expect(try dogs.run("list Dog sort owner.name limit 1").hasPrefix("id"))
    }

    @Test("completion after sort offers only the attributes a sort accepts")
    func completion() {
        let dogs = try? Session("Dogs")
        #expect(dogs?.interpreter.completions(for: "list Dog sort ") == ["name", "age", "color", "currentCity", "companion"])
        #expect(dogs?.interpreter.completions(for: "list Dog sort name, c") == ["color", "currentCity", "companion"])
        #expect(dogs?.interpreter.completions(for: "list Dog where c") == ["color", "currentCity", "citiesVisited", "companion"])
    }
}
