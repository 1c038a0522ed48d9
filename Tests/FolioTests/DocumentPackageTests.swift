import Foundation
import Testing
import Folio
@testable import FolioCore
import FolioTestSupport

@Suite struct DocumentPackageTests {
    /// Fills a kitchen-sink graph with edge values in every attribute and every relationship shape.
    static func edgeGraph() throws -> ObjectGraph {
        let graph = legacyNumberedGraph(try kitchenSinkSchema())
        let owner = try graph.insert("Person", ["name": .string("Owner")])
        let club = try graph.insert("Club", ["title": .string("Club")])
        try graph.link(owner, "clubs", to: club)
        var things: [PersistentIdentifier] = []
        let count = max(EdgeValues.strings.count, EdgeValues.doubles.count, EdgeValues.dates.count)
        for index in 0..<count {
            let string = EdgeValues.strings[index % EdgeValues.strings.count]
            let double = EdgeValues.doubles[index % EdgeValues.doubles.count]
            let date = EdgeValues.dates[index % EdgeValues.dates.count]
            let float = EdgeValues.floats[index % EdgeValues.floats.count]
            var values: [String: Value] = [
                "v_string": .string(string), "o_string": index % 2 == 0 ? .null : .string(string),
                "v_bool": .bool(index % 2 == 0), "v_int": .int(index % 3 == 0 ? .min : Int64(index) * -7),
                "v_int8": .int(index % 2 == 0 ? -128 : 127), "v_int16": .int(-32768), "v_int32": .int(Int64(Int32.max)),
                "v_int64": .int(.max), "v_uint": .uint(.max), "v_uint8": .uint(255), "v_uint16": .uint(65535),
                "v_uint32": .uint(UInt64(UInt32.max)), "v_uint64": .uint(UInt64(index)),
                "v_double": .double(double), "o_double": index % 3 == 0 ? .null : .double(-double),
                "v_float": .float(float), "v_date": .date(date), "o_date": index % 2 == 0 ? .date(date) : .null,
                "v_data": .data(Data((0..<index).map { UInt8(truncatingIfNeeded: $0 * 37) })),
                "v_uuid": .uuid(UUID()), "v_url": .url(URL(string: "https://example.com/\(index)?q=a&b=%20")!),
                "v_decimal": .decimal(Decimal(string: "-12345678901234567890.123456789")! + Decimal(index)),
                "o_decimal": .null, "o_int8": index % 2 == 0 ? .int(-1) : .null, "o_bool": .bool(false),
                "tags": .set(string == "tag" ? [Value.string("tag")] : [Value.string(string), .string("tag")]),
                "scores": .array([.double(double), .double(-0.0), .double(.nan)]),
                "dates": .array([.date(date)]),
                "counts": .dictionary([string: .int(Int64(index)), "z": .int(-1)]),
                "nested": index % 2 == 0 ? .null : .dictionary(["k": .array([.string(string), .string("")])]),
                "composite": .dictionary([
                    "name": .string(string), "n": .int(Int64(index)), "x": .double(double),
                    "list": .array([.null, .bool(true), .dictionary([:])]),
                ]),
                "anything": [
                    Value.null, .int(5), .string(string), .double(double), .date(date), .uuid(UUID()),
                    .data(Data([1, 2])), .bool(true),
                ][index % 8],
                "withDefault": .string(string),
            ]
            if index % 3 == 1 { values["photo"] = .data(Data("photo \(index) \(string)".utf8)) }
            if index % 3 == 2 { values["photo"] = .data(Data()) }
            let thing = try graph.insert("Thing", values)
            things.append(thing)
            if index % 4 != 3 { try graph.link(thing, "owner", to: owner) }
        }
        for (index, thing) in things.enumerated() {
            try graph.setRelated(
                [things[(index * 7) % things.count], things[(index + 1) % things.count]],
                for: "friends", of: thing)
            if index % 2 == 0, index + 1 < things.count { try graph.link(thing, "twin", to: things[index + 1]) }
        }
        try graph.remove(things[5])  // a gap in the identifiers
        return graph
    }

