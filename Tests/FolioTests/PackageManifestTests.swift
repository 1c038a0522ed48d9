import Foundation
import Testing
import Folio
@testable import FolioCore
import FolioTestSupport

/// The manifest of a format-2 package: part names, and which part an identifier belongs to.
@Suite(.format2) struct PackageManifestTests {
    @Test("a part's file name carries its entity, first identifier and content hash, and changes exactly with its bytes")
    func partNames() {
        let bytes = Array("<objects Animal=\"1\">\n</objects>\n".utf8)
        let name = PackageManifest.partFileName(entity: "Animal", first: 42, bytes: bytes)
        #expect(name.hasPrefix("Animal-42-") && name.hasSuffix(".xml") && name.count == "Animal-42-".count + 16 + 4)
        #expect(PackageManifest.isPartFileName(name))
        #expect(PackageManifest.partFileName(entity: "Animal", first: 42, bytes: bytes) == name)
        #expect(PackageManifest.partFileName(entity: "Animal", first: 42, bytes: bytes + [0x0A]) != name)
    }

    @Test("only names Folio writes count as parts: no paths, no other shapes")
    func foreignNames() {
        for name in [
            "../Animal-1-0123456789abcdef.xml", "Animal-1-0123456789abcdef.xml.bak", ".Animal-1-0123456789abcdef.xml",
            "Animal-x-0123456789abcdef.xml", "Animal-1-0123456789ABCDEF.xml", "Animal-1-0123.xml", "notes.txt",
            "Animal-0123456789abcdef.xml", "a/b-1-0123456789abcdef.xml",
        ] {
            #expect(!PackageManifest.isPartFileName(name), "\(name)")
        }
        #expect(PackageManifest.isOwnPartEntry(".Animal-1-0123456789abcdef.xml.tmp"))
        #expect(!PackageManifest.isOwnPartEntry(".notes.txt.tmp"))
        #expect(PackageManifest.isPartFileName("Snake_Case2-7-0123456789abcdef.xml"))
    }

    @Test("an identifier belongs to the part with the greatest first identifier not above it, or to the first part")
    func partition() {
        let parts = [(1, 10), (20, 30), (31, 31), (50, 90)].map {
            PackageManifest.Part(entity: "A", first: UInt64($0.0), last: UInt64($0.1), count: 1, file: "")
        }
        let expected: [(UInt64, Int)] = [(1, 0), (10, 0), (15, 0), (19, 0), (20, 1), (30, 1), (31, 2), (49, 2), (50, 3), (1000, 3)]
        for (id, index) in expected {
            #expect(PackageManifest.partIndex(of: id, in: parts) == index, "id \(id)")
        }
        #expect(PackageManifest.partIndex(of: 5, in: Array(parts.dropFirst())) == 0)
    }

    @Test("the manifest lists the schema, then each part on its own line, and reads back the same")
    func manifestRoundTrip() throws {
        let graph = legacyNumberedGraph(try zooSchema())
        let category = try graph.insert("AnimalCategory", ["name": .string("Birds")])
        for index in 0..<3 { try graph.link(try graph.insert("Animal", ["name": .string("Bird \(index)")]), "category", to: category) }
        let package = DocumentPackage(url: temporaryPackageURL())
        // Format 2, as packages saved before format 3 hold it (they still open, and migrate).
        DocumentPackage.writeFormat2(true, under: package.url.path)
        defer {
            DocumentPackage.writeFormat2(false, under: package.url.path)
            try? FileManager.default.removeItem(at: package.url.deletingLastPathComponent())
        }
        try package.write(graph)
        let text = try String(contentsOfFile: package.manifestPath, encoding: .utf8)
        #expect(text.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<folio format=\"2\" next-id=\"5\">\n  <schema>\n"))
        let manifest = try #require(package.readManifest())
        #expect(manifest.declaredNextID == 5)
        #expect(manifest.parts.map(\.entity) == ["AnimalCategory", "Animal"])
        #expect(manifest.parts.map(\.count) == [1, 3])
        #expect(manifest.parts[1].first == 2 && manifest.parts[1].last == 4)
        #expect(manifest.schema == graph.schema)
        for part in manifest.parts {
            #expect(
                text.contains(
                    "    <part entity=\"\(part.entity)\" first=\"\(part.first)\" last=\"\(part.last)\" count=\"\(part.count)\" file=\"\(part.file)\"/>\n"))
        }
    }
}
