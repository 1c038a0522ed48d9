import Folio
import Foundation

// A ResultsObserver over N animals (issue 32, item 7): the time it takes to
// bring its results up to date after a change to one object, against a full
// refetch of the same descriptor after the same kind of change:
//   swift run -c release FolioBenchmarks --observer [N ...] [--runs K]
// In memory (the package's write is not what is measured), through the main
// context, as an app keeps a list up to date. Each row is the median and best
// of `runs` × 50 one-object changes:
// - "one-object save": another context edits one animal's age (so that it
//   enters or leaves the results) and saves; then the observer's results are
//   read (which merges the save and moves that one object) — against a
//   refetch of the descriptor after such a save (which merges it too);
// - "one-object edit": the main context edits one animal; then the results
//   are read — against a refetch after such an edit.

struct ObserverResult {
    var n: Int
    var matches = 0
    var firstFetch = 0.0
    var observedSave = Timing()
    var refetchSave = Timing()
    var observedEdit = Timing()
    var refetchEdit = Timing()
}

@MainActor
func runObserverBenchmarks(sizes: [Int], runs: Int) throws {
    let loadBefore = loadAverage()
    var results: [ObserverResult] = []
    for n in sizes { results.append(try measureObserver(n: n, runs: runs)) }
    func milli(_ value: Double) -> String {
        value < 0.001 ? String(format: "%.1f µs", value * 1e6) : String(format: "%.2f ms", value * 1000)
    }
    func median(_ timing: Timing) -> Double {
        let sorted = timing.all.sorted()
        return sorted.isEmpty ? .nan : sorted[sorted.count / 2]
    }
    print("")
    print(
        "ResultsObserver: update after a one-object change vs a refetch (in memory, `age >= N/2` sorted by name;"
            + " median and best of \(runs) × 50; load average before: \(loadBefore))")
    print("| animals | results | first fetch | change | observer update, median | best | refetch, median | best | refetch / update |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in results {
        for (name, observed, refetch) in [
            ("one-object save by another context", r.observedSave, r.refetchSave),
            ("one-object edit in the observed context", r.observedEdit, r.refetchEdit),
        ] {
            print(
                "| \(groupedNumber(r.n)) | \(groupedNumber(r.matches)) | \(milli(r.firstFetch)) | \(name) | "
                    + "\(milli(median(observed))) | \(milli(observed.best)) | \(milli(median(refetch))) | \(milli(refetch.best)) | "
                    + String(format: "%.0f×", median(refetch) / median(observed)) + " |")
        }
    }
}

@MainActor
private func measureObserver(n: Int, runs: Int) throws -> ObserverResult {
    var result = ObserverResult(n: n)
    log("observer-\(groupedNumber(n)): build")
    let container = try ModelContainer(for: Animal.self, AnimalCategory.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
    let context = container.mainContext
    context.autosaveEnabled = false
    for i in 0..<n {
        context.insert(Animal(name: "animal\((i &* 7_919) % n)", age: i % n, weight: Double(i % 1000), born: .distantPast, notes: ""))
    }
    try context.save()
    let threshold = n / 2
    let descriptor = FetchDescriptor<Animal>(predicate: #Predicate { $0.age >= threshold }, sortBy: [SortDescriptor(\.name)])
    let start = now()
    let observer = try ResultsObserver<Animal, Never>(fetchDescriptor: descriptor, modelContext: context)
    result.matches = observer.results.count
    result.firstFetch = now() - start
    let other = ModelContext(container)
    let othersAnimals = try other.fetch(FetchDescriptor<Animal>())
    let mainAnimals = try context.fetch(FetchDescriptor<Animal>())
    var generator = SystemRandomNumberGenerator()
    /// Moves one animal across the threshold: in if it was out, out if it was in.
    func flip(_ animal: Animal) { animal.age = animal.age >= threshold ? 0 : n }
    log("observer-\(groupedNumber(n)): measure")
    for _ in 0..<runs {
        for _ in 0..<50 {
            flip(othersAnimals[Int.random(in: 0..<n, using: &generator)])
            try other.save()
            let count = result.observedSave.time { observer.results.count }
            flip(othersAnimals[Int.random(in: 0..<n, using: &generator)])
            try other.save()
            let fetched = try result.refetchSave.time { try context.fetchIdentifiers(descriptor) }
            guard abs(count - fetched.count) <= 1 else { fail("observer has \(count) results, a fetch \(fetched.count)") }

            flip(mainAnimals[Int.random(in: 0..<n, using: &generator)])
            _ = result.observedEdit.time { observer.results.count }
            flip(mainAnimals[Int.random(in: 0..<n, using: &generator)])
            _ = try result.refetchEdit.time { try context.fetchIdentifiers(descriptor) }
        }
    }
    guard observer.results.map(\.persistentModelID) == (try context.fetchIdentifiers(descriptor)) else {
        fail("the observer's results differ from a fetch")
    }
    return result
}
