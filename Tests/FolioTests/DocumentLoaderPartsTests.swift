import Foundation
import PropertyBased
import Testing
import Folio
@testable import FolioCore
import FolioTestSupport

/// Reading a format-2 package (DocumentLoader+Parts): a damaged or hostile
/// manifest or part is refused, all or nothing, naming the file it is in.
@Suite(.format2) struct DocumentLoaderPartsTests {
    /// A saved zoo package with two parts per entity at most, and its manifest's text.
    static func withSavedPackage(_ body: (DocumentPackage, String) throws -> Void) throws {
        let graph = legacyNumberedGraph(try zooSchema())
        let category = try graph.insert("AnimalCategory", ["name": .string("Birds")])
        for index in 0..<4 { try graph.link(try graph.insert("Animal", ["name": .string("Bird \(index)")]), "category", to: category) }
        let package = DocumentPackage(url: temporaryPackageURL())
        defer { try? FileManager.default.removeItem(at: package.url.deletingLastPathComponent()) }
        try package.write(graph)
        try body(package, try String(contentsOfFile: package.manifestPath, encoding: .utf8))
    }

    static func part(_ package: DocumentPackage, _ entity: String) throws -> String {
        try #require(package.readManifest()?.parts.first { $0.entity == entity }?.file)
    }

    static func refusal(_ package: DocumentPackage) -> PackageError? {
        do {
            _ = try package.read()
            Issue.record("the package was read")
            return nil
        } catch { return error }
    }

    static func rewrite(_ path: String, _ change: (String) -> String) throws {
        try change(try String(contentsOfFile: path, encoding: .utf8)).write(toFile: path, atomically: false, encoding: .utf8)
    }

    @Test("an error inside a part names the part file, line and column")
    func errorNamesThePart() throws {
        try Self.withSavedPackage { package, _ in
            let path = package.partsPath + "/" + (try Self.part(package, "Animal"))
            try Self.rewrite(path) { $0.replacingOccurrences(of: "name=\"Bird 2\" age=\"0\"", with: "name=\"Bird 2\" age=\"old\"") }
            let error = Self.refusal(package)
            guard case .invalidValue(let location, "Animal", "age", "old", _)? = error else {
                Issue.record("expected invalidValue, got \(String(describing: error))")
                return
            }
            #expect(location.file == path && location.line == 5)
        }
    }

    @Test("a manifest naming a file outside parts/, or a name Folio does not write, is refused before anything is read")
    func partNamesStayInside() throws {
        for name in [
            "../../outside.xml", "/etc/passwd", "Animal-2-0123456789abcdef.xml/../x", "Animal-2-notahash.xml",
            "AnimalCategory-2-0123456789abcdef.xml",
        ] {
            try Self.withSavedPackage { package, manifest in
                let file = try Self.part(package, "Animal")
                try manifest.replacingOccurrences(of: file, with: name).write(toFile: package.manifestPath, atomically: false, encoding: .utf8)
                guard case .invalidValue(let location, "Animal", "file", name, _)? = Self.refusal(package) else {
                    Issue.record("\(name): expected invalidValue for the file name")
                    return
                }
                #expect(location.file == package.manifestPath && location.line > 0)
            }
        }
    }

