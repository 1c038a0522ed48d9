import Foundation

// A phase child that grows without bound (a superlinear typed insert at 1M kept
// 4.65 GB at 400k before issue 16) must not push the shared machine into the
// OOM killer, which may pick another process: the child watches its own
// resident memory and gives up first.

/// `FOLIO_BENCH_MEMORY_LIMIT` (bytes) if set; else half the machine's memory,
/// or three quarters of what is available now if that is less (from
/// /proc/meminfo); 8 GB if unknown.
func defaultMemoryLimit() -> Int {
    if let text = ProcessInfo.processInfo.environment["FOLIO_BENCH_MEMORY_LIMIT"], let limit = Int(text) { return limit }
    guard let text = try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8) else { return 8_000_000_000 }
    func field(_ name: String) -> Int? {
        text.split(separator: "\n").first { $0.hasPrefix(name + ":") }.flatMap { Int($0.filter(\.isNumber)) }.map { $0 * 1024 }
    }
    guard let total = field("MemTotal") else { return 8_000_000_000 }
    return min(total / 2, field("MemAvailable").map { $0 / 4 * 3 } ?? total)
}

/// Ends this process with status 3 once its resident memory passes `limit`
/// bytes, checked every 100 ms on a thread of its own.
func guardMemory(limit: Int) {
    let thread = Thread {
        while true {
            let resident = procStatus("VmRSS")
            if resident > limit {
                log("error: resident memory \(megabytes(resident)) passed the limit of \(megabytes(limit)); phase abandoned")
                exit(3)
            }
            Thread.sleep(forTimeInterval: 0.1)
        }
    }
    thread.start()
}
