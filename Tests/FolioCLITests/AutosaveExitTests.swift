import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import FolioTestSupport

/// Autosaves are written in the background (docs/ARCHITECTURE.md, "Autosave"),
/// so a program may end while a write is queued or under way. These tests run
/// `AutosaveChild` (built beside the test bundle), which edits the enlarged
/// Animals sample through the main context with autosave on — each version N
/// adds the category `vN` and autosaves — and check the package on disk with
/// ``CrashTests``' byte-level inspection.
@Suite struct AutosaveExitTests {
    static let childBinary = BuiltProgram.autosaveChild

    /// The enlarged Animals sample at version 0, so that each write takes a while.
    static func enlargedSample(in folder: TemporaryFolder, fillers: Int) throws -> (URL, CrashTests.Workload) {
        let workload = CrashTests.animals(fillers: fillers)
        let package = try folder.copySample(workload.package)
        try workload.setUp(folder, package)
        let initial = workload.inspect(package)
        try #require(initial.problems.isEmpty && initial.version == 0, "\(initial.problems)")
        return (package, workload)
    }

    /// Starts `AutosaveChild PACKAGE FIRST LAST`, its stdout to `output`.
    static func startChild(_ package: URL, _ versions: ClosedRange<Int>, output: URL) throws -> Process {
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let process = programProcess(
            childBinary, [package.path, String(versions.lowerBound), String(versions.upperBound)],
            in: package.deletingLastPathComponent())
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    @Test("a program that autosaves and exits at once leaves the package holding its last autosave", .tags(.long))
    func exitRightAfterAutosaves() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (package, workload) = try Self.enlargedSample(in: folder, fillers: CrashTests.fillers)
        let rounds = TestEffort.isLong ? 3 : 1
        for round in 0..<rounds {
            let versions = round * 20 + 1...round * 20 + 20
            let output = folder.url.appendingPathComponent("child-\(round).txt")
            let child = try Self.startChild(package, versions, output: output)
            child.waitUntilExit()
            #expect(child.terminationReason == .exit && child.terminationStatus == 0)
            let printed = try String(contentsOf: output, encoding: .utf8).split(separator: "\n")
            #expect(printed.last == Substring(String(versions.upperBound)), "the child autosaved every version")
            // The child exited right after its last autosave: the exit flush wrote it.
            let disk = workload.inspect(package)
            #expect(disk.problems.isEmpty, "\(disk.problems)")
            #expect(disk.version == versions.upperBound, "round \(round): the package holds version \(disk.version)")
        }
        let open = try runFolio([package.path], input: workload.countScript, in: folder.url)
        #expect(open.lines == workload.expectedCounts(20 * rounds), "\(open.stderr)")
    }

    @Test("SIGKILL while autosaves are written in the background: the package always holds one whole version, never an older one", .tags(.long))
    func killDuringBackgroundWrites() throws {
        let kills = CrashTests.environmentInt("FOLIO_CRASH_KILLS", default: TestEffort.cases(10))
        let seed = ProcessInfo.processInfo.environment["FOLIO_CRASH_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 0...UInt64.max)
        var random = SeededGenerator(seed: seed)
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (package, workload) = try Self.enlargedSample(in: folder, fillers: CrashTests.fillers)
        var version = 0
        var advanced = 0
        for kill in 1...max(kills, 1) {
            let output = folder.url.appendingPathComponent("child-\(kill).txt")
            let child = try Self.startChild(package, version + 1...version + 100_000, output: output)
            usleep(UInt32.random(in: 100_000...700_000, using: &random))
            let wasRunning = child.isRunning
            _ = CrashTests.sendSignal(child.processIdentifier, SIGKILL)
            child.waitUntilExit()
            #expect(wasRunning && child.terminationReason == .uncaughtSignal, "kill \(kill): the child was not killed mid-run")
            let disk = workload.inspect(package)
            let context = "kill \(kill) (FOLIO_CRASH_SEED=\(seed))"
            #expect(disk.problems.isEmpty, "\(context): \(disk.problems.joined(separator: "; "))")
            #expect(disk.version >= version, "\(context): went back from version \(version) to \(disk.version)")
            // No more than the child autosaved: a background write only writes published states.
            let printed = (try? String(contentsOf: output, encoding: .utf8))?.split(separator: "\n").compactMap { Int($0) } ?? []
            #expect(disk.version <= (printed.last ?? version) + 1, "\(context): version \(disk.version) beyond what was autosaved")
            guard disk.problems.isEmpty, disk.version >= version else { break }
            if disk.version > version { advanced += 1 }
            version = disk.version
        }
        // The real loader opens what the last kill left.
        let open = try runFolio([package.path], input: workload.countScript, in: folder.url)
        #expect(open.status == 0 && open.lines == workload.expectedCounts(version), "\(open.stderr)")
        print("autosave kill test: \(kills) kills, \(advanced) found a newer version, last version \(version); FOLIO_CRASH_SEED=\(seed)")
    }
}
