/// Close matches for a misspelt name, for the "did you mean" hint of an error
/// that reports an unknown entity, attribute, relationship or command.
///
/// One helper for every such error, in the library and in the `folio` REPL, so
/// they suggest alike: at most ``limit`` names, the closest first, never a
/// list of every entity of a schema that has 20,000.
///
/// ```swift
/// let names = schema.entities.map(\.name)
/// "no entity named 'Animl'" + NameSuggestions.hint(for: "Animl", among: names)
/// // no entity named 'Animl'; did you mean 'Animal'?
/// ```
///
/// Closeness is the edit distance between the names with case ignored
/// (insertions, deletions, substitutions and swaps of two neighbouring
/// characters, each counting one), and a name qualifies when it is at most a
/// third of the typed name's length away (one edit for names of up to three
/// characters, at most three edits).
public enum NameSuggestions {
    /// The most names a hint suggests.
    public static let limit = 3

    /// Up to `limit` candidates close to `name`, the closest first; candidates
    /// equally close keep their order. A candidate equal to `name` is left out.
    ///
    /// Complexity: O(*n* × *k*²) for *n* candidates of about *k* characters;
    /// candidates whose length alone puts them too far away cost O(1).
    public static func closest(
        to name: String, among candidates: some Sequence<String>,
        limit: Int = NameSuggestions.limit
    ) -> [String] {
        let typed = Array(name.lowercased())
        let allowed = maximumDistance(forLength: typed.count)
        var matches: [(distance: Int, order: Int, name: String)] = []
        for (order, candidate) in candidates.enumerated() where candidate != name {
            let letters = Array(candidate.lowercased())
            guard abs(letters.count - typed.count) <= allowed else { continue }
            let distance = editDistance(typed, letters, atMost: allowed)
            if distance <= allowed { matches.append((distance, order, candidate)) }
        }
        matches.sort { ($0.distance, $0.order) < ($1.distance, $1.order) }
        return matches.prefix(max(0, limit)).map(\.name)
    }

    /// `; did you mean 'a', 'b' or 'c'?` for the candidates close to `name`.
    /// When none is close and there are no more than ``limit`` candidates,
    /// `; NOUN: a, b` lists them all if a `noun` is given (a small schema's
    /// names help more than silence). Otherwise empty.
    ///
    /// - Parameters:
    ///   - name: the unknown name, as typed.
    ///   - candidates: the names it could have meant.
    ///   - noun: what the candidates are, plural ("relationships"), to list a few.
    public static func hint(for name: String, among candidates: some Collection<String>, listing noun: String? = nil) -> String {
        let matches = closest(to: name, among: candidates)
        if !matches.isEmpty { return "; did you mean " + phrase(matches) + "?" }
        if let noun, !candidates.isEmpty, candidates.count <= limit {
            return "; \(noun): " + candidates.joined(separator: ", ")
        }
        return ""
    }

    /// `'a'`, `'a' or 'b'`, `'a', 'b' or 'c'`.
    static func phrase(_ names: [String]) -> String {
        let quoted = names.map { "'\($0)'" }
        guard let last = quoted.last else { return "" }
        return quoted.count == 1 ? last : quoted.dropLast().joined(separator: ", ") + " or " + last
    }

    /// How many edits still make a name of `length` characters a near miss.
    static func maximumDistance(forLength length: Int) -> Int {
        min(3, max(1, length / 3))
    }

    /// The optimal-string-alignment distance between `a` and `b`, or a number
    /// above `bound` as soon as every alignment costs more than `bound`.
    static func editDistance(_ a: [Character], _ b: [Character], atMost bound: Int) -> Int {
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        // Three rows of the dynamic-programming table: two before the current one, for swaps.
        var beforePrevious = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            var rowMinimum = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var distance = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    distance = min(distance, beforePrevious[j - 2] + 1)
                }
                current[j] = distance
                rowMinimum = min(rowMinimum, distance)
            }
            if rowMinimum > bound { return bound + 1 }
            (beforePrevious, previous, current) = (previous, current, beforePrevious)
        }
        return previous[b.count]
    }
}
