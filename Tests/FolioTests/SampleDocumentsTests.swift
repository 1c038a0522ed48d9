import Foundation
import Testing
import Folio
@testable import FolioCore
import FolioTestSupport

@Suite struct SampleDocumentsTests {
    static let folder = SampleDocuments.folder
    static let names = ["Animals", "Countries", "Trips", "Dogs"]

    @Test(
        "every sample document as format 1 held it opens, is sound, and saves in format 2 with every object line as it was",
        arguments: names)
    func opensAndResaves(_ name: String) throws {
        let package = DocumentPackage(url: Format1Packages.folder.appendingPathComponent("\(name).folio"))
        let graph = try package.read()
        #expect(graph.count > 10)
        #expect(graph.invariantViolations().isEmpty)
        let copy = DocumentPackage(url: temporaryPackageURL(name))
        try copy.write(graph)
        // The same objects, written the same way: only the file around them changed.
        func objectLines(_ text: String) -> [Substring] {
            text.split(separator: "\n").map { $0.drop { $0 == " " } }.filter { $0.contains(" f.id=\"") }
        }
        let old = try String(contentsOfFile: package.documentPath, encoding: .utf8)
        // Format 3 holds each entity's objects in a folder of its own: the same lines, by entity folder.
        #expect(try objectLines(packageText(copy.url)).sorted() == objectLines(old).sorted())
        #expect(FileManager.default.fileExists(atPath: copy.manifestPath))
        #expect(!FileManager.default.fileExists(atPath: copy.documentPath))
        // The checked-in sample is that same document, in the current layout (so a
        // `git checkout SampleDocuments` never puts a format-1 file beside a manifest).
        let current = DocumentPackage(url: Self.folder.appendingPathComponent("\(name).folio"))
        #expect(!FileManager.default.fileExists(atPath: current.documentPath))
        #expect(try current.read().snapshot() == graph.snapshot())
    }

    @Test("deleting a sample category cascades to its animals and undo brings them back")
    func animalsCascade() throws {
        let context = ModelContext(try ModelContainer(contentsOf: Self.folder.appendingPathComponent("Animals.folio"), allowsSave: false))
        context.undoManager = UndoManager()
        let mammal = try context.fetchIdentifiers(DynamicFetchDescriptor(entity: "AnimalCategory", predicate: try ObjectPredicate("name == 'Mammal'")))
        let preview = try context.deletionPreview(for: mammal)
        #expect(preview.summary == "deletes 1 AnimalCategory, also deletes 7 Animal")
        try context.delete(mammal)
        #expect(try context.fetchCount(DynamicFetchDescriptor(entity: "Animal")) == 23)
        context.undoManager?.undo()
        #expect(try context.fetchCount(DynamicFetchDescriptor(entity: "Animal")) == 30)
        try context.save()  // nothing pending: a no-op, even read-only
        try context.setValue(.string("Mammals"), for: "name", of: mammal[0])
        #expect(throws: ModelError.saveNotAllowed) { try context.save() }
    }
}
