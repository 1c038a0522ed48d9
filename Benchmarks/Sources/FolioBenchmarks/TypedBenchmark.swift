import Foundation

// The typed layer (@Model, mainContext, the defaults SwiftData users get)
// beside the dynamic API, SQLite through GRDB and the C floor, in one run:
//   swift run -c release FolioBenchmarks --typed [N ...] [--runs K]
// Every phase (TypedPhase.swift) runs in a fresh child process, K times; the
// best of each figure is kept, and the child's VmHWM is the phase's peak memory.

/// The figures of every phase at one N; a phase whose child failed is missing.
struct TypedResult {
    var n: Int
    /// The big category of the cascade workload (N/10).
    var big: Int
    var phases: [String: [String: Double]] = [:]
    var floor: FloorResult?

    func figure(_ phase: TypedPhase, _ key: String, skewed: Bool = false) -> Double? {
        phases[Self.key(phase, skewed: skewed)]?[key]
    }

    /// Peak memory of a phase beyond the child's baseline.
    func peakBeyondBaseline(_ phase: TypedPhase, skewed: Bool = false) -> Double? {
        guard let peak = figure(phase, "peak_hwm", skewed: skewed),
            let baseline = figure(phase, "baseline_rss", skewed: skewed)
        else { return nil }
        return peak - baseline
    }

    /// Peak memory of a phase beyond the child's baseline, per object of its workload.
    func bytesPerObject(_ phase: TypedPhase, skewed: Bool = false) -> Double? {
        peakBeyondBaseline(phase, skewed: skewed).map { $0 / Double(UniformZoo(n: n).objectCount) }
    }

    static func key(_ phase: TypedPhase, skewed: Bool) -> String { phase.rawValue + (skewed ? "/10%" : "") }
}

func runTypedBenchmarks(sizes: [Int], runs: Int) throws {
    let (selfPath, floorBinary, loadBefore) = try prepareRun()
    var results: [TypedResult] = []
    for n in sizes {
        results.append(try measureTyped(n: n, runs: runs, selfPath: selfPath, floorBinary: floorBinary))
    }
    TypedReport(results: results, runs: runs, loadBefore: loadBefore).print()
}

private func measureTyped(n: Int, runs: Int, selfPath: String, floorBinary: String) throws -> TypedResult {
    var result = TypedResult(n: n, big: n / 10)
    let skewed = ContextWorkload(n: n, big: result.big)
    let typedPackage = "\(benchFolder)/typed-\(n).folio"
    let database = "\(benchFolder)/typed-\(n).sqlite"
    let steps: [(TypedPhase, big: Int, path: String)] = [
        (.insertDynamic, 0, "\(benchFolder)/dynamic-\(n).folio"),
        (.insertEngine, 0, "\(benchFolder)/engine-\(n).folio"),
        (.insertTyped, 0, typedPackage),
        (.insertGRDB, 0, database),
        // The cascade workload, saved by the dynamic insert (cheap at any size);
        // the typed insert of it shows the cost of one to-many of N/10 members.
        (.insertDynamic, result.big, skewed.path),
        (.insertEngine, result.big, "\(benchFolder)/engine-ctx-\(n).folio"),
        (.insertGRDB, result.big, skewed.sqlitePath),
        (.insertTyped, result.big, "\(benchFolder)/typed-ctx-\(n).folio"),
        (.openTyped, 0, typedPackage),
        (.openDynamic, 0, typedPackage),
        (.openGRDB, 0, database),
        (.cascadeTyped, result.big, skewed.path),
        (.cascadeDynamic, result.big, skewed.path),
        (.cascadeGRDB, result.big, skewed.sqlitePath),
        (.editTyped, 0, typedPackage),
        (.editDynamic, 0, typedPackage),
        (.editGRDB, 0, database),
    ]
    log("zoo-\(groupedNumber(n)): typed layer, dynamic API, GRDB, C floor (best of \(runs) fresh processes)")
    for (phase, big, path) in steps {
        let key = TypedResult.key(phase, skewed: big != 0)
        guard let figures = runPhase(selfPath, phase.arguments(n: n, big: big, path: path), runs: runs) else { continue }
        result.phases[key] = figures
        let shown = figures.filter { !["baseline_rss", "rss_after"].contains($0.key) }.sorted { $0.key < $1.key }
            .map {
                $0.key == "peak_hwm"
                    ? "peak \(megabytes(Int($0.value)))" : $0.key.hasSuffix("_ns") ? "\($0.key) \(Int($0.value)) ns" : "\($0.key) \(ms($0.value))"
            }
        log("  \(key): " + shown.joined(separator: ", "))
    }
    result.floor = try runFloor(floorBinary, package: typedPackage, runs: runs)
    if let floor = result.floor {
        log("  C floor: \(ms(floor.serial)) on one thread, \(ms(floor.threaded)) on \(floor.threads), \(floor.files) XML files")
    }
    return result
}
