// Folio benchmarks: the zoo-N workload saved and opened with Folio, against
// the libxml2 SAX2 floor (C) and the same rows in SQLite through GRDB.
//
//   swift run -c release FolioBenchmarks [N ...] [--runs K]
//
// N defaults to 100000 and 1000000. Files go to /tmp/folio-bench. Child modes,
// used by the benchmark on itself to measure peak memory in a fresh process:
//   FolioBenchmarks --open-only PATH.folio
//   FolioBenchmarks --grdb-fetch-only PATH.sqlite
// Uniqueness (insert, upsert, save check; Uniqueness.swift):
//   swift run -c release FolioBenchmarks --unique [N ...] [--runs K]
// Indexed fetch (#Index, a declared index; IndexedFetch.swift):
//   swift run -c release FolioBenchmarks --index [N ...] [--runs K]
// The typed layer (@Model through mainContext) beside the dynamic API, GRDB and
// the C floor, each phase in a child process (TypedBenchmark.swift, TypedPhase.swift):
//   swift run -c release FolioBenchmarks --typed [N ...] [--runs K]
//   FolioBenchmarks --typed-phase PHASE N BIG PATH       (one phase, e.g. under a profiler)
// Batched fetch (issue 15): fetch(_:batchSize:) against fetch(_:), time and peak
// memory, each in a child process (BatchedFetch.swift):
//   swift run -c release FolioBenchmarks --batched [N ...] [--runs K] [--batch-size B]
//   FolioBenchmarks --batched-phase all|batched|identifiers N PATH B   (one way, e.g. under a profiler)
// and, for profiling a save (e.g. under valgrind):
//   FolioBenchmarks --save-only N
//
// The editing-context benchmarks (delete with cascade, undo, redo, save, deletion
// preview, fetch with predicate and sort; Context.swift) are a separate mode:
//   swift run -c release FolioBenchmarks --context [N ...] [--runs K] [--cascade K]
//   FolioBenchmarks --context-build N B                  (profiling: build ctx-N, B-animal cascade)
//   FolioBenchmarks --context-only PATH.folio OPERATION [REPEATS]   (profiling one operation)
// A ResultsObserver's update after a one-object change against a refetch (issue 32; ResultsObserverBenchmark.swift):
//   swift run -c release FolioBenchmarks --observer [N ...] [--runs K]
// Merging two branches of 1,000 edits each (issue 30; Merge.swift):
//   swift run -c release FolioBenchmarks --merge [N ...] [--runs K]
//   FolioBenchmarks --merge-phase open|graph|package N FOLDER

import Folio
import Foundation
import GRDB

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - Small utilities

/// Where the packages and databases go; FOLIO_BENCH_FOLDER sets another (two runs at once must not share one).
let benchFolder = ProcessInfo.processInfo.environment["FOLIO_BENCH_FOLDER"] ?? "/tmp/folio-bench"

func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// A field of /proc/self/status in bytes (the file gives kB), or 0 where there is none.
func procStatus(_ key: String) -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in text.split(separator: "\n") where line.hasPrefix(key + ":") {
        let digits = line.dropFirst(key.count + 1).filter(\.isNumber)
        return (Int(digits) ?? 0) * 1024
    }
    return 0
}

/// Size in bytes and space used on disk (what du counts).
func fileSize(_ path: String) -> (bytes: Int, disk: Int) {
    var info = stat()
    guard stat(path, &info) == 0 else { return (0, 0) }
    return (Int(info.st_size), Int(info.st_blocks) * 512)
}

/// Before a run that starts children and the C floor: the benchmark folder, this
/// binary's path (for its child modes), the compiled floor, the load average.
func prepareRun() throws -> (selfPath: String, floorBinary: String, loadBefore: String) {
    try FileManager.default.createDirectory(atPath: benchFolder, withIntermediateDirectories: true)
    let selfPath = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    let loadBefore = loadAverage()
    return (selfPath, try compileFloor(), loadBefore)
}

func removeItem(_ path: String) {
    try? FileManager.default.removeItem(atPath: path)
}

