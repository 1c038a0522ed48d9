import Foundation
import Testing
import FolioTestSupport

/// The built `folio` on copies of the samples: sorting is a real order or an
/// error, edits are refused when they are made, and `where` takes insert's literals.
@Suite struct CommandSemanticsTests {
    /// The ids of a `list` table on stdout, in order.
    func ids(_ run: ProgramRun) -> [String] {
        run.lines.dropFirst(2).dropLast().compactMap { $0.split(separator: " ").first.map(String.init) }
    }

    @Test("sort by an any-value is ascending and descending mirrored; sort by a set stops the script naming it")
    func sorting() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let dogs = try folder.copySample("Dogs.folio")
        let ascending = try runFolio([dogs.path], input: "list Dog sort companion\n", in: folder.url)
        let descending = try runFolio([dogs.path], input: "list Dog sort companion desc\n", in: folder.url)
        #expect(ascending.status == 0 && descending.status == 0)
        // none, true, 2.5, 3, "Wolfie", "a cat named Tom", a date.
        #expect(ids(ascending) == ["12", "15", "17", "13", "11", "14", "16"])
        #expect(ids(descending) == ids(ascending).reversed())
        let refused = try runFolio([dogs.path], input: "list Dog sort citiesVisited\nhelp\n", in: folder.url)
        #expect(refused.status == 1)
        #expect(refused.stdout == "")
        #expect(refused.stderr.contains("cannot sort by Dog.citiesVisited"), "\(refused.stderr)")
    }

    @Test("set to a taken unique value fails at the set, insert asks before it updates (--yes in a script), and a missing required value is refused")
    func edits() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let animals = try folder.copySample("Animals.folio")
        let clash = try runFolio([animals.path], input: "set 24 name=Bird\nsave\n", in: folder.url)
        #expect(clash.status == 1)
        #expect(clash.stderr.contains("AnimalCategory#6 already has name \"Bird\", and AnimalCategory.name is unique"), "\(clash.stderr)")
        // Said once, at the set (then the line and the caret), not again at the save.
        #expect(clash.stderr.components(separatedBy: "already has name").count == 2, "\(clash.stderr)")
        #expect(clash.stderr.hasPrefix("error: 1: column "), "\(clash.stderr)")
        // An upsert asks first, as a delete does: a script needs --yes, and then stdout holds the result only.
        let unasked = try runFolio([animals.path], input: "insert AnimalCategory name=Bird\n", in: folder.url)
        #expect(unasked.status == 1)
        #expect(unasked.stderr.contains("needs confirmation (\"Update AnimalCategory#6?\")"), "\(unasked.stderr)")
        let upsert = try runFolio([animals.path, "--yes"], input: "insert AnimalCategory name=Bird\n", in: folder.url)
        #expect(upsert.stdout == "updated existing AnimalCategory#6\n")
        #expect(
            upsert.stderr.hasPrefix("AnimalCategory#6 already has name \"Bird\", unique in AnimalCategory: this insert updates it\n"),
            "\(upsert.stderr)")
        let missing = try runFolio([animals.path], input: "insert Animal name=Okapi\n", in: folder.url)
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("Animal needs a value for diet"), "\(missing.stderr)")
        let inserted = try runFolio(
            [animals.path], input: "insert Animal name=Okapi diet=herbivorous\nsave\ncount Animal\n",
            in: folder.url)
        #expect(inserted.status == 0, "\(inserted.stderr)")
        let first = try #require(inserted.lines.first)
        #expect(first.hasPrefix("Animal#") && UInt64(first.dropFirst("Animal#".count)).map { $0 >> 32 != 0 } == true, "\(first)")
        #expect(inserted.lines.last == "31")
    }

    @Test("where takes bare ISO dates as insert does")
    func dates() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let trips = try folder.copySample("Trips.folio")
        let run = try runFolio(
            [trips.path],
            input: "count Trip where startDate > 2025-07-01\n"
                + "count Trip where startDate >= 2025-06-28T00:00:00Z and endDate < 2025-07-04\n", in: folder.url)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.lines == ["3", "1"])
    }
}
