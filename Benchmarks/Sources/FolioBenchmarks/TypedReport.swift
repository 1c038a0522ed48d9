import Foundation

// The Markdown report of the typed-layer benchmark: times and ratios, memory,
// growth between the smallest and the largest N, and the issue's targets.

struct TypedReport {
    var results: [TypedResult]
    var runs: Int
    var loadBefore: String

    func print() {
        Swift.print("")
        Swift.print(
            "typed-layer benchmark: Folio \(folioRevision()), libxml2 \(libxml2Version()), SQLite \(sqliteVersion()), \(ProcessInfo.processInfo.activeProcessorCount) cores"
        )
        Swift.print("best of \(runs) fresh processes per phase; load average before \(loadBefore), after \(loadAverage())")
        printTimes()
        printMemory()
        printGrowth()
        printTargets()
    }

    // MARK: Times

    /// One operation: the phase and figure of each column (nil where a column has none).
    private struct Operation {
        var label: String
        var typed: (TypedPhase, String)?
        var dynamic: (TypedPhase, String)?
        var engine: (TypedPhase, String)?
        var grdb: (TypedPhase, String)?
        var skewed = false
        var floor = false
        var perRead = false
    }

    private func operations(_ r: TypedResult) -> [Operation] {
        let n = groupedNumber(r.n), big = groupedNumber(r.big)
        return [
            Operation(
                label: "insert \(n) models (typed: `Animal(...)`, `insert`, set `category`; dynamic, engine: `insert` + `link`)",
                typed: (.insertTyped, "insert"), dynamic: (.insertDynamic, "insert"), engine: (.insertEngine, "insert")),
            Operation(
                label: "save() after the insert (engine: `DocumentPackage.write`; GRDB: insert + commit)",
                typed: (.insertTyped, "save"), dynamic: (.insertDynamic, "save"), engine: (.insertEngine, "save"),
                grdb: (.insertGRDB, "save")),
            Operation(
                label: "insert + save, one category of \(big)", typed: (.insertTyped, "insert+save"),
                dynamic: (.insertDynamic, "insert+save"), engine: (.insertEngine, "insert+save"),
                grdb: (.insertGRDB, "save"), skewed: true),
            Operation(
                label: "**insert + save**", typed: (.insertTyped, "insert+save"),
                dynamic: (.insertDynamic, "insert+save"), engine: (.insertEngine, "insert+save"),
                grdb: (.insertGRDB, "save")),
            Operation(
                label: "open: `ModelContainer` on the saved package", typed: (.openTyped, "open"),
                dynamic: (.openDynamic, "open"), floor: true),
            Operation(
                label: "fetch every animal (dynamic: `fetchIdentifiers`)", typed: (.openTyped, "fetch"),
                dynamic: (.openDynamic, "fetch")),
            Operation(
                label: "read name, age, category of every animal", typed: (.openTyped, "read"),
                dynamic: (.openDynamic, "read")),
            Operation(
                label: "**open + fetch + read** (GRDB: open + fetch into records)", typed: (.openTyped, "total"),
                dynamic: (.openDynamic, "total"), grdb: (.openGRDB, "total"), floor: true),
            Operation(
                label: "property read, scalar (`age`), per read", typed: (.openTyped, "read_scalar_ns"),
                dynamic: (.openDynamic, "read_scalar_ns"), perRead: true),
            Operation(
                label: "property read, to-one (`category`), per read", typed: (.openTyped, "read_to_one_ns"),
                dynamic: (.openDynamic, "read_to_one_ns"), perRead: true),
            Operation(
                label: "**delete** category of \(big) (cascade) + `processPendingChanges()` (typed: autosave on; GRDB: DELETE + commit)",
                typed: (.cascadeTyped, "delete"), dynamic: (.cascadeDynamic, "delete"), grdb: (.cascadeGRDB, "delete"), skewed: true),
            Operation(label: "undo of the delete", typed: (.cascadeTyped, "undo"), dynamic: (.cascadeDynamic, "undo"), skewed: true),
            Operation(label: "redo of the delete", typed: (.cascadeTyped, "redo"), dynamic: (.cascadeDynamic, "redo"), skewed: true),
            Operation(
                label: "**save after editing one object** (GRDB: UPDATE + commit)", typed: (.editTyped, "save"),
                dynamic: (.editDynamic, "save"), grdb: (.editGRDB, "save")),
            Operation(
                label: "the same, next edits (best of \(TypedPhase.repeatedEdits))", typed: (.editTyped, "save_again"),
                dynamic: (.editDynamic, "save_again"), grdb: (.editGRDB, "save_again")),
        ]
    }

