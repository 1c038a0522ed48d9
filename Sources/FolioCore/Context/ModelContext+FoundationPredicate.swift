import Foundation

/// Foundation's `#Predicate` on the dynamic API: the predicate sees each object
/// as a dictionary of its attribute values (to-one relationships as the
/// destination's identifier number, `.int`, or `.null`).
///
/// ```swift
/// let visited = Value.bool(true)
/// try context.delete(entity: "Country", where: #Predicate<[String: Value]> { $0["visited"] == visited })
/// ```
///
/// Inside `#Predicate`, build values outside the closure (the macro does not
/// allow calling `Value.bool(_:)` inside it) and write `$0["age"] ?? none` to
/// compare an optional lookup with `<`. Each object's dictionary is built to
/// evaluate it, so this is O(objects × attributes) — and reads every
/// externally stored value it has not read yet, which opening leaves on disk;
/// the runtime predicate language (``ObjectPredicate``) reads only the columns
/// it names and is faster.
extension ModelContext {
    /// Deletes every object of an entity the predicate matches, as one undoable step.
    ///
    /// - Returns: how many objects matched (cascades not counted).
    /// - Throws: ``ModelError/graph(_:)`` for an unknown entity; the predicate's own errors are rethrown.
    @discardableResult
    public func delete(entity: String, where predicate: Predicate<[String: Value]>) throws -> Int {
        mergeSavedChanges()
        let rows = try matchingRows(entity: entity, predicate: predicate, in: graph)
        // Not among the calls ``cancellationCheck`` stops (it documents which are).
        try deleteRefs(rows, poll: CancellationPoll(nil))
        return rows.count
    }

    /// The identifiers of the objects of an entity the predicate matches, in insertion order.
    public func fetchIdentifiers(
        entity: String, matching predicate: Predicate<[String: Value]>,
        includePendingChanges: Bool = true
    ) throws -> [PersistentIdentifier] {
        mergeSavedChanges()
        let source = includePendingChanges ? graph : baseline
        return try matchingRows(entity: entity, predicate: predicate, in: source).map(source.identifier(for:))
    }

    private func matchingRows(entity: String, predicate: Predicate<[String: Value]>, in source: ObjectGraph) throws -> [ObjectRef] {
        let all: [ObjectRef]
        do { all = try source.fetchRows(DynamicFetchDescriptor(entity: entity)) } catch { throw ModelError(error) }
        // The entity's properties: its subentities' objects (listed too) begin with them.
        guard !all.isEmpty, let index = source.layout.entityIndex[entity] else { return [] }
        let layout = source.layout.entities[index]
        var rows: [ObjectRef] = []
        for ref in all {
            var values: [String: Value] = [:]
            for (index, attribute) in layout.attributes.enumerated() { values[attribute.name] = source.value(ref, index) }
            for slot in 0..<layout.declaredLinkCount where !layout.links[slot].isToMany {
                let target = source.tables[Int(ref.entity)].links[slot].one[Int(ref.row)]
                values[layout.links[slot].name ?? ""] =
                    target < 0
                    ? .null
                    : .int(Int64(bitPattern: source.identifier(of: layout.links[slot].ref(target))))
            }
            if try predicate.evaluate(values) { rows.append(ref) }
        }
        return rows
    }
}
