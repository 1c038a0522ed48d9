import Foundation
import Testing
@testable import Folio

/// Reading a format-2 package (DocumentLoader+Parts): a damaged or hostile
/// manifest or part is refused, all or nothing, naming the file it is in.
@Suite struct DocumentLoaderPartsTests {
    /// A saved zoo package with two parts per entity at most, and its manifest's text.
    static func withSavedPackage(_ body: (DocumentPackage, String) throws -> Void) throws {
        let graph = ObjectGraph(schema: try zooSchema())
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
        for name in ["../../outside.xml", "/etc/passwd", "Animal-2-0123456789abcdef.xml/../x", "Animal-2-notahash.xml",
                     "AnimalCategory-2-0123456789abcdef.xml"] {
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
            ("f.id=\"3\"", "f.id=\"99\""),           // outside first...last
            ("f.id=\"3\"", "f.id=\"2\""),            // twice, not ascending
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
            try manifest.replacingOccurrences(of: "format=\"2\"", with: "format=\"3\"")
                .write(toFile: package.manifestPath, atomically: false, encoding: .utf8)
            guard case .unsupportedFormat(_, "3")? = Self.refusal(package) else {
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
}