    private func value(_ r: TypedResult, _ column: (TypedPhase, String)?, skewed: Bool) -> Double? {
        guard let (phase, key) = column else { return nil }
        if key == "insert+save" {
            guard let insert = r.figure(phase, "insert", skewed: skewed), let save = r.figure(phase, "save", skewed: skewed)
            else { return nil }
            return insert + save
        }
        return r.figure(phase, key, skewed: skewed)
    }

    private func printTimes() {
        Swift.print("")
        Swift.print(
            "| zoo | operation | typed (`@Model`, `mainContext`) | dynamic API (`ModelContext`) | engine (`ObjectGraph`) | GRDB | C floor (1 thread; all cores) | typed / dynamic | typed / engine | typed / GRDB | ÷ C floor (typed; dynamic) |"
        )
        Swift.print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        for r in results {
            for op in operations(r) {
                let typed = value(r, op.typed, skewed: op.skewed)
                let dynamic = value(r, op.dynamic, skewed: op.skewed)
                let engine = value(r, op.engine, skewed: op.skewed)
                let grdb = value(r, op.grdb, skewed: op.skewed)
                let show: (Double?) -> String = { v in v.map { op.perRead ? String(format: "%.0f ns", $0) : ms($0) } ?? "—" }
                var floorCell = "—", floorRatio = "—"
                if op.floor, let floor = r.floor {
                    floorCell = "\(ms(floor.serial)); \(ms(floor.threaded))"
                    floorRatio = "\(ratio(typed, floor.serial)); \(ratio(dynamic, floor.serial))"
                }
                Swift.print(
                    "| \(groupedNumber(r.n)) | \(op.label) | \(show(typed)) | \(show(dynamic)) | \(show(engine)) | \(show(grdb)) | \(floorCell) | \(ratio(typed, dynamic)) | \(ratio(typed, engine)) | \(ratio(typed, grdb)) | \(floorRatio) |"
                )
            }
        }
        if let floor = results.last?.floor {
            Swift.print("")
            Swift.print(
                "C floor: libxml2 SAX2 over every *.xml of the typed package (\(floor.files) file\(floor.files == 1 ? "" : "s"), \(megabytes(floor.bytes)) at zoo-\(groupedNumber(results.last?.n ?? 0))), on 1 thread and on \(floor.threads)."
            )
        }
    }

    // MARK: Memory

