import Foundation
import Testing
import Folio
@testable import FolioCore
import FolioTestSupport

/// `DocumentPackage.merge(base:ours:theirs:into:)`: three packages of one
/// document merged into a new one. Format-3 packages (made by hand here: the
/// format's writer is not this file's subject) merge file by file, parsing
/// only what both sides changed; format-2 packages merge as whole graphs.
@Suite struct PackageMergeTests {
    // MARK: Format 3, file by file

    static let schema = """
          <schema>
            <entity name="AnimalCategory">
              <attribute name="name" type="string" unique="true"/>
              <relationship name="animals" destination="Animal" to-many="true" inverse="category" delete-rule="cascade"/>
            </entity>
            <entity name="Animal">
              <attribute name="name" type="string"/>
              <attribute name="diet" type="string"/>
              <relationship name="category" destination="AnimalCategory" inverse="animals" delete-rule="nullify"/>
            </entity>
          </schema>

        """

    static let manifest = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<folio format=\"3\">\n" + schema + "</folio>\n"

    static func part(_ entity: String, _ lines: [String]) -> String {
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<objects entity=\"\(entity)\">\n"
            + lines.map { "  " + $0 + "\n" }.joined() + "</objects>\n"
    }

    static let mammal = #"<AnimalCategory f.id="1" name="Mammal" animals="2 3"/>"#
    static let newt = #"<Animal f.id="2" name="Newt" diet="carnivorous" category="1"/>"#
    static let frog = #"<Animal f.id="3" name="Frog" diet="carnivorous" category="1"/>"#

