import Foundation
import PropertyBased
import Testing
import Folio
@testable import FolioCore
import FolioTestSupport

/// Saves that cost what changed (DocumentWriter+Parts, docs/FORMAT.md "Parts"):
/// a save rewrites only the parts holding changed objects, and what it leaves
/// always reads back as the graph saved, the same objects a full write gives.
@Suite(.format2) struct DocumentWriterPartsTests {
    /// A package folder whose saves use small parts (a few objects each), removed with `body`.
    static func withSmallParts<T>(target: Int = 2_048, maximum: Int = 4_096, _ body: (URL) throws -> T) throws -> T {
        let url = temporaryPackageURL()
        let folder = url.deletingLastPathComponent().path
        DocumentWriter.usePartSizes((target, maximum), under: folder)
        defer {
            DocumentWriter.usePartSizes(nil, under: folder)
            try? FileManager.default.removeItem(atPath: folder)
        }
        return try body(url)
    }

    /// A zoo of `animals` animals in 3 categories.
    static func zoo(animals: Int) throws -> ObjectGraph {
        let graph = legacyNumberedGraph(try zooSchema())
        let categories = try (0..<3).map { try graph.insert("AnimalCategory", ["name": .string("Category \($0)")]) }
        for index in 0..<animals {
            let animal = try graph.insert("Animal", ["name": .string("Animal \(index) with a name of some length"), "age": .int(Int64(index))])
            try graph.link(animal, "category", to: categories[index % 3])
        }
        return graph
    }

    /// The part files and their inodes.
    static func partFiles(_ package: DocumentPackage) -> [String: UInt64] {
        var files: [String: UInt64] = [:]
        for name in FileIO.entries(of: package.partsPath) { files[name] = FileIO.identity(package.partsPath + "/" + name)?.inode }
        return files
    }

    /// The object lines of a package, in file order.
    static func objectLines(_ url: URL) throws -> [Substring] {
        try packageText(url).split(separator: "\n").map { $0.drop { $0 == " " } }.filter { $0.contains(" f.id=\"") }
    }

