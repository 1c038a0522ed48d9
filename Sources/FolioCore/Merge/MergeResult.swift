/// What ``ObjectGraph/merge(base:ours:theirs:)`` returns: the merged graph and
/// what it could not combine on its own.
public struct MergeResult {
    /// The merged document: every edit of both sides, with ours kept where
    /// they disagree. It passes every check a package's loader makes, but
    /// minimum and maximum counts, which ``MergeConflict/Kind/count`` records.
    public var graph: ObjectGraph
    /// The conflicts, ordered by identifier, then property; empty when both
    /// sides' edits combined cleanly.
    public var conflicts: [MergeConflict]
    /// How many ``ObjectState``s the merge built from the three versions:
    /// the measure of its work (tests check it follows the edits, not the
    /// document).
    var statesBuilt = 0
}
