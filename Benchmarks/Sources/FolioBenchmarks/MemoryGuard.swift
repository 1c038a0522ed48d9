import Foundation

// A phase child that grows without bound (a superlinear typed insert at 1M kept
// 4.65 GB at 400k before issue 16) must not push the shared machine into the
// OOM killer, which may pick another process: the child watches its own
// resident memory and gives up first.

/// Half the machine's memory (MemTotal in /proc/meminfo), or 8 GB if unknown.
func defaultMemoryLimit() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8),
          let line = text.split(separator: "\n").first(where: { $0.hasPrefix("MemTotal:") }),
          let kilobytes = Int(line.filter(\.isNumber)) else { return 8_000_000_000 }
    return kilobytes * 1024 / 2
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
