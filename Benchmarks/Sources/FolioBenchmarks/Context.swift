// Editing-context benchmarks: delete with a cascade, undo, redo, save, deletion
// preview, and a fetch with a predicate and a sort, all through the public
// ModelContainer / ModelContext API; against a hand-written loop over plain
// Swift structs and against SQLite's ON DELETE CASCADE through GRDB.
//
//   swift run -c release FolioBenchmarks --context [N ...] [--runs K] [--cascade K]
//
// Workload ctx-N(B): zoo-N where category 0 holds B animals (animals 0..<B) and
// the other N - B animals are spread over the other N/1000 - 1 categories.
// B = N/10 by default ("10 %" variant); the fixed variant keeps B = 10 000
// (`--cascade`) while N grows, to show the cost follows what is deleted.
//
// For profiling one cycle of a prebuilt package (e.g. under perf or callgrind):
//   FolioBenchmarks --context-build N B         (build and save ctx-N with a B-animal big category)
//   FolioBenchmarks --context-only PATH.folio delete|undo|redo|preview|fetch|fetchnosort|save [REPEATS]

import Folio
import Foundation
import GRDB

// MARK: - Workload

struct ContextWorkload {
    var n: Int
    /// Animals in the big category (the cascade).
    var big: Int

    var categoryCount: Int { max(2, n / 1000) }

    /// The category index of animal `i`.
    func category(of i: Int) -> Int { i < big ? 0 : 1 + (i - big) % (categoryCount - 1) }

    var label: String { "zoo-\(groupedNumber(n)), \(groupedNumber(big)) cascade" }
    var path: String { big == n / 10 ? "\(benchFolder)/ctx-\(n).folio" : "\(benchFolder)/ctx-\(n)-cascade-\(big).folio" }
    var sqlitePath: String { big == n / 10 ? "\(benchFolder)/ctx-\(n).sqlite" : "\(benchFolder)/ctx-\(n)-cascade-\(big).sqlite" }
    var sqliteWorkPath: String { "\(benchFolder)/ctx-work.sqlite" }
}

func groupedNumber(_ value: Int) -> String {
    var digits = Array(String(value))
    var index = digits.count - 3
    while index > 0 {
        digits.insert(" ", at: index)
        index -= 3
    }
    return String(digits)
}

/// The animal as a plain struct, for the hand-written loop.
struct PlainAnimal {
    var name: String
    var age: Int64
    var weight: Double
    var born: Date
    var notes: String
    var categoryIndex: Int
}

func plainAnimals(_ workload: ContextWorkload) -> [PlainAnimal] {
    var animals: [PlainAnimal] = []
    animals.reserveCapacity(workload.n)
    for i in 0..<workload.n {
        animals.append(
            PlainAnimal(
                name: Zoo.name(i), age: Zoo.age(i), weight: Zoo.weight(i), born: Zoo.born(i),
                notes: Zoo.notes(i), categoryIndex: workload.category(of: i)))
    }
    return animals
}

/// The hand-written equivalent of `age >= 15 and weight < 500.0` sorted by age, then name descending.
@inline(never)
func handFilterSort(_ animals: [PlainAnimal]) -> [PlainAnimal] {
    animals.filter { $0.age >= 15 && $0.weight < 500.0 }
        .sorted { $0.age != $1.age ? $0.age < $1.age : $0.name > $1.name }
}

/// The same filter, unsorted.
@inline(never)
func handFilter(_ animals: [PlainAnimal]) -> [PlainAnimal] {
    animals.filter { $0.age >= 15 && $0.weight < 500.0 }
}

let contextPredicateText = "age >= 15 and weight < 500.0"

func contextDescriptor(sorted: Bool) throws -> DynamicFetchDescriptor {
    DynamicFetchDescriptor(
        entity: "Animal", predicate: try ObjectPredicate(contextPredicateText),
        sortBy: sorted ? [.init("age"), .init("name", ascending: false)] : [])
}

// MARK: - Results

struct Timing {
    var all: [Double] = []
    var best: Double { all.min() ?? .nan }
    var first: Double { all.first ?? .nan }
    var last: Double { all.last ?? .nan }
    var median: Double { all.isEmpty ? .nan : all.sorted()[all.count / 2] }
    mutating func time<T>(_ body: () throws -> T) rethrows -> T {
        let start = now()
        let result = try body()
        all.append(now() - start)
        return result
    }
}

