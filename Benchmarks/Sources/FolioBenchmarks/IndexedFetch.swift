import Folio
import Foundation
import GRDB

// Indexed fetch (issue 15): N objects, fetch the one whose `code` is a given
// value, by an attribute with an `#Index` (typed, #Predicate) and a declared
// index (dynamic, ObjectPredicate), beside the same fetch by an attribute
// holding the same values without an index (a scan) and SQLite (GRDB) with an
// index on the column:
//   swift run -c release FolioBenchmarks --index [N ...] [--runs K]
// Everything is in memory. The first indexed fetch builds the index (reported
// apart); the figures after it are the best and the median of K × 200 fetches
// of random existing values, each returning one object.

@Model
final class IndexedItem {
    #Index<IndexedItem>([\.code], [\.name])
    var code: Int
    /// The same values as `code`, with no index: what a scan costs.
    var serial: Int
    var name: String
    var weight: Double

    init(code: Int, serial: Int, name: String, weight: Double) {
        self.code = code
        self.serial = serial
        self.name = name
        self.weight = weight
    }
}

private struct IndexedFetchResult {
    var n: Int
    var typedBuild = Timing()
    var typedIndexed = Timing()
    var typedByName = Timing()
    var typedNameBuild = Timing()
    var typedScan = Timing()
    var dynamicBuild = Timing()
    var dynamicIndexed = Timing()
    var dynamicScan = Timing()
    var compoundBuild = Timing()
    var compound = Timing()
    var grdbIndexed = Timing()
}

/// Item `i`'s code: a permutation of 0..<n, so codes are unique and not in insertion order.
private func itemCode(_ i: Int, _ n: Int) -> Int { (i &* 7_919) % n }

func runIndexedFetchBenchmarks(sizes: [Int], runs: Int) throws {
    let loadBefore = loadAverage()
    var results: [IndexedFetchResult] = []
    for n in sizes { results.append(try measureIndexedFetch(n: n, runs: runs)) }
    func micro(_ value: Double) -> String {
        value.isNaN
            ? "–"
            : value < 0.001
                ? String(format: "%.1f µs", value * 1e6)
                : value < 1
                    ? String(format: "%.2f ms", value * 1000)
                    : String(format: "%.2f s", value)
    }
    func median(_ timing: Timing) -> Double {
        let sorted = timing.all.sorted()
        return sorted.isEmpty ? .nan : sorted[sorted.count / 2]
    }
    print("")
    print("Indexed fetch of one object by value (in memory; best and median of \(runs) × 200 fetches; load average before: \(loadBefore))")
    print("| objects | fetch | first (builds the index) | best | median | scan (no index), best | scan / indexed | indexed / SQLite |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in results {
        let sqlite = r.grdbIndexed.best
        func row(_ name: String, build: Timing?, _ indexed: Timing, scan: Timing?) {
            let scanCell = scan.map { micro($0.best) } ?? "—"
            let ratio = scan.map { String(format: "%.0f×", $0.best / indexed.best) } ?? "—"
            print(
                "| \(groupedNumber(r.n)) | \(name) | \(build.map { micro($0.best) } ?? "—") | \(micro(indexed.best)) | "
                    + "\(micro(median(indexed))) | \(scanCell) | \(ratio) | " + String(format: "%.2f×", indexed.best / sqlite) + " |")
        }
        row("typed `#Predicate { $0.code == k }`", build: r.typedBuild, r.typedIndexed, scan: r.typedScan)
        row("typed `#Predicate { $0.name == s }`", build: r.typedNameBuild, r.typedByName, scan: nil)
        row("dynamic `code == k`", build: r.dynamicBuild, r.dynamicIndexed, scan: r.dynamicScan)
        row("dynamic `weight == w and code == k`, index (weight, code)", build: r.compoundBuild, r.compound, scan: nil)
        print("| \(groupedNumber(r.n)) | SQLite (GRDB) `WHERE code = ?`, indexed | — | \(micro(sqlite)) | \(micro(median(r.grdbIndexed))) | — | — | 1.00× |")
    }
}