    @Test("a read racing with commits that remove the parts it was about to read reads a whole committed version")
    func readsRacingWithCommitsSucceed() throws {
        // Parts small enough that each commit replaces several and removes the old ones.
        let graph = legacyNumberedGraph(try zooSchema())
        var animals: [PersistentIdentifier] = []
        for index in 0..<3000 {
            animals.append(
                try graph.insert(
                    "Animal",
                    [
                        "name": .string("Animal \(index) " + String(repeating: "x", count: 200)),
                        "age": .int(0),
                    ]))
        }
        let url = temporaryPackageURL()
        let package = DocumentPackage(url: url)
        try package.write(graph)
        let sampled = animals.enumerated().filter { $0.offset % 300 == 0 }.map(\.element)
        // Only the writer thread touches the graph.
        nonisolated(unsafe) let written = graph
        let writer = Thread {
            for version in 1...40 {
                for animal in sampled { try? written.setValue(.int(Int64(version)), for: "age", of: animal) }
                try? package.write(written)
            }
        }
        writer.start()
        var reads = 0
        while !writer.isFinished || reads == 0 {
            let read = try DocumentPackage(url: url).read()
            // Whole: every animal of one version has the same age.
            let ages = Set(try sampled.map { try read.value("age", of: $0) })
            #expect(ages.count == 1, "a mix of versions: \(ages)")
            reads += 1
        }
        #expect(reads > 0)
    }

    @Test("every value type and edge value round-trips through a package exactly")
    func roundTripEveryValue() throws {
        let graph = try Self.edgeGraph()
        let package = DocumentPackage(url: temporaryPackageURL())
        try package.write(graph)
        let back = try package.read()
        let (expected, actual) = (graph.snapshot(), back.snapshot())
        for (entity, objects) in expected.objects {
            for (id, object) in objects {
                for (name, value) in object.values {
                    #expect(actual.objects[entity]?[id]?.values[name] == value, "\(entity)#\(id).\(name)")
                }
                #expect(actual.objects[entity]?[id]?.links == object.links, "\(entity)#\(id) links")
            }
        }
        #expect(actual == expected)
        let largestLive = graph.tables.flatMap { table in (0..<table.rowCount).filter { table.isLive[$0] }.map { table.ids[$0] } }.max()
        #expect(back.nextID == (largestLive ?? 0) + 1)
        #expect(back.invariantViolations().isEmpty)
    }

    @Test("saving the same graph twice gives byte-identical files, and re-saving a read package too")
    func byteIdentical() throws {
        let graph = try Self.edgeGraph()
        let first = DocumentPackage(url: temporaryPackageURL("A"))
        let second = DocumentPackage(url: temporaryPackageURL("B"))
        try first.write(graph)
        try second.write(try first.read())
        let a = try packageDocument(first.url)
        let b = try packageDocument(second.url)
        #expect(a == b)
        let blobsA = try FileManager.default.contentsOfDirectory(atPath: first.blobsPath).sorted()
        let blobsB = try FileManager.default.contentsOfDirectory(atPath: second.blobsPath).sorted()
        #expect(blobsA == blobsB)
        #expect(!blobsA.isEmpty)
    }

