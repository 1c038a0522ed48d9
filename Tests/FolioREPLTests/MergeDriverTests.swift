import Foundation
import Testing
@testable import FolioREPL
import FolioCore
import FolioTestSupport

/// `folio merge-file BASE OURS THEIRS PATH`, the driver Git runs: which file
/// of a package PATH names, what reaches the package-file merge, what is
/// written over OURS, and the exit status (0 clean, 1 conflicts, 2 errors).
/// The merge itself is a fake here: the driver's contract is what is tested.
@Suite struct MergeDriverTests {
    /// A package-file merge that records its call and answers as told.
    final class FakeMerge: PackageFileMerging, @unchecked Sendable {
        var calls: [(kind: MergeDriver.FileKind, base: String, ours: String, theirs: String)] = []
        var answer: Result<MergedFile, GitError> = .success(MergedFile(contents: Data("merged\n".utf8), conflicts: 0))

        var packages: [URL] = []

        func merge(kind: MergeDriver.FileKind, base: URL, ours: URL, theirs: URL, package: URL) throws -> MergedFile {
            func text(_ url: URL) throws -> String { try String(contentsOf: url, encoding: .utf8) }
            calls.append((kind, try text(base), try text(ours), try text(theirs)))
            packages.append(package)
            return try answer.get()
        }
    }

    /// A folder with Git's three temporary files, as Git names them, relative to it.
    static func files() throws -> TemporaryFolder {
        let folder = try TemporaryFolder("merge-driver")
        _ = try folder.write("base\n", to: ".merge_file_O")
        _ = try folder.write("ours\n", to: ".merge_file_A")
        _ = try folder.write("theirs\n", to: ".merge_file_B")
        return folder
    }

    @Test("PATH names the package file by its path inside the innermost package")
    func locate() {
        #expect(MergeDriver.locate("Zoo.folio/manifest.xml")! == ("Zoo.folio", .manifest))
        #expect(MergeDriver.locate("docs/Zoo.folio/parts/Animal/1a2b3c4d-0000.xml")! == ("docs/Zoo.folio", .part(entity: "Animal")))
        #expect(MergeDriver.locate("Zoo.folio/history/1a2b3c4d-00000001.xml")! == ("Zoo.folio", .history))
        #expect(MergeDriver.locate("Zoo.folio/blobs/ab/cdef")! == ("Zoo.folio", .blob))
        #expect(MergeDriver.locate("old.folio/Zoo.folio/parts/Trip/00000000-0000.xml")! == ("old.folio/Zoo.folio", .part(entity: "Trip")))
        // Files Folio does not merge: in a package, but of no kind (format 1 and 2 files, others' files).
        #expect(MergeDriver.locate("Zoo.folio/document.xml")! == ("Zoo.folio", nil))
        #expect(MergeDriver.locate("Zoo.folio/parts/Animal-2-0123456789abcdef.xml")! == ("Zoo.folio", nil))
        #expect(MergeDriver.locate("Zoo.folio/parts/Animal/notes.txt")! == ("Zoo.folio", nil))
        #expect(MergeDriver.locate("Zoo.folio/history/sub/x.xml")! == ("Zoo.folio", nil))
        #expect(MergeDriver.locate("Zoo.folio") == nil)
        #expect(MergeDriver.locate("src/main.swift") == nil)
    }

