import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import FolioTestSupport

/// Crash safety of saving (docs/RELIABILITY.md, docs/FORMAT.md "Saving
/// atomically"): a `folio` child saves a large document over and over and is
/// killed with SIGKILL at random moments; after every kill the package must
/// open and hold exactly one whole saved version, never older than the last
/// one seen.
///
/// Each save adds exactly one object titled `vN`, so a version is identified
/// by the highest N: a whole version K holds v1…vK and nothing else. The
/// package is read as bytes: `manifest.xml`, then each part it lists. Two
/// workloads: the Animals sample (format 1, rewritten as format 2 by the
/// set-up) enlarged with filler animals (manifest and parts only), and an
/// album whose every save adds a blob and replaces another (the blob steps of
/// the protocol).
///
/// `FOLIO_CRASH_KILLS` sets the number of kills per workload (default 15, 1 without `FOLIO_LONG_TESTS=1`);
/// `FOLIO_CRASH_SEED` replays a run's kill delays; `FOLIO_CRASH_OBJECTS` sets
/// how many filler objects make each save slow enough to be interrupted
/// (default 5000, 1000 without `FOLIO_LONG_TESTS=1`). `Scripts/crash-test.sh`
/// runs 250 kills each and prints the figures.
@Suite struct CrashTests {
    static func environmentInt(_ name: String, default value: Int) -> Int {
        ProcessInfo.processInfo.environment[name].flatMap { Int($0) } ?? value
    }

    /// Filler objects that make each save of the enlarged sample take a while (`FOLIO_CRASH_OBJECTS`).
    static let fillers = environmentInt("FOLIO_CRASH_OBJECTS", default: TestEffort.isLong ? 5000 : 1000)

    /// What the package on disk holds right now, read as bytes (no Folio code involved).
    struct OnDisk {
        /// The highest N of the `vN` objects (0: none yet).
        var version: Int
        /// Everything that was wrong with it; empty for a whole version.
        var problems: [String]
        /// Files in `blobs/` that the document does not name (left by a kill after the commit point).
        var unreferencedBlobs = 0
    }

    /// One kind of document saved over and over.
    struct Workload {
        var name: String
        /// The package's folder name.
        var package: String
        /// Creates the enlarged package at version 0.
        var setUp: (_ folder: TemporaryFolder, _ package: URL) throws -> Void
        /// The script lines that make and save versions `versions`, one save each.
        var script: (_ versions: ClosedRange<Int>) -> String
        /// How many versions one child is given (it is killed long before the end).
        var versionsPerChild: Int
        /// Checks the bytes on disk.
        var inspect: (_ package: URL) -> OnDisk
        /// A script whose output, run by folio on the package, must equal `expectedCounts(K)`.
        var countScript: String
        var expectedCounts: (_ version: Int) -> [String]
    }

