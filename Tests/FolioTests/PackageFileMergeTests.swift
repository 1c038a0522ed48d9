import Foundation
import Testing
import Folio
@testable import FolioCore
import FolioTestSupport

/// One part file merged as Git's driver merges it: object by object, the
/// conflicts recorded in the merged file as `<f.conflict>` lines, read back
/// by the next merge; manifests merge when their schemas agree.
@Suite struct PackageFileMergeTests {
    /// A format-2 manifest of the merge tests' schema (``PackageMergeTests/schema``), listing no part.
    static let manifest =
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<folio format=\"2\">\n" + PackageMergeTests.schema
        + "  <parts>\n  </parts>\n</folio>\n"

    /// A package folder holding the manifest, and a file per version of one part.
    static func versions(base: [String], ours: [String], theirs: [String], entity: String = "Animal")
        throws -> (folder: TemporaryFolder, package: URL, files: [URL])
    {
        let folder = try TemporaryFolder("part-merge")
        let package = folder.appending("Zoo.folio")
        try FileManager.default.createDirectory(at: package, withIntermediateDirectories: true)
        try Data(manifest.utf8).write(to: package.appendingPathComponent("manifest.xml"))
        var files: [URL] = []
        for (name, lines) in [("O", base), ("A", ours), ("B", theirs)] {
            let text =
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<objects entity=\"\(entity)\">\n"
                + lines.map { "  " + $0 + "\n" }.joined() + "</objects>\n"
            files.append(try folder.write(text, to: name))
        }
        return (folder, package, files)
    }

    static func merge(_ versions: (folder: TemporaryFolder, package: URL, files: [URL]), entity: String = "Animal") throws
        -> PackageFileMerge.Merged
    {
        try PackageFileMerge.merge(
            .part(entity: entity), base: versions.files[0], ours: versions.files[1],
            theirs: versions.files[2], package: versions.package)
    }