    /// A format-3 package by hand: the manifest, and `files` (relative path → text).
    static func package(_ name: String, in folder: TemporaryFolder, _ files: [String: String]) throws -> URL {
        let url = folder.appending(name)
        for (path, text) in files.merging([PackageManifest.fileName: manifest], uniquingKeysWith: { a, _ in a }) {
            let file = url.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: file)
        }
        return url
    }

    static let baseFiles = [
        "parts/AnimalCategory/00000000-0000.xml": part("AnimalCategory", [mammal]),
        "parts/Animal/00000000-0000.xml": part("Animal", [newt, frog]),
        "history/00000000-00000001.xml": "<history/>\n",
        "blobs/old-blob": "old",
    ]

    static func read(_ url: URL, _ path: String) throws -> String {
        try String(contentsOf: url.appendingPathComponent(path), encoding: .utf8)
    }

    @Test("format 3: the manifest's format attribute is what decides the file-by-file merge", .format2)
    func formatDetection() throws {
        let folder = try TemporaryFolder("package-merge")
        let three = try Self.package("Three.folio", in: folder, [:])
        #expect(DocumentPackage.formatVersion(of: three) == "3")
        let two = DocumentPackage(url: folder.appending("Two.folio"))
        try two.write(ObjectGraph(schema: try mergeZooSchema()))
        #expect(DocumentPackage.formatVersion(of: two.url) == PackageManifest.formatVersion)
        #expect(DocumentPackage.formatVersion(of: folder.url) == nil)
        #expect(DocumentPackage.fileKind("parts/Animal/1a2b3c4d-0000.xml") == .part(entity: "Animal"))
        #expect(DocumentPackage.fileKind("history/1a2b3c4d-00000001.xml") == .history)
        #expect(DocumentPackage.fileKind("notes.txt") == nil)
    }

    @Test("format 3: a file changed on one side is taken, added is taken, removed is removed, both changed is merged object by object")
    func fileByFile() throws {
        let folder = try TemporaryFolder("package-merge")
        let base = try Self.package("Base.folio", in: folder, Self.baseFiles)
        var ourFiles = Self.baseFiles
        ourFiles["parts/Animal/00000000-0000.xml"] = Self.part(
            "Animal",
            [
                #"<Animal f.id="2" name="Newt" diet="omnivorous" category="1"/>"#, Self.frog,
            ])
        ourFiles["parts/Animal/1a2b3c4d-0000.xml"] = Self.part(
            "Animal",
            [
                #"<Animal f.id="439041101725697" name="Lion" diet="carnivorous"/>"#
            ])
        ourFiles["history/1a2b3c4d-00000001.xml"] = "<history lane=\"ours\"/>\n"
        let ours = try Self.package("Ours.folio", in: folder, ourFiles)
        var theirFiles = Self.baseFiles
        theirFiles["parts/Animal/00000000-0000.xml"] = Self.part(
            "Animal",
            [
                Self.newt, #"<Animal f.id="3" name="Tree Frog" diet="carnivorous" category="1"/>"#,
            ])
        theirFiles["parts/AnimalCategory/00000000-0000.xml"] = Self.part(
            "AnimalCategory",
            [
                #"<AnimalCategory f.id="1" name="Mammals" animals="2 3"/>"#
            ])
        theirFiles["blobs/old-blob"] = nil
        theirFiles["blobs/new-blob"] = "new"
        let theirs = try Self.package("Theirs.folio", in: folder, theirFiles)
        // An unchanged file of ours is taken without being read: made unreadable as XML, it still merges.
        try Data("not XML, and equal on both sides".utf8).write(to: base.appendingPathComponent("notes.txt"))
        for url in [ours, theirs] {
            try FileManager.default.copyItem(
                at: base.appendingPathComponent("notes.txt"),
                to: url.appendingPathComponent("notes.txt"))
        }
        // Temporaries are not part of a package.
        try Data("x".utf8).write(to: theirs.appendingPathComponent("parts/Animal/.00000000-0000.xml.tmp"))

        let out = folder.appending("Out.folio")
        do {
            let result = try DocumentPackage.merge(base: base, ours: ours, theirs: theirs, into: out)
            #expect(result.method == .fileByFile)
            #expect(result.conflicts.isEmpty)
            #expect(result.mergedFiles == 1)
            #expect(result.takenFiles == 2)  // the category's part, the new blob
            #expect(result.removedFiles == 1)  // the old blob
            #expect(result.objectCount == nil)
            // The versions' files, and the history file of the merge's own lane (MergeHistoryTests).
            let (files, merge) = Self.filesAndMergeHistory(out)
            #expect(
                files == [
                    "blobs/new-blob", "history/00000000-00000001.xml", "history/1a2b3c4d-00000001.xml", "manifest.xml", "notes.txt",
                    "parts/Animal/00000000-0000.xml", "parts/Animal/1a2b3c4d-0000.xml", "parts/AnimalCategory/00000000-0000.xml",
                ])
            #expect(merge.count == 1)
            #expect(
                try Self.read(out, "parts/Animal/00000000-0000.xml")
                    == Self.part(
                        "Animal",
                        [
                            #"<Animal f.id="2" name="Newt" diet="omnivorous" category="1"/>"#,
                            #"<Animal f.id="3" name="Tree Frog" diet="carnivorous" category="1"/>"#,
                        ]))
            #expect(try Self.read(out, "parts/AnimalCategory/00000000-0000.xml") == theirFiles["parts/AnimalCategory/00000000-0000.xml"])
            #expect(try Self.read(out, "parts/Animal/1a2b3c4d-0000.xml") == ourFiles["parts/Animal/1a2b3c4d-0000.xml"])
            #expect(try Self.read(out, "manifest.xml") == Self.manifest)
            // No temporary left beside the destination, and the versions untouched.
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted()
                    == ["Base.folio", "Ours.folio", "Out.folio", "Theirs.folio"])
            #expect(try Self.read(ours, "parts/Animal/00000000-0000.xml") == ourFiles["parts/Animal/00000000-0000.xml"])
        }
    }

    @Test("format 3: files only one side changed are taken or removed as they are; those the result shares with ours are not parsed")
    func fileByFileWithoutParsing() throws {
        let folder = try TemporaryFolder("package-merge")
        var baseFiles = Self.baseFiles
        baseFiles["parts/AnimalCategory/00000000-0000.xml"] = "not XML: never parsed\n"
        let base = try Self.package("Base.folio", in: folder, baseFiles)
        var ourFiles = baseFiles
        ourFiles["parts/Animal/1a2b3c4d-0000.xml"] = "ours' new part, not XML: never parsed\n"
        let ours = try Self.package("Ours.folio", in: folder, ourFiles)
        var theirFiles = baseFiles
        let theirPart = Self.part("Animal", [Self.newt, #"<Animal f.id="3" name="Tree Frog" diet="carnivorous" category="1"/>"#])
        theirFiles["parts/Animal/00000000-0000.xml"] = theirPart
        theirFiles["blobs/old-blob"] = nil
        theirFiles["blobs/new-blob"] = "new"
        let theirs = try Self.package("Theirs.folio", in: folder, theirFiles)
        let out = folder.appending("Out.folio")
        let result = try DocumentPackage.merge(base: base, ours: ours, theirs: theirs, into: out)
        #expect(
            result
                == PackageMergeResult(
                    method: .fileByFile, conflicts: [], mergedFiles: 0, takenFiles: 2,
                    removedFiles: 1, objectCount: nil))
        let (files, merge) = Self.filesAndMergeHistory(out)
        #expect(
            files == [
                "blobs/new-blob", "history/00000000-00000001.xml", "manifest.xml", "parts/Animal/00000000-0000.xml",
                "parts/Animal/1a2b3c4d-0000.xml", "parts/AnimalCategory/00000000-0000.xml",
            ])
        #expect(merge.count == 1)
        #expect(try Self.read(out, "parts/Animal/00000000-0000.xml") == theirPart)
        #expect(try Self.read(out, "parts/Animal/1a2b3c4d-0000.xml") == "ours' new part, not XML: never parsed\n")
        #expect(try Self.read(out, "parts/AnimalCategory/00000000-0000.xml") == "not XML: never parsed\n")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted()
                == ["Base.folio", "Ours.folio", "Out.folio", "Theirs.folio"])
    }

    /// A merged package's files, apart from the history files of lanes no
    /// version has (the merge transaction's: MergeHistoryTests), and those.
    static func filesAndMergeHistory(_ package: URL) -> (files: [String], mergeHistory: [String]) {
        let files = DocumentPackage.packageFiles(in: package)
        let known: Set<String> = ["history/00000000-00000001.xml", "history/1a2b3c4d-00000001.xml"]
        let merge = files.filter { $0.hasPrefix("history/") && !known.contains($0) }
        return (files.filter { !merge.contains($0) }, merge)
    }

    @Test("format 3: one value changed on both sides: ours kept, the conflict recorded in the part and reported")
    func fileByFileConflict() throws {
        let folder = try TemporaryFolder("package-merge")
        let base = try Self.package("Base.folio", in: folder, Self.baseFiles)
        var ourFiles = Self.baseFiles, theirFiles = Self.baseFiles
        ourFiles["parts/Animal/00000000-0000.xml"] = Self.part(
            "Animal",
            [
                #"<Animal f.id="2" name="Newt" diet="omnivorous" category="1"/>"#, Self.frog,
            ])
        theirFiles["parts/Animal/00000000-0000.xml"] = Self.part(
            "Animal",
            [
                #"<Animal f.id="2" name="Newt" diet="insects" category="1"/>"#, Self.frog,
            ])
        let ours = try Self.package("Ours.folio", in: folder, ourFiles)
        let theirs = try Self.package("Theirs.folio", in: folder, theirFiles)
        let before = try Self.read(ours, "parts/Animal/00000000-0000.xml")

        // Into ours itself (as git merge-file does): ours is replaced whole.
        do {
            let result = try DocumentPackage.merge(base: base, ours: ours, theirs: theirs, into: ours)
            #expect(result.hasConflicts)
            #expect(
                result.conflicts == [
                    MergeConflict(
                        kind: .value, id: PersistentIdentifier(entityName: "Animal", id: 2),
                        property: "diet", base: .value(.string("carnivorous")),
                        ours: .value(.string("omnivorous")), theirs: .value(.string("insects")))
                ])
            let merged = try Self.read(ours, "parts/Animal/00000000-0000.xml")
            #expect(merged != before)
            #expect(
                merged.contains(
                    #"  <Animal f.id="2" name="Newt" diet="omnivorous" category="1"/>"# + "\n"
                        + #"  <f.conflict f.id="2" kind="value" property="diet" base="carnivorous" ours="omnivorous" theirs="insects"/>"#))
        }
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted()
                == ["Base.folio", "Ours.folio", "Theirs.folio"])
    }

    @Test("format 3: of parts both sides changed, only the objects both sides changed are read: the cost follows the edits")
    func fileByFileReadsTheEdits() throws {
        let lane = UInt64(0x1a2b_3c4d) << 32
        func animals(_ ids: [UInt64], _ edit: (UInt64) -> String?) -> String {
            Self.part("Animal", ids.map { #"<Animal f.id="\#($0)" name="A\#($0 & 0xFFFF)" diet="\#(edit($0) ?? "plants")"/>"# })
        }
        let first = Array(UInt64(2)...401), second = (UInt64(1)...400).map { lane | $0 }
        let paths = ["parts/Animal/00000000-0000.xml", "parts/Animal/1a2b3c4d-0000.xml"]
        func files(_ edit: (UInt64) -> String?) -> [String: String] {
            Self.baseFiles.merging([paths[0]: animals(first, edit), paths[1]: animals(second, edit)]) { $1 }
        }
        let folder = try TemporaryFolder("package-merge")
        let base = try Self.package("Base.folio", in: folder, files { _ in nil })
        // Ours edits every 20th animal of each part, theirs every 30th from the 5th; both, animal 102 (differently).
        let ours = try Self.package("Ours.folio", in: folder, files { ($0 & 0xFFFF) % 20 == 0 || $0 == 102 ? "fish" : nil })
        let theirs = try Self.package(
            "Theirs.folio", in: folder,
            files { ($0 & 0xFFFF) % 30 == 5 ? "meat" : $0 == 102 ? "seeds" : nil })
        let result = try DocumentPackage.merge(base: base, ours: ours, theirs: theirs, into: folder.appending("Out.folio"))
        #expect(result.mergedFiles == 2)
        // Animal 102, in base, ours and theirs: 3 states of the 2,400 the three versions of the two parts hold.
        #expect(result.statesBuilt == 3)
        #expect(result.conflicts.map(\.id.id) == [102])
        let merged = try Self.read(folder.appending("Out.folio"), paths[1])
        #expect(merged.contains(#"<Animal f.id="\#(lane | 40)" name="A40" diet="fish"/>"#))
        #expect(merged.contains(#"<Animal f.id="\#(lane | 35)" name="A35" diet="meat"/>"#))
        #expect(merged.contains(#"<Animal f.id="\#(lane | 36)" name="A36" diet="plants"/>"#))
        #expect(
            try Self.read(folder.appending("Out.folio"), paths[0]).contains(
                #"<f.conflict f.id="102" kind="value" property="diet" base="plants" ours="fish" theirs="seeds"/>"#))
    }

    // MARK: Formats 1 and 2, whole graphs

    /// Three format-2 packages of one zoo: ours and theirs edited apart.
    static func formatTwo(
        in folder: TemporaryFolder, ours editOurs: (ObjectGraph, [PersistentIdentifier]) throws -> Void,
        theirs editTheirs: (ObjectGraph, [PersistentIdentifier]) throws -> Void
    ) throws -> [URL] {
        let graph = ObjectGraph(schema: try mergeZooSchema())
        let mammals = try graph.insert("Category", ["name": .string("Mammal")])
        let rex = try graph.insert("Animal", ["name": .string("Rex"), "age": .int(3)])
        let tom = try graph.insert("Animal", ["name": .string("Tom"), "age": .int(5)])
        try graph.link(rex, "category", to: mammals)
        try graph.link(tom, "category", to: mammals)
        let fixture = MergeFixture(graph)
        try editOurs(fixture.ours, [mammals, rex, tom])
        try editTheirs(fixture.theirs, [mammals, rex, tom])
        return try zip(["Base.folio", "Ours.folio", "Theirs.folio"], [fixture.base, fixture.ours, fixture.theirs]).map {
            let package = DocumentPackage(url: folder.appending($0.0))
            try package.write($0.1)
            return package.url
        }
    }

    @Test("format 2: the three graphs are read, merged and written as a new package holding both sides' edits", .format2)
    func wholeGraph() throws {
        let folder = try TemporaryFolder("package-merge")
        let urls = try Self.formatTwo(
            in: folder,
            ours: { graph, ids in
                try graph.setValue(.int(4), for: "age", of: ids[1])
                let lion = try graph.insert("Animal", ["name": .string("Lion")])
                try graph.link(lion, "category", to: ids[0])
            },
            theirs: { graph, ids in
                try graph.setValue(.string("Thomas"), for: "name", of: ids[2])
            })
        let out = folder.appending("Out.folio")
        let result = try DocumentPackage.merge(base: urls[0], ours: urls[1], theirs: urls[2], into: out)
        #expect(result.method == .wholeGraph)
        #expect(result.conflicts.isEmpty)
        #expect(result.objectCount == 4)
        let merged = try DocumentPackage(url: out).read()
        let animals = try merged.identifiers(of: "Animal")
        let names = try animals.map { try merged.value("name", of: $0).description }
        #expect(names.sorted() == [Value.string("Lion"), .string("Rex"), .string("Thomas")].map(\.description))
        let rex = try #require(animals.first { (try? merged.value("name", of: $0)) == .string("Rex") })
        #expect(try merged.value("age", of: rex) == .int(4))
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted()
                == ["Base.folio", "Ours.folio", "Out.folio", "Theirs.folio"])
    }

    @Test("format 2: a conflicting edit is reported; a mix of formats merges as whole graphs too", .format2)
    func wholeGraphConflictAndMix() throws {
        let folder = try TemporaryFolder("package-merge")
        let urls = try Self.formatTwo(
            in: folder,
            ours: { graph, ids in
                try graph.setValue(.int(10), for: "age", of: ids[1])
            },
            theirs: { graph, ids in
                try graph.setValue(.int(20), for: "age", of: ids[1])
            })
        let result = try DocumentPackage.merge(base: urls[0], ours: urls[1], theirs: urls[2], into: urls[1])
        #expect(result.method == .wholeGraph)
        #expect(result.conflicts.map(\.kind) == [.value])
        #expect(result.conflicts.first?.property == "age")
        let merged = try DocumentPackage(url: urls[1]).read()
        #expect(try merged.value("age", of: merged.identifiers(of: "Animal")[0]) == .int(10))
        #expect(DocumentPackage.formatVersion(of: urls[0]) != DocumentPackage.stablePathsFormat)
    }

    @Test("refuses what is not a package, and an existing destination other than ours; nothing is written")
    func refusals() throws {
        let folder = try TemporaryFolder("package-merge")
        let urls = try Self.formatTwo(in: folder, ours: { _, _ in }, theirs: { _, _ in })
        let notPackage = folder.appending("Empty.folio")
        try FileManager.default.createDirectory(at: notPackage, withIntermediateDirectories: false)
        let error1 = #expect(throws: PackageMergeError.self) {
            try DocumentPackage.merge(base: urls[0], ours: notPackage, theirs: urls[2], into: folder.appending("Out.folio"))
        }
        #expect({ if case .notAPackage(_, "ours") = error1 { true } else { false } }(), "\(String(describing: error1))")
        let error2 = #expect(throws: PackageMergeError.self) {
            try DocumentPackage.merge(base: urls[0], ours: urls[1], theirs: urls[2], into: urls[2])
        }
        #expect({ if case .destinationExists = error2 { true } else { false } }(), "\(String(describing: error2))")
        let error3 = #expect(throws: PackageMergeError.self) {
            try DocumentPackage.merge(base: urls[0], ours: urls[1], theirs: urls[2], into: folder.appending("no/Out.folio"))
        }
        #expect({ if case .write = error3 { true } else { false } }(), "\(String(describing: error3))")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted()
                == ["Base.folio", "Empty.folio", "Ours.folio", "Theirs.folio"])
    }

    @Test("both sides changed the schema differently: refused, nothing written")
    func schemaMismatch() throws {
        let folder = try TemporaryFolder("package-merge")
        let base = try Self.package("Base.folio", in: folder, Self.baseFiles)
        let ours = try Self.package("Ours.folio", in: folder, Self.baseFiles)
        let theirs = try Self.package("Theirs.folio", in: folder, Self.baseFiles)
        try Data(Self.manifest.replacingOccurrences(of: #""diet" type="string""#, with: #""diet" type="int""#).utf8)
            .write(to: ours.appendingPathComponent("manifest.xml"))
        try Data(Self.manifest.replacingOccurrences(of: #""name" type="string"/>"#, with: #""name" type="int"/>"#).utf8)
            .write(to: theirs.appendingPathComponent("manifest.xml"))
        let error4 = #expect(throws: PackageMergeError.self) {
            try DocumentPackage.merge(base: base, ours: ours, theirs: theirs, into: folder.appending("Out.folio"))
        }
        #expect({ if case .file(path: "manifest.xml", _) = error4 { true } else { false } }(), "\(String(describing: error4))")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted()
                == ["Base.folio", "Ours.folio", "Theirs.folio"])
    }
}
