/// Where an object lives in the graph: its entity's table and its row there.
/// Rows are stable for the life of a graph: a deleted object keeps its row.
struct ObjectRef: Hashable, Sendable {
    var entity: Int32
    var row: Int32

    init(entity: Int, row: Int) {
        self.entity = Int32(truncatingIfNeeded: entity)
        self.row = Int32(truncatingIfNeeded: row)
    }

    init(entity: Int32, row: Int32) {
        self.entity = entity
        self.row = row
    }

    /// One 64-bit word into the hasher instead of two fields: a cascade puts
    /// every object it deletes in sets, so hashing is on a delete's hot path.
    func hash(into hasher: inout Hasher) {
        hasher.combine(UInt64(UInt32(bitPattern: entity)) << 32 | UInt64(UInt32(bitPattern: row)))
    }
}
