import Folio
import Foundation
import GRDB

// The phases of the typed-layer benchmark (TypedBenchmark.swift), each run in
// a fresh child process of this binary:
//   FolioBenchmarks --typed-phase PHASE N BIG PATH
// BIG = 0 is zoo-N; otherwise category 1 holds BIG animals (ContextWorkload).
// Typed phases use the API as SwiftData users write it: a container made
// `for:` the @Model classes with `ModelConfiguration(url:)`, its `mainContext`
// with its defaults (autosave on); dynamic phases use `ModelContext(container)`
// with its defaults (autosave off, no undo manager); the engine phase builds the
// ObjectGraph directly and writes it with DocumentPackage (no context: the
// issue's "dynamic insert ~1.3 µs/object"); GRDB phases the same rows. Every
// insert phase, GRDB's included, starts from those rows made before its clock
// starts, and counts memory beyond them: making the input is no one's insert.

enum TypedPhase: String, CaseIterable {
    case insertTyped = "insert-typed"
    case insertDynamic = "insert-dynamic"
    case insertEngine = "insert-engine"
    case insertGRDB = "insert-grdb"
    case openTyped = "open-typed"
    case openDynamic = "open-dynamic"
    case openGRDB = "open-grdb"
    case cascadeTyped = "cascade-typed"
    case cascadeDynamic = "cascade-dynamic"
    case cascadeGRDB = "cascade-grdb"
    case editTyped = "edit-typed"
    case editDynamic = "edit-dynamic"
    case editGRDB = "edit-grdb"

    /// Edits measured after the first, in the same process, for a steady figure.
    static let repeatedEdits = 3

    /// The child's command line.
    func arguments(n: Int, big: Int, path: String) -> [String] {
        ["--typed-phase", rawValue, String(n), String(big), path]
    }

    static func shape(n: Int, big: Int) -> any ZooShape {
        big == 0 ? UniformZoo(n: n) : ContextWorkload(n: n, big: big)
    }

    /// Runs the phase and ends the process, printing its figures (seconds, or
    /// nanoseconds for `*_ns`) and memory. Checks what it fetches, reads and
    /// deletes (counts, sums); the saved packages are checked by the phases that open them.
    @MainActor
    func run(n: Int, big: Int, path: String) throws -> Never {
        let shape = Self.shape(n: n, big: big)
        let url = URL(fileURLWithPath: path)
        var recorder = PhaseRecorder()
        switch self {
        case .insertTyped:
            removeItem(path)
            let container = try ModelContainer(
                for: Animal.self, AnimalCategory.self,
                configurations: ModelConfiguration(url: url))
            let context = container.mainContext
            let rows = shape.rows()
            recorder = PhaseRecorder()  // memory beyond the input rows, as GRDB's
            recorder.time("insert") { shape.insertTyped(into: context, rows: rows) }
            try recorder.time("save") { try context.save() }
            recorder.finish(keeping: container)
        case .insertDynamic:
            removeItem(path)
            let container = try ModelContainer(for: try Zoo.schema(), configurations: ModelConfiguration(url: url))
            let context = ModelContext(container)
            let rows = shape.rows()
            recorder = PhaseRecorder()
            try recorder.time("insert") { try shape.insertDynamic(into: context, rows: rows) }
            try recorder.time("save") { try context.save() }
            recorder.finish(keeping: (container, context))
        case .insertEngine:
            removeItem(path)
            let rows = shape.rows()
            recorder = PhaseRecorder()
            let graph = try recorder.time("insert") { try shape.graph(rows: rows) }
            try recorder.time("save") { try DocumentPackage(url: url).write(graph) }
            recorder.finish(keeping: graph)
        case .insertGRDB:
            let (categories, animals) = shape.rows()
            recorder = PhaseRecorder()  // memory beyond the input rows
            let queue = try createDatabase(path)
            try recorder.time("save") { try insertRows(queue, categories, animals) }
            try queue.close()
            recorder.finish(keeping: (categories, animals))
        case .openTyped:
            try measureTypedOpen(shape, url, &recorder)
        case .openDynamic:
            try measureDynamicOpen(shape, url, &recorder)
        case .openGRDB:
            let (categories, animals) = try recorder.time("total") { try fetchRows(try DatabaseQueue(path: path)) }
            guard categories.count == shape.categoryCount, animals.count == shape.n else { fail("GRDB fetched the wrong count") }
            recorder.finish(keeping: (categories, animals))
        case .cascadeTyped, .cascadeDynamic:
            guard let workload = shape as? ContextWorkload else { fail("\(rawValue) needs BIG > 0") }
            try cascade(workload, package: path, typed: self == .cascadeTyped, &recorder)
        case .cascadeGRDB:
            guard let workload = shape as? ContextWorkload else { fail("\(rawValue) needs BIG > 0") }
            // Categories are inserted first, so the big one (index 0) has id 1.
            recorder.record("delete", try grdbCascadeDelete(workload, category: 1))
            recorder.finish()
        case .editTyped:
            let container = try ModelContainer(
                for: Animal.self, AnimalCategory.self,
                configurations: ModelConfiguration(url: url))
            let context = container.mainContext
            var descriptor = FetchDescriptor<Animal>()
            descriptor.fetchLimit = 1
            guard let animal = try context.fetch(descriptor).first else { fail("no animal in \(path)") }
            try timeEdits(&recorder) {
                animal.age += 1
                try context.save()
            }
            recorder.finish(keeping: container)
        case .editDynamic:
            let context = ModelContext(try ModelContainer(contentsOf: url))
            var descriptor = DynamicFetchDescriptor(entity: "Animal")
            descriptor.fetchLimit = 1
            guard let animal = try context.fetchIdentifiers(descriptor).first,
                case .int(var age) = try context.value("age", of: animal)
            else { fail("no animal in \(path)") }
            try timeEdits(&recorder) {
                age += 1
                try context.setValue(.int(age), for: "age", of: animal)
                try context.save()
            }
            recorder.finish(keeping: context)
        case .editGRDB:
            let queue = try DatabaseQueue(path: path)
            let id = Int64(shape.categoryCount + 1)
            try timeEdits(&recorder) {
                try queue.write { db in try db.execute(sql: "UPDATE animal SET age = age + 1 WHERE id = ?", arguments: [id]) }
            }
            try queue.close()
            recorder.finish()
        }
    }
}

