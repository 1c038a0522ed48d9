import Foundation
import Testing
import Folio
@testable import FolioCore
import FolioTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A package holding a format-1 `document.xml` beside a format-2 `manifest.xml`
/// is never resolved silently (issue 33, item 6): Folio tells the one the
/// manifest's save replaced, left by a crash before its removal (the bytes the
/// manifest names, untouched since), from one put back afterwards (`git
/// checkout` restores the very same bytes, but writes them anew), and refuses
/// the second, naming both files and how to resolve it.
@Suite struct TwoLayoutsTests {
    /// A format-1 copy of the animals, and its upgrade by one save (which
    /// deleted the mammals: 23 animals, not 30), each in a folder of its own.
    static func withUpgrade(_ body: (_ original: URL, _ upgraded: URL, _ target: URL) throws -> Void) throws {
        let folder = try temporaryFolderURL("layouts")
        defer { try? FileManager.default.removeItem(at: folder) }
        let original = folder.appendingPathComponent("Original.folio")
        let upgraded = folder.appendingPathComponent("Upgraded.folio")
        try FileManager.default.copyItem(at: Format1Packages.folder.appendingPathComponent("Animals.folio"), to: original)
        try FileManager.default.copyItem(at: original, to: upgraded)
        do {
            let context = ModelContext(try ModelContainer(contentsOf: upgraded))
            try context.delete(entity: "AnimalCategory", where: ObjectPredicate("name == 'Mammal'"))
            try context.save()
        }
        #expect(!FileManager.default.fileExists(atPath: upgraded.appendingPathComponent("document.xml").path))
        try body(original, upgraded, folder.appendingPathComponent("Animals.folio"))
    }

    static func copy(_ name: String, from source: URL, to target: URL) throws {
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: source.appendingPathComponent(name), to: target.appendingPathComponent(name))
    }

    static func animalCount(_ url: URL) throws -> Int {
        try ModelContext(try ModelContainer(contentsOf: url, allowsSave: false)).fetchCount(DynamicFetchDescriptor(entity: "Animal"))
    }

    @Test("a format-1 document.xml put back beside a newer manifest (a checkout) is refused, naming both; nothing is written")
    func documentPutBackIsRefused() throws {
        try Self.withUpgrade { original, upgraded, target in
            // As `git checkout` leaves it: the manifest and parts of the save, then the old document written anew.
            try Self.copy("manifest.xml", from: upgraded, to: target)
            try Self.copy("parts", from: upgraded, to: target)
            try Self.copy("document.xml", from: original, to: target)
            let before = try packageDocument(target)
            let documentBefore = try Data(contentsOf: target.appendingPathComponent("document.xml"))
            #expect(throws: ModelError.package(.twoLayouts(path: target.path))) { try ModelContainer(contentsOf: target) }
            let message = PackageError.twoLayouts(path: target.path).description
            #expect(message.contains("manifest.xml") && message.contains("document.xml") && message.contains("remove"))
            #expect(try packageDocument(target) == before)
            #expect(try Data(contentsOf: target.appendingPathComponent("document.xml")) == documentBefore)
            // Resolved as the message says, either way.
            try FileManager.default.removeItem(at: target.appendingPathComponent("document.xml"))
            #expect(try Self.animalCount(target) == 23)
        }
    }

    @Test("the document.xml a save replaced, left by a crash before its removal, opens as the manifest, and the next save removes it")
    func crashLeftoverOpens() throws {
        try Self.withUpgrade { original, upgraded, target in
            // As a crash between the commit and the removal leaves it: the old document first, untouched since.
            try Self.copy("document.xml", from: original, to: target)
            // Change times tick every few milliseconds: the commit came in a later tick.
            usleep(50_000)
            try Self.copy("parts", from: upgraded, to: target)
            try Self.copy("manifest.xml", from: upgraded, to: target)
            #expect(try Self.animalCount(target) == 23)
            let context = ModelContext(try ModelContainer(contentsOf: target))
            _ = try context.insert("AnimalCategory", ["name": .string("Fungus")])
            try context.save()
            #expect(!FileManager.default.fileExists(atPath: target.appendingPathComponent("document.xml").path))
        }
    }

    @Test("a document.xml beside a manifest that names no replaced document is refused")
    func foreignDocumentIsRefused() throws {
        try Self.withUpgrade { _, upgraded, target in
            try Self.copy("document.xml", from: Format1Packages.folder.appendingPathComponent("Countries.folio"), to: target)
            try Self.copy("parts", from: upgraded, to: target)
            try Self.copy("manifest.xml", from: upgraded, to: target)
            #expect(throws: ModelError.package(.twoLayouts(path: target.path))) { try ModelContainer(contentsOf: target) }
        }
    }
}
