import Foundation

/// Laying a graph's objects out in format-3 parts (docs/FORMAT.md, "Format 3"):
/// the part an object lives in is a pure function of its entity and
/// identifier (``PackageLayout``), so a save rewrites exactly the parts
/// holding what changed, under the names they already had, and an edit of
/// one value changes one line of one file.
extension DocumentWriter {
    /// One format-3 part: an entity's objects of one lane and bucket.
    struct Bucket: Hashable, Comparable {
        var entity: Int
        var lane: UInt64
        var bucket: UInt64

        init(entity: Int, id: UInt64) {
            self.entity = entity
            (lane, bucket) = PackageLayout.part(of: id)
        }

        init(entity: Int, lane: UInt64, bucket: UInt64) {
            (self.entity, self.lane, self.bucket) = (entity, lane, bucket)
        }

        /// The identifiers the part may hold.
        var identifiers: ClosedRange<UInt64> { PackageLayout.identifiers(lane: lane, bucket: bucket) }

        static func < (a: Bucket, b: Bucket) -> Bool { (a.entity, a.lane, a.bucket) < (b.entity, b.lane, b.bucket) }
    }

    /// The parts holding at least one live object or one conflict record.
    func occupiedBuckets() -> Set<Bucket> {
        var buckets = Set<Bucket>()
        for (entity, table) in graph.tables.enumerated() {
            var last: (lane: UInt64, bucket: UInt64)?
            for row in 0..<table.rowCount where table.isLive[row] {
                let part = PackageLayout.part(of: table.ids[row])
                if let last, last == part { continue }
                last = part
                buckets.insert(Bucket(entity: entity, lane: part.lane, bucket: part.bucket))
            }
        }
        for conflict in graph.conflicts {
            guard let entity = graph.layout.entityIndex[conflict.entityName] else { continue }
            buckets.insert(Bucket(entity: entity, id: conflict.id.id))
        }
        return buckets
    }

    /// The bytes of one part: the declaration, `<objects entity="E">`, each
    /// live object of the bucket by ascending identifier on its own line, each
    /// followed by the conflict records about it, then `</objects>`. A part
    /// holding nothing is still written (emptied parts are kept, so Git never
    /// sees a file deleted on one branch and edited on the other).
    ///
    /// - Parameter conflicts: the graph's conflict records about this bucket's objects, in record order.
    /// - Complexity: O(log rows + the bucket's objects).
    mutating func bucketBytes(_ bucket: Bucket, rows order: RowOrder, conflicts: [MergeConflict]) throws(PackageError) -> [UInt8] {
        let entityName = graph.layout.entities[bucket.entity].name
        var buffer = ByteBuffer(capacity: 1 << 16)
        buffer.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<objects")
        DocumentWriter.appendText(entityName, name: "entity", to: &buffer)
        buffer.append(">\n")
        let rows = order.rows(in: bucket.identifiers)
        let plan = plan(entity: bucket.entity)
        let ids = graph.tables[bucket.entity].ids
        var pending = conflicts.sorted { $0.id.id < $1.id.id }[...]
        for row in rows {
            let id = ids[row]
            while let first = pending.first, first.id.id < id {
                ConflictRecordXML.append(first, schema: graph.schema, to: &buffer)
                pending = pending.dropFirst()
            }
            try appendObject(row: row, plan: plan, to: &buffer)
            while let first = pending.first, first.id.id == id {
                ConflictRecordXML.append(first, schema: graph.schema, to: &buffer)
                pending = pending.dropFirst()
            }
        }
        for conflict in pending { ConflictRecordXML.append(conflict, schema: graph.schema, to: &buffer) }
        buffer.append("</objects>\n")
        return buffer.bytes
    }

    /// The conflict records of the graph, by the part each belongs in (records
    /// about an entity the schema no longer has belong nowhere and are dropped
    /// by the migration that removed it).
    func conflictsByBucket() -> [Bucket: [MergeConflict]] {
        var result: [Bucket: [MergeConflict]] = [:]
        for conflict in graph.conflicts {
            guard let entity = graph.layout.entityIndex[conflict.entityName] else { continue }
            result[Bucket(entity: entity, id: conflict.id.id), default: []].append(conflict)
        }
        return result
    }
}
