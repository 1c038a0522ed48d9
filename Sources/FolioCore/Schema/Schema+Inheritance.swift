extension Schema {
    /// The entities that name `name` as their ``Entity/superentity``, in the
    /// schema's order: SwiftData's `Schema.Entity.subentities`.
    ///
    /// - Complexity: O(entities).
    public func subentities(of name: String) -> [Entity] {
        entities.filter { $0.superentity == name }
    }

    /// The entity named `name` followed by every entity that inherits from it,
    /// directly or not, depth first in the schema's order: what a fetch of
    /// `name` reads. Empty when the schema has no such entity.
    ///
    /// - Complexity: O(entities × depth of the hierarchy).
    public func hierarchy(of name: String) -> [String] {
        guard entity(named: name) != nil else { return [] }
        var result: [String] = []
        var visited = Set<String>()
        func visit(_ name: String) {
            // A loop (refused by `validate()`) cannot make this run forever.
            guard visited.insert(name).inserted else { return }
            result.append(name)
            for sub in entities where sub.superentity == name { visit(sub.name) }
        }
        visit(name)
        return result
    }

    /// Whether `name` is `ancestor` or inherits from it, directly or not.
    ///
    /// - Complexity: O(entities × depth of the hierarchy).
    public func entity(_ name: String, isKindOf ancestor: String) -> Bool {
        var current: String? = name
        var steps = 0
        while let here = current, steps <= entities.count {
            if here == ancestor { return true }
            current = entity(named: here)?.superentity
            steps += 1
        }
        return false
    }

    /// Checks every ``Entity/superentity``: it names another entity, the
    /// hierarchy has no loop, each subentity begins with its superentity's
    /// attributes and relationships, equal and in the same order. (A
    /// relationship may point at an entity with subentities: it then holds
    /// objects of any of them.)
    ///
    /// - Throws: ``SchemaError/invalidInheritance(entity:superentity:reason:)``.
    /// - Complexity: O(entities × (properties + depth of the hierarchy)).
    func validateInheritance() throws(SchemaError) {
        let byName = Dictionary(entities.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for entity in entities {
            guard let superName = entity.superentity else { continue }
            func refuse(_ reason: String) -> SchemaError {
                .invalidInheritance(entity: entity.name, superentity: superName, reason: reason)
            }
            guard let superentity = byName[superName] else {
                throw refuse("the schema has no entity \(superName)" + NameSuggestions.hint(for: superName, among: entities.map(\.name)))
            }
            var seen: Set<String> = [entity.name]
            var current: Entity? = superentity
            while let ancestor = current {
                guard seen.insert(ancestor.name).inserted else { throw refuse("the hierarchy loops through \(ancestor.name)") }
                current = ancestor.superentity.flatMap { byName[$0] }
            }
            for (index, inherited) in superentity.attributes.enumerated() {
                guard index < entity.attributes.count, entity.attributes[index] == inherited else {
                    throw refuse("its attribute \(index + 1) must be \(superName)'s attribute '\(inherited.name)', unchanged")
                }
            }
            for (index, inherited) in superentity.relationships.enumerated() {
                guard index < entity.relationships.count, entity.relationships[index] == inherited else {
                    throw refuse("its relationship \(index + 1) must be \(superName)'s relationship '\(inherited.name)', unchanged")
                }
            }
        }
    }
}