private func measureIndexedFetch(n: Int, runs: Int) throws -> IndexedFetchResult {
    var result = IndexedFetchResult(n: n)
    var generator = SystemRandomNumberGenerator()
    let repeats = 200
    log("index-\(groupedNumber(n)): typed")
    do {
        let container = try ModelContainer(for: IndexedItem.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        for i in 0..<n {
            let code = itemCode(i, n)
            context.insert(IndexedItem(code: code, serial: code, name: "item\(code)", weight: Double(i % 1000)))
        }
        try context.save()
        let first = n / 3
        try result.typedBuild.time {
            guard try context.fetch(FetchDescriptor<IndexedItem>(predicate: #Predicate { $0.code == first })).count == 1 else {
                fail("typed indexed fetch found no item \(first)")
            }
        }
        let firstName = "item\(n / 3)"
        try result.typedNameBuild.time {
            guard try context.fetch(FetchDescriptor<IndexedItem>(predicate: #Predicate { $0.name == firstName })).count == 1 else {
                fail("typed indexed fetch found no \(firstName)")
            }
        }
        for _ in 0..<runs {
            for _ in 0..<repeats {
                let key = Int.random(in: 0..<n, using: &generator)
                let name = "item\(key)"
                let byCode = try result.typedIndexed.time {
                    try context.fetch(FetchDescriptor<IndexedItem>(predicate: #Predicate { $0.code == key }))
                }
                let byName = try result.typedByName.time {
                    try context.fetch(FetchDescriptor<IndexedItem>(predicate: #Predicate { $0.name == name }))
                }
                guard byCode.count == 1, byCode.first?.code == key, byName.first === byCode.first else {
                    fail("typed indexed fetch of \(key) found \(byCode.count)")
                }
            }
            // A scan is slow: a few suffice.
            for _ in 0..<3 {
                let key = Int.random(in: 0..<n, using: &generator)
                let scanned = try result.typedScan.time {
                    try context.fetch(FetchDescriptor<IndexedItem>(predicate: #Predicate { $0.serial == key }))
                }
                guard scanned.count == 1, scanned.first?.code == key else { fail("typed scan of \(key) found \(scanned.count)") }
            }
        }
    }
    log("index-\(groupedNumber(n)): dynamic")
    do {
        let schema = try Schema([
            .init(
                "Item", attributes: [.init("code", .int), .init("serial", .int), .init("name", .string), .init("weight", .double)],
                indexes: [["code"], ["weight", "code"]])
        ])
        let context = ModelContext(try ModelContainer(for: schema, configurations: ModelConfiguration(isStoredInMemoryOnly: true)))
        for i in 0..<n {
            let code = Int64(itemCode(i, n))
            try context.insert(
                "Item",
                [
                    "code": .int(code), "serial": .int(code), "name": .string("item\(code)"),
                    "weight": .double(Double(i % 1000)),
                ])
        }
        try context.save()
        func descriptor(_ attribute: String, _ key: Int) throws -> DynamicFetchDescriptor {
            DynamicFetchDescriptor(entity: "Item", predicate: try ObjectPredicate("\(attribute) == \(key)"))
        }
        try result.dynamicBuild.time {
            guard try context.fetchIdentifiers(try descriptor("code", n / 3)).count == 1 else { fail("dynamic indexed fetch found nothing") }
        }
        for _ in 0..<runs {
            for _ in 0..<repeats {
                let key = Int.random(in: 0..<n, using: &generator)
                // The predicate is parsed outside the timing: the fetch is what is measured.
                let byCode = try descriptor("code", key)
                let found = try result.dynamicIndexed.time { try context.fetchIdentifiers(byCode) }
                guard found.count == 1, try context.value("code", of: found[0]) == .int(Int64(key)) else {
                    fail("dynamic indexed fetch of \(key) found \(found.count)")
                }
            }
            for _ in 0..<repeats {
                let i = Int.random(in: 0..<n, using: &generator)
                let both = DynamicFetchDescriptor(entity: "Item", predicate: try ObjectPredicate("weight == \(i % 1000) and code == \(itemCode(i, n))"))
                let found =
                    try
                    (result.compound.all.isEmpty && result.compoundBuild.all.isEmpty
                    ? result.compoundBuild.time { try context.fetchIdentifiers(both) }
                    : result.compound.time { try context.fetchIdentifiers(both) })
                guard found.count == 1 else { fail("dynamic compound fetch found \(found.count)") }
            }
            for _ in 0..<3 {
                let key = Int.random(in: 0..<n, using: &generator)
                let bySerial = try descriptor("serial", key)
                let found = try result.dynamicScan.time { try context.fetchIdentifiers(bySerial) }
                guard found.count == 1 else { fail("dynamic scan of \(key) found \(found.count)") }
            }
        }
    }
    log("index-\(groupedNumber(n)): SQLite")
    do {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(
                sql: "CREATE TABLE item (id INTEGER PRIMARY KEY, code INTEGER NOT NULL, serial INTEGER NOT NULL, name TEXT NOT NULL, weight REAL NOT NULL)")
            try db.execute(sql: "CREATE INDEX item_code ON item(code)")
            let insert = try db.makeStatement(sql: "INSERT INTO item (code, serial, name, weight) VALUES (?, ?, ?, ?)")
            for i in 0..<n {
                let code = itemCode(i, n)
                try insert.execute(arguments: [code, code, "item\(code)", Double(i % 1000)])
            }
        }
        try queue.read { db in
            let select = try db.cachedStatement(sql: "SELECT id, code, serial, name, weight FROM item WHERE code = ?")
            for _ in 0..<runs {
                for _ in 0..<repeats {
                    let key = Int.random(in: 0..<n, using: &generator)
                    let rows = try result.grdbIndexed.time { try Row.fetchAll(select, arguments: [key]) }
                    guard rows.count == 1, rows[0]["code"] as Int == key else { fail("SQLite fetch of \(key) found \(rows.count)") }
                }
            }
        }
    }
    return result
}
