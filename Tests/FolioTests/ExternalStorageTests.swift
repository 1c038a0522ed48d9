import Foundation
import PropertyBased
import Testing
import Folio
@testable import FolioCore
import FolioTestSupport

/// Externally stored values are read when first used, not at open
/// (`LazyBlob`), and checked against the hash in their file name.
@Suite struct ExternalStorageTests {
    static func albumSchema() throws -> Schema {
        try Schema([
            .init(
                "Photo",
                attributes: [
                    .init("title", .string),
                    .init("image", .data, isOptional: true, options: [.externalStorage]),
                ])
        ])
    }

    static func image(_ seed: Int, count: Int = 4_000) -> Data {
        Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ seed &* 7) })
    }

    static func photo(_ id: UInt64) -> PersistentIdentifier { PersistentIdentifier(entityName: "Photo", id: id) }

    /// A saved album of `count` photos, photo N holding `image(N)`.
    static func album(_ count: Int = 3) throws -> URL {
        let graph = legacyNumberedGraph(try albumSchema())
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

    /// Issue 33, item 4: with photo 1's blob damaged, a count whose predicate
    /// reads `image` answered as if the value were empty (0, where the intact
    /// copy says 1), and `delete … where` would have acted on the wrong rows.
    @Test("a predicate, count, sort or delete-where that needs a damaged blob fails with the typed error and changes nothing")
    func damagedBlobInQueries() throws {
        let url = try Self.album()
        let path = try Self.blobPath(url, photo: 1)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        bytes[10] ^= 0xFF
        try bytes.write(to: URL(fileURLWithPath: path))
        let damaged = try makeContext(try Self.albumSchema(), url: url)
        func isUnreadable(_ error: ModelError?) -> Bool {
            guard case .graph(.unreadableValue(let entity, let attribute, let id, let reason))? = error else { return false }
            return entity == "Photo" && attribute == "image" && id == 1 && reason.contains(path)
        }
        let predicate = try ObjectPredicate("image == nil")
        let counted = #expect(throws: ModelError.self) {
            try damaged.fetchCount(DynamicFetchDescriptor(entity: "Photo", predicate: predicate))
        }
        #expect(isUnreadable(counted), "\(String(describing: counted))")
        let sorted = #expect(throws: ModelError.self) {
            try damaged.fetchIdentifiers(DynamicFetchDescriptor(entity: "Photo", sortBy: [.init("image")]))
        }
        #expect(sorted != nil)
        let deleted = #expect(throws: ModelError.self) { try damaged.delete(entity: "Photo", where: predicate) }
        #expect(isUnreadable(deleted))
        #expect(!damaged.hasChanges, "nothing was deleted")
        // A predicate that reads no blob still answers.
        #expect(try damaged.fetchCount(DynamicFetchDescriptor(entity: "Photo", predicate: try ObjectPredicate("title == 'p2'"))) == 1)
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
        #expect(location.file.contains("/parts/Photo/") && location.line > 0)
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
            .init(
                "Photo",
                attributes: [
                    .init("title", .string),
                    .init("picture", .data, isOptional: true, options: [.externalStorage], originalName: "image"),
                ])
        ])
        let graph = try DocumentPackage(url: url).read().migrated(to: renamed)
        let ref = try graph.ref(for: Self.photo(1))
        #expect(graph.blob(ref, 1)?.isLoaded == false)
        try DocumentPackage(url: url).write(graph, expecting: nil)
        let reread = try DocumentPackage(url: url).read()
        for id: UInt64 in 1...3 { #expect(try reread.value("picture", of: Self.photo(id)) == .data(Self.image(Int(id)))) }
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: url.appendingPathComponent("blobs").path)
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

    // MARK: Any type stored externally

    /// Notes with every kind of value kept in blobs: a string, an integer, a
    /// date, an array of strings and a composite.
    static func notesSchema(external: Bool = true) throws -> Schema {
        let options: Set<Schema.Attribute.Option> = external ? [.externalStorage] : []
        return try Schema([
            .init(
                "Note",
                attributes: [
                    .init("title", .string),
                    .init("body", .string, isOptional: true, options: options),
                    .init("count", .int, isOptional: true, options: options),
                    .init("when", .date, isOptional: true, options: options),
                    .init("tags", .array(.string), isOptional: true, options: options),
                    .init("extra", .codable, isOptional: true, options: options),
                ])
        ])
    }

    static func note(_ id: UInt64) -> PersistentIdentifier { PersistentIdentifier(entityName: "Note", id: id) }

    static let when = Date(timeIntervalSinceReferenceDate: 700_000_000.25)

    static func blob(_ url: URL, _ id: UInt64, _ attribute: String) throws -> Data? {
        let folder = url.appendingPathComponent("blobs")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        guard let name = names.first(where: { $0.hasPrefix("\(id)-\(attribute)-") }) else { return nil }
        return try Data(contentsOf: folder.appendingPathComponent(name))
    }

    @Test("Int, Date, [String] and Codable values stored externally round-trip, each blob holding the value's text")
    func otherTypesRoundTrip() throws {
        let url = temporaryPackageURL("Notes")
        let graph = legacyNumberedGraph(try Self.notesSchema())
        let full = try graph.insert(
            "Note",
            [
                "title": .string("full"), "body": .string("héllo 🦊\u{0}"), "count": .int(-42), "when": .date(Self.when),
                "tags": .array([.string("a"), .string("b\"c")]), "extra": .dictionary(["k": .array([.int(1), .double(2.5)])]),
            ])
        let empty = try graph.insert("Note", ["title": .string("empty")])
        try DocumentPackage(url: url).write(graph)

        #expect(try Self.blob(url, full.id, "body") == Data("héllo 🦊\u{0}".utf8), "a string's blob is its UTF-8")
        #expect(try Self.blob(url, full.id, "count") == Data("-42".utf8))
        #expect(try Self.blob(url, full.id, "when") == Data(ValueText.encode(.date(Self.when), as: .date).utf8))
        #expect(try Self.blob(url, full.id, "when").map { String(decoding: $0, as: UTF8.self) }?.hasSuffix(".25Z") == true)
        #expect(try Self.blob(url, full.id, "tags") == Data(#"["a","b\"c"]"#.utf8))
        #expect(try Self.blob(url, full.id, "extra") == Data(#"{"k":[1,2.5]}"#.utf8))
        for attribute in ["body", "count", "when", "tags", "extra"] {
            #expect(try Self.blob(url, empty.id, attribute) == nil, "nil has no blob")
        }

        let back = try DocumentPackage(url: url).read()
        let ref = try back.ref(for: full)
        for attribute in 1...5 { #expect(back.blob(ref, attribute)?.isLoaded == false, "opening reads no blob") }
        #expect(back.snapshot() == graph.snapshot())
        for attribute in 1...5 { #expect(back.blob(ref, attribute)?.isLoaded == true) }
        #expect(try back.value("count", of: full) == .int(-42))
        #expect(try back.value("body", of: empty) == .null)
    }

    @Test("an empty string stored externally is an empty blob, not nil")
    func emptyString() throws {
        let url = temporaryPackageURL("Notes")
        let context = try makeContext(try Self.notesSchema(), url: url)
        let id = try context.insert("Note", ["title": .string("x"), "body": .string("")])
        try context.save()
        #expect(try Self.blob(url, id.id, "body") == Data())
        let reopened = try makeContext(try Self.notesSchema(), url: url)
        #expect(try reopened.value("body", of: id) == .string(""))
    }

    @Test("a blob whose bytes are not a value of its attribute's type is invalidValue at the first read, naming the file")
    func undecodableBlob() throws {
        let url = temporaryPackageURL("Notes")
        let graph = legacyNumberedGraph(try Self.notesSchema())
        let id = try graph.insert("Note", ["title": .string("x"), "count": .int(7), "body": .string("fine")])
        try DocumentPackage(url: url).write(graph)
        // Replace the blob with one whose name carries the right hash for its (wrong) bytes.
        let folder = url.appendingPathComponent("blobs")
        let old = try #require(try FileManager.default.contentsOfDirectory(atPath: folder.path).first { $0.contains("-count-") })
        let bytes = Data("seven".utf8)
        let name = DocumentWriter.blobName(id: id.id, attribute: "count", data: bytes)
        try FileManager.default.removeItem(at: folder.appendingPathComponent(old))
        try bytes.write(to: folder.appendingPathComponent(name))
        // The part naming the blob, edited in place.
        for path in formatThreeParts(url) {
            let part = url.appendingPathComponent(path)
            let text = try String(contentsOf: part, encoding: .utf8)
            if text.contains(old) { try text.replacingOccurrences(of: old, with: name).write(to: part, atomically: true, encoding: .utf8) }
        }

        let context = try makeContext(try Self.notesSchema(), url: url)
        #expect(try context.value("body", of: id) == .string("fine"))
        let error = #expect(throws: ModelError.self) { try context.value("count", of: id) }
        guard case .package(.invalidValue(_, "Note", "count", "seven", let expected))? = error else {
            Issue.record("expected invalidValue, got \(String(describing: error))")
            return
        }
        #expect(expected.contains(name) && expected.hasPrefix("int"))
    }

    @Test("predicates and sorts on an externally stored string read the values still on disk")
    func fetchReadsBlobs() throws {
        let url = temporaryPackageURL("Notes")
        let graph = legacyNumberedGraph(try Self.notesSchema())
        for (index, body) in ["pear", "apple", "fig"].enumerated() {
            _ = try graph.insert("Note", ["title": .string("n\(index)"), "body": .string(body), "count": .int(Int64(10 - index))])
        }
        _ = try graph.insert("Note", ["title": .string("none")])
        try DocumentPackage(url: url).write(graph)
        let context = try makeContext(try Self.notesSchema(), url: url)
        let titles = { (predicate: String?, sort: String) throws -> [String] in
            let descriptor = DynamicFetchDescriptor(
                entity: "Note", predicate: try predicate.map { try ObjectPredicate($0) },
                sortBy: [.init(sort)])
            return try context.fetchIdentifiers(descriptor).map { id -> String in
                guard case .string(let title) = try context.value("title", of: id) else { return "?" }
                return title
            }
        }
        #expect(try titles("body == 'apple'", "title") == ["n1"])
        #expect(try titles("body beginswith 'p' or body == nil", "title") == ["n0", "none"])
        #expect(try titles("count > 8", "count") == ["n1", "n0"])
        #expect(try titles(nil, "body") == ["none", "n1", "n2", "n0"])
    }

    @Test("a migration that adds or removes externalStorage on a string moves its values between the XML and blobs")
    func migrationMovesStrings() throws {
        let url = temporaryPackageURL("Notes")
        let inline = try Self.notesSchema(external: false)
        let external = try Self.notesSchema(external: true)
        let graph = legacyNumberedGraph(inline)
        let id = try graph.insert("Note", ["title": .string("t"), "body": .string("long text ✓"), "tags": .array([.string("x")])])
        let none = try graph.insert("Note", ["title": .string("n")])
        try DocumentPackage(url: url).write(graph)
        #expect(!FileManager.default.fileExists(atPath: url.appendingPathComponent("blobs").path))

        do {
            // A migration happens in memory on open; the next save writes it.
            let outward = try makeContext(external, url: url)
            try outward.setValue(.string("moved"), for: "title", of: none)
            try outward.save()
        }
        try graph.setValue(.string("moved"), for: "title", of: none)
        #expect(try Self.blob(url, id.id, "body") == Data("long text ✓".utf8))
        #expect(try Self.blob(url, id.id, "tags") == Data(#"["x"]"#.utf8))
        #expect(try Self.blob(url, none.id, "body") == nil)
        let document = try packageText(url)
        #expect(!document.contains("long text"))
        let reread = try DocumentPackage(url: url).read()
        #expect(reread.snapshot() == graph.snapshot())

        do {
            let inward = try makeContext(inline, url: url)
            try inward.setValue(.string("back"), for: "title", of: none)
            try inward.save()
        }
        try graph.setValue(.string("back"), for: "title", of: none)
        #expect(!FileManager.default.fileExists(atPath: url.appendingPathComponent("blobs").path), "blobs removed")
        let back = try DocumentPackage(url: url).read()
        #expect(back.snapshot() == graph.snapshot())
        #expect(try back.value("body", of: id) == .string("long text ✓"))
    }

    @Test("setting an unread external string and undoing leaves no change, and the blob still unread")
    func undoOfStringEdit() throws {
        let url = temporaryPackageURL("Notes")
        let graph = legacyNumberedGraph(try Self.notesSchema())
        let id = try graph.insert("Note", ["title": .string("t"), "body": .string("before")])
        try DocumentPackage(url: url).write(graph)
        let context = try makeContext(try Self.notesSchema(), url: url)
        try context.setValue(.string("after"), for: "body", of: id)
        context.processPendingChanges()
        #expect(context.hasChanges)
        context.undoManager?.undo()
        #expect(!context.hasChanges)
        let ref = try context.graph.ref(for: id)
        #expect(context.graph.blob(ref, 1)?.isLoaded == false)
        context.undoManager?.redo()
        #expect(try context.value("body", of: id) == .string("after"))
        try context.save()
        #expect(try Self.blob(url, id.id, "body") == Data("after".utf8))
    }

    @Test("a read external string whose file a save removed is still exported from a mapping of that file")
    func exportAfterRemovedFile() throws {
        let url = temporaryPackageURL("Notes")
        let graph = legacyNumberedGraph(try Self.notesSchema())
        let keep = try graph.insert("Note", ["title": .string("k"), "body": .string("kept")])
        let gone = try graph.insert("Note", ["title": .string("g"), "body": .string("read, deleted, undone")])
        try DocumentPackage(url: url).write(graph)
        let context = try makeContext(try Self.notesSchema(), url: url)
        #expect(try context.value("body", of: gone) == .string("read, deleted, undone"))
        try context.delete(gone)
        try context.save()
        #expect(try Self.blob(url, gone.id, "body") == nil, "the save removed its file")
        context.undoManager?.undo()
        let copy = temporaryPackageURL("Copy")
        try context.exportPackage(to: copy)
        let exported = try DocumentPackage(url: copy).read()
        #expect(try exported.value("body", of: gone) == .string("read, deleted, undone"))
        #expect(try exported.value("body", of: keep) == .string("kept"))
    }

    @Test("random values of every type round-trip the same with and without externalStorage, and re-save byte for byte", .tags(.long))
    func randomExternalRoundTrips() async throws {
        // One seed per attribute pair and per object: a failure shrinks to the fewest of each.
        let seeds = Gen.uint64(in: 0...UInt64.max)
        await checkProperty(count: TestEffort.cases(100), input: seeds.array(of: 1...6), seeds.array(of: 1...8)) { columns, objects in
            var attributes: [Schema.Attribute] = []
            for (index, seed) in columns.enumerated() {
                var rng = SeededGenerator(seed: seed)
                let type = RandomGraphs.type(&rng)
                let optional = Bool.random(using: &rng)
                attributes.append(.init("a\(index)", type, isOptional: optional))
                attributes.append(.init("x\(index)", type, isOptional: optional, options: [.externalStorage]))
            }
            let schema = try Schema([.init("E", attributes: attributes)])
            let graph = legacyNumberedGraph(schema)
            for seed in objects {
                var rng = SeededGenerator(seed: seed)
                var values: [String: Value] = [:]
                for attribute in attributes where attribute.name.hasPrefix("a") {
                    let value = RandomGraphs.value(for: attribute, &rng)
                    values[attribute.name] = value
                    values["x" + attribute.name.dropFirst()] = value
                }
                _ = try graph.insert("E", values)
            }
            let package = DocumentPackage(url: temporaryPackageURL())
            defer { try? FileManager.default.removeItem(at: package.url.deletingLastPathComponent()) }
            try package.write(graph)
            let back = try package.read()
            #expect(back.snapshot() == graph.snapshot())
            for id in try back.identifiers(of: "E") {
                for attribute in attributes where attribute.name.hasPrefix("a") {
                    #expect(try back.value("x" + attribute.name.dropFirst(), of: id) == back.value(attribute.name, of: id))
                }
            }
            let first = try packageDocument(package.url)
            let blobs = ((try? FileManager.default.contentsOfDirectory(atPath: package.blobsPath)) ?? []).sorted()
            try package.write(back)
            #expect(try packageDocument(package.url) == first)
            #expect(((try? FileManager.default.contentsOfDirectory(atPath: package.blobsPath)) ?? []).sorted() == blobs)
        }
    }

    @Test("a unique externally stored string is skipped by the load and save checks, and still upserts on insert")
    func uniqueExternalString() throws {
        let schema = try Schema([
            .init("Code", attributes: [.init("text", .string, options: [.unique, .externalStorage]), .init("n", .int)])
        ])
        let url = temporaryPackageURL("Codes")
        let graph = legacyNumberedGraph(schema)
        // The graph's own insert does not upsert: two objects may share the value there.
        let first = try graph.insert("Code", ["text": .string("same"), "n": .int(1)])
        _ = try graph.insert("Code", ["text": .string("same"), "n": .int(2)])
        try DocumentPackage(url: url).write(graph)
        let context = try makeContext(schema, url: url)
        let ref = try context.graph.ref(for: first)
        #expect(context.graph.blob(ref, 0)?.isLoaded == false, "opening checks no external value")
        let upserted = try context.insert("Code", ["text": .string("same"), "n": .int(3)])
        #expect(upserted == first)
        #expect(try context.value("n", of: first) == .int(3))
        try context.save()
        #expect(try context.fetchCount(DynamicFetchDescriptor(entity: "Code")) == 2)
    }
}