/// Copies a phase's input to its work path (a package or a database), then has
/// the kernel write the copy out: its dirty pages, a hundred megabytes at 1M,
/// are the harness's set-up, and must not be written back during the timed
/// section that follows, on the same two cores.
func copyWorkInput(from source: String, to work: String) throws {
    removeItem(work)
    try FileManager.default.copyItem(atPath: source, toPath: work)
    sync()
}

/// Runs a program; returns its exit status and standard output.
@discardableResult
func runProcess(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}

/// `key=value` pairs of a line a child printed.
func keyValues(_ text: String) -> [String: String] {
    var result: [String: String] = [:]
    for token in text.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
        let parts = token.split(separator: "=", maxSplits: 1)
        if parts.count == 2 { result[String(parts[0])] = String(parts[1]) }
    }
    return result
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data(("error: " + message + "\n").utf8))
    exit(1)
}

func log(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}

func seconds(_ value: Double) -> String {
    value >= 10 ? String(format: "%.1f s", value) : value >= 1 ? String(format: "%.2f s", value) : String(format: "%.0f ms", value * 1000)
}

func megabytes(_ bytes: Int) -> String { String(format: "%.1f MB", Double(bytes) / 1_000_000) }

// MARK: - The zoo-N workload

/// One animal's values, the same for Folio and SQLite. Animal `i` (0-based) is in category `i % categories`.
enum Zoo {
    static let epoch2000 = 946_684_800.0  // 2000-01-01T00:00:00Z, seconds since 1970

    static func categoryCount(_ n: Int) -> Int { max(1, n / 1000) }
    static func categoryName(_ c: Int) -> String { "Category \(c + 1)" }
    static func name(_ i: Int) -> String { "Animal \(i + 1)" }
    static func age(_ i: Int) -> Int64 { Int64(i % 31) }
    /// Two decimals: 0.25 … 999.99 kg.
    static func weight(_ i: Int) -> Double { Double(i % 99_975 + 25) / 100 }
    /// Whole seconds spread over ~25 years from 2000.
    static func born(_ i: Int) -> Date { Date(timeIntervalSince1970: epoch2000 + Double((i &* 7919) % 788_400_000)) }

    private static let filler = Array(": calm, eats well, healthy; vet check OK, weighed monthly".utf8)
    /// Exactly 40 ASCII bytes, different for every animal: "Notes #<i>" then filler.
    static func notes(_ i: Int) -> String {
        var bytes = Array("Notes #\(i + 1)".utf8)
        bytes.append(contentsOf: filler.prefix(40 - bytes.count))
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Heap bytes of a Swift string as the brief counts them: none for ≤ 15 UTF-8
    /// bytes (stored inline), else a 32-byte object header plus the bytes.
    static func heapPayload(_ text: String) -> Int {
        let count = text.utf8.count
        return count <= 15 ? 0 : 32 + count
    }

    /// Average string payload per animal (name + notes).
    static func payloadPerAnimal(_ n: Int) -> Double {
        var total = 0
        for i in 0..<n { total += heapPayload(name(i)) + heapPayload(notes(i)) }
        return Double(total) / Double(n)
    }

    static func schema() throws -> Schema {
        try Schema([
            Schema.Entity(
                "AnimalCategory", attributes: [Schema.Attribute("name", .string)],
                relationships: [
                    Schema.Relationship(
                        "animals", to: "Animal", toMany: true,
                        inverse: "category", deleteRule: .cascade)
                ]),
            Schema.Entity(
                "Animal",
                attributes: [
                    .init("name", .string), .init("age", .int), .init("weight", .double),
                    .init("born", .date), .init("notes", .string),
                ],
                relationships: [
                    .init(
                        "category", to: "AnimalCategory", inverse: "animals",
                        deleteRule: .nullify)
                ]),
        ])
    }
}

// MARK: - Folio

struct BuildTimes { var insert: Double; var link: Double }

/// Builds zoo-N: categories first, then animals, each linked to its category from the to-one side.
func buildGraph(_ n: Int) throws -> (ObjectGraph, BuildTimes) {
    let graph = ObjectGraph(schema: try Zoo.schema())
    let categoryCount = Zoo.categoryCount(n)
    var start = now()
    var categories: [PersistentIdentifier] = []
    categories.reserveCapacity(categoryCount)
    for c in 0..<categoryCount {
        categories.append(try graph.insert("AnimalCategory", ["name": .string(Zoo.categoryName(c))]))
    }
    var animals: [PersistentIdentifier] = []
    animals.reserveCapacity(n)
    for i in 0..<n {
        animals.append(
            try graph.insert(
                "Animal",
                [
                    "name": .string(Zoo.name(i)), "age": .int(Zoo.age(i)), "weight": .double(Zoo.weight(i)),
                    "born": .date(Zoo.born(i)), "notes": .string(Zoo.notes(i)),
                ]))
    }
    let insert = now() - start
    start = now()
    for (i, animal) in animals.enumerated() {
        try graph.link(animal, "category", to: categories[i % categoryCount])
    }
    return (graph, BuildTimes(insert: insert, link: now() - start))
}

func folioPath(_ n: Int) -> String { "\(benchFolder)/zoo-\(n).folio" }

/// Child mode: open a package in this fresh process and report memory.
func openOnly(_ path: String) throws -> Never {
    var recorder = PhaseRecorder()
    let graph = try recorder.time("seconds") { try DocumentPackage(url: URL(fileURLWithPath: path)).read() }
    recorder.record("objects", Double(graph.count))
    recorder.finish(keeping: graph)
}

// MARK: - GRDB

struct AnimalRow: FetchableRecord {
    var id: Int64
    var name: String
    var age: Int64
    var weight: Double
    var born: Date
    var notes: String
    var categoryID: Int64

