/// The positions a fetch's offset and limit keep of its results: what the
/// dynamic fetch (``ObjectGraph/fetchRows(_:shared:)``) and the typed one
/// (`FetchDescriptor`) both cut their sorted rows with.
///
/// Offsets and limits are whatever a caller or a REPL line passed — any `Int`,
/// `Int.max` included — so nothing is added to them: the limit is first
/// clamped to what is left after the offset, and only then added to a position
/// inside the results. Negative numbers count as 0, an offset past the end
/// keeps nothing, a limit past the end keeps the rest (SwiftData's meaning).
enum ResultWindow {
    /// The range of `count` results that `offset` (default 0) and `limit`
    /// (default: no limit) keep.
    ///
    /// - Complexity: O(1).
    static func range(offset: Int?, limit: Int?, count: Int) -> Range<Int> {
        let start = min(max(offset ?? 0, 0), count)
        guard let limit else { return start..<count }
        return start..<start + min(max(limit, 0), count - start)
    }
}
