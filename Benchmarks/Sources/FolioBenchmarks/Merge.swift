import Folio
import Foundation
#if canImport(Glibc)
import Glibc
#endif

// Issue 30, item 9: merging two branches of zoo-N that made 1,000 edits each
// (900 value edits, 80 inserts, 20 deletes, spread over the document), timed
// against one open of the same document:
//   swift run -c release FolioBenchmarks --merge [N ...] [--runs K]
//   FolioBenchmarks --merge-phase open|graph|package N FOLDER   (one phase, e.g. under a profiler)
// The parent writes FOLDER/{base,ours,theirs}.folio with the library's writer
// (so in the format it writes); each phase runs in a fresh child process, so
// its peak memory (VmHWM) is its own:
//   open     DocumentPackage(url: base).read()
//   graph    the three packages read (not timed as the merge), then
//            ObjectGraph.merge(base:ours:theirs:) in memory
//   package  DocumentPackage.merge(base:ours:theirs:into:) on disk: file by
//            file for format-3 packages, else read whole, merged, written

/// Edits per branch, by kind.
enum MergeEdits {
    static let values = 900
    static let inserts = 80
    static let deletes = 20
    static var total: Int { values + inserts + deletes }
}

enum MergePhase: String, CaseIterable {
    case open, graph, package

    func arguments(n: Int, folder: String) -> [String] { ["--merge-phase", rawValue, String(n), folder] }

    func run(n: Int, folder: String) throws -> Never {
        var recorder = PhaseRecorder()
        let url = { (name: String) in URL(fileURLWithPath: "\(folder)/\(name).folio") }
        let cpu = processCPUTime()
        switch self {
        case .open:
            let graph = try recorder.time("seconds") { try DocumentPackage(url: url("base")).read() }
            recorder.record("cpu", processCPUTime() - cpu)
            recorder.record("objects", Double(graph.count))
            recorder.finish(keeping: graph)
        case .graph:
            let graphs = try recorder.time("read") { try ["base", "ours", "theirs"].map { try DocumentPackage(url: url($0)).read() } }
            let cpuMerge = processCPUTime()
            let result = try recorder.time("seconds") { try ObjectGraph.merge(base: graphs[0], ours: graphs[1], theirs: graphs[2]) }
            recorder.record("cpu", processCPUTime() - cpuMerge)
            recorder.record("objects", Double(result.graph.count))
            recorder.record("conflicts", Double(result.conflicts.count))
            recorder.finish(keeping: (graphs, result.graph))
        case .package:
            let out = url("merged")
            removeItem(out.path)
            let result = try recorder.time("seconds") {
                try DocumentPackage.merge(base: url("base"), ours: url("ours"), theirs: url("theirs"), into: out)
            }
            recorder.record("cpu", processCPUTime() - cpu)
            recorder.record("file_by_file", result.method == .fileByFile ? 1 : 0)
            recorder.record("merged_files", Double(result.mergedFiles))
            recorder.record("conflicts", Double(result.conflicts.count))
            recorder.finish()
        }
    }
}

/// This process's CPU time (every thread: the loader parses parts on every core), in seconds.
private func processCPUTime() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// A small deterministic generator (SplitMix64), so every run edits the same objects.
private struct SplitMix {
    var state: UInt64
    mutating func next(_ bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int((z ^ (z >> 31)) % UInt64(bound))
    }
}

/// One branch's 1,000 edits on a graph read from the base package.
private func editBranch(_ graph: ObjectGraph, seed: UInt64, tag: String) throws {
    var random = SplitMix(state: seed)
    let animals = try graph.identifiers(of: "Animal")
    let categories = try graph.identifiers(of: "AnimalCategory")
    var deleted = Set<Int>()
    for k in 0..<MergeEdits.deletes {
        var index = random.next(animals.count)
        while deleted.contains(index) { index = random.next(animals.count) }
        deleted.insert(index)
        try graph.remove(animals[index])
        _ = k
    }
    for k in 0..<MergeEdits.values {
        var index = random.next(animals.count)
        while deleted.contains(index) { index = random.next(animals.count) }
        if k % 2 == 0 {
            try graph.setValue(.int(Int64(100 + k)), for: "age", of: animals[index])
        } else {
            try graph.setValue(.string("\(tag) note \(k)"), for: "notes", of: animals[index])
        }
    }
    for k in 0..<MergeEdits.inserts {
        let animal = try graph.insert(
            "Animal",
            [
                "name": .string("\(tag) \(k)"), "age": .int(1), "weight": .double(1.5),
                "born": .date(Zoo.born(k)), "notes": .string("\(tag) new"),
            ])
        try graph.link(animal, "category", to: categories[random.next(categories.count)])
    }
}