/// An edit and its save (or commit): the first in this process as `save`, the
/// best of the next ones as `save_again`.
private func timeEdits(_ recorder: inout PhaseRecorder, _ edit: () throws -> Void) throws {
    try recorder.time("save", edit)
    var again = Timing()
    for _ in 0..<TypedPhase.repeatedEdits { try again.time(edit) }
    recorder.record("save_again", again.best)
}

/// Open a saved zoo, fetch every animal as a model, read its name, age and
/// category; then the reads alone, per read, on the fetched models.
@MainActor
private func measureTypedOpen(_ shape: some ZooShape, _ url: URL, _ recorder: inout PhaseRecorder) throws -> Never {
    let start = now()
    let container = try recorder.time("open") {
        try ModelContainer(for: Animal.self, AnimalCategory.self, configurations: ModelConfiguration(url: url))
    }
    let context = container.mainContext
    let animals = try recorder.time("fetch") { try context.fetch(FetchDescriptor<Animal>()) }
    var (ages, nameBytes, linked) = (0, 0, 0)
    recorder.time("read") {
        for animal in animals {
            ages &+= animal.age
            nameBytes &+= animal.name.utf8.count
            if animal.category != nil { linked += 1 }
        }
    }
    recorder.record("total", now() - start)
    guard animals.count == shape.n, linked == shape.n, ages == expectedAgeSum(shape.n) else {
        fail("typed open: \(animals.count) animals, \(linked) linked, age sum \(ages)")
    }
    // Under a profiler, the open, fetch and first read alone.
    if ProcessInfo.processInfo.environment["FOLIO_BENCH_FIRST_READ_ONLY"] != nil { recorder.finish(keeping: (container, animals)) }
    let scalar = bestPerRead(animals.count) {
        var sum = 0
        for animal in animals { sum &+= animal.age }
        return sum == ages
    }
    let toOne = bestPerRead(animals.count) {
        var count = 0
        for animal in animals where animal.category != nil { count += 1 }
        return count == linked
    }
    recorder.record("read_scalar_ns", scalar)
    recorder.record("read_to_one_ns", toOne)
    withExtendedLifetime(nameBytes) {}
    recorder.finish(keeping: (container, animals))
}

