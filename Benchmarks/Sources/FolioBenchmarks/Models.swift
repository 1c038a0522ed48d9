import Folio

// The typed layer against the dynamic API it is a view over, on the same zoo:
//   swift run -c release FolioBenchmarks --models [N ...] [--runs K]
// Both paths edit the same graph through the same context code, so the ratios
// measure what @Model adds: materializing instances, Value ↔ Swift conversions,
// and Foundation's #Predicate and SortDescriptor evaluated on models.

@Model
final class AnimalCategory {
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \Animal.category) var animals: [Animal] = []

    init(name: String) { self.name = name }
}

@Model
final class Animal {
    var name: String
    var age: Int
    var weight: Double
    var born: Date
    var notes: String
    var category: AnimalCategory?

    init(name: String, age: Int, weight: Double, born: Date, notes: String) {
        self.name = name
        self.age = age
        self.weight = weight
        self.born = born
        self.notes = notes
    }
}

struct ModelsResult {
    var n: Int
    var typedInsert = Timing()
    var dynamicInsert = Timing()
    var typedFetch = Timing()
    var typedFetchIDs = Timing()
    var dynamicFetch = Timing()
    var handFetch = Timing()
    var typedRead = Timing()
    var dynamicRead = Timing()
    var typedDelete = Timing()
    var typedUndo = Timing()
    var dynamicDelete = Timing()
    var dynamicUndo = Timing()
    var matches = 0
}

func runModelBenchmarks(sizes: [Int], runs: Int) throws {
    let loadBefore = loadAverage()
    var results: [ModelsResult] = []
    for n in sizes { results.append(try measureModels(n: n, runs: runs)) }
    print("")
    print("Typed @Model layer vs the dynamic API (best of \(runs); load average before: \(loadBefore))")
    print("| zoo | operation | typed | dynamic | typed / dynamic | hand loop over structs |")
    print("| --- | --- | --- | --- | --- | --- |")
    for r in results {
        let label = "zoo-\(groupedNumber(r.n))"
        func row(_ name: String, _ typed: Timing, _ dynamic: Timing, hand: Timing? = nil) {
            let handText = hand.map { "\(ms($0.best)) (typed \(String(format: "%.1f", typed.best / $0.best))×)" } ?? "—"
            print("| \(label) | \(name) | \(ms(typed.best)) | \(ms(dynamic.best)) | \(String(format: "%.2f", typed.best / dynamic.best))× | \(handText) |")
        }
        row("insert \(groupedNumber(r.n)) animals + link", r.typedInsert, r.dynamicInsert)
        row("fetch: filter + 2-key sort (\(groupedNumber(r.matches)) match)", r.typedFetch, r.dynamicFetch, hand: r.handFetch)
        row("the same, identifiers only (no models made)", r.typedFetchIDs, r.dynamicFetch, hand: r.handFetch)
        row("read 3 attributes of every match", r.typedRead, r.dynamicRead)
        row("delete a category, cascade \(groupedNumber(r.n / 10))", r.typedDelete, r.dynamicDelete)
        row("undo that delete", r.typedUndo, r.dynamicUndo)
    }
}

func measureModels(n: Int, runs: Int) throws -> ModelsResult {
    var result = ModelsResult(n: n)
    let workload = ContextWorkload(n: n, big: n / 10)
    let plain = plainAnimals(workload)
    log("zoo-\(groupedNumber(n)): typed layer")
    for _ in 0..<runs {
        // Insert: typed models vs the dynamic API, each into a fresh in-memory container.
        let typedContext = ModelContext(try ModelContainer(for: AnimalCategory.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true)))
        result.typedInsert.time { workload.insertTyped(into: typedContext) }
        let dynamicContext = ModelContext(try ModelContainer(for: AnimalCategory.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true)))
        try result.dynamicInsert.time { try workload.insertDynamic(into: dynamicContext) }

        // Fetch: the same filter and sort, typed with #Predicate and SortDescriptor.
        let typed = try result.typedFetch.time {
            try typedContext.fetch(
                FetchDescriptor<Animal>(
                    predicate: #Predicate { $0.age >= 15 && $0.weight < 500.0 },
                    sortBy: [SortDescriptor(\.age), SortDescriptor(\.name, order: .reverse)]))
        }
        let typedIDs = try result.typedFetchIDs.time {
            try typedContext.fetchIdentifiers(
                FetchDescriptor<Animal>(
                    predicate: #Predicate { $0.age >= 15 && $0.weight < 500.0 },
                    sortBy: [SortDescriptor(\.age), SortDescriptor(\.name, order: .reverse)]))
        }
        guard typedIDs == typed.map(\.persistentModelID) else { fail("typed fetchIdentifiers disagrees with fetch") }
        let dynamic = try result.dynamicFetch.time { try dynamicContext.fetchIdentifiers(try contextDescriptor(sorted: true)) }
        let hand = result.handFetch.time { handFilterSort(plain) }
        guard typed.count == dynamic.count, typed.count == hand.count,
            zip(typed, hand).allSatisfy({ $0.name == $1.name })
        else { fail("typed fetch disagrees: \(typed.count) vs \(dynamic.count) vs \(hand.count)") }
        result.matches = typed.count

        // Read: three attributes of every match.
        var typedSum = 0.0
        result.typedRead.time { for animal in typed { typedSum += animal.weight + Double(animal.age + animal.name.utf8.count) } }
        var dynamicSum = 0.0
        try result.dynamicRead.time {
            for id in dynamic {
                guard case .double(let weight) = try dynamicContext.value("weight", of: id),
                    case .int(let age) = try dynamicContext.value("age", of: id),
                    case .string(let name) = try dynamicContext.value("name", of: id)
                else { fail("wrong value types") }
                dynamicSum += weight + Double(Int(age) + name.utf8.count)
            }
        }
        guard typedSum == dynamicSum else { fail("typed read disagrees") }

        // Delete the big category (cascade to n/10 animals), then undo.
        typedContext.undoManager = UndoManager()
        dynamicContext.undoManager = UndoManager()
        let bigName = Zoo.categoryName(0)
        guard let bigCategory = try typedContext.fetch(FetchDescriptor<AnimalCategory>(predicate: #Predicate { $0.name == bigName })).first
        else { fail("no big category") }
        result.typedDelete.time {
            typedContext.delete(bigCategory)
            typedContext.processPendingChanges()
        }
        result.typedUndo.time { typedContext.undoManager?.undo() }
        let bigID = try dynamicContext.fetchIdentifiers(
            DynamicFetchDescriptor(
                entity: "AnimalCategory", predicate: try ObjectPredicate("name == '\(bigName)'")))
        try result.dynamicDelete.time {
            try dynamicContext.delete(bigID)
            dynamicContext.processPendingChanges()
        }
        result.dynamicUndo.time { dynamicContext.undoManager?.undo() }
        guard bigCategory.animals.count == n / 10 else { fail("undo did not restore the cascade") }
    }
    return result
}