    /// The object lines of every part of the package as a reader finds it
    /// (format 3: through a commit journal a kill left, each file it names read
    /// from its temporary while that is there), and problems with their
    /// completeness: the manifest whole, every part and history file whole, each
    /// part's objects all of its entity.
    static func documentLines(_ package: URL, problems: inout [String]) -> [Substring]? {
        let journal =
            (try? String(contentsOf: package.appendingPathComponent(".folio-journal"), encoding: .utf8))
            .map { $0.split(separator: "\n").dropFirst().dropLast().map(String.init) } ?? []
        func read(_ path: String) -> Data? {
            if journal.contains(path) {
                let url = package.appendingPathComponent(path)
                let temporary = url.deletingLastPathComponent().appendingPathComponent("." + url.lastPathComponent + ".tmp")
                if let data = try? Data(contentsOf: temporary) { return data }
            }
            return try? Data(contentsOf: package.appendingPathComponent(path))
        }
        guard let manifest = read("manifest.xml") else {
            problems.append("cannot read manifest.xml")
            return nil
        }
        let text = String(decoding: manifest, as: UTF8.self)
        if !text.hasSuffix("</folio>\n") || !text.contains("<folio format=\"3\"") {
            problems.append("manifest.xml is incomplete (\(manifest.count) bytes, ends \(text.suffix(40).debugDescription))")
        }
        let history = (try? FileManager.default.contentsOfDirectory(atPath: package.appendingPathComponent("history").path)) ?? []
        for file in history where !file.hasPrefix(".") {
            guard let data = read("history/" + file) else {
                problems.append("history file \(file) cannot be read")
                continue
            }
            if !String(decoding: data, as: UTF8.self).hasSuffix("</history>\n") { problems.append("history file \(file) is incomplete") }
        }
        var lines: [Substring] = []
        var paths = Set(formatThreeParts(package))
        for target in journal where target.hasPrefix("parts/") { paths.insert(target) }
        for path in paths.sorted() {
            let entity = path.split(separator: "/")[1]
            guard let data = read(path) else {
                problems.append("part \(path) is missing")
                continue
            }
            let partText = String(decoding: data, as: UTF8.self)
            let partLines = partText.split(separator: "\n").map { $0.drop { $0 == " " } }
            if !partText.hasSuffix("</objects>\n") { problems.append("part \(path) is incomplete (\(data.count) bytes)") }
            if !partLines.contains(Substring(#"<objects entity="\#(entity)">"#)) { problems.append("part \(path): wrong <objects> header") }
            let objects = partLines.filter { $0.hasPrefix("<\(entity) ") }
            if objects.count + 3 != partLines.filter({ !$0.hasPrefix("<f.conflict ") }).count {
                problems.append("part \(path) holds lines that are not \(entity) objects")
            }
            lines += objects
        }
        return lines
    }

    /// Temporary part files no commit journal names (left by a kill before a commit point).
    static func unreferencedParts(_ package: URL) -> Int {
        let parts = package.appendingPathComponent("parts")
        let entities = (try? FileManager.default.contentsOfDirectory(atPath: parts.path)) ?? []
        return entities.reduce(0) { count, entity in
            let files = (try? FileManager.default.contentsOfDirectory(atPath: parts.appendingPathComponent(entity).path)) ?? []
            return count + files.filter { $0.hasPrefix(".") && $0.hasSuffix(".tmp") }.count
        }
    }

    /// The value of XML attribute `name` on an object line.
    static func attribute(_ name: String, in line: Substring) -> Substring? {
        guard let start = line.range(of: " \(name)=\"") else { return nil }
        let rest = line[start.upperBound...]
        return rest.prefix { $0 != "\"" }
    }

    /// Checks that versions are exactly v1…vK, and returns K.
    static func checkVersions(_ versions: [Int], problems: inout [String]) -> Int {
        let version = versions.max() ?? 0
        if versions.sorted() != Array(stride(from: 1, through: version, by: 1)) {
            problems.append("the versions are not exactly v1…v\(version): \(versions.sorted())")
        }
        return version
    }

    // MARK: Workload 1: the Animals sample, enlarged (no blobs)

    static func animals(fillers: Int) -> Workload {
        let categories = 6, animals = 30  // the sample's own
        return Workload(
            name: "animals",
            package: "Animals.folio",
            setUp: { folder, package in
                // Enlarge the document so that each save takes a while (tens of ms in a debug build).
                let filler = (0..<fillers).map { "insert Animal name=\"Filler animal \($0) with a long enough name\" diet=omnivorous category=6\n" }
                let setup = try runFolio([package.path, "--yes"], input: filler.joined() + "save\n", in: folder.url)
                try #require(setup.status == 0, "setup failed: \(setup.stderr)")
            },
            script: { versions in versions.map { "insert AnimalCategory name=v\($0)\nsave\n" }.joined() },
            versionsPerChild: 2000,
            inspect: { package in
                var problems: [String] = []
                guard let lines = documentLines(package, problems: &problems) else { return OnDisk(version: -1, problems: problems) }
                var versions: [Int] = []
                var categoryCount = 0, animalCount = 0
                for line in lines {
                    if line.hasPrefix("<AnimalCategory ") {
                        categoryCount += 1
                        if let name = attribute("name", in: line), name.hasPrefix("v"), let n = Int(name.dropFirst()) { versions.append(n) }
                    } else if line.hasPrefix("<Animal ") {
                        animalCount += 1
                    }
                }
                let version = checkVersions(versions, problems: &problems)
                if categoryCount != categories + version { problems.append("\(categoryCount) AnimalCategory lines for version \(version)") }
                if animalCount != animals + fillers { problems.append("\(animalCount) Animal lines, expected \(animals + fillers)") }
                return OnDisk(version: version, problems: problems)
            },
            countScript: "count AnimalCategory\ncount Animal\n",
            expectedCounts: { version in ["\(categories + version)", "\(animals + fillers)"] })
    }

    // MARK: Workload 2: an album of blobs

    static let albumSchema = """
        <?xml version="1.0" encoding="UTF-8"?>
        <schema>
          <entity name="Photo">
            <attribute name="title" type="string"/>
            <attribute name="image" type="data" optional="true" external-storage="true"/>
          </entity>
        </schema>

        """

    /// The image of version N: 6 KiB that differ for every N.
    static func image(_ version: Int) -> Data {
        var random = SeededGenerator(seed: UInt64(version) &* 0x5851_F42D_4C95_7F2D &+ 1)
        var bytes = [UInt8]()
        bytes.reserveCapacity(6 * 1024)
        while bytes.count < 6 * 1024 { withUnsafeBytes(of: random.next()) { bytes.append(contentsOf: $0) } }
        return Data(bytes)
    }

    /// Photo#1 "cover" holds the image of the current version (replaced, so its
    /// old blob is removed, at every save); each version adds photo vN with
    /// image N. Filler photos without images make the parts large.
    static func album(fillers: Int) -> Workload {
        let images = ImageCache()
        // The cover's identifier, in the lane the setup's writer drew (read from its output).
        let cover = CoverNumber()
        return Workload(
            name: "album of blobs",
            package: "Album.folio",
            setUp: { folder, package in
                _ = try folder.write(albumSchema, to: "album-schema.xml")
                let filler = (0..<fillers).map { "insert Photo title=\"Filler photo \($0) with a long enough title\"\n" }
                let setup = try runFolio(
                    ["new", package.path, "--schema", "album-schema.xml", "--yes"],
                    input: "insert Photo title=cover image=\(image(0).base64EncodedString())\n" + filler.joined() + "save\n",
                    in: folder.url)
                try #require(setup.status == 0, "setup failed: \(setup.stderr)")
                let first = try #require(setup.lines.first, "the setup printed nothing")
                try #require(first.hasPrefix("Photo#"), "the cover's insert prints its id: \(first)")
                cover.number = try #require(UInt64(first.dropFirst("Photo#".count)), "the cover's id: \(first)")
            },
            script: { versions in
                versions.map {
                    let image = image($0).base64EncodedString()
                    return "insert Photo title=v\($0) image=\(image)\nset \(cover.number) image=\(image)\nsave\n"
                }.joined()
            },
            versionsPerChild: 60,
            inspect: { package in
                var problems: [String] = []
                guard let lines = documentLines(package, problems: &problems) else { return OnDisk(version: -1, problems: problems) }
                let blobs = package.appendingPathComponent("blobs")
                var versions: [Int] = []
                var cover: Substring?
                var named: Set<String> = []
                var photos = 0
                var imageProblems: [String] = []
                func check(_ blob: Substring, is version: Int, _ what: String) {
                    named.insert(String(blob))
                    let data = try? Data(contentsOf: blobs.appendingPathComponent(String(blob)))
                    if data == nil {
                        imageProblems.append("\(what): blob \(blob) is missing")
                    } else if data != images[version] {
                        imageProblems.append("\(what): blob \(blob) does not hold image \(version)")
                    }
                }
                for line in lines where line.hasPrefix("<Photo ") {
                    photos += 1
                    guard let title = attribute("title", in: line) else { continue }
                    if title == "cover" {
                        cover = attribute("image", in: line)
                    } else if title.hasPrefix("v"), let n = Int(title.dropFirst()) {
                        versions.append(n)
                        if let blob = attribute("image", in: line) { check(blob, is: n, "v\(n)") } else { imageProblems.append("v\(n) has no image") }
                    }
                }
                let version = checkVersions(versions, problems: &problems)
                if let cover { check(cover, is: version, "the cover") } else { problems.append("no cover photo") }
                problems += imageProblems
                if photos != 1 + fillers + version { problems.append("\(photos) Photo lines for version \(version)") }
                let files = ((try? FileManager.default.contentsOfDirectory(atPath: blobs.path)) ?? []).filter { !$0.hasPrefix(".") }
                return OnDisk(version: version, problems: problems, unreferencedBlobs: files.filter { !named.contains($0) }.count)
            },
            countScript: "count Photo\n",
            expectedCounts: { version in ["\(1 + fillers + version)"] })
    }

    /// The images of the versions, made once each.
    /// A number the album's setup learns and its script uses.
    final class CoverNumber: @unchecked Sendable {
        private var value: UInt64 = 0
        private let lock = NSLock()
        var number: UInt64 {
            get { lock.lock(); defer { lock.unlock() }; return value }
            set { lock.lock(); defer { lock.unlock() }; value = newValue }
        }
    }

    final class ImageCache: @unchecked Sendable {
        private var images: [Int: Data] = [:]
        private let lock = NSLock()
        subscript(version: Int) -> Data {
            lock.lock()
            defer { lock.unlock() }
            if let image = images[version] { return image }
            let image = CrashTests.image(version)
            images[version] = image
            return image
        }
    }

    // MARK: The driver

    /// Starts `folio PACKAGE --yes` reading `script`, with its output thrown away.
    static func startSaving(_ package: URL, script: URL, in folder: URL) throws -> Process {
        let process = programProcess(folioBinary, [package.path, "--yes"], in: folder)
        process.standardInput = try FileHandle(forReadingFrom: script)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// Inode, modification time and size of a file, `nil` if there is none.
    static func identity(of file: URL) -> [Int]? {
        var info = stat()
        guard stat(file.path, &info) == 0 else { return nil }
        #if canImport(Darwin)
        let modified = info.st_mtimespec
        #else
        let modified = info.st_mtim
        #endif
        return [Int(info.st_ino), modified.tv_sec, modified.tv_nsec, Int(info.st_size)]
    }

    /// `kill(2)`, under a name the loop's `kill` counter does not shadow.
    static func sendSignal(_ pid: pid_t, _ signal: Int32) -> Int32 { kill(pid, signal) }

    /// The temporary files in `blobs/` (or another folder of the package).
    static func blobTemporaries(_ package: URL, folder: String = "blobs") -> Set<String> {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: package.appendingPathComponent(folder).path)) ?? []
        return Set(names.filter { $0.hasPrefix(".") && $0.hasSuffix(".tmp") })
    }

    static func size(of file: URL) -> Int {
        (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0
    }

    /// Saves and kills, `FOLIO_CRASH_KILLS` times, checking the package after each kill; prints the figures.
    static func crashTest(_ workload: Workload) throws {
        let kills = environmentInt("FOLIO_CRASH_KILLS", default: TestEffort.cases(15))
        let seed = ProcessInfo.processInfo.environment["FOLIO_CRASH_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 0...UInt64.max)
        var random = SeededGenerator(seed: seed)
        let started = Date()

        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let package = folder.url.appendingPathComponent(workload.package)
        if workload.package == "Animals.folio" { _ = try folder.copySample(workload.package) }
        let temporary = package.appendingPathComponent(".manifest.xml.tmp")
        try workload.setUp(folder, package)
        let initial = workload.inspect(package)
        try #require(initial.problems.isEmpty && initial.version == 0, "\(initial.problems)")
        let parts = package.appendingPathComponent("parts")
        let partFiles = (try? FileManager.default.contentsOfDirectory(atPath: parts.path)) ?? []
        let bytes = partFiles.reduce(size(of: package.appendingPathComponent("manifest.xml"))) { $0 + size(of: parts.appendingPathComponent($1)) }

        // Calibrate: how long a child takes to start, open the package and save three
        // versions. Kills are spread from 2 ms to that long, so they land in every
        // phase: starting, loading, editing, writing, fsync, rename, removing old blobs.
        let calibrationStart = Date()
        let calibration = try runFolio([package.path, "--yes"], input: workload.script(1...3), in: folder.url)
        try #require(calibration.status == 0, "calibration failed: \(calibration.stderr)")
        let window = max(UInt32(Date().timeIntervalSince(calibrationStart) * 1_000_000), 20_000)

        var version = 3
        var observed: Set<Int> = []
        var duringWrite = 0, duringBlobWrite = 0, duringPartWrite = 0, noNewVersion = 0, killed = 0, unreferenced = 0
        var unreferencedPartsSeen = 0
        let script = folder.url.appendingPathComponent("saves.txt")
        for kill in 1...max(kills, 1) {
            try Data(workload.script(version + 1...version + workload.versionsPerChild).utf8).write(to: script)
            let staleTemporary = identity(of: temporary)
            let staleBlobTemporaries = blobTemporaries(package)
            let stalePartTemporaries = blobTemporaries(package, folder: "parts")
            let delay = UInt32.random(in: 2_000...window, using: &random)
            let child = try startSaving(package, script: script, in: folder.url)
            usleep(delay)
            let wasRunning = child.isRunning
            _ = sendSignal(child.processIdentifier, SIGKILL)
            child.waitUntilExit()
            if wasRunning, child.terminationReason == .uncaughtSignal {
                killed += 1
            } else {
                Issue.record("kill \(kill): the child was not killed mid-run (status \(child.terminationStatus))")
            }

            // A temporary file that is new or was rewritten: the kill interrupted the writing of manifest.xml.
            if let now = identity(of: temporary), now != staleTemporary { duringWrite += 1 }
            // A new part temporary file: the kill interrupted the writing (or syncing) of a part.
            if !blobTemporaries(package, folder: "parts").isSubset(of: stalePartTemporaries) { duringPartWrite += 1 }
            if unreferencedParts(package) > 0 { unreferencedPartsSeen += 1 }
            // A new blob temporary file: the kill interrupted the writing of a blob.
            if !blobTemporaries(package).isSubset(of: staleBlobTemporaries) { duringBlobWrite += 1 }
            let disk = workload.inspect(package)
            let context = "\(workload.name), kill \(kill) after \(delay / 1000) ms (FOLIO_CRASH_SEED=\(seed))"
            #expect(disk.problems.isEmpty, "\(context): \(disk.problems.joined(separator: "; "))")
            #expect(disk.version >= version, "\(context): went back from version \(version) to \(disk.version)")
            if disk.unreferencedBlobs > 0 { unreferenced += 1 }

            // The real loader opens it (stale temporary files and all) and sees the same counts.
            let open = try runFolio([package.path], input: workload.countScript, in: folder.url)
            #expect(open.status == 0 && open.stderr == "", "\(context): folio could not open it: \(open.stderr)")
            #expect(open.lines == workload.expectedCounts(disk.version), "\(context): \(open.lines)")

            if disk.version == version { noNewVersion += 1 }
            guard disk.problems.isEmpty, disk.version >= version else { break }
            version = disk.version
            observed.insert(version)
        }

        // A stale temporary file never stops the next save, which removes it, and unreferenced blobs.
        let last = try runFolio(
            [package.path, "--yes"], input: workload.script(version + 1...version + 1) + workload.countScript,
            in: folder.url)
        #expect(last.status == 0, "\(last.stderr)")
        #expect(Array(last.lines.suffix(workload.expectedCounts(0).count)) == workload.expectedCounts(version + 1))
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: package.path)) ?? []
        #expect(!entries.contains { $0.hasSuffix(".tmp") }, "a save left temporary files behind: \(entries)")
        let final = workload.inspect(package)
        #expect(final.version == version + 1 && final.problems.isEmpty && final.unreferencedBlobs == 0, "\(final)")
        #expect(unreferencedParts(package) == 0, "the last save left unreferenced parts")
        #expect(blobTemporaries(package, folder: "parts").isEmpty, "the last save left part temporaries")

        print(
            """
            crash test (\(workload.name)): \(killed) kills survived of \(kills); \(version) versions saved, \(observed.count) \
            distinct versions observed after kills; \(duringWrite) kills interrupted the writing of manifest.xml, \
            \(duringPartWrite) that of a part, \(duringBlobWrite) that of a blob, \
            \(noNewVersion) found no new version, unreferenced blobs present after \(unreferenced), unreferenced parts after \
            \(unreferencedPartsSeen); manifest and \(partFiles.count) parts \(bytes / 1024) KiB; \
            kill delays 2-\(window / 1000) ms; \(String(format: "%.1f", Date().timeIntervalSince(started))) s; \
            FOLIO_CRASH_SEED=\(seed)
            """)
    }

    @Test("SIGKILL at random moments while saving a large document: it always opens and holds one whole version, never an older one", .tags(.long))
    func killWhileSavingDocument() throws {
        try Self.crashTest(Self.animals(fillers: Self.fillers))
    }

    @Test("SIGKILL at random moments while saving blobs: every blob the document names is there and whole, old ones never lost", .tags(.long))
    func killWhileSavingBlobs() throws {
        try Self.crashTest(Self.album(fillers: Self.fillers))
    }
}