    private func printMemory() {
        let phases: [(String, TypedPhase?, TypedPhase?, TypedPhase?, TypedPhase?, Bool)] = [
            ("insert + save", .insertTyped, .insertDynamic, .insertEngine, .insertGRDB, false),
            ("insert + save, one category of N/10", .insertTyped, .insertDynamic, .insertEngine, .insertGRDB, true),
            ("open + fetch + read", .openTyped, .openDynamic, nil, .openGRDB, false),
            ("open, cascade delete, undo, redo", .cascadeTyped, .cascadeDynamic, nil, nil, true),
            ("open, edit one object, save", .editTyped, .editDynamic, nil, nil, false),
        ]
        Swift.print("")
        Swift.print("Peak memory (VmHWM of the phase's own process) and bytes per object beyond the process's baseline (strings included):")
        Swift.print("")
        Swift.print(
            "| zoo | phase | typed peak | typed B/object | dynamic peak | dynamic B/object | engine peak | engine B/object | GRDB peak | GRDB B/object | typed / dynamic | typed / engine |"
        )
        Swift.print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        for r in results {
            for (label, typed, dynamic, engine, grdb, skewed) in phases {
                func cells(_ phase: TypedPhase?) -> (String, String, Double?) {
                    guard let phase, let peak = r.figure(phase, "peak_hwm", skewed: skewed),
                        let perObject = r.bytesPerObject(phase, skewed: skewed)
                    else { return ("—", "—", nil) }
                    return (megabytes(Int(peak)), String(format: "%.0f B", perObject), perObject)
                }
                let (t, d, e, g) = (cells(typed), cells(dynamic), cells(engine), cells(grdb))
                Swift.print(
                    "| \(groupedNumber(r.n)) | \(label) | \(t.0) | \(t.1) | \(d.0) | \(d.1) | \(e.0) | \(e.1) | \(g.0) | \(g.1) | \(ratio(t.2, d.2)) | \(ratio(t.2, e.2)) |"
                )
            }
        }
    }

    // MARK: Growth

    /// How each headline figure grows from the smallest to the largest N.
    private func printGrowth() {
        guard results.count > 1, let small = results.min(by: { $0.n < $1.n }), let large = results.max(by: { $0.n < $1.n }),
            small.n < large.n
        else { return }
        let factor = Double(large.n) / Double(small.n)
        let figures: [(String, (TypedResult) -> Double?)] = [
            ("typed insert", { $0.figure(.insertTyped, "insert") }),
            ("typed insert + save", { value($0, (.insertTyped, "insert+save"), skewed: false) }),
            ("typed insert + save, one category of N/10", { value($0, (.insertTyped, "insert+save"), skewed: true) }),
            ("dynamic insert + save", { value($0, (.insertDynamic, "insert+save"), skewed: false) }),
            ("engine insert + save", { value($0, (.insertEngine, "insert+save"), skewed: false) }),
            ("GRDB insert + commit", { $0.figure(.insertGRDB, "save") }),
            ("typed open + fetch + read", { $0.figure(.openTyped, "total") }),
            ("dynamic open + fetch + read", { $0.figure(.openDynamic, "total") }),
            ("GRDB open + fetch", { $0.figure(.openGRDB, "total") }),
            ("C floor, 1 thread", { $0.floor?.serial }),
            ("typed cascade delete of N/10 (autosave on)", { $0.figure(.cascadeTyped, "delete", skewed: true) }),
            ("typed save after one edit", { $0.figure(.editTyped, "save") }),
            ("typed insert + save: peak memory beyond the baseline", { $0.peakBeyondBaseline(.insertTyped) }),
            ("typed insert + save, N/10 category: peak memory beyond the baseline", { $0.peakBeyondBaseline(.insertTyped, skewed: true) }),
            ("engine insert + save: peak memory beyond the baseline", { $0.peakBeyondBaseline(.insertEngine) }),
            ("typed open + fetch + read: peak memory beyond the baseline", { $0.peakBeyondBaseline(.openTyped) }),
            ("GRDB open + fetch: peak memory beyond the baseline", { $0.peakBeyondBaseline(.openGRDB) }),
        ]
        Swift.print("")
        Swift.print(
            "Growth from zoo-\(groupedNumber(small.n)) to zoo-\(groupedNumber(large.n)) (×\(String(format: "%.0f", factor)) the objects; linear means growth / ×N ≤ 1.25):"
        )
        Swift.print("")
        Swift.print("| figure | zoo-\(groupedNumber(small.n)) | zoo-\(groupedNumber(large.n)) | growth | growth / ×N |")
        Swift.print("| --- | ---: | ---: | ---: | --- |")
        for (label, figure) in figures {
            guard let a = figure(small), let b = figure(large) else {
                Swift.print("| \(label) | — | — | — | — |")
                continue
            }
            let isMemory = label.hasSuffix("baseline")
            let show: (Double) -> String = { isMemory ? megabytes(Int($0)) : ms($0) }
            let perN = b / a / factor
            Swift.print(
                "| \(label) | \(show(a)) | \(show(b)) | \(String(format: "%.1f×", b / a)) | \(String(format: "%.2f", perN)) \(perN <= 1.25 ? "(linear)" : "(**superlinear**)") |"
            )
        }
    }