struct ContextResult {
    var workload: ContextWorkload
    var open = 0.0
    var preview = Timing()
    var delete = Timing()
    var undo = Timing()
    var redo = Timing()
    var save = 0.0
    var fetchSorted = Timing()
    var fetchUnsorted = Timing()
    var handSorted = Timing()
    var handUnsorted = Timing()
    var matches = 0
    var grdbDelete = Timing()
    var grdbFetchSorted = Timing()
    var foreignKeys = ""
    /// How reopening the saved package went: "yes" or the error.
    var reopen = ""
}

// MARK: - One workload

func ms(_ value: Double) -> String {
    value.isNaN ? "–" : value < 0.01 ? String(format: "%.2f ms", value * 1000) : value < 0.1 ? String(format: "%.1f ms", value * 1000) : seconds(value)
}

func measureContext(_ workload: ContextWorkload, runs: Int) throws -> ContextResult {
    var result = ContextResult(workload: workload)
    let n = workload.n
    let categoryCount = workload.categoryCount
    log("\(workload.label): building and saving \(workload.path)")
    do {
        let graph = try workload.graph()
        removeItem(workload.path)
        try DocumentPackage(url: URL(fileURLWithPath: workload.path)).write(graph)
    }

    // Plain structs for the hand loop, and the same rows in SQLite.
    let plain = plainAnimals(workload)
    log("  building \(workload.sqlitePath)")
    do {
        let (categories, animals) = workload.rows()
        let queue = try createDatabase(workload.sqlitePath)
        try insertRows(queue, categories, animals)
        try queue.close()
    }

    // Folio: open through the public API.
    let url = URL(fileURLWithPath: workload.path)
    var start = now()
    let container = try ModelContainer(contentsOf: url)
    let context = ModelContext(container)
    result.open = now() - start
    let undoManager = UndoManager()
    context.undoManager = undoManager
    log("  open (ModelContainer + ModelContext) \(seconds(result.open))")

    let bigIDs = try context.fetchIdentifiers(
        DynamicFetchDescriptor(
            entity: "AnimalCategory", predicate: try ObjectPredicate("name == '\(Zoo.categoryName(0))'")))
    guard bigIDs.count == 1 else { fail("expected one big category, found \(bigIDs.count)") }
    let big = bigIDs[0]
    guard try context.related("animals", of: big).count == workload.big else { fail("the big category has the wrong size") }
    func animalCount() throws -> Int { try context.fetchCount(DynamicFetchDescriptor(entity: "Animal")) }

    // Fetch with predicate and sort, and the hand loop over structs.
    let sortedDescriptor = try contextDescriptor(sorted: true)
    let unsortedDescriptor = try contextDescriptor(sorted: false)
    var fetched: [PersistentIdentifier] = []
    var handResult: [PlainAnimal] = []
    for _ in 0..<runs {
        fetched = try result.fetchSorted.time { try context.fetchIdentifiers(sortedDescriptor) }
        handResult = result.handSorted.time { handFilterSort(plain) }
        let unsorted = try result.fetchUnsorted.time { try context.fetchIdentifiers(unsortedDescriptor) }
        let handUnsorted = result.handUnsorted.time { handFilter(plain) }
        guard unsorted.count == handUnsorted.count else { fail("unsorted fetch: \(unsorted.count) vs \(handUnsorted.count)") }
    }
    // Same objects, same order: animal i has id C + 1 + i and name "Animal i+1".
    guard fetched.count == handResult.count else { fail("fetch found \(fetched.count), hand loop \(handResult.count)") }
    for (id, animal) in zip(fetched, handResult) where Zoo.name(Int(id.id) - categoryCount - 1) != animal.name {
        fail("fetch and hand loop disagree at \(id): \(animal.name)")
    }
    result.matches = fetched.count
    fetched = []
    handResult = []
    log(
        "  fetch (predicate + sort) \(ms(result.fetchSorted.best)) vs hand loop \(ms(result.handSorted.best)); without sort \(ms(result.fetchUnsorted.best)) vs \(ms(result.handUnsorted.best)); \(result.matches) matches"
    )

    // Deletion preview (reads only).
    for _ in 0..<runs {
        let preview = try result.preview.time { try context.deletionPreview(for: [big]) }
        guard preview.deleted.count == workload.big + 1, preview.cascaded.count == workload.big else {
            fail("preview: \(preview.summary)")
        }
    }
    log("  deletionPreview \(ms(result.preview.best))")

    // delete → undo → redo (→ undo), each timed; the last redo is followed by the save.
    for run in 0..<runs {
        try result.delete.time {
            try context.delete(big)
            context.processPendingChanges()
        }
        guard try animalCount() == n - workload.big, !context.contains(big) else { fail("delete did not cascade") }
        result.undo.time { undoManager.undo() }
        guard try animalCount() == n, context.contains(big) else { fail("undo did not restore") }
        result.redo.time { undoManager.redo() }
        guard try animalCount() == n - workload.big, !context.contains(big) else { fail("redo did not delete") }
        if run < runs - 1 {
            result.undo.time { undoManager.undo() }
            guard try animalCount() == n else { fail("undo after redo did not restore") }
        }
    }
    start = now()
    try context.save()
    result.save = now() - start
    log(
        "  delete \(ms(result.delete.best)) (first \(ms(result.delete.first))), undo \(ms(result.undo.best)) (first \(ms(result.undo.first))), redo \(ms(result.redo.best)) (first \(ms(result.redo.first))), save \(ms(result.save))"
    )
    // The saved package must reopen with what the context held (untimed).
    do {
        let saved = try DocumentPackage(url: url).read()
        let expected = n + categoryCount - workload.big - 1
        result.reopen = saved.count == expected ? "yes" : "\(saved.count) objects, expected \(expected)"
    } catch {
        result.reopen = "\(error)"
        log("  the saved package does not reopen: \(error)")
    }
    withExtendedLifetime((container, context)) {}

    // GRDB: DELETE FROM category WHERE id = ? with ON DELETE CASCADE, from a fresh copy each time.
    for _ in 0..<runs {
        result.grdbDelete.all.append(try grdbCascadeDelete(workload, category: Int64(big.id)))
    }
    result.foreignKeys = "1"
    // For reference: the same filter and sort in SQL (no index on age or name).
    do {
        removeDatabase(workload.sqliteWorkPath)
        let queue = try DatabaseQueue(path: workload.sqlitePath)
        for _ in 0..<runs {
            let ids = try result.grdbFetchSorted.time {
                try queue.read { db in
                    try Int64.fetchAll(db, sql: "SELECT id FROM animal WHERE age >= 15 AND weight < 500.0 ORDER BY age, name DESC")
                }
            }
            guard ids.count == result.matches else { fail("SQL found \(ids.count) rows, Folio \(result.matches)") }
        }
        try queue.close()
    }
    log("  GRDB cascade delete \(ms(result.grdbDelete.best)); SQL filter + sort \(ms(result.grdbFetchSorted.best))")
    return result
}

