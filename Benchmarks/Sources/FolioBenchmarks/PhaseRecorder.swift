import Foundation

// A benchmark phase run in a fresh child process, so that its peak memory
// (VmHWM) is its own: the child records figures and prints them as one line
// of key=value pairs; the parent runs it K times and keeps the best of each.

/// In the child: the figures of one phase, and the memory around it.
struct PhaseRecorder {
    /// Resident memory when the phase started (the process, Folio and GRDB loaded).
    let baseline = procStatus("VmRSS")
    private var figures: [(key: String, value: Double)] = []

    mutating func record(_ key: String, _ value: Double) { figures.append((key, value)) }

    /// Whether to print each timed window (`FOLIO_BENCH_WINDOWS=1`), for a
    /// profile that keeps only the samples inside one (Scripts/phase-window.py).
    private let printsWindows = ProcessInfo.processInfo.environment["FOLIO_BENCH_WINDOWS"] == "1"

    /// Times `body` as `key`, in seconds. With `FOLIO_BENCH_WINDOWS=1` it also
    /// prints `window KEY START END` to standard error, in seconds of
    /// `CLOCK_MONOTONIC`, the clock of `perf record -k CLOCK_MONOTONIC`.
    mutating func time<T>(_ key: String, _ body: () throws -> T) rethrows -> T {
        let start = now()
        let result = try body()
        let end = now()
        record(key, end - start)
        if printsWindows {
            FileHandle.standardError.write(Data("window \(key) \(start) \(end)\n".utf8))
        }
        return result
    }

    /// Prints the figures, with the baseline, the peak (VmHWM) and the resident
    /// memory now, and ends the process without tearing down what `kept` holds
    /// (so profiles of a phase show the phase alone).
    func finish(keeping kept: Any? = nil) -> Never {
        let peak = procStatus("VmHWM")
        let after = procStatus("VmRSS")
        let pairs = figures.map { "\($0.key)=\($0.value)" } + ["baseline_rss=\(baseline)", "peak_hwm=\(peak)", "rss_after=\(after)"]
        withExtendedLifetime(kept) { () -> Void in
            print(pairs.joined(separator: " "))
            exit(0)
        }
        exit(0)
    }
}

/// In the parent: the best (smallest) of each figure over `runs` fresh child
/// processes of this binary, or `nil` (logged) if a child failed, e.g. was
/// killed for lack of memory, so one failed phase doesn't stop the run.
func runPhase(_ selfPath: String, _ arguments: [String], runs: Int) -> [String: Double]? {
    var best: [String: Double] = [:]
    for _ in 0..<runs {
        guard let child = try? runProcess(selfPath, arguments), child.status == 0 else {
            log("  child \(arguments.joined(separator: " ")) failed")
            return nil
        }
        for (key, text) in keyValues(child.output) {
            guard let value = Double(text) else { continue }
            best[key] = min(best[key] ?? .infinity, value)
        }
    }
    return best
}
