import Folio
import Foundation
#if canImport(Glibc)
import Glibc
#endif

// Issue 15's batched fetch: iterating every animal of zoo-N, reading one
// property of each, through `fetch(_:batchSize:)` against `fetch(_:)` of all:
//   swift run -c release FolioBenchmarks --batched [N ...] [--runs K] [--batch-size B]
// Each way runs in a fresh child process of this binary (`--batched-phase MODE N
// PATH B`), which opens the package through `mainContext` as apps do, then
// resets its peak (writing 5 to /proc/self/clear_refs) so that the peak it
// reports is the fetch and iteration's alone, above the opened document.

enum BatchedMode: String, CaseIterable {
    /// `fetch(_:)`: an array of every model.
    case all
    /// `fetch(_:batchSize:)`: models made a batch at a time.
    case batched
    /// `fetchIdentifiers(_:batchSize:)`, reading through the dynamic API: no
    /// models, so the batched fetch's own cost (its identifiers) alone.
    case identifiers

    func arguments(n: Int, path: String, batchSize: Int) -> [String] {
        ["--batched-phase", rawValue, String(n), path, String(batchSize)]
    }

    /// Opens the package, then fetches and reads `age` of every animal and
    /// releases the result; prints times and memory (RSS after opening, the
    /// peak of the open, the peak of fetch and iteration) and ends the process.
    @MainActor
    func run(n: Int, path: String, batchSize: Int) throws -> Never {
        var recorder = PhaseRecorder()
        let container = try recorder.time("open") {
            try ModelContainer(for: Animal.self, AnimalCategory.self, configurations: ModelConfiguration(url: URL(fileURLWithPath: path)))
        }
        let context = container.mainContext
        recorder.record("open_rss", Double(procStatus("VmRSS")))
        recorder.record("open_peak", Double(procStatus("VmHWM")))
        let peakReset = resetPeak()
        let start = now()
        let cpuStart = threadCPUTime()
        var ages = 0
        var count = 0
        // Released after the peak is read, and timed: the array's million models
        // are freed there, where the batched fetch frees each batch as it goes.
        switch self {
        case .all:
            var animals: [Animal]? = try recorder.time("fetch") { try context.fetch(FetchDescriptor<Animal>()) }
            recorder.time("iterate") {
                for animal in animals ?? [] { ages &+= animal.age }
            }
            count = animals?.count ?? 0
            recorder.record("total", now() - start)
            recorder.record("fetch_peak", peakReset ? Double(procStatus("VmHWM")) : .nan)
            recorder.time("release") { animals = nil }
        case .batched:
            var animals: FetchResultsCollection<Animal>? = try recorder.time("fetch") {
                try context.fetch(FetchDescriptor<Animal>(), batchSize: batchSize)
            }
            recorder.time("iterate") {
                if let animals { for animal in animals { ages &+= animal.age } }
            }
            count = animals?.count ?? 0
            recorder.record("total", now() - start)
            recorder.record("fetch_peak", peakReset ? Double(procStatus("VmHWM")) : .nan)
            recorder.time("release") { animals = nil }
        case .identifiers:
            var ids: FetchResultsCollection<PersistentIdentifier>? = try recorder.time("fetch") {
                try context.fetchIdentifiers(FetchDescriptor<Animal>(), batchSize: batchSize)
            }
            try recorder.time("iterate") {
                guard let ids else { return }
                for id in ids {
                    guard case .int(let age) = try context.value("age", of: id) else { fail("age is not an int") }
                    ages &+= Int(age)
                }
            }
            count = ids?.count ?? 0
            recorder.record("total", now() - start)
            recorder.record("fetch_peak", peakReset ? Double(procStatus("VmHWM")) : .nan)
            recorder.time("release") { ids = nil }
        }
        recorder.record("total_released", now() - start)
        recorder.record("cpu_released", threadCPUTime() - cpuStart)
        guard count == n, ages == (0..<n).reduce(0, { $0 + Int(Zoo.age($1)) }) else {
            fail("\(rawValue): \(count) animals, age sum \(ages)")
        }
        recorder.finish(keeping: container)
    }
}

/// This thread's CPU time in seconds: on a shared machine a phase waits for a
/// core, so its wall-clock time varies with the load while its CPU time does not.
private func threadCPUTime() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// Starts VmHWM over from the current resident size (Linux ≥ 4.0); whether it could.
private func resetPeak() -> Bool {
    guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return false }
    defer { try? handle.close() }
    do { try handle.write(contentsOf: Data("5".utf8)) } catch { return false }
    return true
}