/// SQLite's cascade on a fresh copy of the workload's database: `DELETE FROM
/// category WHERE id = ?` with `ON DELETE CASCADE`, commit included; checks that
/// foreign keys are on (GRDB's default) and that the animals went. Returns the seconds.
func grdbCascadeDelete(_ workload: ContextWorkload, category: Int64) throws -> Double {
    removeDatabase(workload.sqliteWorkPath)
    try copyWorkInput(from: workload.sqlitePath, to: workload.sqliteWorkPath)
    let queue = try DatabaseQueue(path: workload.sqliteWorkPath)
    defer { try? queue.close() }
    let foreignKeys = try queue.read { db in try Int.fetchOne(db, sql: "PRAGMA foreign_keys") }
    guard foreignKeys == 1 else { fail("PRAGMA foreign_keys is \(foreignKeys.map(String.init) ?? "nil")") }
    func animalCount() throws -> Int? { try queue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM animal") } }
    guard try animalCount() == workload.n else { fail("the copy of \(workload.sqlitePath) is wrong") }
    let start = now()
    try queue.write { db in try db.execute(sql: "DELETE FROM category WHERE id = ?", arguments: [category]) }
    let elapsed = now() - start
    guard try animalCount() == workload.n - workload.big else { fail("SQLite did not cascade") }
    return elapsed
}

// MARK: - Report

func reportContext(_ results: [ContextResult], runs: Int, loadBefore: String) {
    func row(_ label: String, _ cell: (ContextResult) -> String) -> String {
        "| \(label) | " + results.map(cell).joined(separator: " | ") + " |"
    }
    func ratio(_ a: Double, _ b: Double) -> String { String(format: "%.2f×", a / b) }
    print("")
    print("editing-context benchmark: Folio \(folioRevision()), SQLite \(sqliteVersion()), \(ProcessInfo.processInfo.activeProcessorCount) cores")
    print("times are best of \(runs) (first run in parentheses where it differs in kind); load average before \(loadBefore), after \(loadAverage())")
    print("")
    print("| | " + results.map { $0.workload.label }.joined(separator: " | ") + " |")
    print("|---|" + results.map { _ in "---:|" }.joined())
    print(row("open: ModelContainer(contentsOf:) + ModelContext (not a target)") { seconds($0.open) })
    print(row("**delete** big category, cascade (+ processPendingChanges)") { "**\(ms($0.delete.best))** (first \(ms($0.delete.first)))" })
    print(row("**undo** of the delete") { "**\(ms($0.undo.best))** (first \(ms($0.undo.first)))" })
    print(row("**redo** of the delete") { "**\(ms($0.redo.best))** (first \(ms($0.redo.first)))" })
    print(row("deletionPreview(for: [big])") { ms($0.preview.best) })
    print(row("save after the redo (writes the package)") { seconds($0.save) })
    print(row("GRDB: DELETE FROM category WHERE id = ? (ON DELETE CASCADE, commit incl., no undo)") { ms($0.grdbDelete.best) })
    print(row("delete / GRDB cascade") { ratio($0.delete.best, $0.grdbDelete.best) })
    print(row("undo / GRDB cascade") { ratio($0.undo.best, $0.grdbDelete.best) })
    print(row("redo / GRDB cascade") { ratio($0.redo.best, $0.grdbDelete.best) })
    print(row("matches of `\(contextPredicateText)`") { groupedNumber($0.matches) })
    print(row("**fetch**: predicate + sort (age, name desc) → identifiers") { "**\(ms($0.fetchSorted.best))**" })
    print(row("hand loop: [struct].filter.sorted") { ms($0.handSorted.best) })
    print(row("**fetch / hand loop**") { "**" + ratio($0.fetchSorted.best, $0.handSorted.best) + "**" })
    print(row("fetch without sort") { ms($0.fetchUnsorted.best) })
    print(row("hand loop: [struct].filter") { ms($0.handUnsorted.best) })
    print(row("fetch / hand loop, without sort") { ratio($0.fetchUnsorted.best, $0.handUnsorted.best) })
    print(row("GRDB: SELECT id … WHERE … ORDER BY … (reference)") { ms($0.grdbFetchSorted.best) })
    print(row("PRAGMA foreign_keys (GRDB default)") { $0.foreignKeys })
    print(row("saved package reopens (DocumentPackage.read)") { $0.reopen == "yes" ? "yes" : "**NO** (below)" })
    for result in results where result.reopen != "yes" {
        print("")
        print("\(result.workload.label): the package saved after the redo does not reopen: \(result.reopen)")
    }
    print("")
    print("| target | " + results.map { $0.workload.label }.joined(separator: " | ") + " |")
    print("|---|" + results.map { _ in "---|" }.joined())
    func limit(_ value: Double, _ bound: Double) -> String { ms(value) + (value <= bound ? " met" : " NOT met") }
    print(row("delete ≤ 100 ms") { limit($0.delete.best, 0.1) })
    print(row("undo ≤ 100 ms") { limit($0.undo.best, 0.1) })
    print(row("redo ≤ 100 ms") { limit($0.redo.best, 0.1) })
    print(
        row("fetch ≤ 2× hand loop") {
            let r = $0.fetchSorted.best / $0.handSorted.best
            return String(format: "%.2f×", r) + (r <= 2 ? " met" : " NOT met")
        })
    // Independence of document size: the same cascade at different N.
    var byCascade: [Int: [ContextResult]] = [:]
    for result in results { byCascade[result.workload.big, default: []].append(result) }
    for (cascade, group) in byCascade.sorted(by: { $0.key < $1.key }) where group.count > 1 {
        let sorted = group.sorted { $0.workload.n < $1.workload.n }
        let (small, large) = (sorted.first!, sorted.last!)
        let growth = Double(large.workload.n) / Double(small.workload.n)
        func line(_ name: String, _ value: (ContextResult) -> Double) {
            let r = value(large) / value(small)
            print(
                "\(name) of a \(groupedNumber(cascade)) cascade: \(ms(value(small))) at zoo-\(groupedNumber(small.workload.n)), \(ms(value(large))) at zoo-\(groupedNumber(large.workload.n)) → \(String(format: "%.2f×", r)) for \(String(format: "%.0f×", growth)) the document"
                    + (r <= 1.5 ? " (independent of document size: met)" : " (NOT independent)"))
        }
        print("")
        line("delete", { $0.delete.best })
        line("undo", { $0.undo.best })
        line("redo", { $0.redo.best })
        line("deletionPreview", { $0.preview.best })
    }
}

// MARK: - Entry points

func runContextBenchmarks(sizes: [Int], runs: Int, fixedCascade: Int) throws {
    try FileManager.default.createDirectory(atPath: benchFolder, withIntermediateDirectories: true)
    let loadBefore = loadAverage()
    var workloads = sizes.map { ContextWorkload(n: $0, big: $0 / 10) }
    for n in sizes where n / 10 != fixedCascade && fixedCascade < n {
        workloads.append(ContextWorkload(n: n, big: fixedCascade))
    }
    var results: [ContextResult] = []
    for workload in workloads { results.append(try measureContext(workload, runs: runs)) }
    removeDatabase(workloads[0].sqliteWorkPath)
    reportContext(results, runs: runs, loadBefore: loadBefore)
}

/// Profiling mode: build ctx-N(B) and save it (to the path the benchmark uses), nothing else.
func contextBuildOnly(n: Int, big: Int) throws {
    try FileManager.default.createDirectory(atPath: benchFolder, withIntermediateDirectories: true)
    let workload = ContextWorkload(n: n, big: big)
    let graph = try workload.graph()
    removeItem(workload.path)
    try DocumentPackage(url: URL(fileURLWithPath: workload.path)).write(graph)
    print("path=\(workload.path)")
}

/// Profiling mode: open a ctx package and run one operation `repeats` times (with
/// the untimed steps it needs in between), printing the best time of that operation.
/// The package is not changed unless `op` is `save`.
func contextOnly(path: String, op: String, repeats: Int) throws {
    // `edit-save-journal` keeps an undo journal (issue 34); `edit-save` is the same without one.
    // `edit-autosave-journal` likewise against `edit-autosave`, `save-journal` against `save`, and
    // `cascade-edit-save-journal` against `cascade-edit-save`.
    let journal: UndoJournalLimits? = op.hasSuffix("-journal") ? .standard : nil
    let container = try ModelContainer(contentsOf: URL(fileURLWithPath: path), undoJournal: journal)
    let context = ModelContext(container)
    let undoManager = UndoManager()
    context.undoManager = undoManager
    let big = try context.fetchIdentifiers(
        DynamicFetchDescriptor(
            entity: "AnimalCategory", predicate: try ObjectPredicate("name == '\(Zoo.categoryName(0))'")))[0]
    var animal = try context.fetchIdentifiers(DynamicFetchDescriptor(entity: "Animal", fetchLimit: 1))[0]
    var timing = Timing()
    for repeat_ in 0..<repeats {
        switch op {
        case "preview": _ = try timing.time { try context.deletionPreview(for: [big]) }
        case "fetch": _ = try timing.time { try context.fetchIdentifiers(try contextDescriptor(sorted: true)) }
        case "fetchnosort": _ = try timing.time { try context.fetchIdentifiers(try contextDescriptor(sorted: false)) }
        case "delete":
            try timing.time {
                try context.delete(big); context.processPendingChanges()
            }
            undoManager.undo()
        case "undo":
            try context.delete(big); context.processPendingChanges()
            timing.time { undoManager.undo() }
        case "redo":
            try context.delete(big); context.processPendingChanges()
            undoManager.undo()
            timing.time { undoManager.redo() }
            undoManager.undo()
        case "save", "save-journal":
            // The cascade, then the save that writes it (with the journal: a step of the whole cascade).
            try context.delete(big); context.processPendingChanges()
            try timing.time { try context.save() }
        case "cascade-edit-save", "cascade-edit-save-journal", "edit-save", "edit-save-journal":
            // One step, then the save that writes it (and, with the journal, every step kept so far);
            // `cascade-…` deletes the big category and saves first, untimed, so a cascade's step is
            // among those kept.
            if repeat_ == 0, op.hasPrefix("cascade-") {
                try context.delete(big)
                context.processPendingChanges()
                try context.save()
                animal = try context.fetchIdentifiers(DynamicFetchDescriptor(entity: "Animal", fetchLimit: 1))[0]
            }
            try context.setValue(.int(Int64(1_000 + repeat_)), for: "age", of: animal)
            context.processPendingChanges()
            try timing.time { try context.save() }
        case "edit-autosave", "edit-autosave-journal":
            // One step, then the autosave: what the editing thread pays (the package's and the
            // journal's writes run on the background writer). The untimed save waits for them.
            context.autosaveEnabled = true
            try context.setValue(.int(Int64(1_000 + repeat_)), for: "age", of: animal)
            timing.time { context.processPendingChanges() }
            try context.save()
        default: fail("unknown operation \(op)")
        }
    }
    let journalFile = URL(fileURLWithPath: path).appendingPathComponent(DocumentPackage.undoJournalFileName).path
    let journalBytes = (try? FileManager.default.attributesOfItem(atPath: journalFile)[.size] as? Int) ?? 0
    print(
        "op=\(op) best_seconds=\(timing.best) first_seconds=\(timing.first)",
        "median_seconds=\(timing.median) last_seconds=\(timing.last) journal_bytes=\(journalBytes)")
    exit(0)
}