/// The same through the dynamic API: open, `fetchIdentifiers`, `value` and `related`.
@MainActor
private func measureDynamicOpen(_ shape: some ZooShape, _ url: URL, _ recorder: inout PhaseRecorder) throws -> Never {
    let start = now()
    let context = try recorder.time("open") { ModelContext(try ModelContainer(contentsOf: url)) }
    let ids = try recorder.time("fetch") { try context.fetchIdentifiers(DynamicFetchDescriptor(entity: "Animal")) }
    var (ages, nameBytes, linked) = (0, 0, 0)
    try recorder.time("read") {
        for id in ids {
            guard case .int(let age) = try context.value("age", of: id),
                case .string(let name) = try context.value("name", of: id)
            else { fail("wrong value types") }
            ages &+= Int(age)
            nameBytes &+= name.utf8.count
            if try !context.related("category", of: id).isEmpty { linked += 1 }
        }
    }
    recorder.record("total", now() - start)
    guard ids.count == shape.n, linked == shape.n, ages == expectedAgeSum(shape.n) else {
        fail("dynamic open: \(ids.count) animals, \(linked) linked, age sum \(ages)")
    }
    let scalar = bestPerRead(ids.count) {
        var sum = 0
        for id in ids { if case .int(let age)? = try? context.value("age", of: id) { sum &+= Int(age) } }
        return sum == ages
    }
    let toOne = bestPerRead(ids.count) {
        var count = 0
        for id in ids where (try? context.related("category", of: id).isEmpty) == false { count += 1 }
        return count == linked
    }
    recorder.record("read_scalar_ns", scalar)
    recorder.record("read_to_one_ns", toOne)
    withExtendedLifetime(nameBytes) {}
    recorder.finish(keeping: (context, ids))
}

/// Σ age over zoo-N.
private func expectedAgeSum(_ n: Int) -> Int { (0..<n).reduce(0) { $0 + Int(Zoo.age($1)) } }

/// Nanoseconds per read: the best of three passes of `pass` over `count` objects
/// (`pass` returns whether it read what the timed read did).
private func bestPerRead(_ count: Int, _ pass: () -> Bool) -> Double {
    var timing = Timing()
    for _ in 0..<3 {
        guard timing.time(pass) else { fail("a read pass disagrees with the first read") }
    }
    return timing.best / Double(max(1, count)) * 1e9
}

/// Delete the big category (cascading to its animals) and process the pending
/// changes, undo, redo, on a fresh copy of the package: typed through
/// `mainContext` with autosave on (its default; the autosave is part of the
/// delete), dynamic through `ModelContext(container)` (autosave off). Both get
/// an explicit `UndoManager`.
@MainActor
private func cascade(
    _ workload: ContextWorkload, package: String, typed: Bool,
    _ recorder: inout PhaseRecorder
) throws -> Never {
    let work = "\(benchFolder)/cascade-work.folio"
    try copyWorkInput(from: package, to: work)
    let url = URL(fileURLWithPath: work)
    let bigName = Zoo.categoryName(0)
    let expected = (all: workload.n, afterDelete: workload.n - workload.big)
    let count: () throws -> Int
    let delete: () throws -> Void
    let undoManager = UndoManager()
    let kept: Any
    if typed {
        let container = try recorder.time("open") {
            try ModelContainer(for: Animal.self, AnimalCategory.self, configurations: ModelConfiguration(url: url))
        }
        let context = container.mainContext
        context.undoManager = undoManager
        guard let big = try context.fetch(FetchDescriptor<AnimalCategory>(predicate: #Predicate { $0.name == bigName })).first
        else { fail("no category \(bigName)") }
        count = { try context.fetchCount(FetchDescriptor<Animal>()) }
        delete = {
            context.delete(big)
            context.processPendingChanges()
        }
        kept = (container, big)
    } else {
        let context = try recorder.time("open") { ModelContext(try ModelContainer(contentsOf: url)) }
        context.undoManager = undoManager
        guard
            let big = try context.fetchIdentifiers(
                DynamicFetchDescriptor(
                    entity: "AnimalCategory", predicate: try ObjectPredicate("name == '\(bigName)'"))
            ).first
        else { fail("no category \(bigName)") }
        count = { try context.fetchCount(DynamicFetchDescriptor(entity: "Animal")) }
        delete = {
            try context.delete(big)
            context.processPendingChanges()
        }
        kept = context
    }
    guard try count() == expected.all else { fail("the cascade workload has the wrong size") }
    try recorder.time("delete", delete)
    guard try count() == expected.afterDelete else { fail("delete did not cascade") }
    recorder.time("undo") { undoManager.undo() }
    guard try count() == expected.all else { fail("undo did not restore the cascade") }
    recorder.time("redo") { undoManager.redo() }
    guard try count() == expected.afterDelete else { fail("redo did not delete") }
    // The same delete again, the code paths warm: what a first delete in a
    // fresh process pays once (lazy metadata, first allocations) is left out,
    // while the copy-on-write copies of the columns the autosave shared with
    // the saved state are paid again.
    undoManager.undo()
    guard try count() == expected.all else { fail("undo did not restore the cascade") }
    try recorder.time("delete_again", delete)
    guard try count() == expected.afterDelete else { fail("delete did not cascade") }
    recorder.finish(keeping: kept)
}