    @Test("a one-object edit changes one line of one part, and that part's line in the manifest", .format2)
    func smallDiff() throws {
        let graph = legacyNumberedGraph(try zooSchema())
        let category = try graph.insert("AnimalCategory", ["name": .string("Birds")])
        for index in 0..<50 {
            let animal = try graph.insert("Animal", ["name": .string("Bird \(index)"), "age": .int(Int64(index))])
            try graph.link(animal, "category", to: category)
        }
        let package = DocumentPackage(url: temporaryPackageURL())
        try package.write(graph)
        func lines(_ file: String) throws -> [Substring] {
            try String(contentsOfFile: package.url.path + "/" + file, encoding: .utf8).split(separator: "\n")
        }
        let manifestBefore = try lines("manifest.xml")
        let partsBefore = try Set(FileManager.default.contentsOfDirectory(atPath: package.partsPath))
        let oldText = try Dictionary(uniqueKeysWithValues: partsBefore.map { ($0, try lines("parts/" + $0)) })
        try graph.setValue(.int(99), for: "age", of: PersistentIdentifier(entityName: "Animal", id: 30))
        try package.write(graph)
        let manifestAfter = try lines("manifest.xml")
        let partsAfter = try Set(FileManager.default.contentsOfDirectory(atPath: package.partsPath))
        #expect(manifestBefore.count == manifestAfter.count)
        let changedManifest = zip(manifestBefore, manifestAfter).filter { $0 != $1 }
        #expect(changedManifest.count == 1 && changedManifest.first?.1.contains("entity=\"Animal\"") == true)
        // The part holding Animal 30 has a new name (its content changed); the other one kept its file.
        let removed = partsBefore.subtracting(partsAfter), added = partsAfter.subtracting(partsBefore)
        #expect(removed.count == 1 && added.count == 1 && partsBefore.count == 2)
        guard let old = removed.first, let new = added.first else { return }
        let before = oldText[old] ?? [], after = try lines("parts/" + new)
        #expect(before.count == after.count)
        let changed = zip(before, after).filter { $0 != $1 }
        #expect(changed.count == 1)
        #expect(changed.first?.1.contains("f.id=\"30\"") == true)
    }

    @Test("external storage keeps blobs beside the XML and removes them when no longer referenced")
    func externalBlobs() throws {
        let graph = legacyNumberedGraph(try kitchenSinkSchema())
        let thing = try graph.insert("Thing", ["photo": .data(Data(repeating: 7, count: 10_000))])
        let package = DocumentPackage(url: temporaryPackageURL())
        try package.write(graph)
        let blobs = try FileManager.default.contentsOfDirectory(atPath: package.blobsPath)
        #expect(blobs.count == 1)
        let xml = try packageText(package.url)
        #expect(xml.contains("photo=\"\(blobs[0])\""))
        #expect(try package.read().value("photo", of: thing) == .data(Data(repeating: 7, count: 10_000)))

        try graph.setValue(.data(Data([1, 2, 3])), for: "photo", of: thing)
        try package.write(graph)
        let replaced = try FileManager.default.contentsOfDirectory(atPath: package.blobsPath)
        #expect(replaced.count == 1 && replaced != blobs)

        try graph.remove(thing)
        try package.write(graph)
        #expect(!FileManager.default.fileExists(atPath: package.blobsPath))
    }

    @Test("a save leaves no temporary files behind and writes nothing outside the package")
    func noLeftovers() throws {
        let url = temporaryPackageURL()
        let parent = url.deletingLastPathComponent()
        try DocumentPackage(url: url).write(try Self.edgeGraph())
        try DocumentPackage(url: url).write(try Self.edgeGraph())
        #expect(try FileManager.default.contentsOfDirectory(atPath: parent.path) == [url.lastPathComponent])
        #expect(try FileManager.default.contentsOfDirectory(atPath: url.path).sorted() == ["blobs", "manifest.xml", "parts"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: url.path + "/parts").allSatisfy { !$0.hasPrefix(".") })
    }

    // MARK: Nothing outside the package is touched