    init(id: Int64, name: String, age: Int64, weight: Double, born: Date, notes: String, categoryID: Int64) {
        (self.id, self.name, self.age, self.weight, self.born, self.notes, self.categoryID) =
            (id, name, age, weight, born, notes, categoryID)
    }

    /// Columns by position, as selected in `fetchAnimals`; born is a REAL Unix timestamp.
    init(row: Row) {
        id = row[0]
        name = row[1]
        age = row[2]
        weight = row[3]
        born = Date(timeIntervalSince1970: row[4])
        notes = row[5]
        categoryID = row[6]
    }
}

struct CategoryRow: FetchableRecord {
    var id: Int64
    var name: String

    init(id: Int64, name: String) { (self.id, self.name) = (id, name) }
    init(row: Row) {
        id = row[0]
        name = row[1]
    }
}

func sqlitePath(_ n: Int) -> String { "\(benchFolder)/zoo-\(n).sqlite" }

func removeDatabase(_ path: String) {
    for suffix in ["", "-journal", "-wal", "-shm"] { removeItem(path + suffix) }
}

/// A fresh database with the schema; nothing timed here.
func createDatabase(_ path: String) throws -> DatabaseQueue {
    removeDatabase(path)
    let queue = try DatabaseQueue(path: path)
    try queue.write { db in
        try db.execute(
            sql: """
                CREATE TABLE category(id INTEGER PRIMARY KEY, name TEXT NOT NULL);
                CREATE TABLE animal(
                    id INTEGER PRIMARY KEY, name TEXT NOT NULL, age INTEGER NOT NULL, weight REAL NOT NULL,
                    born REAL NOT NULL, notes TEXT NOT NULL,
                    category_id INTEGER REFERENCES category(id) ON DELETE CASCADE);
                CREATE INDEX animal_category_id ON animal(category_id);
                """)
    }
    return queue
}

/// All rows in one transaction through two prepared statements.
func insertRows(_ queue: DatabaseQueue, _ categories: [CategoryRow], _ animals: [AnimalRow]) throws {
    try queue.write { db in
        let insertCategory = try db.makeStatement(sql: "INSERT INTO category(id, name) VALUES (?, ?)")
        for category in categories {
            try insertCategory.execute(arguments: [category.id, category.name])
        }
        let insertAnimal = try db.makeStatement(
            sql: """
                INSERT INTO animal(id, name, age, weight, born, notes, category_id) VALUES (?, ?, ?, ?, ?, ?, ?)
                """)
        for animal in animals {
            try insertAnimal.execute(arguments: [
                animal.id, animal.name, animal.age, animal.weight,
                animal.born.timeIntervalSince1970, animal.notes, animal.categoryID,
            ])
        }
    }
}

func fetchRows(_ queue: DatabaseQueue) throws -> ([CategoryRow], [AnimalRow]) {
    try queue.read { db in
        let categories = try CategoryRow.fetchAll(db, sql: "SELECT id, name FROM category")
        let animals = try AnimalRow.fetchAll(
            db,
            sql: """
                SELECT id, name, age, weight, born, notes, category_id FROM animal
                """)
        return (categories, animals)
    }
}

/// Child mode: fetch everything in this fresh process and report memory.
func grdbFetchOnly(_ path: String) throws -> Never {
    var recorder = PhaseRecorder()
    let rows = try recorder.time("seconds") { try fetchRows(try DatabaseQueue(path: path)) }
    recorder.record("objects", Double(rows.0.count + rows.1.count))
    recorder.finish(keeping: rows)
}

// MARK: - One workload size

struct Result {
    var n = 0
    var build = BuildTimes(insert: 0, link: 0)
    var save = 0.0
    var saveAfterOneEdit = 0.0
    var open = 0.0
    var floor = 0.0
    var grdbInsert = 0.0
    var grdbFetch = 0.0
    var documentBytes = 0
    var sqliteBytes = 0
    var sqliteDisk = 0
    var openBaseline = 0
    var openPeak = 0
    var openAfter = 0
    var payload = 0.0
    var grdbBaseline = 0
    var grdbPeak = 0
    var grdbAfter = 0

