/// What a required to-one relationship (`var payer: Person`, minimum count 1)
/// held before a delete cleared it.
///
/// SwiftData lets a delete leave such a relationship empty until the app
/// reassigns it or deletes the object holding it; the save refuses while it
/// stays empty. A property of a non-optional type must still read as a model in
/// between: this context remembers what each cleared relationship held, and the
/// property reads that deleted model (its values as they were) until then.
extension ModelContext {
    /// Records the required to-ones among `cuts` (what a removal took from
    /// surviving objects' lists) with the object each held.
    ///
    /// - Complexity: O(relationships in the schema) when none is required;
    ///   otherwise O(cuts) more.
    func noteRequiredCuts(_ cuts: [LinkChange]) {
        let entities = graph.schema.entities
        guard !cuts.isEmpty,
            entities.contains(where: { $0.relationships.contains { !$0.isToMany && $0.minimumModelCount > 0 } })
        else { return }
        for cut in cuts {
            guard case .toOne(let ref, let slot, let old, let new) = cut, old >= 0, new < 0 else { continue }
            let relationships = entities[Int(ref.entity)].relationships
            guard Int(slot) < relationships.count, relationships[Int(slot)].minimumModelCount > 0 else { continue }
            let link = graph.layout.entities[Int(ref.entity)].links[Int(slot)]
            tracking.requiredCuts[LinkListKey(ref: ref, slot: slot)] = link.ref(old)
        }
    }

    /// The object a delete took from `ref`'s required to-one `name`, while the
    /// relationship is still empty and that object's row still holds it (this
    /// context deleted it and has not saved); `nil` otherwise.
    func requiredCut(of ref: ObjectRef, named name: String) -> ObjectRef? {
        guard !tracking.requiredCuts.isEmpty, let slot = graph.layout.entities[Int(ref.entity)].linkIndex[name],
            let target = tracking.requiredCuts[LinkListKey(ref: ref, slot: Int32(slot))],
            graph.targets(ref, slot).isEmpty, !graph.isLive(target)
        else { return nil }
        return target
    }
}