    /// Files a user might keep in or beside a package, by path relative to `root`.
    static let foreignFiles: [String: Data] = [
        "Album.folio/notes.txt": Data("mine".utf8),
        "Album.folio/.notes.txt.tmp": Data("hidden, ends in .tmp".utf8),
        "Album.folio/.document.xml.swp": Data("an editor's swap file".utf8),
        "Album.folio/blobs/holiday.jpg": Data("a photo put here by hand".utf8),
        "Album.folio/blobs/.holiday.jpg.tmp": Data("another hidden temporary".utf8),
        "Album.folio/blobs/1-image-notahash.bin": Data("blob-like, but not a name Folio writes".utf8),
        "beside.txt": Data("next to the package".utf8),
    ]

    static func plantForeignFiles(in root: URL) throws {
        for (path, data) in foreignFiles {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: url)
        }
    }

    static func expectForeignFilesIntact(in root: URL, _ note: Comment, sourceLocation: SourceLocation = #_sourceLocation) {
        for (path, data) in foreignFiles {
            #expect((try? Data(contentsOf: root.appendingPathComponent(path))) == data, "\(path) \(note)", sourceLocation: sourceLocation)
        }
    }

    @Test("writing into a folder that exists and is not a Folio package is refused, and nothing in it is touched")
    func foreignFolderRefused() throws {
        let root = temporaryPackageURL().deletingLastPathComponent()
        let target = root.appendingPathComponent("Album.folio")
        try Self.plantForeignFiles(in: root)
        let error = #expect(throws: PackageError.self) { try DocumentPackage(url: target).write(try Self.edgeGraph()) }
        #expect(
            error
                == .notAPackageFolder(
                    path: target.path,
                    entries: [
                        ".document.xml.swp", ".notes.txt.tmp", "blobs/.holiday.jpg.tmp", "blobs/1-image-notahash.bin",
                        "blobs/holiday.jpg", "notes.txt",
                    ]))
        #expect(error?.description.contains("is not a Folio package") == true)
        #expect(!FileManager.default.fileExists(atPath: target.appendingPathComponent("document.xml").path))
        Self.expectForeignFilesIntact(in: root, "after the refused write")
        // A file where the package should be is refused too, not replaced.
        let file = root.appendingPathComponent("beside.txt")
        #expect(throws: PackageError.self) { try DocumentPackage(url: file).write(try Self.edgeGraph()) }
        Self.expectForeignFilesIntact(in: root, "after the refused write over a file")
    }

    @Test("a new document's first save into a folder made meanwhile by someone else is refused; the edits stay")
    func firstSaveIntoForeignFolder() throws {
        let root = temporaryPackageURL().deletingLastPathComponent()
        let target = root.appendingPathComponent("Album.folio")
        let context = try makeContext(try ExternalStorageTests.albumSchema(), url: target)
        try Self.plantForeignFiles(in: root)
        let photo = try context.insert("Photo", ["title": .string("new"), "image": .data(ExternalStorageTests.image(1))])
        let error = #expect(throws: ModelError.self) { try context.save() }
        guard case .package(.notAPackageFolder(let path, _))? = error else {
            Issue.record("expected notAPackageFolder, got \(String(describing: error))")
            return
        }
        #expect(path == target.path)
        Self.expectForeignFilesIntact(in: root, "after the refused first save")
        #expect(!FileManager.default.fileExists(atPath: target.appendingPathComponent("document.xml").path))
        #expect(context.hasChanges)
        #expect(try context.value("title", of: photo) == .string("new"))
    }

    @Test("an empty folder, or one holding only what Folio writes, may be written as a package")
    func ownFolderAccepted() throws {
        let empty = temporaryPackageURL()
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        try DocumentPackage(url: empty).write(try Self.edgeGraph())
        let leftovers = temporaryPackageURL()
        try FileManager.default.createDirectory(at: leftovers.appendingPathComponent("blobs"), withIntermediateDirectories: true)
        try Data("stale".utf8).write(to: leftovers.appendingPathComponent(".document.xml.tmp"))
        try Data("old".utf8).write(to: leftovers.appendingPathComponent("blobs/9-photo-0123456789abcdef.bin"))
        try Data("half".utf8).write(to: leftovers.appendingPathComponent("blobs/.9-photo-0123456789abcdef.bin.tmp"))
        try DocumentPackage(url: leftovers).checkWritableTarget()
        try DocumentPackage(url: leftovers).write(try Self.edgeGraph())
        #expect(try DocumentPackage(url: leftovers).read().count == (try Self.edgeGraph()).count)
        #expect(!FileManager.default.fileExists(atPath: leftovers.appendingPathComponent(".document.xml.tmp").path))
        #expect(
            !FileManager.default.fileExists(atPath: leftovers.appendingPathComponent("blobs/9-photo-0123456789abcdef.bin").path),
            "Folio's own unreferenced blob is removed")
    }

    @Test("every save, export and deleteAllData removes only files the package itself wrote")
    func onlyOwnFilesRemoved() throws {
        let root = temporaryPackageURL().deletingLastPathComponent()
        let url = root.appendingPathComponent("Album.folio")
        let schema = try ExternalStorageTests.albumSchema()
        let graph = legacyNumberedGraph(schema)
        for index in 1...3 { _ = try graph.insert("Photo", ["title": .string("p\(index)"), "image": .data(ExternalStorageTests.image(index))]) }
        try DocumentPackage(url: url).write(graph)
        try Self.plantForeignFiles(in: root)
        let context = try makeContext(schema, url: url)

        try context.setValue(.data(ExternalStorageTests.image(7)), for: "image", of: ExternalStorageTests.photo(1))
        try context.save()
        Self.expectForeignFilesIntact(in: root, "after a save that replaced a blob")
        let blobs = try FileManager.default.contentsOfDirectory(atPath: url.appendingPathComponent("blobs").path)
        #expect(blobs.filter { $0.hasPrefix("1-image-") && $0 != "1-image-notahash.bin" }.count == 1, "the old blob is gone")

        _ = try context.delete(entity: "Photo")
        try context.save()
        Self.expectForeignFilesIntact(in: root, "after a save that left no blob")
        #expect(
            Set(try FileManager.default.contentsOfDirectory(atPath: url.appendingPathComponent("blobs").path))
                == [".holiday.jpg.tmp", "1-image-notahash.bin", "holiday.jpg"], "blobs/ kept, holding only the user's files")

        context.undoManager?.undo()
        try context.save()
        let copy = root.appendingPathComponent("Copy.folio")
        try context.exportPackage(to: copy)
        try context.exportPackage(to: copy)
        Self.expectForeignFilesIntact(in: root, "after exports")
        #expect(try DocumentPackage(url: copy).read().count == 3)

        context.container.deleteAllData()
        Self.expectForeignFilesIntact(in: root, "after deleteAllData")
        #expect(try DocumentPackage(url: url).read().count == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: root.path).sorted() == ["Album.folio", "Copy.folio", "beside.txt"])
    }

    @Test("transient attributes are never saved and come back with their initial value")
    func transientNotSaved() throws {
        let graph = legacyNumberedGraph(try kitchenSinkSchema())
        let thing = try graph.insert("Thing", ["scratch": .string("secret")])
        let package = DocumentPackage(url: temporaryPackageURL())
        try package.write(graph)
        #expect(try !packageText(package.url).contains("secret"))
        #expect(try package.read().value("scratch", of: thing) == .string(""))
    }

    @Test("strings XML cannot carry are written in the escaped form, others literally")
    func escapedForm() throws {
        let graph = legacyNumberedGraph(try zooSchema())
        try graph.insert("Animal", ["name": .string("nul\u{0}"), "notes": .string("tab\tand & <")])
        let package = DocumentPackage(url: temporaryPackageURL())
        try package.write(graph)
        let xml = try packageText(package.url)
        #expect(xml.contains(#"name.esc="nul\u0000""#))
        #expect(xml.contains(#"notes="tab&#9;and &amp; &lt;""#))
    }
}
