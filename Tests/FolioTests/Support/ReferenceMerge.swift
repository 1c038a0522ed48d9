import Foundation
import Folio

/// A deliberately plain three-way merge of documents, written from the rules
/// in Merging.md with dictionaries and linear scans (no Folio type but
/// `Value`): the property tests check the engine against it.
enum ReferenceMerge {
    struct Object: Equatable {
        var entity: String
        var values: [String: Value]
        var links: [String: [UInt64]]
    }

    struct Relationship {
        var name: String
        var destination: String
        var toMany: Bool
        var inverse: String?
        /// "fact", "derivedToOne" or "derivedOrder".
        var role: String
        /// The inverse's delete rule ("nullify" without an inverse).
        var ruleOnDestinationDelete: String
    }

    struct Entity {
        /// Attribute name → "cell", "set" or "dictionary".
        var attributes: [String: String]
        var relationships: [Relationship]
        var unique: [[String]]
    }

    struct Description {
        var entities: [String: Entity]
        var order: [String]
    }

    typealias Document = [UInt64: Object]

    /// One conflict, as "kind id property key".
    typealias Conflict = String

    static func merge(base: Document, ours: Document, theirs: Document, _ schema: Description) -> (Document, Set<Conflict>) {
        var result: Document = [:]
        var conflicts: [UInt64: [Conflict]] = [:]
        var deleted: Document = [:]
        for id in Set(base.keys).union(ours.keys).union(theirs.keys) {
            let (b, o, t) = (base[id], ours[id], theirs[id])
            if o == nil && t == nil {
                if let b { deleted[id] = b }
            } else if o == nil || t == nil {
                let kept = o ?? t!
                if let b {
                    deleted[id] = kept
                    if edited(kept, b, schema) { conflicts[id, default: []].append("deletedAndEdited \(id) - -") }
                } else {
                    result[id] = kept
                }
            } else {
                var merged = o!
                let entity = schema.entities[o!.entity]!
                for (name, kind) in entity.attributes {
                    let (bv, ov, tv) = (b?.values[name], o!.values[name]!, t!.values[name]!)
                    if ov == tv { continue }
                    if bv == ov { merged.values[name] = tv; continue }
                    if bv == tv { continue }
                    if kind == "set", case .set(let be)? = bv, case .set(let oe) = ov, case .set(let te) = tv {
                        var elements = oe.filter { !be.contains($0) || te.contains($0) }
                        for element in te where !be.contains(element) && !elements.contains(element) { elements.append(element) }
                        merged.values[name] = .set(elements)
                    } else if kind == "dictionary", case .dictionary(let bd)? = bv, case .dictionary(let od) = ov,
                        case .dictionary(let td) = tv
                    {
                        var dictionary: [String: Value] = [:]
                        for key in Set(bd.keys).union(od.keys).union(td.keys) {
                            if od[key] == td[key] || bd[key] == td[key] {
                                dictionary[key] = od[key]
                            } else if bd[key] == od[key] {
                                dictionary[key] = td[key]
                            } else {
                                dictionary[key] = od[key]
                                conflicts[id, default: []].append("value \(id) \(name) \(key)")
                            }
                        }
                        merged.values[name] = .dictionary(dictionary)
                    } else {
                        conflicts[id, default: []].append("value \(id) \(name) -")
                    }
                }
                for relationship in entity.relationships {
                    let name = relationship.name
                    let (bl, ol, tl) = (b?.links[name], o!.links[name]!, t!.links[name]!)
                    if relationship.toMany {
                        merged.links[name] = mergeList(bl ?? [], ol, tl)
                    } else if ol == tl || bl == tl {
                        merged.links[name] = ol
                    } else if bl == ol {
                        merged.links[name] = tl
                    } else if relationship.role == "fact" {
                        conflicts[id, default: []].append("value \(id) \(name) -")
                    }
                }
                result[id] = merged
            }
        }
        var all = Set(conflicts.values.joined())
        reconcile(&result, deleted: deleted, schema, &all)
        return (result, all)
    }

    static func edited(_ object: Object, _ base: Object, _ schema: Description) -> Bool {
        if object.values != base.values { return true }
        for relationship in schema.entities[object.entity]!.relationships where relationship.role == "fact" {
            if object.links[relationship.name] != base.links[relationship.name] { return true }
        }
        return false
    }

    /// The earliest longest increasing run of base positions, by brute dynamic programming.
    static func kept(_ side: [UInt64], _ base: [UInt64]) -> Set<UInt64> {
        let elements = side.filter { base.contains($0) }
        let positions = elements.map { base.firstIndex(of: $0)! }
        var longest = Array(repeating: 1, count: positions.count)
        for i in stride(from: positions.count - 1, through: 0, by: -1) {
            for j in (i + 1)..<max(i + 1, positions.count) where positions[j] > positions[i] {
                longest[i] = max(longest[i], longest[j] + 1)
            }
        }
        var need = longest.max() ?? 0
        var last = -1
        var result = Set<UInt64>()
        for i in positions.indices where need > 0 && longest[i] == need && positions[i] > last {
            result.insert(elements[i])
            last = positions[i]
            need -= 1
        }
        return result
    }

