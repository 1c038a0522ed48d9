import Foundation
import Testing
import Folio
@testable import FolioCore
#if canImport(Glibc)
import Glibc
import FolioTestSupport
#endif

/// Saves that fail midway — a full disk, a read-only location, a vanished
/// folder — throw a clear error, leave the old package exactly as it was and
/// keep every edit in memory, so the user can save elsewhere or try again
/// (docs/RELIABILITY.md, docs/FORMAT.md "Saving atomically").
///
/// Full disks are simulated with `FileIO.withFault`, which is process-wide:
/// every test that injects a fault is in this one serialized suite. When the
/// tests run as root and may mount, a real small tmpfs is filled and a real
/// read-only remount is tried too.
@Suite(.serialized, .format2) struct WriteFailureTests {
    // MARK: Fixtures

    /// Photos whose images are stored as files in `blobs/`.
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

    static func bytes(_ seed: UInt8, count: Int) -> Data { Data((0..<count).map { UInt8(truncatingIfNeeded: $0 * 31) ^ seed }) }

    static let imageA = bytes(1, count: 3_000)
    static let imageB = bytes(2, count: 5_000)
    static let imageB2 = bytes(3, count: 7_000)
    static let imageC = bytes(4, count: 11_000)

    /// The saved package: Photo#1 "Sunrise" (image A) and Photo#2 "Harbour" (image B).
    static func oldPackage(at url: URL = temporaryPackageURL("Album")) throws -> URL {
        let graph = legacyNumberedGraph(try albumSchema())
        _ = try graph.insert("Photo", ["title": .string("Sunrise"), "image": .data(imageA)])
        _ = try graph.insert("Photo", ["title": .string("Harbour"), "image": .data(imageB)])
        try DocumentPackage(url: url).write(graph)
        return url
    }

    /// Something that edits: a bare graph (saved with `DocumentPackage.write`) or a context (`ModelContext.save`).
    protocol Editor {
        func insert(_ entity: String, _ values: [String: Value]) throws -> PersistentIdentifier
        func setValue(_ value: Value, for attribute: String, of id: PersistentIdentifier) throws
        func value(_ attribute: String, of id: PersistentIdentifier) throws -> Value
        /// The live photos, whatever their identifiers (new ones are in the writer's lane).
        func photos() throws -> [PersistentIdentifier]
    }

    /// The photo titled `title`: the edits' new photos are found by what they hold.
    static func photo(titled title: String, in editor: any Editor) throws -> PersistentIdentifier {
        try #require(try editor.photos().first { try editor.value("title", of: $0) == .string(title) })
    }

    /// The photos ``edit(_:large:)`` inserted: Night, and with `large` the five long titles.
    static func insertedPhotos(in editor: any Editor, large: Bool) throws -> Set<PersistentIdentifier> {
        var titles = ["Night"]
        if large { titles += (0..<5).map { String(repeating: "\($0)", count: 1 << 20) } }
        return Set(try titles.map { try photo(titled: $0, in: editor) })
    }

    static let photo1 = PersistentIdentifier(entityName: "Photo", id: 1)
    static let photo2 = PersistentIdentifier(entityName: "Photo", id: 2)

    /// The unsaved edits: a title changed, an image replaced (new blob B2), a photo
    /// inserted (new blob C); `large` adds 1 MiB titles, so a save writes several
    /// new part files, and fails in the last.
    static func edit(_ editor: any Editor, large: Bool = false) throws {
        try editor.setValue(.string("Sunrise, edited"), for: "title", of: photo1)
        try editor.setValue(.data(imageB2), for: "image", of: photo2)
        _ = try editor.insert("Photo", ["title": .string("Night"), "image": .data(imageC)])
        if large {
            for index in 0..<5 { _ = try editor.insert("Photo", ["title": .string(String(repeating: "\(index)", count: 1 << 20))]) }
        }
    }

    /// Whether the edits of ``edit(_:large:)`` are all there.
    static func expectEdits(_ editor: any Editor, large: Bool = false, _ note: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(try editor.value("title", of: photo1) == .string("Sunrise, edited"), "\(note)", sourceLocation: sourceLocation)
        #expect(try editor.value("image", of: photo2) == .data(imageB2), "\(note)", sourceLocation: sourceLocation)
        let night = try photo(titled: "Night", in: editor)
        #expect(try editor.value("image", of: night) == .data(imageC), "\(note)", sourceLocation: sourceLocation)
        if large {
            #expect(try insertedPhotos(in: editor, large: true).count == 6, "\(note)", sourceLocation: sourceLocation)
        }
    }