    var bytesPerAnimal: Double { Double(openPeak - openBaseline) / Double(n) - payload }
    var retainedPerAnimal: Double { Double(openAfter - openBaseline) / Double(n) - payload }
    var grdbBytesPerAnimal: Double { Double(grdbPeak - grdbBaseline) / Double(n) - payload }
}

/// The fastest of `runs` runs of `body`. What `body` returns is released only
/// after the clock stops, so freeing an opened graph or fetched rows is not timed.
func best<T>(of runs: Int, _ body: () throws -> T) rethrows -> Double {
    var fastest = Double.infinity
    for _ in 0..<runs {
        let start = now()
        let kept = try body()
        let elapsed = now() - start
        withExtendedLifetime(kept) { fastest = min(fastest, elapsed) }
    }
    return fastest
}

func measure(n: Int, runs: Int, floorBinary: String, selfPath: String) throws -> Result {
    var result = Result()
    result.n = n
    log("zoo-\(n): building the graph")
    let (graph, build) = try buildGraph(n)
    result.build = build
    log("  insert \(seconds(build.insert)), link \(seconds(build.link))")

    let path = folioPath(n)
    removeItem(path)
    let package = DocumentPackage(url: URL(fileURLWithPath: path))
    // Each run into an empty folder: a write over the same package finds its parts there and skips them.
    result.save = try best(of: runs) {
        removeItem(path); try package.write(graph)
    }
    log("  Folio save \(seconds(result.save))")

    let expected = graph.count
    result.open = try best(of: runs) {
        let opened = try package.read()
        guard opened.count == expected else { fail("opened \(opened.count) objects, expected \(expected)") }
        return opened
    }
    log("  Folio open \(seconds(result.open))")

    guard let memory = runPhase(selfPath, ["--open-only", path], runs: 1), let baseline = memory["baseline_rss"],
        let peak = memory["peak_hwm"], let after = memory["rss_after"]
    else { fail("--open-only child failed") }
    (result.openBaseline, result.openPeak, result.openAfter) = (Int(baseline), Int(peak), Int(after))
    result.payload = Zoo.payloadPerAnimal(n)
    log(
        "  open in a child (\(ms(memory["seconds"] ?? .nan))): RSS \(megabytes(result.openBaseline)) → peak \(megabytes(result.openPeak)), \(String(format: "%.0f", result.bytesPerAnimal)) B/animal beyond strings"
    )

    let floor = try runFloor(floorBinary, package: path, runs: runs)
    (result.floor, result.documentBytes) = (floor.serial, floor.bytes)
    log("  C SAX2 floor \(seconds(result.floor))")

    // save() through a context after editing one object (the package is rewritten where that object is).
    do {
        let context = ModelContext(try ModelContainer(contentsOf: URL(fileURLWithPath: path)))
        let animals = try context.fetchIdentifiers(DynamicFetchDescriptor(entity: "Animal"))
        var fastest = Double.infinity
        for run in 0..<max(runs, 2) {
            try context.setValue(.int(Int64(200 + run)), for: "age", of: animals[animals.count / 2 + run])
            let start = now()
            try context.save()
            fastest = min(fastest, now() - start)
        }
        result.saveAfterOneEdit = fastest
    }
    log("  Folio save after one edit \(seconds(result.saveAfterOneEdit))")

    let (categoryRows, animalRows) = UniformZoo(n: n).rows()
    let database = sqlitePath(n)
    var grdbInsert = Double.infinity
    for _ in 0..<runs {
        let queue = try createDatabase(database)
        let start = now()
        try insertRows(queue, categoryRows, animalRows)
        grdbInsert = min(grdbInsert, now() - start)
        try queue.close()
    }
    result.grdbInsert = grdbInsert
    log("  GRDB insert \(seconds(result.grdbInsert))")
    (result.sqliteBytes, result.sqliteDisk) = fileSize(database)

    let queue = try DatabaseQueue(path: database)
    result.grdbFetch = try best(of: runs) {
        let (categories, animals) = try fetchRows(queue)
        guard categories.count == categoryRows.count, animals.count == n else { fail("GRDB fetched the wrong count") }
        return (categories, animals)
    }
    try queue.close()
    log("  GRDB fetch \(seconds(result.grdbFetch))")

    if let memory = runPhase(selfPath, ["--grdb-fetch-only", database], runs: 1), let baseline = memory["baseline_rss"],
        let peak = memory["peak_hwm"], let after = memory["rss_after"]
    {
        (result.grdbBaseline, result.grdbPeak, result.grdbAfter) = (Int(baseline), Int(peak), Int(after))
    }
    withExtendedLifetime(graph) {}
    return result
}

// MARK: - Report

func sqliteVersion() -> String {
    (try? DatabaseQueue().read { db in try String.fetchOne(db, sql: "SELECT sqlite_version()") }).flatMap { $0 } ?? "?"
}

func libxml2Version() -> String {
    (try? runProcess("/bin/sh", ["-c", "pkg-config --modversion libxml-2.0"]).output
        .trimmingCharacters(in: .whitespacesAndNewlines)) ?? "?"
}

func loadAverage() -> String {
    ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "?").split(separator: " ").prefix(3).joined(separator: " ")
}

