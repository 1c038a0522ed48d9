import Folio
import GRDB

// Uniqueness: inserts, upserts and the save check with no unique attribute,
// one `.unique` attribute, and a two-attribute constraint (`#Unique`), against
// SQLite (GRDB) with the same UNIQUE index and INSERT … ON CONFLICT DO UPDATE:
//   swift run -c release FolioBenchmarks --unique [N ...] [--runs K]
// Both sides run in memory with no undo, so the figures are the uniqueness
// machinery and the insert path, not I/O.

private enum UniqueVariant: CaseIterable {
    case none, attribute, constraint

    var label: String {
        switch self {
        case .none: return "no unique"
        case .attribute: return "`.unique` code"
        case .constraint: return "unique (city, day)"
        }
    }

    var schema: Schema {
        get throws {
            try Schema([
                .init(
                    "Visit",
                    attributes: [
                        .init("city", .string), .init("day", .int),
                        .init("code", .string, options: self == .attribute ? [.unique] : []),
                        .init("note", .string),
                    ],
                    uniquenessConstraints: self == .constraint ? [["city", "day"]] : [])
            ])
        }
    }
}

private struct UniqueResult {
    var n: Int
    var insert: [UniqueVariant: Timing] = [:]
    var upsert: [UniqueVariant: Timing] = [:]
    var save: [UniqueVariant: Timing] = [:]
    var grdbInsert = Timing()
    var grdbUpsert = Timing()
}

/// Visit `i`: 1,000 cities, a day per thousand visits, so every (city, day) and code is distinct.
private func visitValues(_ i: Int, note: String) -> [String: Value] {
    ["city": .string("city\(i % 1000)"), "day": .int(Int64(i / 1000)), "code": .string("v\(i)"), "note": .string(note)]
}

func runUniqueBenchmarks(sizes: [Int], runs: Int) throws {
    let loadBefore = loadAverage()
    var results: [UniqueResult] = []
    for n in sizes { results.append(try measureUnique(n: n, runs: runs)) }
    print("")
    print("Uniqueness: insert, upsert, save check (best of \(runs); in memory, no undo; load average before: \(loadBefore))")
    print(
        "| visits | operation | no unique | `.unique` code | unique (city, day) | SQLite UNIQUE(city, day) | (city, day) / no unique | (city, day) / SQLite |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in results {
        func row(_ name: String, _ timings: [UniqueVariant: Timing], grdb: Timing?) {
            let base = timings[.none]?.best ?? .nan
            let compound = timings[.constraint]?.best ?? .nan
            let cells = UniqueVariant.allCases.map { ms(timings[$0]?.best ?? .nan) }
            let sqlite = grdb.map { ms($0.best) } ?? "—"
            let versusSQLite = grdb.map { String(format: "%.2f×", compound / $0.best) } ?? "—"
            print(
                "| \(groupedNumber(r.n)) | \(name) | \(cells.joined(separator: " | ")) | \(sqlite) | "
                    + String(format: "%.2f×", compound / base) + " | \(versusSQLite) |")
        }
        row("insert \(groupedNumber(r.n)) new", r.insert, grdb: r.grdbInsert)
        row("insert the same \(groupedNumber(r.n)) again (upserts)", r.upsert, grdb: r.grdbUpsert)
        row("save: validate \(groupedNumber(r.n)) changed objects", r.save, grdb: nil)
    }
}

private func measureUnique(n: Int, runs: Int) throws -> UniqueResult {
    var result = UniqueResult(n: n)
    log("unique-\(groupedNumber(n))")
    for _ in 0..<runs {
        for variant in UniqueVariant.allCases {
            let context = ModelContext(
                try ModelContainer(
                    for: try variant.schema,
                    configurations: ModelConfiguration(isStoredInMemoryOnly: true)))
            try result.insert[variant, default: Timing()].time {
                for i in 0..<n { try context.insert("Visit", visitValues(i, note: "first")) }
            }
            try result.save[variant, default: Timing()].time { try context.save() }
            // With no unique attribute these are n more objects; with one, n updates of the notes.
            try result.upsert[variant, default: Timing()].time {
                for i in 0..<n { try context.insert("Visit", visitValues(i, note: "second")) }
            }
        }
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE visit(id INTEGER PRIMARY KEY, city TEXT NOT NULL, day INTEGER NOT NULL,
                                       code TEXT NOT NULL, note TEXT NOT NULL, UNIQUE(city, day))
                    """)
        }
        func write(_ sql: String, note: String) throws {
            try queue.write { db in
                let statement = try db.makeStatement(sql: sql)
                for i in 0..<n {
                    try statement.execute(arguments: ["city\(i % 1000)", i / 1000, "v\(i)", note])
                }
            }
        }
        try result.grdbInsert.time {
            try write("INSERT INTO visit(city, day, code, note) VALUES (?, ?, ?, ?)", note: "first")
        }
        try result.grdbUpsert.time {
            try write(
                """
                INSERT INTO visit(city, day, code, note) VALUES (?, ?, ?, ?)
                ON CONFLICT(city, day) DO UPDATE SET code = excluded.code, note = excluded.note
                """, note: "second")
        }
    }
    return result
}
