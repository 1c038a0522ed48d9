import Foundation
import Testing
import Folio
@testable import FolioCore
import FolioTestSupport

/// Stale-write detection: a file changed by another program is noticed at the
/// next save, even when it was rewritten in place at the same size with its
/// modification time restored (issue 13, item 10).
@Suite struct FileFingerprintTests {
    /// Rewrites `manifest.xml` in place (same inode, same size) and sets its
    /// access and modification times back, as `touch -r` would.
    static func rewriteInPlaceRestoringTimes(_ package: URL) throws {
        let path = package.appendingPathComponent("manifest.xml").path
        var before = stat()
        #expect(stat(path, &before) == 0)
        var text = try #require(FileManager.default.contents(atPath: path))
        // Same length: an attribute's name in the schema changed letter for letter.
        let range = try #require(text.range(of: Data("name=\"name\"".utf8)))
        text.replaceSubrange(range, with: Data("name=\"nome\"".utf8))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.write(contentsOf: text)
        try handle.close()
        var times = [before.st_atim, before.st_mtim]
        #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
        var after = stat()
        #expect(stat(path, &after) == 0)
        #expect(after.st_ino == before.st_ino && after.st_size == before.st_size)
        #expect(after.st_mtim.tv_sec == before.st_mtim.tv_sec && after.st_mtim.tv_nsec == before.st_mtim.tv_nsec)
    }

    @Test("a write in place at the same size with the modification time restored, right after a save, makes the next save throw modifiedOnDisk")
    func sameSizeRestoredMtimeRightAfterSave() throws {
        let url = temporaryPackageURL()
        let context = try makeContext(try zooSchema(), url: url)
        try context.insert("Animal", ["name": .string("Rex")])
        try context.save()
        try Self.rewriteInPlaceRestoringTimes(url)
        try context.insert("Animal")
        #expect(throws: ModelError.package(.modifiedOnDisk(path: url.path))) { try context.save() }
        #expect(
            try DocumentPackage(url: url).read().count(of: "Animal") == 1,
            "the outside change was kept")
    }

    @Test("a write in place at the same size with the modification time restored, long after the file was read, is caught by its status-change time")
    func sameSizeRestoredMtimeLater() throws {
        let url = temporaryPackageURL()
        let graph = ObjectGraph(schema: try zooSchema())
        _ = try graph.insert("Animal", ["name": .string("Rex")])
        try DocumentPackage(url: url).write(graph)
        Thread.sleep(forTimeInterval: Double(FileFingerprint.racyInterval) + 0.2)
        let context = ModelContext(try ModelContainer(contentsOf: url))
        let recorded = try #require(DocumentPackage(url: url).fingerprint)
        #expect(recorded.contentHash == nil, "an old file is vouched for by its times alone")
        try Self.rewriteInPlaceRestoringTimes(url)
        let path = url.appendingPathComponent("manifest.xml").path
        #expect(!FileFingerprint.matches(recorded, path: path))
        try context.insert("Animal")
        #expect(throws: ModelError.package(.modifiedOnDisk(path: url.path))) { try context.save() }
    }

    @Test("Folio's own saves, one right after another, keep the fingerprint consistent")
    func ownSavesConsistent() throws {
        let url = temporaryPackageURL()
        let context = try makeContext(try zooSchema(), url: url)
        for index in 0..<50 {
            try context.insert("Animal", ["name": .string("A\(index)")])
            try context.save()
        }
        let other = ModelContext(context.container)
        try other.insert("Animal")
        try other.save()
        try context.insert("Animal")
        try context.save()
        #expect(try DocumentPackage(url: url).read().count(of: "Animal") == 52)
    }

    @Test("the content hash is the same however the bytes are cut into pieces, and tells one-byte changes apart")
    func contentHashStable() {
        let bytes = (0..<1_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        var whole = ContentHasher()
        whole.update(bytes)
        for cut in [1, 3, 7, 8, 9, 500] {
            var pieces = ContentHasher()
            var start = 0
            while start < bytes.count {
                pieces.update(Array(bytes[start..<min(start + cut, bytes.count)]))
                start += cut
            }
            #expect(pieces.finalize() == whole.finalize(), "cut every \(cut)")
        }
        var changed = bytes
        changed[517] ^= 1
        var other = ContentHasher()
        other.update(changed)
        #expect(other.finalize() != whole.finalize())
        var shorter = ContentHasher()
        shorter.update(Array(bytes.dropLast()))
        #expect(shorter.finalize() != whole.finalize())
    }
}
