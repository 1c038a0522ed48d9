/// Debug builds' check that a context's tracking accounts for every
/// difference in which objects live between its graph and the saved state it
/// last saw: a save publishes only what the tracking names, while the shared document
/// takes the saving context's graph whole, so an object gone from the graph
/// without being tracked as deleted would vanish from the document without
/// any other context hearing of it.
extension ModelContext {
    /// The saved states of at most this many rows are checked.
    static let trackingCheckedRows = 1 << 16

    /// Checks, in debug builds and for documents of up to
    /// ``trackingCheckedRows`` rows, that every object live in ``baseline`` is
    /// live in the graph or tracked as deleted, and every live object the
    /// baseline lacks is tracked as inserted. Called after a merge and before
    /// a save. O(objects). Does nothing in release builds.
    func _checkTrackingInvariants() {
        #if DEBUG
        guard baseline.tables.reduce(0, { $0 + $1.rowCount }) <= Self.trackingCheckedRows,
            graph.tables.reduce(0, { $0 + $1.rowCount }) <= Self.trackingCheckedRows
        else { return }
        var problems: [String] = []
        for (entity, table) in baseline.tables.enumerated() {
            for row in 0..<table.rowCount where table.isLive[row] {
                let id = table.ids[row]
                if let ref = graph.index[id], graph.isLive(ref) || tracking.deleted.contains(ref) { continue }
                problems.append("\(baseline.layout.entities[entity].name)#\(id) is saved, gone here and not tracked as tracking.deleted")
            }
        }
        for (entity, table) in graph.tables.enumerated() {
            for row in 0..<table.rowCount where table.isLive[row] {
                let id = table.ids[row]
                if let saved = baseline.index[id], baseline.isLive(saved) { continue }
                if tracking.inserted.contains(ObjectRef(entity: entity, row: row)) { continue }
                problems.append("\(graph.layout.entities[entity].name)#\(id) is live here, not saved and not tracked as tracking.inserted")
            }
        }
        InvariantCheck.report(problems, in: "ModelContext tracking")
        #endif
    }
}
