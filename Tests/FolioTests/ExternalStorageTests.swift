import Foundation
import Testing
@testable import Folio

/// Externally stored values are read when first used, not at open
/// (`LazyBlob`), and checked against the hash in their file name.
@Suite struct ExternalStorageTests {
    static func albumSchema() throws -> Schema {
        try Schema([
            .init("Photo", attributes: [.init("title", .string),
                                        .init("image", .data, isOptional: true, options: [.externalStorage])]),
        ])
    }

    static func image(_ seed: Int, count: Int = 4_000) -> Data {
        Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ seed &* 7) })
    }

    static func photo(_ id: UInt64) -> PersistentIdentifier { PersistentIdentifier(entityName: "Photo", id: id) }

    /// A saved album of `count` photos, photo N holding `image(N)`.
    static func album(_ count: Int = 3) throws -> URL {
        let graph = ObjectGraph(schema: try albumSchema())
        for index in 1...count {
            _ = try graph.insert("Photo", ["title": .string("p\(index)"), "image": .data(image(index))])
        }
        let url = temporaryPackageURL("Album")
        try DocumentPackage(url: url).write(graph)
        return url
    }

    static func blobPath(_ url: URL, photo id: UInt64) throws -> String {
        let folder = url.appendingPathComponent("blobs")
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: folder.path).first { $0.hasPrefix("\(id)-image-") })
        return folder.appendingPathComponent(name).path
    }

    static func imageCell(_ graph: ObjectGraph, _ id: UInt64) throws -> LazyBlob? {
        let ref = try graph.ref(for: photo(id), allowDeleted: true)
        return graph.blob(ref, try graph.attributeIndex("image", entity: Int(ref.entity)))
    }

    @Test("opening reads no blob; a value is read when first used, then kept")
    func lazyRead() throws {
        let url = try Self.album()
        let graph = try DocumentPackage(url: url).read()
        let blob = try #require(try Self.imageCell(graph, 2))
        #expect(!blob.isLoaded)
        #expect(try graph.value("image", of: Self.photo(2)) == .data(Self.image(2)))
        #expect(blob.isLoaded)
        #expect(try Self.imageCell(graph, 1)?.isLoaded == false, "reading one blob reads no other")
        // Kept: the file can go, the value stays.
        try FileManager.default.removeItem(atPath: try Self.blobPath(url, photo: 2))
        #expect(try graph.value("image", of: Self.photo(2)) == .data(Self.image(2)))
    }

    @Test("a blob whose bytes do not match the hash in its name is a typed error at the first read, naming the file")
    func damagedBlob() throws {
        let url = try Self.album()
        let context = try makeContext(try Self.albumSchema(), url: url)
        let path = try Self.blobPath(url, photo: 1)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        bytes[10] ^= 0xFF
        try bytes.write(to: URL(fileURLWithPath: path))
        let error = #expect(throws: ModelError.self) { try context.value("image", of: Self.photo(1)) }
        #expect(error == .package(.blobHashMismatch(path: path)))
        #expect(error?.description.hasPrefix(path + ": ") == true)
        let graphError = #expect(throws: GraphError.self) { try context.graph.value("image", of: Self.photo(1)) }
        guard case .unreadableValue(let entity, let attribute, let id, let reason)? = graphError else {
            Issue.record("expected unreadableValue, got \(String(describing: graphError))")
            return
        }
        #expect(entity == "Photo" && attribute == "image" && id == 1 && reason.contains(path))
        #expect(try context.value("image", of: Self.photo(2)) == .data(Self.image(2)), "other blobs read fine")
    }

    @Test("a blob removed after open is missingBlob at the first read, naming the object and the file")
    func missingAtRead() throws {
        let url = try Self.album()
        let context = try makeContext(try Self.albumSchema(), url: url)
        let path = try Self.blobPath(url, photo: 3)
        try FileManager.default.removeItem(atPath: path)
        let error = #expect(throws: ModelError.self) { try context.value("image", of: Self.photo(3)) }
        guard case .package(.missingBlob(let location, "Photo", "image", let file))? = error else {
            Issue.record("expected missingBlob, got \(String(describing: error))")
            return
        }
        #expect(file == (path as NSString).lastPathComponent)
        #expect(location.file.hasSuffix("document.xml") && location.line > 0)
    }

    @Test("a blob that became a FIFO after open is refused at the first read without blocking")
    func fifoAtRead() throws {
        let url = try Self.album()
        let context = try makeContext(try Self.albumSchema(), url: url)
        let path = try Self.blobPath(url, photo: 1)
        try FileManager.default.removeItem(atPath: path)
        #expect(mkfifo(path, 0o644) == 0)
        let error = #expect(throws: ModelError.self) { try context.value("image", of: Self.photo(1)) }
        #expect(error == .package(.notARegularFile(path: path, kind: "a FIFO (named pipe)")))
    }

    @Test("saving an edited document neither reads nor rewrites its unchanged blobs")
    func saveKeepsBlobsUnread() throws {
        let url = try Self.album()
        let context = try makeContext(try Self.albumSchema(), url: url)
        let path = try Self.blobPath(url, photo: 1)
        let inode = try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int
        try context.setValue(.string("renamed"), for: "title", of: Self.photo(1))
        try context.save()
        #expect(try Self.imageCell(context.graph, 1)?.isLoaded == false)
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int == inode, "the very same file")
        let reread = try DocumentPackage(url: url).read()
        #expect(try reread.value("title", of: Self.photo(1)) == .string("renamed"))
        #expect(try reread.value("image", of: Self.photo(1)) == .data(Self.image(1)))
    }

    @Test("export copies unread blobs into the new package, checked, without keeping them in memory")
    func exportCopiesUnread() throws {
        let url = try Self.album()
        let context = try makeContext(try Self.albumSchema(), url: url)
        let copy = temporaryPackageURL("Copy")
        try context.exportPackage(to: copy)
        #expect(try Self.imageCell(context.graph, 1)?.isLoaded == false)
        let graph = try DocumentPackage(url: copy).read()
        for id: UInt64 in 1...3 { #expect(try graph.value("image", of: Self.photo(id)) == .data(Self.image(Int(id)))) }
    }

    @Test("an unread blob whose file vanished makes an export fail naming the file, and nothing is written")
    func exportOfVanishedBlob() throws {
        let url = try Self.album()
        let context = try makeContext(try Self.albumSchema(), url: url)
        let path = try Self.blobPath(url, photo: 2)
        try FileManager.default.removeItem(atPath: path)
        let copy = temporaryPackageURL("Copy")
        let error = #expect(throws: ModelError.self) { try context.exportPackage(to: copy) }
        guard case .package(.missingBlob(_, "Photo", "image", let file))? = error else {
            Issue.record("expected missingBlob, got \(String(describing: error))")
            return
        }
        #expect(file == (path as NSString).lastPathComponent)
        #expect(!FileManager.default.fileExists(atPath: copy.path), "a failed first write leaves nothing")
    }

    @Test("undo after a save that removed an unread blob brings its bytes back, and the next save writes it again")
    func undoAfterSaveKeepsBytes() throws {
        let url = try Self.album()
        let context = try makeContext(try Self.albumSchema(), url: url)
        let path = try Self.blobPath(url, photo: 2)
        try context.delete(Self.photo(2))
        try context.setValue(.data(Self.image(9)), for: "image", of: Self.photo(1))
        try context.save()
        #expect(!FileManager.default.fileExists(atPath: path), "the save removed the deleted photo's blob")
        #expect(try Self.imageCell(context.graph, 2)?.isLoaded == false, "kept reachable by a mapping, not read")
        context.undoManager?.undo()
        context.undoManager?.undo()
        #expect(try context.value("image", of: Self.photo(2)) == .data(Self.image(2)))
        #expect(try context.value("image", of: Self.photo(1)) == .data(Self.image(1)))
        try context.save()
        let reread = try DocumentPackage(url: url).read()
        for id: UInt64 in 1...3 { #expect(try reread.value("image", of: Self.photo(id)) == .data(Self.image(Int(id)))) }
    }

    @Test("deleteAllData's undo brings back objects whose blobs were never read")
    func deleteAllDataUndo() throws {
        let url = try Self.album()
        let context = try makeContext(try Self.albumSchema(), url: url)
        context.container.deleteAllData()
        #expect(!FileManager.default.fileExists(atPath: url.appendingPathComponent("blobs").path))
        #expect(try context.fetchCount(DynamicFetchDescriptor(entity: "Photo")) == 0)
        context.undoManager?.undo()
        for id: UInt64 in 1...3 { #expect(try context.value("image", of: Self.photo(id)) == .data(Self.image(Int(id)))) }
        try context.save()
        let reread = try DocumentPackage(url: url).read()
        for id: UInt64 in 1...3 { #expect(try reread.value("image", of: Self.photo(id)) == .data(Self.image(Int(id)))) }
    }

    @Test("another context's save reaches this one with its blobs still unread")
    func mergeCarriesReferences() throws {
        let url = try Self.album()
        let first = try makeContext(try Self.albumSchema(), url: url)
        let second = ModelContext(first.container)
        try first.setValue(.string("edited"), for: "title", of: Self.photo(1))
        try first.save()
        _ = try second.fetchCount(DynamicFetchDescriptor(entity: "Photo"))  // contexts merge on their next fetch
        #expect(try second.value("title", of: Self.photo(1)) == .string("edited"))
        #expect(try Self.imageCell(second.graph, 1)?.isLoaded == false)
        #expect(try second.value("image", of: Self.photo(1)) == .data(Self.image(1)))
    }

    @Test("a lightweight migration carries unread blobs over unread, renamed attribute and all")
    func migrationCarriesReferences() throws {
        let url = try Self.album()
        let renamed = try Schema([
            .init("Photo", attributes: [.init("title", .string),
                                        .init("picture", .data, isOptional: true, options: [.externalStorage], originalName: "image")]),
        ])
        let graph = try DocumentPackage(url: url).read().migrated(to: renamed)
        let ref = try graph.ref(for: Self.photo(1))
        #expect(graph.blob(ref, 1)?.isLoaded == false)
        try DocumentPackage(url: url).write(graph, expecting: nil)
        let reread = try DocumentPackage(url: url).read()
        for id: UInt64 in 1...3 { #expect(try reread.value("picture", of: Self.photo(id)) == .data(Self.image(Int(id)))) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: url.appendingPathComponent("blobs").path)
            .allSatisfy { $0.contains("-picture-") }, "renamed blobs, the old names removed")
    }

    @Test("an edit of an unread blob undone back to the saved state leaves no changes, and the blob is still unread")
    func undoToSavedNeverReadsBlobs() throws {
        let url = try Self.album()
        defer { try? FileManager.default.removeItem(at: url) }
        let context = try makeContext(try Self.albumSchema(), url: url)
        context.undoManager = UndoManager()
        try context.setValue(.data(Data([1, 2, 3])), for: "image", of: Self.photo(2))
        context.processPendingChanges()
        #expect(context.hasChanges)
        context.undoManager?.undo()
        #expect(!context.hasChanges)
        #expect(try Self.imageCell(context.graph, 2)?.isLoaded == false)
    }
}
