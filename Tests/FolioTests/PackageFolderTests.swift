import Foundation
import Testing
import Folio
@testable import FolioCore
import FolioTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Every file of a package is reached one guarded way (``PackageFolder``): from
/// the package folder's descriptor, no symbolic link at any step, regular files
/// only, never blocking. A symlink or a FIFO planted at any path Folio touches
/// is refused with an error naming it, and nothing outside the package is
/// read, written or removed (issue 33, item 1).
@Suite struct PackageFolderTests {
    static func photoSchema() throws -> Schema {
        try Schema([
            .init(
                "Photo",
                attributes: [
                    .init("name", .string),
                    .init("image", .data, isOptional: true, options: [.externalStorage]),
                ])
        ])
    }

    /// A saved package with a blob, and a folder beside it standing for the
    /// user's other files (a link's target).
    /// Without `keepingContainer`, the container is closed before `body` runs
    /// (it gets nil): a new one reads the package from disk.
    static func withPackage(keepingContainer: Bool = true, _ body: (URL, ModelContainer?, URL) throws -> Void) throws {
        let url = temporaryPackageURL("Photos")
        let outside = url.deletingLastPathComponent().appendingPathComponent("elsewhere")
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        var container: ModelContainer? = try ModelContainer(for: try photoSchema(), configurations: ModelConfiguration(url: url))
        do {
            let context = ModelContext(try #require(container))
            _ = try context.insert("Photo", ["name": .string("cat"), "image": .data(Data("meow".utf8))])
            try context.save()
        }
        if !keepingContainer { container = nil }
        try body(url, container, outside)
    }

    /// What a folder holds, by name and bytes: unchanged is the test.
    static func contents(_ folder: URL) throws -> [String: Data] {
        var result: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            var isFolder: ObjCBool = false
            let url = folder.appendingPathComponent(name)
            if FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), isFolder.boolValue {
                for (inner, data) in try contents(url) { result[name + "/" + inner] = data }
            } else {
                result[name] = try Data(contentsOf: url)
            }
        }
        return result
    }

    /// Moves a package's subfolder to `outside` (with a file of the user's that
    /// looks like one of Folio's) and leaves a symbolic link to it in its place.
    static func replaceWithLink(_ package: URL, _ folder: String, outside: URL, lookalike: String) throws -> URL {
        let target = outside.appendingPathComponent(folder)
        let inside = package.appendingPathComponent(folder)
        if FileManager.default.fileExists(atPath: inside.path) {
            try FileManager.default.moveItem(at: inside, to: target)
        } else {
            try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
        }
        try Data("the user's own file".utf8).write(to: target.appendingPathComponent(lookalike))
        try FileManager.default.createSymbolicLink(at: inside, withDestinationURL: target)
        return target
    }

    static func isLinkRefusal(_ error: any Error, naming path: String) -> Bool {
        let text = "\(error)"
        return text.contains(path) && text.contains("a symbolic link")
    }

    @Test("a blobs/ folder that is a symbolic link is refused at open and at save; its target is neither written nor emptied")
    func blobsFolderLink() throws {
        try Self.withPackage { url, container, outside in
            let lookalike = DocumentWriter.blobName(id: 9, attribute: "image", data: Data("mine".utf8))
            let target = try Self.replaceWithLink(url, "blobs", outside: outside, lookalike: lookalike)
            let before = try Self.contents(target)
            // Opening reads no blob through the link.
            #expect { _ = try DocumentPackage(url: url).read() } throws: {
                Self.isLinkRefusal($0, naming: url.appendingPathComponent("blobs").path)
            }
            // A save with a new blob (and one that would remove the old) writes nothing there.
            let context = ModelContext(try #require(container))
            _ = try context.insert("Photo", ["name": .string("dog"), "image": .data(Data("woof".utf8))])
            #expect { try context.save() } throws: { Self.isLinkRefusal($0, naming: url.appendingPathComponent("blobs").path) }
            #expect(try Self.contents(target) == before, "a save wrote or removed a file outside the package")
        }
    }

    @Test("a history/ folder that is a symbolic link is refused at the save that writes a segment; its target is untouched", .tags(.long), .onlyInLongRuns)
    func historyFolderLink() throws {
        try Self.withPackage { url, container, outside in
            let context = ModelContext(try #require(container))
            // Enough transactions' worth of text to close the history's tail into a segment file.
            let ids = try (0..<30_000).map { _ in try context.insert("Photo", ["name": .string("p")]) }
            try context.save()
            let target = try Self.replaceWithLink(url, "history", outside: outside, lookalike: "1-0123456789abcdef.xml")
            let before = try Self.contents(target)
            for id in ids.enumerated() where id.offset % 2 == 0 { try context.delete(id.element) }
            #expect { try context.save() } throws: { Self.isLinkRefusal($0, naming: url.appendingPathComponent("history").path) }
            #expect(try Self.contents(target) == before, "a save wrote or removed a file outside the package")
        }
    }

    @Test("a parts/ folder that is a symbolic link is refused at open and at save; its target is untouched")
    func partsFolderLink() throws {
        try Self.withPackage { url, container, outside in
            let target = try Self.replaceWithLink(url, "parts", outside: outside, lookalike: "Photo-9-0123456789abcdef.xml")
            let before = try Self.contents(target)
            #expect { _ = try DocumentPackage(url: url).read() } throws: {
                Self.isLinkRefusal($0, naming: url.appendingPathComponent("parts").path)
            }
            let context = ModelContext(try #require(container))
            _ = try context.insert("Photo", ["name": .string("dog")])
            #expect { try context.save() } throws: { Self.isLinkRefusal($0, naming: url.appendingPathComponent("parts").path) }
            #expect(try Self.contents(target) == before)
        }
    }

    /// A FIFO at each file an open reads, made just before the open (so its
    /// times are "racy" and a fingerprint would hash its content): refused
    /// at once, never waited on.
    @Test(
        "a FIFO at manifest.xml, document.xml, a part or a blob is refused at open, never waited on",
        arguments: ["manifest.xml", "document.xml", "part", "blob"])
    func fifoAtAFileOpenReads(_ which: String) throws {
        try Self.withPackage(keepingContainer: false) { url, _, _ in
            let package = DocumentPackage(url: url)
            let path: String
            switch which {
            case "document.xml":
                // A format-1 package: document.xml alone.
                try FileManager.default.removeItem(atPath: package.manifestPath)
                path = package.documentPath
            case "part":
                let name = try #require(formatThreeParts(url).first)
                path = url.path + "/" + name
                try FileManager.default.removeItem(atPath: path)
            case "blob":
                let name = try #require(FileManager.default.contentsOfDirectory(atPath: package.blobsPath).first)
                path = package.blobsPath + "/" + name
                try FileManager.default.removeItem(atPath: path)
            default:
                path = package.manifestPath
                try FileManager.default.removeItem(atPath: path)
            }
            try #require(mkfifo(path, 0o644) == 0)
            #expect { _ = try ModelContainer(for: try Self.photoSchema(), configurations: ModelConfiguration(url: url)) } throws: {
                "\($0)".contains(path) && "\($0)".contains("FIFO")
            }
            // The fingerprint of a FIFO made this instant is taken without reading it.
            #expect(FileFingerprint(package.commitItem) != nil)
        }
    }

    @Test("a symbolic link or a FIFO where a save writes a temporary file is removed as a name, never written through")
    func plantedTemporary() throws {
        try Self.withPackage { url, container, outside in
            let victim = outside.appendingPathComponent("victim")
            try Data("keep me".utf8).write(to: victim)
            let temporary = url.appendingPathComponent(".manifest.xml.tmp").path
            let context = ModelContext(try #require(container))
            try FileManager.default.createSymbolicLink(atPath: temporary, withDestinationPath: victim.path)
            _ = try context.insert("Photo", ["name": .string("dog")])
            try context.save()
            #expect(try Data(contentsOf: victim) == Data("keep me".utf8))
            try #require(mkfifo(temporary, 0o644) == 0)
            _ = try context.insert("Photo", ["name": .string("bird")])
            try context.save()  // would wait forever on a FIFO opened for writing
            #expect(!FileManager.default.fileExists(atPath: temporary))
            #expect(try DocumentPackage(url: url).read().count == 3)
        }
    }
}