/// The commit of the Folio sources measured, and whether they had uncommitted changes.
func folioRevision() -> String {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path
    let command = "cd '\(root)' && git rev-parse --short HEAD 2>/dev/null && git status --porcelain -- Sources Package.swift 2>/dev/null | head -1"
    guard let output = try? runProcess("/bin/sh", ["-c", command]).output else { return "?" }
    let lines = output.split(separator: "\n")
    guard let commit = lines.first else { return "not a git checkout" }
    return lines.count > 1 ? "\(commit) + uncommitted changes" : String(commit)
}

func report(_ results: [Result], runs: Int, loadBefore: String) {
    func row(_ label: String, _ cell: (Result) -> String) -> String {
        "| \(label) | " + results.map(cell).joined(separator: " | ") + " |"
    }
    print("")
    print(
        "zoo-N benchmark: Folio \(folioRevision()), libxml2 \(libxml2Version()), SQLite \(sqliteVersion()), \(ProcessInfo.processInfo.activeProcessorCount) cores"
    )
    print("times are best of \(runs); load average before \(loadBefore), after \(loadAverage())")
    print("")
    print("| | " + results.map { "zoo-\($0.n)" }.joined(separator: " | ") + " |")
    print("|---|" + results.map { _ in "---:|" }.joined())
    print(row("graph build: insert (not a target)") { seconds($0.build.insert) })
    print(row("graph build: link (not a target)") { seconds($0.build.link) })
    print(row("Folio save") { seconds($0.save) })
    print(row("Folio save() after one edit") { seconds($0.saveAfterOneEdit) })
    print(row("Folio open") { seconds($0.open) })
    print(row("C SAX2 floor (libxml2, no-op handler)") { seconds($0.floor) })
    print(row("GRDB insert (1 transaction, prepared statement)") { seconds($0.grdbInsert) })
    print(row("GRDB fetch (FetchableRecord.fetchAll)") { seconds($0.grdbFetch) })
    print(row("package XML size (every *.xml file)") { megabytes($0.documentBytes) })
    print(row("SQLite file size") { megabytes($0.sqliteBytes) })
    print(row("open: RSS before → peak") { "\(megabytes($0.openBaseline)) → \(megabytes($0.openPeak))" })
    print(row("open: string payload per animal") { String(format: "%.0f B", $0.payload) })
    print(row("open: peak bytes/animal beyond strings") { String(format: "%.0f B", $0.bytesPerAnimal) })
    print(row("open: retained bytes/animal beyond strings") { String(format: "%.0f B", $0.retainedPerAnimal) })
    print(
        row("GRDB fetch: peak bytes/animal beyond strings") {
            $0.grdbPeak == 0 ? "?" : String(format: "%.0f B", $0.grdbBytesPerAnimal)
        })
    print("")
    print("| target | " + results.map { "zoo-\($0.n)" }.joined(separator: " | ") + " |")
    print("|---|" + results.map { _ in "---|" }.joined())
    func verdict(_ value: Double, _ limit: Double, _ unit: String = "×") -> String {
        (unit == "×" ? String(format: "%.2f×", value) : String(format: "%.0f B", value)) + (value <= limit ? " met" : " NOT met")
    }
    print(row("open ≤ 1.5× C floor") { verdict($0.open / $0.floor, 1.5) })
    print(row("open ≤ GRDB fetch (target at 1M)") { verdict($0.open / $0.grdbFetch, 1.0) })
    print(row("save ≤ GRDB insert") { verdict($0.save / $0.grdbInsert, 1.0) })
    print(row("package XML ≤ 2× SQLite file") { verdict(Double($0.documentBytes) / Double($0.sqliteBytes), 2.0) })
    print(row("≤ 200 B/animal beyond strings (peak)") { verdict($0.bytesPerAnimal, 200, "B") })
}