    @Test("a missing part, a part that is a link, and a parts folder that is a link are refused")
    func partFiles() throws {
        try Self.withSavedPackage { package, _ in
            let path = package.partsPath + "/" + (try Self.part(package, "Animal"))
            let moved = package.url.deletingLastPathComponent().appendingPathComponent("moved.xml").path
            try FileManager.default.moveItem(atPath: path, toPath: moved)
            guard case .io(path, "open", ENOENT, _)? = Self.refusal(package) else {
                Issue.record("expected ENOENT naming the part")
                return
            }
            try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: moved)
            #expect(Self.refusal(package) == .notARegularFile(path: path, kind: "a symbolic link"))
            try FileManager.default.removeItem(atPath: path)
            try FileManager.default.moveItem(atPath: moved, toPath: path)
            #expect(try package.read().count == 5)
            let real = package.url.deletingLastPathComponent().appendingPathComponent("real-parts").path
            try FileManager.default.moveItem(atPath: package.partsPath, toPath: real)
            try FileManager.default.createSymbolicLink(atPath: package.partsPath, withDestinationPath: real)
            #expect(Self.refusal(package) == .notARegularFile(path: package.partsPath, kind: "a symbolic link"))
        }
    }

    @Test("a part holding another entity's objects, an identifier outside its range, or objects out of order is refused")
    func partContent() throws {
        let cases: [(String, String)] = [
            ("f.id=\"3\"", "f.id=\"99\""),  // outside first...last
            ("f.id=\"3\"", "f.id=\"2\""),  // twice, not ascending
            ("<Animal f.id=\"5\"", "<AnimalCategory f.id=\"5\" name=\"Other\"/>"),
        ]
        for (old, new) in cases {
            try Self.withSavedPackage { package, _ in
                let path = package.partsPath + "/" + (try Self.part(package, "Animal"))
                try Self.rewrite(path) { text in
                    // A whole line for a whole element; else the attribute alone.
                    guard new.hasSuffix("/>") else { return text.replacingOccurrences(of: old, with: new) }
                    return text.split(separator: "\n", omittingEmptySubsequences: false)
                        .map { $0.contains(old) ? "  " + new : String($0) }.joined(separator: "\n")
                }
                let error = Self.refusal(package)
                #expect(error?.location?.file == path, "\(new): \(String(describing: error))")
                switch error {
                case .invalidIdentifier?, .unexpectedContent?: break
                default: Issue.record("\(new): got \(String(describing: error))")
                }
            }
        }
    }

    @Test("a count that disagrees with the part, overlapping parts and one identifier in two parts are refused")
    func manifestAgreement() throws {
        try Self.withSavedPackage { package, manifest in
            try manifest.replacingOccurrences(of: "count=\"4\"", with: "count=\"3\"")
                .write(toFile: package.manifestPath, atomically: false, encoding: .utf8)
            guard case .unexpectedContent(let location, _, _)? = Self.refusal(package) else {
                Issue.record("expected unexpectedContent for the count")
                return
            }
            #expect(location.file.hasPrefix(package.partsPath))
        }
        try Self.withSavedPackage { package, manifest in
            // The category's part claims a range overlapping nothing of its own entity, but id 1 again in a second part.
            let category = try Self.part(package, "AnimalCategory")
            let line = try #require(manifest.split(separator: "\n").first { $0.contains(category) })
            try manifest.replacingOccurrences(of: line + "\n", with: line + "\n" + line + "\n")
                .write(toFile: package.manifestPath, atomically: false, encoding: .utf8)
            guard case .unexpectedContent(let location, _, _)? = Self.refusal(package) else {
                Issue.record("expected the overlap to be refused")
                return
            }
            #expect(location.file == package.manifestPath)
        }
    }

    @Test("an identifier held by parts of two entities, whose ranges may overlap, is refused once every part is read")
    func oneIdentifierInPartsOfTwoEntities() throws {
        try Self.withSavedPackage { package, manifest in
            // The category (1) takes number 3, which an animal's part (2...5) also holds: ranges of
            // different entities may overlap, so only the index built after the parse can tell.
            let category = try Self.part(package, "AnimalCategory")
            let line = try #require(manifest.split(separator: "\n").first { $0.contains(category) })
            try manifest.replacingOccurrences(of: line, with: line.replacingOccurrences(of: "first=\"1\" last=\"1\"", with: "first=\"3\" last=\"3\""))
                .write(toFile: package.manifestPath, atomically: false, encoding: .utf8)
            try Self.rewrite(package.partsPath + "/" + category) { $0.replacingOccurrences(of: "f.id=\"1\"", with: "f.id=\"3\"") }
            guard case .invalidIdentifier(let location, _, let id)? = Self.refusal(package) else {
                Issue.record("expected the identifier held twice to be refused")
                return
            }
            #expect(id.hasPrefix("3 "))
            #expect(location.file.hasPrefix(package.partsPath))
        }
    }

    @Test("a DOCTYPE or an entity in a part is refused at the declaration, naming the part")
    func declarationsInParts() throws {
        try Self.withSavedPackage { package, _ in
            let path = package.partsPath + "/" + (try Self.part(package, "Animal"))
            try Self.rewrite(path) { $0.replacingOccurrences(of: "?>\n", with: "?>\n<!DOCTYPE objects [<!ENTITY e \"boom\">]>\n") }
            guard case .forbiddenDeclaration(let location, _)? = Self.refusal(package) else {
                Issue.record("expected forbiddenDeclaration")
                return
            }
            #expect(location.file == path)
        }
    }

    @Test("a manifest of an unknown format version is refused")
    func unknownFormat() throws {
        try Self.withSavedPackage { package, manifest in
            try manifest.replacingOccurrences(of: "format=\"2\"", with: "format=\"4\"")
                .write(toFile: package.manifestPath, atomically: false, encoding: .utf8)
            guard case .unsupportedFormat(_, "4")? = Self.refusal(package) else {
                Issue.record("expected unsupportedFormat")
                return
            }
        }
    }

    @Test("a file Folio did not write in parts/ makes a save into the folder refuse; its own files do not")
    func foreignFileInParts() throws {
        try Self.withSavedPackage { package, _ in
            try package.checkWritableTarget()
            try Data("notes".utf8).write(to: URL(fileURLWithPath: package.partsPath + "/notes.txt"))
            #expect(throws: PackageError.notAPackageFolder(path: package.url.path, entries: ["parts/notes.txt"])) {
                try package.checkWritableTarget()
            }
            // A save of the package it read keeps the foreign file, and removes only its own.
            let graph = try package.read()
            try graph.setValue(.string("Renamed"), for: "name", of: PersistentIdentifier(entityName: "AnimalCategory", id: 1))
            try package.write(graph, expecting: package.fingerprint, changed: [1])
            #expect(FileManager.default.fileExists(atPath: package.partsPath + "/notes.txt"))
            #expect(try package.read().value("name", of: PersistentIdentifier(entityName: "AnimalCategory", id: 1)) == .string("Renamed"))
        }
    }

    // MARK: Parts read in place, concurrently

    /// A zoo of `count` animals in one category, written with parts of about `target` bytes.
    static func withManyParts(animals count: Int, target: Int = 600, _ body: (DocumentPackage, ObjectGraph) throws -> Void) throws {
        let url = temporaryPackageURL()
        let folder = url.deletingLastPathComponent().path
        DocumentWriter.usePartSizes((target, 2 * target), under: folder)
        defer {
            DocumentWriter.usePartSizes(nil, under: folder)
            try? FileManager.default.removeItem(atPath: folder)
        }
        let graph = legacyNumberedGraph(try zooSchema())
        let category = try graph.insert("AnimalCategory", ["name": .string("Birds")])
        for index in 0..<count {
            let animal = try graph.insert("Animal", ["name": .string("Bird \(index)"), "age": .int(Int64(index))])
            try graph.link(animal, "category", to: category)
        }
        let package = DocumentPackage(url: url)
        try package.write(graph)
        try body(package, graph)
    }

    @Test("a package of many parts, read concurrently into their rows, is the graph written, row for row in identifier order")
    func manyPartsReadBack() throws {
        try Self.withManyParts(animals: 300) { package, graph in
            let parts = try #require(package.readManifest()?.parts)
            #expect(parts.filter { $0.entity == "Animal" }.count > 5)
            let back = try package.read()
            #expect(back.snapshot() == graph.snapshot())
            #expect(back.invariantViolations().isEmpty)
            #expect(try back.identifiers(of: "Animal") == graph.identifiers(of: "Animal"))
            #expect(back.nextID == graph.nextID)
            // Rows ascend by identifier across parts: the order each part's rows were placed in.
            let table = back.tables[back.layout.entityIndex["Animal"] ?? 0]
            #expect(table.ids == table.ids.sorted() && table.rowCount == 300 && table.liveCount == 300)
        }
    }

    @Test("an error in the second of several parts names that part's file, line and column, and no other part's")
    func errorInSecondPart() throws {
        try Self.withManyParts(animals: 300) { package, _ in
            let animalParts = try #require(package.readManifest()?.parts.filter { $0.entity == "Animal" })
            #expect(animalParts.count > 2)
            let second = package.partsPath + "/" + animalParts[1].file
            // The part's third object (line 4: the declaration, <objects>, then one object a line).
            let third = animalParts[1].first + 2
            try Self.rewrite(second) { text in
                text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
                    line.contains("f.id=\"\(third)\"") ? line.replacingOccurrences(of: "age=\"", with: "age=\"x") : String(line)
                }.joined(separator: "\n")
            }
            guard case .invalidValue(let location, "Animal", "age", _, _)? = Self.refusal(package) else {
                Issue.record("expected invalidValue in the second part")
                return
            }
            #expect(location.file == second)
            #expect(location.line == 5)
            #expect(location.column > 1)
        }
    }

    @Test("a link error found after the parse names the part of the object, its line and column")
    func linkErrorNamesItsPart() throws {
        try Self.withManyParts(animals: 300) { package, _ in
            let animalParts = try #require(package.readManifest()?.parts.filter { $0.entity == "Animal" })
            let last = try #require(animalParts.last)
            let path = package.partsPath + "/" + last.file
            try Self.rewrite(path) { text in
                text.replacingOccurrences(of: "f.id=\"\(last.last)\"", with: "f.id=\"\(last.last)\" category=\"99999\"")
            }
            // The category attribute is now given twice, or points nowhere: either way the error is in that part.
            let error = Self.refusal(package)
            #expect(error?.location?.file == path, "\(String(describing: error))")
            #expect((error?.location?.line ?? 0) > 2)
        }
    }

    @Test("a part holding more objects than the manifest lists is refused at the first extra object")
    func moreObjectsThanListed() throws {
        try Self.withManyParts(animals: 300) { package, _ in
            let manifest = try String(contentsOfFile: package.manifestPath, encoding: .utf8)
            let part = try #require(package.readManifest()?.parts.first { $0.entity == "Animal" })
            try manifest.replacingOccurrences(
                of: "count=\"\(part.count)\" file=\"\(part.file)\"",
                with: "count=\"\(part.count - 1)\" file=\"\(part.file)\""
            )
            .write(toFile: package.manifestPath, atomically: false, encoding: .utf8)
            // The part's own count says the same, so only the objects disagree.
            let partPath = package.partsPath + "/" + part.file
            try String(contentsOfFile: partPath, encoding: .utf8)
                .replacingOccurrences(of: "<objects Animal=\"\(part.count)\">", with: "<objects Animal=\"\(part.count - 1)\">")
                .write(toFile: partPath, atomically: false, encoding: .utf8)
            guard case .unexpectedContent(let location, _, let expected)? = Self.refusal(package) else {
                Issue.record("expected unexpectedContent for the extra object")
                return
            }
            #expect(location.file == partPath)
            #expect(location.line == part.count + 2)
            #expect(expected.contains("\(part.count - 1)"))
        }
    }

    @Test("a part whose own object count disagrees with the manifest's is refused at its <objects>, naming the part file")
    func partCountDisagreesWithManifest() throws {
        try Self.withManyParts(animals: 300) { package, _ in
            let part = try #require(package.readManifest()?.parts.first { $0.entity == "Animal" })
            let partPath = package.partsPath + "/" + part.file
            let text = try String(contentsOfFile: partPath, encoding: .utf8)
            let edited = text.replacingOccurrences(of: "<objects Animal=\"\(part.count)\">", with: "<objects Animal=\"\(part.count + 5)\">")
            #expect(edited != text)
            try edited.write(toFile: partPath, atomically: false, encoding: .utf8)
            guard case .unexpectedContent(let location, let found, let expected)? = Self.refusal(package) else {
                Issue.record("expected unexpectedContent for the part's count")
                return
            }
            #expect(location.file == partPath && location.line == 2)
            #expect(found == "<objects Animal=\"\(part.count + 5)\">")
            #expect(expected == "<objects Animal=\"\(part.count)\">, the count the manifest lists")
        }
    }

    @Test("random graphs written in many small parts read back equal, however their parts are cut", .tags(.long))
    func randomManyParts() async throws {
        // The schema comes from a seed; the graph from one seed per object and edit, and the
        // part size is drawn: a failure shrinks to the fewest objects, at the smallest parts.
        await checkProperty(
            count: TestEffort.cases(60), input: Gen.uint64(in: 0...UInt64.max), RandomGraphs.GraphPlan.generator,
            Gen.int(in: 64...1_024)
        ) { seed, plan, target in
            var rng = SeededGenerator(seed: seed)
            let schema = RandomGraphs.schema(&rng)
            let graph = try RandomGraphs.graph(schema, plan)
            let url = temporaryPackageURL()
            let folder = url.deletingLastPathComponent().path
            DocumentWriter.usePartSizes((target, 2 * target), under: folder)
            defer {
                DocumentWriter.usePartSizes(nil, under: folder)
                try? FileManager.default.removeItem(atPath: folder)
            }
            let package = DocumentPackage(url: url)
            try package.write(graph)
            let back = try package.read()
            #expect(back.snapshot() == graph.snapshot(), "schema seed \(seed)")
            #expect(back.invariantViolations().isEmpty, "schema seed \(seed)")
            for entity in schema.entities {
                #expect(
                    try back.identifiers(of: entity.name) == graph.identifiers(of: entity.name).sorted { $0.id < $1.id },
                    "schema seed \(seed)")
            }
        }
    }
}
