import Foundation
import Testing
import Folio
@testable import FolioCore
import FolioTestSupport

@Suite struct BlobRegistryTests {
    /// Two blob files of the same bytes (two packages holding one image) in a
    /// fresh folder, named by their contents' hashes as a save names them.
    private static func twoFiles() throws -> (String, String) {
        let folder = temporaryPackageURL("Blobs").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var paths: [String] = []
        for id: UInt64 in [1, 2] {
            let data = Data("the same image".utf8)
            let path = folder + "/" + DocumentWriter.blobName(id: id, attribute: "image", data: data)
            try data.write(to: URL(fileURLWithPath: path))
            paths.append(path)
        }
        return (paths[0], paths[1])
    }

    private static func package(of path: String) -> String {
        ((path as NSString).deletingLastPathComponent as NSString).deletingLastPathComponent
    }

    private static func folder(of path: String) -> String {
        ((path as NSString).deletingLastPathComponent as NSString).lastPathComponent
    }

    @Test("a file about to be removed keeps its bytes for an unread reference to it")
    func preservesItsOwnFile() throws {
        let (path, _) = try Self.twoFiles()
        let identity = try #require(FileIO.identity(path))
        let blob = LazyBlob(
            name: (path as NSString).lastPathComponent, package: Self.package(of: path), folder: Self.folder(of: path),
            read: { try Data(contentsOf: URL(fileURLWithPath: path)) })
        BlobRegistry.register(blob, identity: identity)
        BlobRegistry.preserve(identity, item: PackageFolder(path: Self.package(of: path)).item((path as NSString).lastPathComponent, in: Self.folder(of: path)))
        try FileManager.default.removeItem(atPath: path)
        #expect(try blob.load() == .data(Data("the same image".utf8)))
    }

    @Test("a reference whose file was removed by hand does not take the bytes of a file that got its inode number")
    func ignoresAReusedInodeNumber() throws {
        let (path, other) = try Self.twoFiles()
        // As when `other` is made after `path`'s removal and the file system hands out the freed number again.
        let reused = try #require(FileIO.identity(other))
        try FileManager.default.removeItem(atPath: path)
        let blob = LazyBlob(
            name: (path as NSString).lastPathComponent, package: Self.package(of: path), folder: Self.folder(of: path),
            read: { try Data(contentsOf: URL(fileURLWithPath: path)) })
        BlobRegistry.register(blob, identity: reused)
        BlobRegistry.preserve(
            reused, item: PackageFolder(path: Self.package(of: other)).item((other as NSString).lastPathComponent, in: Self.folder(of: other)))
        try FileManager.default.removeItem(atPath: other)
        #expect(throws: (any Error).self) { try blob.load() }
    }
}
