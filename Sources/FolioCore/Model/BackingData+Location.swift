import Foundation

/// Where the object of a managed model is: its row in its context's graph and
/// its class's columns, cached per graph, for reads and writes that index
/// columns instead of looking names up.
extension BackingData {
    /// Makes `columns` and `cachedRef` current for reads in this epoch.
    func setFast(_ columns: ModelColumns, epoch: Int) {
        fastColumns = Unmanaged.passUnretained(columns).toOpaque()
        fastEpoch = epoch
    }

    /// The context and the object's row in its graph, if the context has the
    /// object in any state (a deleted row keeps its values, so reads still work).
    /// O(1): the row is looked up once per graph.
    var location: (ModelContext, ObjectRef)? {
        guard let context else { return nil }
        if refEpoch == context.graphEpoch { return (context, cachedRef) }
        guard let identifier, let ref = context.graph.index[identifier.id] else { return nil }
        refEpoch = context.graphEpoch
        cachedRef = ref
        fastEpoch = -1
        return (context, ref)
    }

    /// Where a property with this ordinal lives in the object's row, for
    /// reads and writes that index columns instead of looking names up; `nil`
    /// when the model is unmanaged or its class does not match the schema.
    @inline(__always)
    func slot(_ type: any PersistentModel.Type, _ ordinal: Int) -> (ModelContext, ObjectRef, ModelColumns.Slot)? {
        guard let (context, ref) = location else { return nil }
        let resolved: ModelColumns
        if let columns, columns.epoch == context.graphEpoch, columns.modelType == ObjectIdentifier(type) {
            resolved = columns
        } else {
            guard let made = context.columns(forType: type) else { return nil }
            fastEpoch = -1
            columns = made
            resolved = made
        }
        guard resolved.entity == Int(ref.entity) else { return nil }
        setFast(resolved, epoch: context.graphEpoch)
        guard ordinal >= 0, ordinal < resolved.slots.count else { return nil }
        return (context, ref, resolved.slots[ordinal])
    }

    /// The context while the object is in it (live, or deleted and not yet saved).
    var attachedContext: ModelContext? {
        guard let (context, ref) = location, context.graph.isLive(ref) || context.tracking.deleted.contains(ref) else { return nil }
        return context
    }

    /// Where an edit goes: the object's row while its context has it. A model
    /// whose object is gone for good — its insert undone, its delete saved — is
    /// detached first, so the edit stays in the instance (and inserting it again
    /// makes a new object) instead of changing a dead row.
    var editableLocation: (ModelContext, ObjectRef)? {
        guard let (context, ref) = location else { return nil }
        if context.graph.isLive(ref) || context.tracking.deleted.contains(ref) { return (context, ref) }
        detach(from: context, ref)
        return nil
    }
}
