import Foundation
import Testing
import FolioTestSupport

/// `folio merge BASE OURS THEIRS [-o OUT]` on packages saved by `folio`
/// scripts: the built folio merges them, and the result opens in folio with
/// both sides' edits, or with the conflict recorded.
@Suite struct MergeCommandTests {
    /// Base, ours and theirs: a copy of the Animals sample saved once by folio
    /// (so it is in the format folio writes), then copied twice and edited by
    /// the two scripts, each saved.
    static func versions(ours: String, theirs: String) throws -> TemporaryFolder {
        let folder = try TemporaryFolder("merge-command")
        let base = try folder.copySample("Animals.folio")
        try FileManager.default.moveItem(at: base, to: folder.appending("Base.folio"))
        let saved = try runFolio(["Base.folio"], input: "insert AnimalCategory name=Reptilia\nsave\n", in: folder.url)
        #expect(saved.status == 0, "\(saved.stderr)")
        for (name, script) in [("Ours.folio", ours), ("Theirs.folio", theirs)] {
            try FileManager.default.copyItem(at: folder.appending("Base.folio"), to: folder.appending(name))
            let run = try runFolio([name], input: script + "\nsave\n", in: folder.url)
            #expect(run.status == 0, "\(name): \(run.stderr)")
        }
        return folder
    }

    @Test("disjoint edits merge with exit 0, and the result opens with both edits")
    func disjoint() throws {
        let folder = try Self.versions(
            ours: "set 2 diet=omnivorous",
            theirs: "set 3 name=\"Tree Frog\"\ninsert Animal name=Tiger diet=carnivorous category=1")
        let before = try runFolio(["Base.folio"], input: "count Animal\n", in: folder.url)
        let merge = try runFolio(["merge", "Base.folio", "Ours.folio", "Theirs.folio", "-o", "Out.folio"], in: folder.url)
        #expect(merge.status == 0, "\(merge.stderr)")
        #expect(merge.stderr == "")
        #expect(merge.stdout.hasPrefix("merged into Out.folio "), "\(merge.stdout)")
        #expect(merge.stdout.hasSuffix("no conflicts\n"), "\(merge.stdout)")
        let opened = try runFolio(["Out.folio"], input: "count Animal\nshow 2\nshow 3\nconflicts\n", in: folder.url)
        #expect(opened.status == 0, "\(opened.stderr)")
        #expect(opened.lines.first == String((Int(before.lines.first ?? "") ?? 0) + 1), "\(opened.stdout)")
        #expect(opened.stdout.contains("omnivorous"), "\(opened.stdout)")
        #expect(opened.stdout.contains("Tree Frog"), "\(opened.stdout)")
        #expect(opened.lines.last == "no conflicts")
        let tiger = try runFolio(["Out.folio"], input: "count Animal where name == 'Tiger'\n", in: folder.url)
        #expect(tiger.lines == ["1"], "\(tiger.stderr)")
        // Ours and theirs are as they were.
        let ours = try runFolio(["Ours.folio"], input: "count Animal\n", in: folder.url)
        #expect(ours.lines == before.lines)
    }

    @Test("the merged package's history ends with a transaction by merge, which 'changes since' ours' last token lists")
    func mergeTransactionListed() throws {
        let folder = try Self.versions(
            ours: "set 2 diet=omnivorous",
            theirs: "set 4 name=\"Mexican Axolotl\"\ninsert Animal name=Tiger diet=carnivorous category=1")
        let ours = try runFolio(["Ours.folio"], input: "changes\n", in: folder.url)
        let headings = ours.lines.filter { $0.hasPrefix("transaction ") }
        let token = try #require(headings.last?.split(separator: " ").dropFirst().first.map(String.init))
        let merge = try runFolio(["merge", "Base.folio", "Ours.folio", "Theirs.folio", "-o", "Out.folio"], in: folder.url)
        #expect(merge.status == 0, "\(merge.stderr)")
        let changes = try runFolio(["Out.folio"], input: "changes since \(token)\n", in: folder.url)
        #expect(changes.status == 0, "\(changes.stderr)")
        let last = try #require(changes.lines.lastIndex { $0.hasPrefix("transaction ") })
        #expect(changes.lines[last].contains("  by merge  "), "\(changes.stdout)")
        let merged = Array(changes.lines[(last + 1)...])
        #expect(merged.contains { $0.hasPrefix("  insert Animal #") }, "\(changes.stdout)")
        #expect(merged.contains("  update Animal #4: name"), "\(changes.stdout)")
        #expect(merged.contains("  update AnimalCategory #1: animals"), "\(changes.stdout)")
        #expect(!merged.contains { $0.contains("diet") }, "ours' own edit is not brought in: \(changes.stdout)")
    }

    @Test("an overlapping edit exits 1, says so, and the result lists the conflict in folio")
    func overlapping() throws {
        let folder = try Self.versions(ours: "set 2 diet=omnivorous", theirs: "set 2 diet=insects")
        let merge = try runFolio(["merge", "Base.folio", "Ours.folio", "Theirs.folio", "-o", "Out.folio"], in: folder.url)
        #expect(merge.status == 1, "\(merge.stderr)")
        #expect(merge.stderr == "")
        #expect(
            merge.stdout.contains("1 conflict recorded: open Out.folio in folio and run 'conflicts' to resolve them\n"),
            "\(merge.stdout)")
        #expect(merge.stdout.contains("diet"), "\(merge.stdout)")
        let opened = try runFolio(["Out.folio"], input: "show 2\nconflicts\n", in: folder.url)
        #expect(opened.status == 0, "\(opened.stderr)")
        #expect(opened.stdout.contains("omnivorous"), "\(opened.stdout)")
        let listed = opened.lines.contains { $0.hasPrefix("1. ") && $0.contains("diet") && $0.contains("insects") }
        #expect(listed, "the merged package records the conflict: \(opened.stdout)")
    }

    @Test("without -o the result replaces OURS; an existing OUT, or a path that is no package, exits 2 writing nothing")
    func replacesOursAndRefuses() throws {
        let folder = try Self.versions(ours: "set 2 diet=omnivorous", theirs: "set 3 diet=insects")
        let merge = try runFolio(["merge", "Base.folio", "Ours.folio", "Theirs.folio"], in: folder.url)
        #expect(merge.status == 0, "\(merge.stderr)")
        #expect(merge.stdout.hasPrefix("merged into Ours.folio "), "\(merge.stdout)")
        let opened = try runFolio(["Ours.folio"], input: "show 3\n", in: folder.url)
        #expect(opened.stdout.contains("insects"), "\(opened.stdout)")

        let entries = try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted()
        let exists = try runFolio(["merge", "Base.folio", "Ours.folio", "Theirs.folio", "-o", "Base.folio"], in: folder.url)
        #expect(exists.status == 2)
        #expect(exists.stdout == "")
        #expect(exists.stderr.hasPrefix("error: folio merge: "), "\(exists.stderr)")
        #expect(exists.stderr.contains("already exists"), "\(exists.stderr)")
        let missing = try runFolio(["merge", "Base.folio", "Nowhere.folio", "Theirs.folio", "-o", "Out.folio"], in: folder.url)
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("ours"), "\(missing.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted() == entries)
    }
}
