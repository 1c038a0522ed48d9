/// Conflict records kept in a document, merged when two versions of it are.
extension MergeConflict {
    /// The records two versions of a document keep, merged with their common
    /// ancestor's as sets: a record either side resolved (in the base, gone
    /// from that side) is gone; a record either side has that the base has
    /// not (a merge on that side) is kept, once. In ours' order, then theirs'.
    static func mergeRecords(base: [MergeConflict], ours: [MergeConflict], theirs: [MergeConflict]) -> [MergeConflict] {
        let baseSet = Set(base), ourSet = Set(ours), theirSet = Set(theirs)
        var seen = Set<MergeConflict>()
        var merged: [MergeConflict] = []
        for record in ours + theirs where !seen.contains(record) {
            seen.insert(record)
            let resolvedByOurs = baseSet.contains(record) && !ourSet.contains(record)
            let resolvedByTheirs = baseSet.contains(record) && !theirSet.contains(record)
            if !resolvedByOurs, !resolvedByTheirs { merged.append(record) }
        }
        return merged
    }
}
