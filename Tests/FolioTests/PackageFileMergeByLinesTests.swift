import Foundation
import PropertyBased
import Testing
import Folio
@testable import FolioCore
import FolioTestSupport

/// A part file merged line by line (``PartLines``): objects equal on both
/// sides or unchanged on one are taken as bytes, and only those both sides
/// changed are read and merged — with the very bytes the merge that reads
/// every object writes, so the cost follows the edits and nothing else changes.
@Suite struct PackageFileMergeByLinesTests {
    /// The part file Folio writes for these objects and records (``PartRecords/bytes(schema:)``).
    static func partText(_ states: [UInt64: ObjectState], _ records: [MergeConflict], schema: Schema) throws -> Data {
        let entity = try #require(schema.entity(named: "Animal"))
        var part = PartRecords(entity: entity)
        part.root = ["entity": "Animal"]
        part.states = states
        part.conflicts = records
        return part.bytes(schema: schema)
    }

    static func animal(_ name: String, _ diet: String, category: UInt64?) -> ObjectState {
        ObjectState(
            entity: "Animal", attributes: ["name": .value(.string(name)), "diet": .value(.string(diet))],
            links: ["category": .init(category.map { [$0] } ?? [])])
    }

    /// Values that need escaping too (`&`, `<`, quotes, a newline, a control character), so lines hold them as Folio writes them.
    static let texts = ["Newt", "Frog", "Rex & Co", "a<b", "say \"hi\"", "it's", "two\nlines", "bell\u{7}", "", "Éléphant"]

    /// A random edit of `states`: deletes, value and link edits, inserts (from a shared pool, so both sides may insert one identifier).
    static func edited(_ states: [UInt64: ObjectState], using random: inout SeededGenerator) -> [UInt64: ObjectState] {
        var result = states
        for id in states.keys.sorted() {
            switch Int.random(in: 0..<20, using: &random) {
            case 0...2: result[id] = nil
            case 3...5: result[id]?.attributes["diet"] = .value(.string(texts.randomElement(using: &random) ?? ""))
            case 6: result[id]?.attributes["name"] = .value(.string(texts.randomElement(using: &random) ?? ""))
            case 7: result[id]?.links["category"] = .init(Bool.random(using: &random) ? [] : [UInt64.random(in: 1...5, using: &random)])
            default: break
            }
        }
        for _ in 0..<Int.random(in: 0...3, using: &random) {
            let id = UInt64.random(in: 100...110, using: &random)
            result[id] = animal(texts.randomElement(using: &random) ?? "", "fish", category: 1)
        }
        return result
    }

    static func record(_ id: UInt64, using random: inout SeededGenerator) -> MergeConflict {
        MergeConflict(
            kind: .value, id: PersistentIdentifier(entityName: "Animal", id: id), property: "diet",
            base: .value(.string("plants")), ours: .value(.string(texts.randomElement(using: &random) ?? "")),
            theirs: .value(.string("meat")))
    }

    /// Records kept at random, and new ones made (some about objects no longer there).
    static func editedRecords(_ records: [MergeConflict], using random: inout SeededGenerator) -> [MergeConflict] {
        var result = records.filter { _ in Int.random(in: 0..<4, using: &random) > 0 }
        for _ in 0..<Int.random(in: 0...2, using: &random) {
            result.append(record(UInt64.random(in: 1...110, using: &random), using: &random))
        }
        return result
    }