    // MARK: Targets

    private func printTargets() {
        func verdict(_ value: Double?, _ limit: Double, _ format: (Double) -> String) -> String {
            guard let value else { return "—" }
            return format(value) + (value <= limit ? " met" : " **not met**")
        }
        let times = { (v: Double) in String(format: "%.2f×", v) }
        let nanoseconds = { (v: Double) in String(format: "%.0f ns", v) }
        let targets: [(String, (TypedResult) -> String)] = [
            ("typed scalar read ≤ 50 ns", { verdict($0.figure(.openTyped, "read_scalar_ns"), 50, nanoseconds) }),
            ("typed to-one read ≤ 50 ns", { verdict($0.figure(.openTyped, "read_to_one_ns"), 50, nanoseconds) }),
            (
                "typed insert ≤ 2× dynamic insert (`ModelContext`)",
                {
                    verdict(quotient($0.figure(.insertTyped, "insert"), $0.figure(.insertDynamic, "insert")), 2, times)
                }
            ),
            (
                "typed insert ≤ 2× the engine's insert (`ObjectGraph`)",
                {
                    verdict(quotient($0.figure(.insertTyped, "insert"), $0.figure(.insertEngine, "insert")), 2, times)
                }
            ),
            (
                "typed insert memory ≤ 2× the engine's, per object (insert + save)",
                {
                    verdict(quotient($0.bytesPerObject(.insertTyped), $0.bytesPerObject(.insertEngine)), 2, times)
                }
            ),
            (
                "the same, one category of N/10",
                {
                    verdict(quotient($0.bytesPerObject(.insertTyped, skewed: true), $0.bytesPerObject(.insertEngine, skewed: true)), 2, times)
                }
            ),
            (
                "typed insert + save ≤ GRDB insert + commit",
                {
                    verdict(quotient(value($0, (.insertTyped, "insert+save"), skewed: false), $0.figure(.insertGRDB, "save")), 1, times)
                }
            ),
            (
                "typed open + fetch + read ≤ GRDB open + fetch",
                {
                    verdict(quotient($0.figure(.openTyped, "total"), $0.figure(.openGRDB, "total")), 1, times)
                }
            ),
            (
                "typed open (`ModelContainer`) ≤ GRDB open + fetch",
                {
                    verdict(quotient($0.figure(.openTyped, "open"), $0.figure(.openGRDB, "total")), 1, times)
                }
            ),
            (
                "typed cascade delete of N/10 through `mainContext`, autosave on, ≤ 100 ms (target at 1M)",
                {
                    verdict($0.figure(.cascadeTyped, "delete", skewed: true), 0.1, ms)
                }
            ),
            ("typed save after one edit ≤ 20 ms (target at 1M)", { verdict($0.figure(.editTyped, "save"), 0.02, ms) }),
        ]
        Swift.print("")
        Swift.print("| target | " + results.map { "zoo-\(groupedNumber($0.n))" }.joined(separator: " | ") + " |")
        Swift.print("| --- |" + results.map { _ in " --- |" }.joined())
        for (label, cell) in targets {
            Swift.print("| \(label) | " + results.map(cell).joined(separator: " | ") + " |")
        }
    }
}

private func quotient(_ a: Double?, _ b: Double?) -> Double? {
    guard let a, let b, b > 0 else { return nil }
    return a / b
}

private func ratio(_ a: Double?, _ b: Double?) -> String {
    quotient(a, b).map { String(format: "%.2f×", $0) } ?? "—"
}