/// Megabytes, or "?" for a figure a child did not give.
private func mb(_ bytes: Double) -> String { bytes.isFinite ? megabytes(Int(bytes)) : "?" }

func batchedPath(_ n: Int) -> String { "\(benchFolder)/batched-\(n).folio" }

/// Builds zoo-N's package (once; kept for later runs), runs each way `runs`
/// times in fresh children and prints a table of the best figures and their ratios.
func runBatchedBenchmarks(sizes: [Int], runs: Int, batchSize: Int) throws {
    try FileManager.default.createDirectory(atPath: benchFolder, withIntermediateDirectories: true)
    let selfPath = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    let loadBefore = loadAverage()
    var rows: [(n: Int, all: [String: Double], batched: [String: Double], identifiers: [String: Double])] = []
    for n in sizes {
        let path = batchedPath(n)
        if !FileManager.default.fileExists(atPath: path) {
            log("zoo-\(groupedNumber(n)): writing \(path)")
            let (graph, _) = try buildGraph(n)
            try DocumentPackage(url: URL(fileURLWithPath: path)).write(graph)
        }
        var figures: [BatchedMode: [String: Double]] = [:]
        for mode in BatchedMode.allCases {
            log("zoo-\(groupedNumber(n)): \(mode.rawValue)")
            guard let result = runPhase(selfPath, mode.arguments(n: n, path: path, batchSize: batchSize), runs: runs) else {
                fail("--batched-phase \(mode.rawValue) failed")
            }
            figures[mode] = result
        }
        rows.append((n, figures[.all] ?? [:], figures[.batched] ?? [:], figures[.identifiers] ?? [:]))
    }
    print("")
    print(
        "Batched fetch (issue 15): Folio \(folioRevision()), best of \(runs), batch size \(batchSize), "
            + "\(ProcessInfo.processInfo.activeProcessorCount) cores; load average before \(loadBefore), after \(loadAverage())")
    print("Each way in a fresh process through mainContext: open the package, then fetch every animal and read its age.")
    print("Peak = VmHWM reset after the open (so: the fetch and iteration's own peak); above open = peak − RSS after the open.")
    print("")
    print("| zoo | | fetch(_:) all | fetch(_:batchSize: \(batchSize)) | batched / all | fetchIdentifiers(_:batchSize: \(batchSize)), no models |")
    print("|---|---|---:|---:|---:|---:|")
    for row in rows {
        let label = "zoo-\(groupedNumber(row.n))"
        func line(_ name: String, _ key: String, _ format: (Double) -> String) {
            let (all, batched, ids) = (row.all[key] ?? .nan, row.batched[key] ?? .nan, row.identifiers[key] ?? .nan)
            print("| \(label) | \(name) | \(format(all)) | \(format(batched)) | \(String(format: "%.2f", batched / all))× | \(format(ids)) |")
        }
        line("fetch", "fetch") { ms($0) }
        line("iterate, reading age", "iterate") { ms($0) }
        line("fetch + iterate", "total") { ms($0) }
        line("release what the fetch returned", "release") { ms($0) }
        line("fetch + iterate + release", "total_released") { ms($0) }
        line("the same, CPU time of the thread", "cpu_released") { ms($0) }
        func above(_ figures: [String: Double]) -> Double { (figures["fetch_peak"] ?? .nan) - (figures["open_rss"] ?? .nan) }
        print(
            "| \(label) | peak above the opened document | \(mb(above(row.all))) | \(mb(above(row.batched))) | "
                + "\(String(format: "%.3f", above(row.batched) / above(row.all)))× | \(mb(above(row.identifiers))) |")
        line("peak (VmHWM after the open)", "fetch_peak") { mb($0) }
        line("RSS after the open", "open_rss") { mb($0) }
        line("peak of the open", "open_peak") { mb($0) }
        print(
            "| \(label) | peak above open per result | \(String(format: "%.0f B", above(row.all) / Double(row.n))) | "
                + "\(String(format: "%.1f B", above(row.batched) / Double(row.n))) | | "
                + "\(String(format: "%.1f B", above(row.identifiers) / Double(row.n))) |")
    }
}