    @Test("a part merged line by line gives the bytes and conflicts of the part read and merged whole, and reads only what both sides changed", .tags(.long))
    func sameAsWhole() async throws {
        await checkProperty(count: TestEffort.cases(200), input: Gen.uint64(in: 0...UInt64.max)) { seed in
            var random = SeededGenerator(seed: seed)
            var base: [UInt64: ObjectState] = [:]
            for id in UInt64(1)...60 where Bool.random(using: &random) {
                base[id] = Self.animal(
                    Self.texts.randomElement(using: &random) ?? "", "plants",
                    category: Bool.random(using: &random) ? 1 : nil)
            }
            let baseRecords = (0..<Int.random(in: 0...3, using: &random)).map { _ in
                Self.record(UInt64.random(in: 1...60, using: &random), using: &random)
            }
            let ours = Self.edited(base, using: &random)
            var theirs = Self.edited(base, using: &random)
            // Some of the same changes on both sides.
            for id in ours.keys where ours[id] != base[id] && Int.random(in: 0..<3, using: &random) == 0 { theirs[id] = ours[id] }
            let ourRecords = Self.editedRecords(baseRecords, using: &random)
            let theirRecords = Bool.random(using: &random) ? ourRecords : Self.editedRecords(baseRecords, using: &random)

            let versions = try PackageFileMergeTests.versions(base: [], ours: [], theirs: [])
            let schema = try #require(try DocumentPackage(url: versions.package).readManifest()?.schema)
            // No base at all, an empty base (Git's, both sides added the file), or a part.
            let baseKind = Int.random(in: 0..<8, using: &random)
            let baseFile: URL? = baseKind == 0 ? nil : versions.files[0]
            try (baseKind == 1 ? Data() : Self.partText(base, baseRecords, schema: schema)).write(to: versions.files[0])
            try Self.partText(ours, ourRecords, schema: schema).write(to: versions.files[1])
            try Self.partText(theirs, theirRecords, schema: schema).write(to: versions.files[2])
            let effectiveBase = baseKind <= 1 ? [:] : base

            func merge(byLines: Bool) throws -> PackageFileMerge.Merged {
                try PackageFileMerge.merge(
                    .part(entity: "Animal"), base: baseFile, ours: versions.files[1],
                    theirs: versions.files[2], package: versions.package, schema: nil, byLines: byLines)
            }
            let lines = try merge(byLines: true), whole = try merge(byLines: false)
            #expect(String(decoding: lines.contents, as: UTF8.self) == String(decoding: whole.contents, as: UTF8.self))
            #expect(lines.conflicts == whole.conflicts)
            // Read: the objects that differ on all three sides, in each version holding them.
            let ids = Set(effectiveBase.keys).union(ours.keys).union(theirs.keys)
            let contested = ids.filter { id in
                ours[id] != theirs[id] && theirs[id] != effectiveBase[id] && ours[id] != effectiveBase[id]
            }
            // A file unchanged on one side, or equal on both, is taken before any line is compared.
            let data = try versions.files.map { try Data(contentsOf: $0) }
            let baseData = baseFile == nil ? Data() : data[0]
            if data[1] != data[2], data[2] != baseData, data[1] != baseData {
                #expect(
                    lines.statesBuilt
                        == contested.reduce(0) { count, id in
                            count + [effectiveBase[id], ours[id], theirs[id]].count { $0 != nil }
                        }, "seed \(seed)")
            }
        }
    }

    @Test("a part of 3,000 objects, each side editing 20 and both the same 2: 6 object states read, not 9,000")
    func costFollowsTheEdits() throws {
        var base: [UInt64: ObjectState] = [:]
        for id in UInt64(1)...3000 { base[id] = Self.animal("Animal \(id)", "plants", category: 1) }
        var ours = base, theirs = base
        for id in UInt64(1)...18 { ours[id * 7]?.attributes["diet"] = .value(.string("fish")) }
        for id in UInt64(1)...18 { theirs[id * 11 + 1000]?.attributes["name"] = .value(.string("renamed")) }
        // Both sides change objects 2000 and 2001: the one conflict.
        ours[2000]?.attributes["diet"] = .value(.string("fish"))
        theirs[2000]?.attributes["diet"] = .value(.string("meat"))
        ours[2001]?.attributes["diet"] = .value(.string("fish"))
        theirs[2001]?.attributes["name"] = .value(.string("Bob"))
        let versions = try PackageFileMergeTests.versions(base: [], ours: [], theirs: [])
        let schema = try #require(try DocumentPackage(url: versions.package).readManifest()?.schema)
        for (file, states) in zip(versions.files, [base, ours, theirs]) { try Self.partText(states, [], schema: schema).write(to: file) }

        let merged = try PackageFileMergeTests.merge(versions)
        #expect(merged.statesBuilt == 6)
        #expect(merged.conflicts.map(\.id.id) == [2000])
        let whole = try PackageFileMerge.merge(
            .part(entity: "Animal"), base: versions.files[0], ours: versions.files[1],
            theirs: versions.files[2], package: versions.package, schema: nil,
            byLines: false)
        #expect(whole.statesBuilt == 9000)
        #expect(merged.contents == whole.contents)
    }

    @Test("a line one side left unchanged is taken as it is (even not as Folio would write it); a part with a comment is read whole")
    func otherLayouts() throws {
        let versions = try PackageFileMergeTests.versions(
            base: [#"<Animal f.id="2" diet="carnivorous" name="Newt"/>"#, #"<Animal f.id="3" name="Frog" diet="carnivorous"/>"#],
            ours: [#"<Animal f.id="2" diet="omnivorous" name="Newt"/>"#, #"<Animal f.id="3" name="Frog" diet="carnivorous"/>"#],
            theirs: [#"<Animal f.id="2" diet="carnivorous" name="Newt"/>"#, #"<Animal f.id="3" name="Frog" diet="fish"/>"#])
        let merged = try PackageFileMergeTests.merge(versions)
        #expect(merged.statesBuilt == 0)
        #expect(
            PackageFileMergeTests.lines(merged)[2...3] == [
                #"  <Animal f.id="2" diet="omnivorous" name="Newt"/>"#, #"  <Animal f.id="3" name="Frog" diet="fish"/>"#,
            ])
        // Not split (a comment is no object line): every object read, and written again as Folio writes it.
        let commented = try PackageFileMergeTests.versions(
            base: [#"<Animal f.id="2" diet="carnivorous" name="Newt"/>"#, #"<Animal f.id="3" name="Frog" diet="carnivorous"/>"#],
            ours: [
                #"<Animal f.id="2" diet="omnivorous" name="Newt"/>"#, "<!-- a note -->",
                #"<Animal f.id="3" name="Frog" diet="carnivorous"/>"#,
            ],
            theirs: [#"<Animal f.id="2" diet="carnivorous" name="Newt"/>"#, #"<Animal f.id="3" name="Frog" diet="fish"/>"#])
        let whole = try PackageFileMergeTests.merge(commented)
        #expect(whole.statesBuilt == 6)
        #expect(
            PackageFileMergeTests.lines(whole)[2...3] == [
                #"  <Animal f.id="2" name="Newt" diet="omnivorous"/>"#, #"  <Animal f.id="3" name="Frog" diet="fish"/>"#,
            ])
    }

    @Test("a value both sides changed that does not read is refused, naming the version's file and its own line")
    func errorLocated() throws {
        var lines = (1...5).map { #"<Animal f.id="\#($0)" name="A\#($0)" diet="plants"/>"# }
        let base = lines
        lines[3] = #"<Animal f.id="4" name="A4" diet="fish" category="x1"/>"#
        var theirs = base
        theirs[3] = #"<Animal f.id="4" name="A4" diet="meat"/>"#
        let versions = try PackageFileMergeTests.versions(base: base, ours: lines, theirs: theirs)
        do {
            _ = try PackageFileMergeTests.merge(versions)
            Issue.record("merged a link that is not an identifier")
        } catch let failure as PackageFileMerge.Failure {
            guard case .package(let error) = failure else {
                Issue.record("\(failure)")
                return
            }
            #expect(error.location?.file == versions.files[1].path)
            // The declaration, the root, then objects 1 to 4: line 6.
            #expect(error.location?.line == 6)
        }
    }

    @Test("PartLines splits a part by identifier; a line that is not one object or record, or ids out of order, is not split")
    func splitting() throws {
        let part = PackageMergeTests.part(
            "Animal",
            [
                #"<Animal f.id="2" name="a&lt;b"/>"#, #"<f.conflict f.id="2" kind="value"/>"#, #"<f.conflict f.id="5" kind="value"/>"#,
                #"<Animal f.id="7" name="c"/>"#,
            ])
        let lines = try #require(PartLines.split(Data(part.utf8), entity: "Animal"))
        #expect(lines.groups.map(\.id) == [2, 5, 7])
        #expect(lines.groups.map(\.records.count) == [1, 1, 0])
        #expect(lines.groups.map(\.objectLine) == [3, 0, 6])
        for refused in [
            [#"<Animal f.id="7" name="c"/>"#, #"<Animal f.id="2" name="a"/>"#],  // out of order
            [#"<Animal f.id="2" name="a"/>"#, #"<Animal f.id="2" name="b"/>"#],  // twice
            [#"<Animal f.id="2" name="a"/><Animal f.id="3"/>"#],  // two elements on a line
            [#"<!-- a comment -->"#], [#"<Animal f.id="02" name="a"/>"#], [#"<Animal name="a" f.id="2"/>"#],
            [#"<Animals f.id="2"/>"#], [#"<f.conflict f.id="2" kind="value"/>"#, #"<Animal f.id="2" name="a"/>"#],
        ] {
            #expect(PartLines.split(Data(PackageMergeTests.part("Animal", refused).utf8), entity: "Animal") == nil, "\(refused)")
        }
        #expect(
            PartLines.split(
                Data(PackageMergeTests.part("Animal", []).replacingOccurrences(of: "\n", with: "\r\n").utf8),
                entity: "Animal") == nil)
        #expect(PartLines.split(Data(PackageMergeTests.part("Plant", []).utf8), entity: "Animal") == nil)
    }
}
