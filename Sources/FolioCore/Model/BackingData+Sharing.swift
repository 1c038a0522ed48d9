import Foundation

/// The backing data a context shares among the models of one class it makes
/// (see ``_SharedBackingRow``), a model given its own when it needs one, and
/// the destination models a shared backing data keeps for its to-one reads.
extension BackingData {
    /// The slots a shared backing data's table of kept destinations per to-one
    /// may have however few models share it.
    static let keptDestinationCapacity = 1_024

    /// Where the object of a model sharing this backing data is, while its
    /// row is current (the context still has the graph it was made in).
    func sharedLocation(_ shared: _SharedBackingRow) -> (ModelContext, ObjectRef)? {
        guard isShared, let context, refEpoch == context.graphEpoch else { return nil }
        return (context, ObjectRef(entity: cachedRef.entity, row: shared.row))
    }

    /// Backing data of its own for a model sharing this one: the same object,
    /// its row still current if the graph is.
    private func unshared(_ shared: _SharedBackingRow) -> BackingData {
        guard let context, let identifier else { return BackingData() }
        let own = BackingData(
            context: context, identifier: PersistentIdentifier(entityName: identifier.entityName, id: shared.id),
            ref: ObjectRef(entity: cachedRef.entity, row: shared.row), columns: columns)
        // A row of an older graph is found again by the object's number.
        if refEpoch != context.graphEpoch { own.refEpoch = -1; own.fastEpoch = -1 }
        return own
    }

    /// ``_resolved(_:of:)`` for a model sharing this backing data.
    @usableFromInline
    func _unshare<Model: PersistentModel>(_ model: Model) -> BackingData {
        modelStoppedSharing()
        let own = unshared(model._$sharedRow)
        // A getter may be running on this backing data unretained (`_reading`): the model keeps it alive.
        own.formerlyShared = self
        model._$sharedRow = _SharedBackingRow()
        return own
    }

    /// Counts a model that no longer shares this backing data (gone, or given
    /// its own). When a table of kept destinations has grown to twice what
    /// the models still sharing would let it grow to, the tables are dropped,
    /// and refill as those models read: they would otherwise keep the
    /// destinations of all the models that were dropped.
    func modelStoppedSharing() {
        guard let columns else { return }
        columns.sharingModels -= 1
        let limit = Swift.max(Self.keptDestinationCapacity, columns.sharingModels)
        if keptByRow.contains(where: { $0.count > 2 * limit }) { keptByRow = [] }
    }

    /// Keeps a destination model for the models sharing this backing data, in
    /// the slot of its row, in place of the model kept there before.
    func keep(_ model: any PersistentModel, at ordinal: Int, row: Int32) {
        if keptByRow.count <= ordinal { keptByRow.append(contentsOf: repeatElement([], count: ordinal + 1 - keptByRow.count)) }
        let size = keptByRow[ordinal].count
        let limit = Swift.max(Self.keptDestinationCapacity, columns?.sharingModels ?? 0)
        if Int(row) >= size, size < limit {
            // Doubling up to the limit, so keeping n destinations costs O(n).
            var grown = Swift.max(size, 16)
            while grown <= Int(row), grown < limit { grown *= 2 }
            var table = [(row: Int32, model: any PersistentModel)?](repeating: nil, count: grown)
            for case let kept? in keptByRow[ordinal] { table[Int(kept.row) & (grown - 1)] = kept }
            keptByRow[ordinal] = table
        }
        keptByRow[ordinal][Int(row) & (keptByRow[ordinal].count - 1)] = (row, model)
    }

    /// The destination model kept for `row`, if it is still in its slot.
    func kept(at ordinal: Int, row: Int32) -> (any PersistentModel)? {
        guard ordinal < keptByRow.count, !keptByRow[ordinal].isEmpty,
            let kept = keptByRow[ordinal][Int(row) & (keptByRow[ordinal].count - 1)], kept.row == row
        else { return nil }
        return kept.model
    }
}