    @Test("a save after editing one object rewrites only the part holding it; every other part file stays as it was")
    func oneEditOnePart() throws {
        try Self.withSmallParts { url in
            let graph = try Self.zoo(animals: 400)
            let package = DocumentPackage(url: url)
            let first = try package.write(graph, expecting: .some(nil))
            let before = Self.partFiles(package)
            #expect(before.count > 10)
            let animal = PersistentIdentifier(entityName: "Animal", id: 200)
            try graph.setValue(.int(-1), for: "age", of: animal)
            try package.write(graph, expecting: first, changed: [animal.id])
            let after = Self.partFiles(package)
            let removed = Set(before.keys).subtracting(after.keys), added = Set(after.keys).subtracting(before.keys)
            #expect(removed.count == 1 && added.count == 1, "\(removed) → \(added)")
            for (name, inode) in after where !added.contains(name) { #expect(before[name] == inode, "\(name) was rewritten") }
            #expect(try package.read().snapshot() == graph.snapshot())
        }
    }

    @Test("a relationship edit rewrites the parts of both ends, and new objects join their entity's last part until it splits")
    func linksAndGrowth() throws {
        try Self.withSmallParts { url in
            let graph = try Self.zoo(animals: 300)
            let package = DocumentPackage(url: url)
            var fingerprint = try package.write(graph, expecting: .some(nil))
            let partsBefore = try #require(package.readManifest()).parts
            // Animal 100 moves from category 1 to category 3: both categories' lists change.
            let animal = PersistentIdentifier(entityName: "Animal", id: 100), category = PersistentIdentifier(entityName: "AnimalCategory", id: 3)
            try graph.link(animal, "category", to: category)
            fingerprint = try package.write(graph, expecting: fingerprint, changed: [animal.id, 1, 3])
            #expect(try package.read().snapshot() == graph.snapshot())
            // Many new animals: they go after the last animal part, which splits as it grows.
            var changed: Set<UInt64> = []
            for index in 0..<200 {
                let new = try graph.insert("Animal", ["name": .string("New \(index) with a name of some length")])
                try graph.link(new, "category", to: category)
                changed.insert(new.id)
            }
            changed.insert(category.id)
            fingerprint = try package.write(graph, expecting: fingerprint, changed: changed)
            let partsAfter = try #require(package.readManifest()).parts
            #expect(partsAfter.count > partsBefore.count)
            // Parts stay within the size they are cut at (twice the target at most), ascending and disjoint.
            for part in partsAfter {
                let size = FileIO.status(package.partsPath + "/" + part.file)?.size ?? 0
                #expect(size <= 4_096 + 512, "\(part.file): \(size) bytes")
            }
            for (left, right) in zip(partsAfter, partsAfter.dropFirst()) where left.entity == right.entity {
                #expect(left.last < right.first)
            }
            #expect(try package.read().snapshot() == graph.snapshot())
            #expect(try Self.objectLines(url).count == graph.count)
        }
    }

    @Test("deleting every object of a part drops the part; an emptied document has no parts folder")
    func emptyParts() throws {
        try Self.withSmallParts { url in
            let graph = try Self.zoo(animals: 100)
            let package = DocumentPackage(url: url)
            var fingerprint = try package.write(graph, expecting: .some(nil))
            let firstAnimals = try #require(package.readManifest()?.parts.first { $0.entity == "Animal" })
            let doomed = (firstAnimals.first...firstAnimals.last).map { PersistentIdentifier(entityName: "Animal", id: $0) }
            for id in doomed { try graph.remove(id) }
            fingerprint = try package.write(graph, expecting: fingerprint, changed: Set(doomed.map(\.id)))
            #expect(package.readManifest()?.parts.contains { $0.file == firstAnimals.file } == false)
            #expect(!FileManager.default.fileExists(atPath: package.partsPath + "/" + firstAnimals.file))
            #expect(try package.read().snapshot() == graph.snapshot())
            let all = try graph.identifiers(of: "Animal") + graph.identifiers(of: "AnimalCategory")
            for id in all { try graph.remove(id) }
            _ = try package.write(graph, expecting: fingerprint, changed: Set(all.map(\.id)))
            #expect(try FileManager.default.contentsOfDirectory(atPath: url.path) == ["manifest.xml"])
            #expect(try package.read().count == 0)
        }
    }

    @Test("random edits saved through a context, a few at a time, always read back as the context's graph, with the objects a full write gives", .tags(.long))
    func randomSavesThroughTheStore() async throws {
        // Each step's roll picks the edit, its seed the edit's targets and whether a save follows.
        await checkProperty(count: TestEffort.cases(25), input: SessionStep.generator.array(of: 1...60)) { plan in
            try Self.withSmallParts(target: 1_024, maximum: 2_048) { url in
                let context = try makeContext(try zooSchema(), url: url)
                var categories = try (0..<3).map { try context.insert("AnimalCategory", ["name": .string("C\($0)")]) }
                var animals: [PersistentIdentifier] = []
                for index in 0..<60 {
                    let animal = try context.insert("Animal", ["name": .string("A\(index) \(String(repeating: "x", count: index % 7))")])
                    try context.link(animal, "category", to: categories[index % 3])
                    animals.append(animal)
                }
                try context.save()
                for (step, planned) in plan.enumerated() {
                    var rng = planned.choices
                    switch planned.roll * 7 / 100 {
                    case 0, 1:
                        if let animal = animals.randomElement(using: &rng) {
                            try context.setValue(.int(Int64(step)), for: "age", of: animal)
                        }
                    case 2:
                        if let animal = animals.randomElement(using: &rng), let category = categories.randomElement(using: &rng) {
                            try context.link(animal, "category", to: category)
                        }
                    case 3:
                        if let index = animals.indices.randomElement(using: &rng) { try context.delete(animals.remove(at: index)) }
                    case 4:
                        let animal = try context.insert("Animal", ["name": .string("New \(step)")])
                        if let category = categories.randomElement(using: &rng) { try context.link(animal, "category", to: category) }
                        animals.append(animal)
                    case 5:
                        if categories.count > 1, Int.random(in: 0..<4, using: &rng) == 0 {
                            // A cascade: the category and its animals.
                            try context.delete(categories.removeLast())
                            animals = animals.filter { context.contains($0) && !context.isDeleted($0) }
                        } else {
                            categories.append(try context.insert("AnimalCategory", ["name": .string("C\(step)x")]))
                        }
                    default:
                        context.undoManager?.undo()
                        animals = animals.filter { context.contains($0) && !context.isDeleted($0) }
                        categories = categories.filter { context.contains($0) && !context.isDeleted($0) }
                    }
                    guard Int.random(in: 0..<3, using: &rng) == 0 else { continue }
                    context.processPendingChanges()
                    try context.save()
                    #expect(try DocumentPackage(url: url).read().snapshot() == context.graph.snapshot(), "step \(step)")
                    let full = temporaryPackageURL("Full")
                    defer { try? FileManager.default.removeItem(at: full.deletingLastPathComponent()) }
                    try DocumentPackage(url: full).write(context.graph)
                    #expect(try Self.objectLines(url) == Self.objectLines(full), "step \(step): object lines")
                }
            }
        }
    }

    @Test("a save whose write fails keeps its changes for the next one, which writes them")
    func failedWriteKeepsChanges() throws {
        try Self.withSmallParts { url in
            let context = try makeContext(try zooSchema(), url: url)
            let animals = try (0..<100).map { try context.insert("Animal", ["name": .string("Animal \($0) with a name of some length")]) }
            try context.save()
            try context.setValue(.int(7), for: "age", of: animals[10])
            let error = FileIO.withFault(FileIO.Fault(under: url.path, afterBytes: 0, code: ENOSPC)) {
                #expect(throws: ModelError.self) { try context.save() }
            }
            #expect(error != nil)
            try context.setValue(.int(8), for: "age", of: animals[90])
            try context.save()
            let reread = try DocumentPackage(url: url).read()
            #expect(reread.snapshot() == context.graph.snapshot())
            #expect(try reread.value("age", of: animals[10]) == .int(7))
        }
    }

    @Test("a format-1 package opens, and its next save writes it as format 2 and removes document.xml")
    func upgradesFormat1() throws {
        let samples = Format1Packages.folder.appendingPathComponent("Animals.folio")
        let url = temporaryPackageURL("Animals")
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        try FileManager.default.copyItem(at: samples, to: url)
        let oldLines = try Self.objectLines(url)
        do {
            let context = ModelContext(try ModelContainer(contentsOf: url))
            let first = try #require(try context.fetchIdentifiers(DynamicFetchDescriptor(entity: "Animal")).first)
            try context.setValue(.string("Renamed"), for: "name", of: first)
            try context.save()
            #expect(FileManager.default.fileExists(atPath: url.appendingPathComponent("manifest.xml").path))
            #expect(!FileManager.default.fileExists(atPath: url.appendingPathComponent("document.xml").path))
            let newLines = try Self.objectLines(url)
            #expect(newLines.count == oldLines.count)
            #expect(zip(oldLines, newLines).filter { $0 != $1 }.count == 1)
            // The next save is incremental, from the new manifest.
            try context.setValue(.string("Renamed again"), for: "name", of: first)
            try context.save()
        }
        let reopened = ModelContext(try ModelContainer(contentsOf: url))
        let first = try #require(try reopened.fetchIdentifiers(DynamicFetchDescriptor(entity: "Animal")).first)
        #expect(try reopened.value("name", of: first) == .string("Renamed again"))
    }
}
