import Foundation

/// The three-way merge of one attribute's cell, and the comparisons it needs.
///
/// A cell changed on one side takes that side's value; changed on both to one
/// value, that value; to different values, ours, with a conflict — except a
/// set, merged element by element (never a conflict), and a string-keyed
/// dictionary, merged key by key (a key changed on both sides to different
/// values, or removed on one and changed on the other, is a conflict of that
/// key). Externally stored values are compared by their blob's name first, so
/// an unchanged blob is never read.
enum CellMerge {
    /// A cell's merge: the merged cell, and the conflicts of its keys (or the
    /// whole cell, `key` nil).
    struct Outcome {
        var cell: StoredValue
        var conflicts: [(key: String?, base: Value?, ours: Value?, theirs: Value?)] = []
    }

    /// Merges one cell. `base` is `nil` when the object has no base version
    /// (both sides inserted it).
    ///
    /// - Throws: the store's error when a blob that must be read cannot be.
    static func merge(_ rule: MergeSchema.AttributeRule, base: StoredValue?, ours: StoredValue, theirs: StoredValue) throws
        -> Outcome
    {
        // What can be answered without reading a blob first: an unchanged blob is never read.
        if sameWithoutReading(ours, theirs) == true { return Outcome(cell: ours) }
        if let base, sameWithoutReading(base, ours) == true { return Outcome(cell: theirs) }
        if let base, sameWithoutReading(base, theirs) == true { return Outcome(cell: ours) }
        if try same(ours, theirs) { return Outcome(cell: ours) }
        guard let base else {
            return Outcome(cell: ours, conflicts: [(nil, nil, try value(ours), try value(theirs))])
        }
        if try same(base, ours) { return Outcome(cell: theirs) }
        if try same(base, theirs) { return Outcome(cell: ours) }
        let (b, o, t) = (try value(base), try value(ours), try value(theirs))
        switch (rule, b, o, t) {
        case (.set, .set(let b), .set(let o), .set(let t)):
            return Outcome(cell: .value(.set(mergeSet(base: b, ours: o, theirs: t))))
        case (.dictionary, .dictionary(let b), .dictionary(let o), .dictionary(let t)):
            let (merged, conflicts) = mergeDictionary(base: b, ours: o, theirs: t)
            return Outcome(cell: .value(.dictionary(merged)), conflicts: conflicts.map { ($0.key, $0.base, $0.ours, $0.theirs) })
        default:
            return Outcome(cell: ours, conflicts: [(nil, b, o, t)])
        }
    }

    /// Element by element: the base's elements both sides kept, and every
    /// element either added, in ours' order then theirs'. O(n).
    static func mergeSet(base: [Value], ours: [Value], theirs: [Value]) -> [Value] {
        let (b, t) = (Set(base), Set(theirs))
        var result = ours.filter { !b.contains($0) || t.contains($0) }
        var seen = Set(result)
        for element in theirs where !b.contains(element) && seen.insert(element).inserted { result.append(element) }
        return result
    }

    /// Key by key, each key a cell (a missing key is `nil`).
    static func mergeDictionary(base: [String: Value], ours: [String: Value], theirs: [String: Value])
        -> ([String: Value], [(key: String, base: Value?, ours: Value?, theirs: Value?)])
    {
        var result: [String: Value] = [:]
        var conflicts: [(key: String, base: Value?, ours: Value?, theirs: Value?)] = []
        let keys = Set(base.keys).union(ours.keys).union(theirs.keys).sorted()
        for key in keys {
            let (b, o, t) = (base[key], ours[key], theirs[key])
            let merged: Value?
            if o == t || b == t {
                merged = o
            } else if b == o {
                merged = t
            } else {
                merged = o
                conflicts.append((key, b, o, t))
            }
            if let merged { result[key] = merged }
        }
        return (result, conflicts)
    }

    /// Whether two cells hold one value. Two blobs with one name hold one
    /// value (the name carries the content's hash) and are not read.
    static func same(_ lhs: StoredValue, _ rhs: StoredValue) throws -> Bool {
        switch (lhs, rhs) {
        case (.value(let a), .value(let b)): return a == b
        case (.blob(let a), .blob(let b)) where a === b || a.name == b.name: return true
        default: return try value(lhs) == value(rhs)
        }
    }

    /// Whether two cells hold one value when that is known without reading a
    /// blob: `nil` when a blob would have to be read.
    static func sameWithoutReading(_ lhs: StoredValue, _ rhs: StoredValue) -> Bool? {
        switch (lhs, rhs) {
        case (.value(let a), .value(let b)): return a == b
        case (.blob(let a), .blob(let b)) where a === b || a.name == b.name: return true
        default: return nil
        }
    }

    /// A cell's value, reading a blob if it must.
    static func value(_ cell: StoredValue) throws -> Value {
        switch cell {
        case .value(let value): return value
        case .blob(let blob): return try blob.load()
        }
    }
}