    @Test("a clean merge writes the result over OURS and exits 0, saying nothing")
    func clean() throws {
        let folder = try Self.files()
        let fake = FakeMerge()
        let outcome = MergeDriver.run(
            [".merge_file_O", ".merge_file_A", ".merge_file_B", "Zoo.folio/parts/Animal/00000000-0000.xml"],
            in: folder.url, merging: fake)
        #expect(outcome == MergeDriver.Outcome(status: .clean, message: nil))
        #expect(fake.calls.count == 1)
        #expect(
            fake.calls.first.map {
                $0.kind == .part(entity: "Animal") && $0.base == "base\n" && $0.ours == "ours\n"
                    && $0.theirs == "theirs\n"
            } == true)
        #expect(try String(contentsOf: folder.appending(".merge_file_A"), encoding: .utf8) == "merged\n")
        #expect(try String(contentsOf: folder.appending(".merge_file_B"), encoding: .utf8) == "theirs\n")
    }

    @Test("conflicts recorded: OURS holds the result, exit status 1, and stderr says how to resolve them")
    func conflicts() throws {
        let folder = try Self.files()
        let fake = FakeMerge()
        fake.answer = .success(MergedFile(contents: Data("with conflicts\n".utf8), conflicts: 2))
        let outcome = MergeDriver.run(
            [".merge_file_O", ".merge_file_A", ".merge_file_B", "Zoo.folio/manifest.xml"],
            in: folder.url, merging: fake)
        #expect(outcome.status == .conflicts)
        #expect(
            outcome.message == "folio merge-file: Zoo.folio/manifest.xml: 2 conflicts recorded in the package; "
                + "open it in folio to resolve them (conflicts, resolve), then git add it")
        #expect(try String(contentsOf: folder.appending(".merge_file_A"), encoding: .utf8) == "with conflicts\n")
    }

    @Test("a merge that fails exits 2 with its reason and leaves OURS as it was")
    func mergeFails() throws {
        let folder = try Self.files()
        let fake = FakeMerge()
        fake.answer = .failure(GitError("schemas differ"))
        let outcome = MergeDriver.run(
            [".merge_file_O", ".merge_file_A", ".merge_file_B", "Zoo.folio/history/00000001-00000001.xml"],
            in: folder.url, merging: fake)
        #expect(outcome == MergeDriver.Outcome(status: .failed, message: "folio merge-file: Zoo.folio/history/00000001-00000001.xml: schemas differ"))
        #expect(fake.calls.first?.kind == .history)
        #expect(try String(contentsOf: folder.appending(".merge_file_A"), encoding: .utf8) == "ours\n")
    }

    @Test("wrong argument counts and unreadable files exit 2 without calling the merge")
    func argumentErrors() throws {
        let folder = try Self.files()
        let fake = FakeMerge()
        for arguments in [
            [], [".merge_file_O", ".merge_file_A", ".merge_file_B"],
            [".merge_file_O", ".merge_file_A", ".merge_file_B", "Zoo.folio/manifest.xml", "extra"],
        ] {
            let outcome = MergeDriver.run(arguments, in: folder.url, merging: fake)
            #expect(outcome.status == .failed)
            #expect(
                outcome.message == "folio merge-file needs 4 arguments, BASE OURS THEIRS PATH (Git passes %O %A %B %P), "
                    + "not \(arguments.count)")
        }
        let missing = MergeDriver.run([".merge_file_O", ".merge_file_A", "missing", "Zoo.folio/blobs/ab/cd"], in: folder.url, merging: fake)
        #expect(missing.status == .failed)
        #expect(missing.message?.hasPrefix("folio merge-file: cannot read theirs missing for Zoo.folio/blobs/ab/cd: ") == true)
        #expect(fake.calls.isEmpty)
        #expect(try String(contentsOf: folder.appending(".merge_file_A"), encoding: .utf8) == "ours\n")
    }

    @Test("the library's merge takes one side when the other is unchanged or both are alike, for any kind of file")
    func unchangedSide() throws {
        let folder = try TemporaryFolder("merge-driver")
        let (a, b, c) = (try folder.write("a", to: "a"), try folder.write("b", to: "b"), try folder.write("c", to: "c"))
        let merge = LibraryPackageFileMerge()
        let package = folder.appending("Zoo.folio")
        #expect(try merge.merge(kind: .manifest, base: a, ours: a, theirs: b, package: package) == MergedFile(contents: Data("b".utf8), conflicts: 0))
        #expect(try merge.merge(kind: .history, base: a, ours: b, theirs: a, package: package) == MergedFile(contents: Data("b".utf8), conflicts: 0))
        #expect(try merge.merge(kind: .blob, base: a, ours: b, theirs: b, package: package) == MergedFile(contents: Data("b".utf8), conflicts: 0))
        // Two different files under one blob name cannot be: refused, nothing written.
        #expect(throws: PackageFileMerge.Failure.self) { try merge.merge(kind: .blob, base: a, ours: b, theirs: c, package: package) }
    }

    @Test(
        "a file Folio does not merge merges line by line, as Git would: clean, or with conflict markers and exit 1",
        .enabled(if: GitRepository.isAvailable, GitRepository.unavailableReason))
    func textFallback() throws {
        let folder = try TemporaryFolder("merge-driver")
        _ = try folder.write("one\ntwo\nthree\n", to: "O")
        _ = try folder.write("ONE\ntwo\nthree\n", to: "A")
        _ = try folder.write("one\ntwo\nTHREE\n", to: "B")
        let fake = FakeMerge()
        let clean = MergeDriver.run(["O", "A", "B", "Zoo.folio/document.xml"], in: folder.url, merging: fake)
        #expect(clean == MergeDriver.Outcome(status: .clean, message: nil))
        #expect(try String(contentsOf: folder.appending("A"), encoding: .utf8) == "ONE\ntwo\nTHREE\n")
        _ = try folder.write("one\ntwo\nthree, theirs\n", to: "B")
        let conflicted = MergeDriver.run(["O", "A", "B", "Zoo.folio/document.xml"], in: folder.url, merging: fake)
        #expect(conflicted.status == .conflicts)
        #expect(try String(contentsOf: folder.appending("A"), encoding: .utf8).contains("<<<<<<< ours\n"))
        #expect(fake.calls.isEmpty)
    }
}
