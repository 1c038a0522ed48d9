import Foundation
import Testing
import Folio
@testable import FolioCore
import FolioTestSupport

/// A format-3 save replaces files under stable names through a commit journal
/// (issue 30, item 2; docs/FORMAT.md, "Saving"): stopped before the journal is
/// durable, the old files stand; after, the journal finishes the commit, and a
/// reader that may not write reads through it.
@Suite struct CommitJournalTests {
    static let files = ["parts/Animal/1a2b3c4d-0000.xml", "parts/AnimalCategory/00000000-0000.xml", "history/1a2b3c4d-00000001.xml"]

    /// A package folder holding the old version of each file.
    static func package() throws -> PackageFolder {
        let url = temporaryPackageURL()
        for path in files {
            let file = url.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data("old \(path)\n".utf8).write(to: file)
        }
        return PackageFolder(path: url.path)
    }

    static func contents(_ folder: PackageFolder) throws -> [String] {
        try files.map { try String(contentsOfFile: folder.path(of: $0), encoding: .utf8) }
    }

    static let new = files.map { "new \($0)\n" }
    static let old = files.map { "old \($0)\n" }

    struct Crash: Error {}

    /// Writes the new versions and commits, stopped at `stage` as a crash would stop it.
    static func interruptedCommit(at stage: CommitJournal.Stage, in folder: PackageFolder) throws {
        try CommitJournal.writeTemporaries(zip(files, new).map { ($0, Array($1.utf8)) }, in: folder)
        #expect(throws: PackageError.self) {
            try CommitJournal.commit(files, in: folder) { (reached: CommitJournal.Stage) throws(PackageError) in
                if reached == stage { throw .io(path: folder.path, operation: "crash", code: EIO, message: "stopped here") }
            }
        }
    }

    @Test("a commit puts every new file in place and leaves no journal or temporary behind")
    func commits() throws {
        let folder = try Self.package()
        try CommitJournal.writeTemporaries(zip(Self.files, Self.new).map { ($0, Array($1.utf8)) }, in: folder)
        try CommitJournal.commit(Self.files, in: folder)
        #expect(try Self.contents(folder) == Self.new)
        #expect(try CommitJournal.pending(in: folder) == nil)
        #expect(!folder.entries(of: "parts/Animal").contains { $0.hasPrefix(".") })
        #expect(!folder.entries(of: nil).contains(CommitJournal.fileName))
    }

    @Test("stopped before the journal is durable, the old files stand and nothing rolls forward")
    func beforeCommitPoint() throws {
        let folder = try Self.package()
        try Self.interruptedCommit(at: .temporariesDurable, in: folder)
        #expect(try CommitJournal.pending(in: folder) == nil)
        #expect(try CommitJournal.rollForward(in: folder) == false)
        #expect(try Self.contents(folder) == Self.old)
    }

    @Test(
        "stopped after the journal is durable, at any rename, a reader reads the new files through it and a writer rolls it forward",
        arguments: [CommitJournal.Stage.journalDurable, .renamed(1), .renamed(2), .renamed(3)])
    func afterCommitPoint(stage: CommitJournal.Stage) throws {
        let folder = try Self.package()
        try Self.interruptedCommit(at: stage, in: folder)
        let journal = try #require(try CommitJournal.pending(in: folder))
        #expect(journal.targets == Self.files)
        // A reader that may not write sees the whole new commit, never half of it.
        let seen = try Self.files.map { String(decoding: try folder.readFile(journal.readItem(for: $0, in: folder)), as: UTF8.self) }
        #expect(seen == Self.new)
        #expect(try CommitJournal.rollForward(in: folder))
        #expect(try Self.contents(folder) == Self.new)
        #expect(try CommitJournal.pending(in: folder) == nil)
        #expect(try CommitJournal.rollForward(in: folder) == false)
    }

    @Test("a journal naming anything but the layout's own files, or cut short, is refused and renames nothing")
    func hostileJournal() throws {
        let folder = try Self.package()
        for text in [
            "folio commit journal 1\n../outside.xml\nend\n", "folio commit journal 1\nparts/Animal/notes.txt\nend\n",
            "folio commit journal 1\nparts/../x/1a2b3c4d-0000.xml\nend\n", "folio commit journal 1\n/etc/passwd\nend\n",
            "folio commit journal 1\nparts/Animal/1a2b3c4d-0000.xml\n", "something else\nend\n",
            "folio commit journal 1\nblobs/1-photo-0123456789abcdef.bin\nend\n",
        ] {
            try Data(text.utf8).write(to: URL(fileURLWithPath: folder.path(of: CommitJournal.fileName)))
            #expect(throws: PackageError.self, "\(text)") { try CommitJournal.rollForward(in: folder) }
        }
        #expect(try Self.contents(folder) == Self.old)
        #expect(CommitJournal.isAllowedTarget("manifest.xml") && CommitJournal.isAllowedTarget(Self.files[0]))
    }

    @Test("a part folder reached through a link is refused, never written through")
    func linkedFolderRefused() throws {
        let folder = try Self.package()
        let outside = temporaryPackageURL("Outside")
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        try FileManager.default.removeItem(atPath: folder.path(of: "parts"))
        try FileManager.default.createSymbolicLink(atPath: folder.path(of: "parts"), withDestinationPath: outside.path)
        #expect(throws: PackageError.self) {
            try CommitJournal.writeTemporaries([("parts/Animal/1a2b3c4d-0000.xml", Array("x".utf8))], in: folder)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: outside.path).isEmpty)
    }
}