    static func lines(_ merged: PackageFileMerge.Merged) -> [String] {
        String(decoding: merged.contents, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    @Test("edits of different objects and inserts on both sides merge into one part, objects by ascending id")
    func disjoint() throws {
        let versions = try Self.versions(
            base: [
                #"<Animal f.id="2" name="Newt" diet="carnivorous" category="1"/>"#,
                #"<Animal f.id="3" name="Frog" diet="carnivorous" category="1"/>"#,
            ],
            ours: [
                #"<Animal f.id="2" name="Newt" diet="omnivorous" category="1"/>"#,
                #"<Animal f.id="3" name="Frog" diet="carnivorous" category="1"/>"#,
                #"<Animal f.id="8589934593" name="Lion" diet="carnivorous" category="24"/>"#,
            ],
            theirs: [
                #"<Animal f.id="2" name="Newt" diet="carnivorous" category="1"/>"#,
                #"<Animal f.id="3" name="Tree Frog" diet="carnivorous" category="1"/>"#,
                #"<Animal f.id="12884901889" name="Tiger" diet="carnivorous" category="24"/>"#,
            ])
        let merged = try Self.merge(versions)
        #expect(merged.conflicts.isEmpty)
        #expect(
            Self.lines(merged) == [
                #"<?xml version="1.0" encoding="UTF-8"?>"#, #"<objects entity="Animal">"#,
                #"  <Animal f.id="2" name="Newt" diet="omnivorous" category="1"/>"#,
                #"  <Animal f.id="3" name="Tree Frog" diet="carnivorous" category="1"/>"#,
                #"  <Animal f.id="8589934593" name="Lion" diet="carnivorous" category="24"/>"#,
                #"  <Animal f.id="12884901889" name="Tiger" diet="carnivorous" category="24"/>"#,
                "</objects>",
            ])
    }

    @Test("both sides set one value: ours kept, the conflict recorded after the object, read back by the next merge")
    func conflictRecorded() throws {
        let versions = try Self.versions(
            base: [#"<Animal f.id="2" name="Newt" diet="carnivorous"/>"#],
            ours: [#"<Animal f.id="2" name="Newt" diet="omnivorous"/>"#],
            theirs: [#"<Animal f.id="2" name="Newt" diet="insectivorous"/>"#])
        let merged = try Self.merge(versions)
        let expected = MergeConflict(
            kind: .value, id: PersistentIdentifier(entityName: "Animal", id: 2), property: "diet",
            base: .value(.string("carnivorous")), ours: .value(.string("omnivorous")),
            theirs: .value(.string("insectivorous")))
        #expect(merged.conflicts == [expected])
        #expect(
            Self.lines(merged)[2...3] == [
                #"  <Animal f.id="2" name="Newt" diet="omnivorous"/>"#,
                #"  <f.conflict f.id="2" kind="value" property="diet" base="carnivorous" ours="omnivorous" theirs="insectivorous"/>"#,
            ])
        // The merged file is a part like any other: merged again with an unrelated edit, the record stays.
        let again = try Self.versions(
            base: [#"<Animal f.id="2" name="Newt" diet="carnivorous"/>"#],
            ours: Array(Self.lines(merged)[2...3]).map { $0.trimmingCharacters(in: .whitespaces) },
            theirs: [#"<Animal f.id="2" name="Newt" diet="carnivorous"/>"#, #"<Animal f.id="5" name="Eel" diet="fish"/>"#])
        let second = try Self.merge(again)
        #expect(second.conflicts.isEmpty)
        let records = try PartRecords.read(
            path: try again.folder.write(String(decoding: second.contents, as: UTF8.self), to: "M").path,
            entity: "Animal", schema: try DocumentPackage(url: again.package).readManifest().map(\.schema) ?? Schema([]),
            blobs: nil)
        #expect(records.conflicts == [expected])
        #expect(records.states.keys.sorted() == [2, 5])
    }

    @Test("a record one side resolved is gone from the merge; one the other side made is kept")
    func recordsMergeAsSets() {
        let id = PersistentIdentifier(entityName: "Animal", id: 2)
        let old = MergeConflict(kind: .value, id: id, property: "diet", ours: .value(.string("a")), theirs: .value(.string("b")))
        let new = MergeConflict(kind: .value, id: id, property: "name", ours: .value(.string("c")), theirs: .value(.string("d")))
        #expect(MergeConflict.mergeRecords(base: [old], ours: [], theirs: [old, new]) == [new])
        #expect(MergeConflict.mergeRecords(base: [], ours: [old], theirs: [old]) == [old])
    }

    @Test("deleted on one side and edited on the other: deleted, the edited object recorded whole in its part")
    func deleteAgainstEdit() throws {
        let versions = try Self.versions(
            base: [#"<Animal f.id="2" name="Newt" diet="carnivorous"/>"#, #"<Animal f.id="3" name="Frog" diet="carnivorous"/>"#],
            ours: [#"<Animal f.id="3" name="Frog" diet="carnivorous"/>"#],
            theirs: [#"<Animal f.id="2" name="Newt" diet="insects"/>"#, #"<Animal f.id="3" name="Frog" diet="carnivorous"/>"#])
        let merged = try Self.merge(versions)
        #expect(merged.conflicts.map(\.kind) == [.deletedAndEdited])
        let lines = Self.lines(merged)
        #expect(lines[2].hasPrefix(#"  <f.conflict f.id="2" kind="deletedAndEdited""#), "\(lines)")
        #expect(lines[2].contains(#"theirs.diet="insects""#))
        #expect(lines[3] == #"  <Animal f.id="3" name="Frog" diet="carnivorous"/>"#)
    }

    @Test("manifests merge when their schemas are equal, and refuse when they differ")
    func manifests() throws {
        let folder = try TemporaryFolder("manifest-merge")
        let base = try folder.write(Self.manifest, to: "O")
        let ours = try folder.write(Self.manifest.replacingOccurrences(of: "<parts>\n  </parts>", with: "<parts></parts>"), to: "A")
        let theirs = try folder.write(Self.manifest.replacingOccurrences(of: "  <parts>", with: "\n  <parts>"), to: "B")
        let merged = try PackageFileMerge.merge(.manifest, base: base, ours: ours, theirs: theirs, package: folder.url)
        #expect(merged.contents == (try Data(contentsOf: ours)))
        let other = try folder.write(Self.manifest.replacingOccurrences(of: #"type="string"/>"#, with: #"type="int"/>"#), to: "C")
        #expect(throws: PackageFileMerge.Failure.self) {
            try PackageFileMerge.merge(.manifest, base: base, ours: ours, theirs: other, package: folder.url)
        }
    }
}