/// Writes base, ours and theirs for zoo-N into `folder`.
private func writeMergeInputs(n: Int, folder: String) throws {
    removeItem(folder)
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    let base = URL(fileURLWithPath: "\(folder)/base.folio")
    let (graph, _) = try buildGraph(n)
    try DocumentPackage(url: base).write(graph)
    for (name, seed) in [("ours", UInt64(1)), ("theirs", UInt64(2))] {
        let branch = try DocumentPackage(url: base).read()
        try editBranch(branch, seed: seed, tag: name)
        try DocumentPackage(url: URL(fileURLWithPath: "\(folder)/\(name).folio")).write(branch)
    }
}

/// The manifest's `format` attribute of a package.
private func packageFormat(_ path: String) -> String {
    guard let text = try? String(contentsOfFile: path + "/manifest.xml", encoding: .utf8),
        let range = text.range(of: "format=\"")
    else { return "?" }
    return String(text[range.upperBound...].prefix { $0 != "\"" })
}

func runMergeBenchmarks(sizes: [Int], runs: Int) throws {
    try FileManager.default.createDirectory(atPath: benchFolder, withIntermediateDirectories: true)
    let selfPath = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    let loadBefore = loadAverage()
    var rows: [(n: Int, format: String, figures: [MergePhase: [String: Double]])] = []
    for n in sizes {
        let folder = "\(benchFolder)/merge-\(n)"
        log("merge zoo-\(groupedNumber(n)): writing base, ours, theirs in \(folder)")
        try writeMergeInputs(n: n, folder: folder)
        var figures: [MergePhase: [String: Double]] = [:]
        for phase in MergePhase.allCases {
            log("merge zoo-\(groupedNumber(n)): \(phase.rawValue)")
            guard let result = runPhase(selfPath, phase.arguments(n: n, folder: folder), runs: runs) else {
                fail("--merge-phase \(phase.rawValue) failed")
            }
            figures[phase] = result
        }
        rows.append((n, packageFormat("\(folder)/base.folio"), figures))
    }
    print("")
    print(
        "Merge (issue 30, item 9): Folio \(folioRevision()), best of \(runs), "
            + "\(ProcessInfo.processInfo.activeProcessorCount) cores; load average before \(loadBefore), after \(loadAverage())")
    print(
        "Each branch: \(MergeEdits.values) value edits, \(MergeEdits.inserts) inserts, \(MergeEdits.deletes) deletes. "
            + "Each phase in a fresh process; peak = VmHWM of that process.")
    print("")
    print(
        "| zoo | format | open | ObjectGraph.merge (in memory) | ÷ open | DocumentPackage.merge (on disk) | ÷ open | how | peak: open | peak: graph merge (3 graphs read) | peak: package merge | conflicts |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|")
    func count(_ value: Double?) -> String { value.map { String(Int($0)) } ?? "?" }
    for row in rows {
        let open = row.figures[.open] ?? [:], graph = row.figures[.graph] ?? [:], package = row.figures[.package] ?? [:]
        let (o, g, p) = (open["seconds"] ?? .nan, graph["seconds"] ?? .nan, package["seconds"] ?? .nan)
        let how =
            (package["file_by_file"] ?? 0) == 1
            ? "file by file (\(Int(package["merged_files"] ?? 0)) files merged)" : "whole graphs"
        print(
            "| zoo-\(groupedNumber(row.n)) | \(row.format) | \(ms(o)) | \(ms(g)) | \(String(format: "%.2f", g / o))× | "
                + "\(ms(p)) | \(String(format: "%.2f", p / o))× | \(how) | \(megabytes(Int(open["peak_hwm"] ?? 0))) | "
                + "\(megabytes(Int(graph["peak_hwm"] ?? 0))) | \(megabytes(Int(package["peak_hwm"] ?? 0))) | "
                + "\(count(graph["conflicts"])) / \(count(package["conflicts"])) |")
        print(
            "| zoo-\(groupedNumber(row.n)) | CPU | \(ms(open["cpu"] ?? .nan)) | \(ms(graph["cpu"] ?? .nan)) | "
                + "\(String(format: "%.2f", (graph["cpu"] ?? .nan) / (open["cpu"] ?? .nan)))× | \(ms(package["cpu"] ?? .nan)) | "
                + "\(String(format: "%.2f", (package["cpu"] ?? .nan) / (open["cpu"] ?? .nan)))× | | | | | |")
    }
    if let first = rows.first, let last = rows.last, rows.count > 1 {
        func growth(_ phase: MergePhase) -> String {
            String(format: "%.1f×", (last.figures[phase]?["seconds"] ?? .nan) / (first.figures[phase]?["seconds"] ?? .nan))
        }
        print("")
        print(
            "Growth zoo-\(groupedNumber(first.n)) → zoo-\(groupedNumber(last.n)) (\(last.n / first.n)× the objects): "
                + "open \(growth(.open)), ObjectGraph.merge \(growth(.graph)), DocumentPackage.merge \(growth(.package))")
    }
}