    static func mergeList(_ base: [UInt64], _ ours: [UInt64], _ theirs: [UInt64]) -> [UInt64] {
        if ours == theirs || theirs == base { return ours }
        if ours == base { return theirs }
        let members = { (x: UInt64) in !base.contains(x) || (ours.contains(x) && theirs.contains(x)) }
        let (keptOurs, keptTheirs) = (kept(ours, base), kept(theirs, base))
        let stable = base.filter { keptOurs.contains($0) && keptTheirs.contains($0) }
        var runs: [(anchor: UInt64?, run: [UInt64])] = []
        for (side, keptSide) in [(ours, keptOurs), (theirs, keptTheirs)] {
            var anchor: UInt64?
            var run: [UInt64] = []
            for x in side {
                if stable.contains(x) {
                    if !run.isEmpty { runs.append((anchor, run)) }
                    anchor = x
                    run = []
                } else if members(x) && (!base.contains(x) || !keptSide.contains(x)) {
                    run.append(x)
                }
            }
            if !run.isEmpty { runs.append((anchor, run)) }
        }
        var result: [UInt64] = []
        func emit(_ anchor: UInt64?) {
            let here = runs.filter { $0.anchor == anchor }.map(\.run).sorted { $0.lexicographicallyPrecedes($1) }
            for run in here { for x in run where !result.contains(x) { result.append(x) } }
        }
        emit(nil)
        for x in stable {
            result.append(x)
            emit(x)
        }
        return result
    }

    static func reconcile(_ objects: inout Document, deleted: Document, _ schema: Description, _ conflicts: inout Set<Conflict>) {
        var revivable = deleted
        func live(_ id: UInt64, _ entity: String) -> Bool { objects[id]?.entity == entity }
        func remove(_ id: UInt64, _ kind: String, _ property: String) {
            objects[id] = nil
            revivable[id] = nil
            conflicts.insert("\(kind) \(id) \(property) -")
        }
        var changed = true
        while changed {
            changed = false
            // Dangling fact links.
            for id in objects.keys.sorted() {
                guard let object = objects[id] else { continue }
                relationships: for relationship in schema.entities[object.entity]!.relationships where relationship.role == "fact" {
                    guard let ids = objects[id]?.links[relationship.name] else { continue }
                    var cut: [UInt64] = []
                    for target in ids where !live(target, relationship.destination) {
                        changed = true
                        switch relationship.ruleOnDestinationDelete {
                        case "cascade":
                            remove(id, "cascade", relationship.name)
                            break relationships
                        case "deny":
                            if let record = revivable[target], record.entity == relationship.destination, objects[target] == nil {
                                revivable[target] = nil
                                objects[target] = record
                                conflicts.insert("deny \(target) \(relationship.inverse ?? "-") -")
                            } else {
                                cut.append(target)
                            }
                        default:
                            cut.append(target)
                        }
                    }
                    if !cut.isEmpty {
                        conflicts.insert("danglingLink \(id) \(relationship.name) -")
                        objects[id]!.links[relationship.name]!.removeAll { cut.contains($0) }
                    }
                }
            }
            // Taken to-ones between two to-ones.
            for entityName in schema.order {
                for relationship in schema.entities[entityName]!.relationships
                where relationship.role == "fact" && !relationship.toMany && relationship.inverse != nil {
                    let inverse = schema.entities[relationship.destination]!.relationships.first { $0.name == relationship.inverse }!
                    if inverse.toMany { continue }
                    var holders: [UInt64: UInt64] = [:]
                    for id in objects.keys.sorted() where objects[id]!.entity == entityName {
                        guard let target = objects[id]!.links[relationship.name]!.first else { continue }
                        if holders[target] == nil {
                            holders[target] = id
                        } else {
                            changed = true
                            conflicts.insert("linkTaken \(id) \(relationship.name) -")
                            objects[id]!.links[relationship.name] = []
                        }
                    }
                }
            }
            // Uniqueness, on derived values.
            derive(&objects, schema)
            for entityName in schema.order {
                for group in schema.entities[entityName]!.unique {
                    var seen: [[Value]] = []
                    for id in objects.keys.sorted() where objects[id]?.entity == entityName {
                        let object = objects[id]!
                        var key: [Value] = []
                        for member in group {
                            if let value = object.values[member] {
                                key.append(value)
                            } else if let target = object.links[member]?.first {
                                key.append(.uint(target))
                            } else {
                                key.append(.null)
                            }
                        }
                        if key.contains(.null) { continue }
                        if seen.contains(key) {
                            remove(id, "uniqueness", group.joined(separator: ", "))
                            changed = true
                        } else {
                            seen.append(key)
                        }
                    }
                }
            }
        }
        derive(&objects, schema)
        // A deleted-and-edited object that deny brought back is recorded by its deny conflict.
        conflicts = conflicts.filter { conflict in
            let parts = conflict.split(separator: " ")
            return !(parts[0] == "deletedAndEdited" && objects[UInt64(parts[1])!] != nil)
        }
    }

    static func derive(_ objects: inout Document, _ schema: Description) {
        for id in objects.keys {
            let entity = schema.entities[objects[id]!.entity]!
            for relationship in entity.relationships where relationship.role != "fact" {
                // The holders: objects whose fact (the inverse) holds this one.
                let holders = objects.keys.sorted().filter { other in
                    objects[other]!.entity == relationship.destination && objects[other]!.links[relationship.inverse!]!.contains(id)
                }
                if relationship.role == "derivedToOne" {
                    objects[id]!.links[relationship.name] = holders.isEmpty ? [] : [holders[0]]
                } else {
                    let old = objects[id]!.links[relationship.name]!
                    var list = old.filter { holders.contains($0) }
                    list += holders.filter { !list.contains($0) }
                    objects[id]!.links[relationship.name] = list
                }
            }
        }
    }
}