    /// The files of a package, compared byte for byte.
    struct PackageFiles: Equatable, CustomStringConvertible {
        var document: Data?
        /// Every entry of the package folder, hidden ones included.
        var entries: [String]
        var blobs: [String: Data]

        init(_ url: URL) {
            document = try? packageDocument(url)
            entries = ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).sorted()
            var blobs: [String: Data] = [:]
            let folder = url.appendingPathComponent("blobs")
            for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] {
                blobs[name] = (try? Data(contentsOf: folder.appendingPathComponent(name))) ?? Data()
            }
            self.blobs = blobs
        }

        var description: String {
            "manifest and parts \(document.map { "\($0.count) bytes" } ?? "missing"), entries \(entries), blobs \(blobs.keys.sorted())"
        }
    }

    /// The old package is intact: manifest.xml and its parts byte for byte, every old blob
    /// byte for byte, no temporary file. A save that failed after renaming some
    /// new blobs into `blobs/` may leave them (the protocol only ever adds
    /// blobs before the commit point): they must not be named by the old
    /// document. Returns the names of such leftovers.
    @discardableResult
    static func expectIntact(
        _ url: URL, was old: PackageFiles, _ note: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> [String] {
        let now = PackageFiles(url)
        #expect(now.document == old.document, "\(note): the manifest or a part changed", sourceLocation: sourceLocation)
        #expect(now.entries == old.entries, "\(note): package folder \(now.entries), was \(old.entries)", sourceLocation: sourceLocation)
        for (name, data) in old.blobs {
            #expect(now.blobs[name] == data, "\(note): blob \(name) changed or vanished", sourceLocation: sourceLocation)
        }
        let extra = now.blobs.keys.filter { old.blobs[$0] == nil }.sorted()
        let document = String(decoding: old.document ?? Data(), as: UTF8.self)
        for name in extra {
            #expect(!name.hasPrefix("."), "\(note): temporary file \(name) left in blobs/", sourceLocation: sourceLocation)
            #expect(!document.contains(name), "\(note): \(name) is named by the old document", sourceLocation: sourceLocation)
        }
        return extra
    }

    /// A full disk: `io` with `ENOSPC` naming a file of the package, and a message saying so.
    static func expectDiskFull(
        _ error: PackageError?, in package: URL, _ note: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard case .io(let path, let operation, let code, let message)? = error else {
            Issue.record("\(note): expected an io error, got \(String(describing: error))", sourceLocation: sourceLocation)
            return
        }
        #expect(code == ENOSPC, "\(note): \(error!)", sourceLocation: sourceLocation)
        #expect(operation == "write", "\(note): \(error!)", sourceLocation: sourceLocation)
        #expect(path.hasPrefix(package.path + "/"), "\(note): \(path)", sourceLocation: sourceLocation)
        #expect(message == "No space left on device", "\(note)", sourceLocation: sourceLocation)
        #expect(error!.description == "\(path): write failed: No space left on device", sourceLocation: sourceLocation)
    }

    static func packageError(_ error: ModelError?) -> PackageError? {
        guard case .package(let error)? = error else { return nil }
        return error
    }

    static func run<T>(faultAfter bytes: Int, under package: URL, _ body: () throws -> T) rethrows -> T {
        try FileIO.withFault(FileIO.Fault(under: package.path, afterBytes: bytes, code: ENOSPC), body)
    }

    /// How much a save of `graph` over the old package at `url` writes: the part
    /// files it does not hold yet, then each new blob in order, then manifest.xml.
    /// - Parameter context: for a context's save, the context: its save also
    ///   records a transaction, in the manifest (or, past a segment's size, in a
    ///   history segment file written before the blobs). Timestamps have a fixed
    ///   width, so one made now has the size the save's will have.
    static func plannedWrites(of graph: ObjectGraph, over url: URL, context: ModelContext? = nil) throws -> Planned {
        let scratch = temporaryPackageURL("Scratch")
        defer { try? FileManager.default.removeItem(at: scratch.deletingLastPathComponent()) }
        var history = HistoryLog()
        if let transaction = context?.makeStoredTransaction() { history.append(transaction) }
        try DocumentPackage(url: scratch).write(graph, expecting: nil, history: history)
        let files = PackageFiles(scratch)
        let old = [imageA, imageB]
        let newBlobs = files.blobs.sorted { Int($0.key.prefix { $0 != "-" })! < Int($1.key.prefix { $0 != "-" })! }
            .map(\.value).filter { !old.contains($0) }
        let oldParts = Set((try? FileManager.default.contentsOfDirectory(atPath: url.path + "/parts")) ?? [])
        let parts = scratch.appendingPathComponent("parts")
        let newParts = try FileManager.default.contentsOfDirectory(atPath: parts.path).filter { !oldParts.contains($0) }
            .map { try Data(contentsOf: parts.appendingPathComponent($0)).count }.reduce(0, +)
        return Planned(
            parts: newParts, history: history.segments.first?.bytes?.count ?? 0, blobs: newBlobs.map(\.count),
            manifest: try Data(contentsOf: scratch.appendingPathComponent("manifest.xml")).count)
    }

    /// The bytes a save writes, in the order it writes them.
    struct Planned {
        var parts: Int
        var history: Int
        var blobs: [Int]
        var manifest: Int
        var total: Int { parts + history + blobs.reduce(0, +) + manifest }
    }

    // MARK: Where a save fails

    enum FaultPoint: String, CaseIterable, CustomTestStringConvertible {
        /// The first byte of the first new part.
        case beforeAnyByte
        /// The new parts are over 4 MiB, several files: all but the last byte of them is written.
        case midDocument
        /// The parts are written; the first new blob fails.
        case firstBlob
        /// The first new blob is renamed into blobs/; the second fails.
        case secondBlob
        /// Parts and blobs are written; manifest.xml, the commit, fails.
        case manifest

        var testDescription: String { rawValue }
        var large: Bool { self == .midDocument }

        func afterBytes(_ planned: Planned) -> Int {
            // A history segment file, when a save closes one, is written between the parts and the blobs.
            switch self {
            case .beforeAnyByte: return 0
            case .midDocument: return planned.parts - 1
            case .firstBlob: return planned.parts + planned.history
            case .secondBlob: return planned.parts + planned.history + planned.blobs[0]
            case .manifest: return planned.parts + planned.history + planned.blobs.reduce(0, +)
            }
        }
    }

    @Test(
        "DocumentPackage.write that hits a full disk midway: ENOSPC, old package intact, graph untouched, a later write succeeds",
        arguments: FaultPoint.allCases)
    func packageWriteFails(at point: FaultPoint) throws {
        let url = try Self.oldPackage()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let package = DocumentPackage(url: url)
        let old = PackageFiles(url)
        let oldSnapshot = try package.read().snapshot()
        let graph = try package.read()
        try Self.edit(graph, large: point.large)
        let edited = graph.snapshot()
        let planned = try Self.plannedWrites(of: graph, over: url)
        #expect(planned.blobs.count == 2)

        var caught: PackageError?
        var elsewhere = false
        Self.run(faultAfter: point.afterBytes(planned), under: url) {
            do throws(PackageError) { try package.write(graph) } catch { caught = error }
            // The disk is full only where the package is: saving elsewhere works meanwhile.
            let copy = temporaryPackageURL("Elsewhere")
            elsewhere = (try? DocumentPackage(url: copy).write(graph)) != nil && (try? DocumentPackage(url: copy).read().snapshot()) == edited
        }
        Self.expectDiskFull(caught, in: url, "\(point)")
        let leftovers = Self.expectIntact(url, was: old, "\(point)")
        #expect(leftovers.count == [.secondBlob: 1, .manifest: 2][point, default: 0], "\(point): \(leftovers)")
        #expect(try package.read().snapshot() == oldSnapshot, "the old package reads as before")
        #expect(graph.snapshot() == edited, "the graph still holds the edits")
        #expect(elsewhere, "a write elsewhere during the fault")

        // The fault cleared: the same write succeeds and tidies up.
        try package.write(graph)
        #expect(try package.read().snapshot() == edited)
        let files = PackageFiles(url)
        #expect(files.entries == ["blobs", "manifest.xml", "parts"])
        #expect(files.blobs.count == 3, "A, B2, C and nothing else: \(files.blobs.keys.sorted())")
    }

    @Test(
        "ModelContext.save that hits a full disk midway: ENOSPC, old package intact, edits kept, save elsewhere and later save succeed",
        arguments: FaultPoint.allCases)
    func contextSaveFails(at point: FaultPoint) throws {
        let url = try Self.oldPackage()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let old = PackageFiles(url)
        let oldSnapshot = try DocumentPackage(url: url).read().snapshot()
        let context = try makeContext(try Self.albumSchema(), url: url)
        try Self.edit(context, large: point.large)
        context.processPendingChanges()
        let planned = try Self.plannedWrites(of: context.graph, over: url, context: context)
        let undoSteps = context.undoManager?.undoCount

        var caught: ModelError?
        let copy = temporaryPackageURL("Elsewhere")
        defer { try? FileManager.default.removeItem(at: copy.deletingLastPathComponent()) }
        try Self.run(faultAfter: point.afterBytes(planned), under: url) {
            do throws(ModelError) { try context.save() } catch { caught = error }
            // Save a copy elsewhere while the package's disk is still full.
            try context.exportPackage(to: copy)
        }
        Self.expectDiskFull(Self.packageError(caught), in: url, "\(point)")
        #expect(caught?.description.contains("No space left on device") == true)
        Self.expectIntact(url, was: old, "\(point)")
        #expect(try DocumentPackage(url: url).read().snapshot() == oldSnapshot)
        #expect(context.hasChanges, "the edits are still unsaved changes")
        #expect(Set(context.insertedIdentifiers) == (try Self.insertedPhotos(in: context, large: point.large)))
        #expect(Set(context.changedIdentifiers) == [Self.photo1, Self.photo2])
        #expect(context.undoManager?.undoCount == undoSteps, "the undo history is kept")
        try Self.expectEdits(context, large: point.large, "\(point): in memory")
        try Self.expectEdits(DocumentPackage(url: copy).read(), large: point.large, "\(point): the copy saved elsewhere")

        // The fault cleared: the same context saves.
        try context.save()
        #expect(!context.hasChanges)
        try Self.expectEdits(DocumentPackage(url: url).read(), large: point.large, "\(point): saved after the fault cleared")
        let files = PackageFiles(url)
        #expect(files.entries == ["blobs", "manifest.xml", "parts"], "the few transactions are the manifest's open tail")
        #expect(files.blobs.count == 3, "A, B2, C and nothing else: \(files.blobs.keys.sorted())")
    }

    /// Every byte boundary of a save of many blobs, each at most once: faults at
    /// 0, at each boundary and one byte either side, then the save that fits.
    static func sweepPoints(_ planned: Planned) -> [Int] {
        var boundaries = [0, planned.parts, planned.parts + planned.history]
        for size in planned.blobs { boundaries.append(boundaries.last! + size) }
        boundaries.append(boundaries.last! + planned.manifest)
        let total = boundaries.last!
        return Array(Set(boundaries.flatMap { [$0 - 1, $0, $0 + 1] }.filter { $0 >= 0 && $0 < total })).sorted()
    }

    @Test(
        "a full disk at every byte boundary of a save with many blobs, for both writers: each fails cleanly, then the save goes through", .tags(.long),
        .onlyInLongRuns)
    func sweep() throws {
        var faults = 0
        for useContext in [false, true] {
            let url = try Self.oldPackage()
            defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
            let old = PackageFiles(url)
            let context = try makeContext(try Self.albumSchema(), url: url)
            let graph = try DocumentPackage(url: url).read()
            try Self.edit(useContext ? context as any Editor : graph)
            for index in 0..<12 {
                let values: [String: Value] = ["title": .string("Extra \(index)"), "image": .data(Self.bytes(UInt8(10 + index), count: 500 * (index + 1)))]
                if useContext { _ = try context.insert("Photo", values) } else { _ = try graph.insert("Photo", values) }
            }
            context.processPendingChanges()
            let planned = try Self.plannedWrites(of: useContext ? context.graph : graph, over: url, context: useContext ? context : nil)
            let points = Self.sweepPoints(planned)
            let total = planned.total
            for afterBytes in points {
                let note = "\(useContext ? "ModelContext.save" : "DocumentPackage.write") failing after \(afterBytes) of \(total) bytes"
                var error: PackageError?
                Self.run(faultAfter: afterBytes, under: url) {
                    do {
                        if useContext { try context.save() } else { try DocumentPackage(url: url).write(graph) }
                    } catch let failure as ModelError { error = Self.packageError(failure) } catch let failure as PackageError { error = failure } catch {}
                }
                faults += 1
                Self.expectDiskFull(error, in: url, note)
                // Blobs renamed into place before the failure may stay; remove them
                // so that every attempt writes the same bytes as planned.
                for name in Self.expectIntact(url, was: old, note) { unlink(url.appendingPathComponent("blobs/\(name)").path) }
                if useContext { #expect(context.hasChanges, "\(note)") }
            }
            Self.run(faultAfter: total, under: url) {
                #expect(throws: Never.self, "a save that fits exactly") {
                    if useContext { try context.save() } else { try DocumentPackage(url: url).write(graph) }
                }
            }
            try Self.expectEdits(DocumentPackage(url: url).read(), "after the sweep")
            #expect(try DocumentPackage(url: url).read().count(of: "Photo") == 15)
        }
        print("write failure sweep: \(faults) faults injected")
        #expect(faults > 70)
    }

    // MARK: Read-only location, vanished folder

    /// A package path that cannot be created: /proc refuses new entries even to root.
    static func unwritablePackage() -> URL { URL(fileURLWithPath: "/proc/folio-test-\(UUID().uuidString).folio") }

    @Test("DocumentPackage.write into a location that cannot be written: a clear io error, the graph untouched, a write elsewhere works")
    func packageReadOnlyLocation() throws {
        let url = Self.unwritablePackage()
        let graph = try DocumentPackage(url: try Self.oldPackage()).read()
        try Self.edit(graph)
        let edited = graph.snapshot()
        let error = #expect(throws: PackageError.self) { try DocumentPackage(url: url).write(graph) }
        guard case .io(let path, let operation, let code, _)? = error else {
            Issue.record("expected an io error, got \(String(describing: error))")
            return
        }
        #expect(path == url.path && operation == "mkdir" && code != 0)
        #expect(error!.description.hasPrefix("\(url.path): mkdir failed: "), "\(error!)")
        #expect(!FileManager.default.fileExists(atPath: url.path))
        #expect(graph.snapshot() == edited)
        let copy = temporaryPackageURL("Elsewhere")
        try DocumentPackage(url: copy).write(graph)
        #expect(try DocumentPackage(url: copy).read().snapshot() == edited)
    }

    @Test("ModelContext.save into a location that cannot be written: a clear error, edits kept, save a copy elsewhere works")
    func contextReadOnlyLocation() throws {
        let url = Self.unwritablePackage()
        let context = try makeContext(try Self.albumSchema(), url: url)
        let sunrise = try context.insert("Photo", ["title": .string("Sunrise"), "image": .data(Self.imageA)])
        context.processPendingChanges()
        let error = #expect(throws: ModelError.self) { try context.save() }
        guard case .io(let path, "mkdir", _, _)? = Self.packageError(error) else {
            Issue.record("expected an io mkdir error, got \(String(describing: error))")
            return
        }
        #expect(path == url.path)
        #expect(error!.description.hasPrefix("\(url.path): mkdir failed: "), "\(error!)")
        #expect(context.hasChanges)
        #expect(try context.value("image", of: sunrise) == .data(Self.imageA))
        let copy = temporaryPackageURL("Elsewhere")
        try context.exportPackage(to: copy)
        #expect(try DocumentPackage(url: copy).read().value("image", of: sunrise) == .data(Self.imageA))
        // Trying again fails again, the same way, still keeping the edits.
        #expect(throws: ModelError.self) { try context.save() }
        #expect(context.hasChanges)
    }

    /// A package in `parent/`, which is created for it.
    static func packageInParent() throws -> (parent: URL, package: URL) {
        let parent = temporaryPackageURL("Parent").deletingPathExtension()
        try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
        return (parent, try oldPackage(at: parent.appendingPathComponent("Album.folio")))
    }

    @Test("DocumentPackage.write after the package's parent folder vanished: an io error, nothing recreated, the graph untouched")
    func packageVanishedFolder() throws {
        let (parent, url) = try Self.packageInParent()
        defer { try? FileManager.default.removeItem(at: parent.deletingLastPathComponent()) }
        let graph = try DocumentPackage(url: url).read()
        try Self.edit(graph)
        let edited = graph.snapshot()
        try FileManager.default.removeItem(at: parent)
        let error = #expect(throws: PackageError.self) { try DocumentPackage(url: url).write(graph) }
        #expect(error == .io(path: url.path, operation: "mkdir", code: ENOENT, message: "No such file or directory"))
        #expect(error?.description == "\(url.path): mkdir failed: No such file or directory")
        #expect(!FileManager.default.fileExists(atPath: parent.path), "a save never creates the package's parents")
        #expect(graph.snapshot() == edited)
        let copy = temporaryPackageURL("Elsewhere")
        try DocumentPackage(url: copy).write(graph)
        #expect(try DocumentPackage(url: copy).read().snapshot() == edited)
    }

    @Test("ModelContext.save after the package's parent folder vanished: a clear error naming the package, nothing recreated, edits kept")
    func contextVanishedFolder() throws {
        let (parent, url) = try Self.packageInParent()
        defer { try? FileManager.default.removeItem(at: parent.deletingLastPathComponent()) }
        let context = try makeContext(try Self.albumSchema(), url: url)
        try Self.edit(context)
        context.processPendingChanges()
        // Blobs are read when first used: one never read goes with its folder (see
        // DocumentPackageTests, "an unread blob whose file vanished…"). This one was read.
        #expect(try context.value("image", of: Self.photo1) == .data(Self.imageA))
        try FileManager.default.removeItem(at: parent)
        let error = #expect(throws: ModelError.self) { try context.save() }
        // The document it was opened from is gone: refused as changed on disk (or, failing that check, an io error).
        switch Self.packageError(error) {
        case .modifiedOnDisk(let path)?: #expect(path == url.path)
        case .io(let path, _, let code, _)?: #expect(path.hasPrefix(url.path) && code == ENOENT)
        default: Issue.record("expected modifiedOnDisk or an io error, got \(String(describing: error))")
        }
        #expect(error?.description.hasPrefix(url.path + ": ") == true, "\(String(describing: error))")
        #expect(!FileManager.default.fileExists(atPath: parent.path))
        #expect(context.hasChanges)
        try Self.expectEdits(context, "in memory")
        let copy = temporaryPackageURL("Elsewhere")
        try context.exportPackage(to: copy)
        try Self.expectEdits(DocumentPackage(url: copy).read(), "the copy")
    }

    // MARK: A new package whose first save fails

    @Test("a new document's first save fails: the edits stay, and nothing is left at the path that stops opening it afresh")
    func failedFirstSave() throws {
        let url = temporaryPackageURL("New")
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let schema = try Self.albumSchema()
        do {
            let context = try makeContext(schema, url: url)
            let sunrise = try context.insert("Photo", ["title": .string("Sunrise"), "image": .data(Self.imageA)])
            context.processPendingChanges()
            let error = Self.run(faultAfter: 10, under: url) { #expect(throws: ModelError.self) { try context.save() } }
            Self.expectDiskFull(Self.packageError(error), in: url, "first save")
            #expect(context.hasChanges)
            #expect(try context.value("image", of: sunrise) == .data(Self.imageA))
            #expect(!FileManager.default.fileExists(atPath: url.appendingPathComponent("manifest.xml").path))
            #expect(PackageFiles(url).entries.allSatisfy { !$0.hasSuffix(".tmp") }, "\(PackageFiles(url))")
        }
        // A later session (the first one gave up) opens the path as a new, empty document, as before the failed save.
        let container = try ModelContainer(for: schema, configurations: ModelConfiguration(url: url))
        #expect(try ModelContext(container).fetchCount(DynamicFetchDescriptor(entity: "Photo")) == 0)
    }

    // MARK: Real file systems (root with mount permission only)

    /// A tmpfs mounted for one test, unmounted when done.
    final class Tmpfs {
        let url: URL

        /// Whether this process may mount a tmpfs (root in a namespace that allows it).
        static let available: Bool = {
            guard geteuid() == 0, let trial = Tmpfs(size: "64k") else { return false }
            trial.unmount()
            return true
        }()

        init?(size: String) {
            url = FileManager.default.temporaryDirectory.appendingPathComponent("folio-tmpfs-\(UUID().uuidString)")
            try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            guard Tmpfs.command("/usr/bin/mount", ["-t", "tmpfs", "-o", "size=\(size),mode=0755", "folio-test", url.path]) else {
                try? FileManager.default.removeItem(at: url)
                return nil
            }
        }

        @discardableResult
        func remount(_ options: String) -> Bool { Tmpfs.command("/usr/bin/mount", ["-o", "remount,\(options)", url.path]) }

        func unmount() {
            Tmpfs.command("/usr/bin/umount", ["-l", url.path])
            try? FileManager.default.removeItem(at: url)
        }

        @discardableResult
        static func command(_ path: String, _ arguments: [String]) -> Bool {
            guard FileManager.default.isExecutableFile(atPath: path) else { return false }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: path)
            process.arguments = arguments
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            guard (try? process.run()) != nil else { return false }
            process.waitUntilExit()
            return process.terminationStatus == 0
        }
    }

    @Test(
        "a really full disk (a 256 KiB tmpfs), for both writers: ENOSPC, old package intact, edits kept; with more room the save goes through",
        .enabled(if: Tmpfs.available, "needs root and permission to mount a tmpfs"), arguments: [false, true])
    func realDiskFull(useContext: Bool) throws {
        let disk = try #require(Tmpfs(size: "256k"))
        defer { disk.unmount() }
        let url = try Self.oldPackage(at: disk.url.appendingPathComponent("Album.folio"))
        let old = PackageFiles(url)
        let context = try makeContext(try Self.albumSchema(), url: url)
        let graph = try DocumentPackage(url: url).read()
        let editor: any Editor = useContext ? context : graph
        try Self.edit(editor)
        let big = Self.bytes(99, count: 600 * 1024)
        let poster = try editor.insert("Photo", ["title": .string("Poster"), "image": .data(big)])
        context.processPendingChanges()

        let error: PackageError?
        if useContext {
            error = Self.packageError(#expect(throws: ModelError.self) { try context.save() })
            #expect(context.hasChanges)
        } else {
            error = #expect(throws: PackageError.self) { try DocumentPackage(url: url).write(graph) }
        }
        guard case .io(let path, _, let code, _)? = error else {
            Issue.record("expected an io error, got \(String(describing: error))")
            return
        }
        #expect(code == ENOSPC && path.hasPrefix(url.path + "/"), "\(error!)")
        #expect(error!.description.hasSuffix("No space left on device"), "\(error!)")
        Self.expectIntact(url, was: old, "full tmpfs")
        try Self.expectEdits(editor, "in memory")
        #expect(try editor.value("image", of: poster) == .data(big))

        // Room is made: the same save goes through.
        #expect(disk.remount("size=4m"))
        if useContext { try context.save() } else { try DocumentPackage(url: url).write(graph) }
        let saved = try DocumentPackage(url: url).read()
        try Self.expectEdits(saved, "saved")
        #expect(try saved.value("image", of: poster) == .data(big))
    }

    @Test(
        "a read-only file system (a tmpfs remounted read-only), for both writers: EROFS, old package intact, edits kept; writable again, the save goes through",
        .enabled(if: Tmpfs.available, "needs root and permission to mount a tmpfs"), arguments: [false, true])
    func realReadOnly(useContext: Bool) throws {
        let disk = try #require(Tmpfs(size: "4m"))
        defer { disk.unmount() }
        let url = try Self.oldPackage(at: disk.url.appendingPathComponent("Album.folio"))
        let old = PackageFiles(url)
        let context = try makeContext(try Self.albumSchema(), url: url)
        let graph = try DocumentPackage(url: url).read()
        let editor: any Editor = useContext ? context : graph
        try Self.edit(editor)
        context.processPendingChanges()
        try #require(disk.remount("ro"))

        let error: PackageError?
        if useContext {
            error = Self.packageError(#expect(throws: ModelError.self) { try context.save() })
            #expect(context.hasChanges)
        } else {
            error = #expect(throws: PackageError.self) { try DocumentPackage(url: url).write(graph) }
        }
        guard case .io(let path, _, let code, _)? = error else {
            Issue.record("expected an io error, got \(String(describing: error))")
            return
        }
        #expect(code == EROFS && path.hasPrefix(url.path), "\(error!)")
        #expect(error!.description.hasSuffix("Read-only file system"), "\(error!)")
        Self.expectIntact(url, was: old, "read-only")
        try Self.expectEdits(editor, "in memory")

        #expect(disk.remount("rw"))
        if useContext { try context.save() } else { try DocumentPackage(url: url).write(graph) }
        try Self.expectEdits(DocumentPackage(url: url).read(), "saved")
    }
}

extension ObjectGraph: WriteFailureTests.Editor {
    func photos() throws -> [PersistentIdentifier] { try identifiers(of: "Photo") }
}
extension ModelContext: WriteFailureTests.Editor {
    func photos() throws -> [PersistentIdentifier] { try fetchIdentifiers(DynamicFetchDescriptor(entity: "Photo")) }
}
