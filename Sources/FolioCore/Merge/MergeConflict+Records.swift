/// Conflict records kept in a document, merged when two versions of it are.
extension MergeConflict {
    /// The records two versions of a document keep, merged with their common
    /// ancestor's as sets: a record either side resolved (in the base, gone
    /// from that side) is gone; a record either side has that the base has
    /// not (a merge on that side) is kept, once. In ours' order, then theirs'.
    static func mergeRecords(base: [MergeConflict], ours: [MergeConflict], theirs: [MergeConflict]) -> [MergeConflict] {
        mergedAsSets(base: base, ours: ours, theirs: theirs)
    }

    /// Three versions of a list of records merged as sets, by the rule of
    /// ``mergeRecords(base:ours:theirs:)``: what the records are (values, or
    /// the lines a part file writes them as) does not matter. O(records).
    static func mergedAsSets<Record: Hashable>(base: [Record], ours: [Record], theirs: [Record]) -> [Record] {
        let baseSet = Set(base), ourSet = Set(ours), theirSet = Set(theirs)
        var seen = Set<Record>()
        var merged: [Record] = []
        for record in ours + theirs where !seen.contains(record) {
            seen.insert(record)
            let resolvedByOurs = baseSet.contains(record) && !ourSet.contains(record)
            let resolvedByTheirs = baseSet.contains(record) && !theirSet.contains(record)
            if !resolvedByOurs, !resolvedByTheirs { merged.append(record) }
        }
        return merged
    }
}