// MARK: - Main

let arguments = Array(CommandLine.arguments.dropFirst())
do {
    if let index = arguments.firstIndex(of: "--open-only"), index + 1 < arguments.count {
        try openOnly(arguments[index + 1])
    }
    if let index = arguments.firstIndex(of: "--grdb-fetch-only"), index + 1 < arguments.count {
        try grdbFetchOnly(arguments[index + 1])
    }
    if let index = arguments.firstIndex(of: "--typed-phase"), index + 4 < arguments.count,
        let phase = TypedPhase(rawValue: arguments[index + 1]), let n = Int(arguments[index + 2]),
        let big = Int(arguments[index + 3])
    {
        guardMemory(limit: defaultMemoryLimit())
        try phase.run(n: n, big: big, path: arguments[index + 4])
    }
    if let index = arguments.firstIndex(of: "--batched-phase"), index + 4 < arguments.count,
        let mode = BatchedMode(rawValue: arguments[index + 1]), let n = Int(arguments[index + 2]),
        let batchSize = Int(arguments[index + 4])
    {
        guardMemory(limit: defaultMemoryLimit())
        try mode.run(n: n, path: arguments[index + 3], batchSize: batchSize)
    }
    if let index = arguments.firstIndex(of: "--merge-phase"), index + 3 < arguments.count,
        let phase = MergePhase(rawValue: arguments[index + 1]), let n = Int(arguments[index + 2])
    {
        guardMemory(limit: defaultMemoryLimit())
        try phase.run(n: n, folder: arguments[index + 3])
    }
    if let index = arguments.firstIndex(of: "--save-only"), index + 1 < arguments.count, let n = Int(arguments[index + 1]) {
        let (graph, _) = try buildGraph(n)
        try FileManager.default.createDirectory(atPath: benchFolder, withIntermediateDirectories: true)
        let start = now()
        try DocumentPackage(url: URL(fileURLWithPath: folioPath(n))).write(graph)
        print("seconds=\(now() - start)")
        exit(0)
    }
    if let index = arguments.firstIndex(of: "--context-only"), index + 2 < arguments.count {
        let repeats = index + 3 < arguments.count ? Int(arguments[index + 3]) ?? 1 : 1
        try contextOnly(path: arguments[index + 1], op: arguments[index + 2], repeats: max(1, repeats))
        exit(0)
    }
    if let index = arguments.firstIndex(of: "--context-build"), index + 2 < arguments.count,
        let n = Int(arguments[index + 1]), let big = Int(arguments[index + 2])
    {
        try contextBuildOnly(n: n, big: big)
        exit(0)
    }
    var runs = 3
    var sizes: [Int] = []
    var contextMode = false
    var modelsMode = false
    var uniqueMode = false
    var typedMode = false
    var indexMode = false
    var batchedMode = false
    var mergeMode = false
    var observerMode = false
    var batchSize = 5000
    var fixedCascade = 10_000
    var index = 0
    while index < arguments.count {
        if arguments[index] == "--runs", index + 1 < arguments.count, let value = Int(arguments[index + 1]) {
            runs = max(1, value)
            index += 2
            continue
        }
        if arguments[index] == "--cascade", index + 1 < arguments.count, let value = Int(arguments[index + 1]) {
            fixedCascade = max(1, value)
            index += 2
            continue
        }
        if arguments[index] == "--context" {
            contextMode = true
            index += 1
            continue
        }
        if arguments[index] == "--models" {
            modelsMode = true
            index += 1
            continue
        }
        if arguments[index] == "--typed" {
            typedMode = true
            index += 1
            continue
        }
        if arguments[index] == "--index" {
            indexMode = true
            index += 1
            continue
        }
        if arguments[index] == "--batched" {
            batchedMode = true
            index += 1
            continue
        }
        if arguments[index] == "--batch-size", index + 1 < arguments.count, let value = Int(arguments[index + 1]) {
            batchSize = value
            index += 2
            continue
        }
        if arguments[index] == "--observer" {
            observerMode = true
            index += 1
            continue
        }
        if arguments[index] == "--merge" {
            mergeMode = true
            index += 1
            continue
        }
        if arguments[index] == "--unique" {
            uniqueMode = true
            index += 1
            continue
        }
        guard let n = Int(arguments[index].replacingOccurrences(of: "_", with: "")), n > 0 else {
            fail(
                "usage: FolioBenchmarks [N ...] [--runs K] | --context [N ...] [--runs K] [--cascade K] | --models [N ...] [--runs K] | --unique [N ...] [--runs K] | --index [N ...] [--runs K] | --typed [N ...] [--runs K] | --batched [N ...] [--runs K] [--batch-size B] | --merge [N ...] [--runs K] | --observer [N ...] [--runs K] | --merge-phase PHASE N FOLDER | --batched-phase MODE N PATH B | --typed-phase PHASE N BIG PATH | --open-only PATH | --grdb-fetch-only PATH | --save-only N | --context-build N B | --context-only PATH OPERATION [REPEATS]"
            )
        }
        sizes.append(n)
        index += 1
    }
    if sizes.isEmpty { sizes = [100_000, 1_000_000] }
    if modelsMode {
        try runModelBenchmarks(sizes: sizes, runs: runs)
        exit(0)
    }
    if typedMode {
        try runTypedBenchmarks(sizes: sizes, runs: runs)
        exit(0)
    }
    if indexMode {
        try runIndexedFetchBenchmarks(sizes: sizes, runs: runs)
        exit(0)
    }
    if batchedMode {
        try runBatchedBenchmarks(sizes: sizes, runs: runs, batchSize: batchSize)
        exit(0)
    }
    if observerMode {
        try runObserverBenchmarks(sizes: sizes, runs: runs)
        exit(0)
    }
    if mergeMode {
        try runMergeBenchmarks(sizes: sizes, runs: runs)
        exit(0)
    }
    if uniqueMode {
        try runUniqueBenchmarks(sizes: sizes, runs: runs)
        exit(0)
    }
    if contextMode {
        try runContextBenchmarks(sizes: sizes, runs: runs, fixedCascade: fixedCascade)
        exit(0)
    }
    let (selfPath, floorBinary, loadBefore) = try prepareRun()
    var results: [Result] = []
    for n in sizes {
        results.append(try measure(n: n, runs: runs, floorBinary: floorBinary, selfPath: selfPath))
    }
    report(results, runs: runs, loadBefore: loadBefore)
} catch {
    fail("\(error)")
}
