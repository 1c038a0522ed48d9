import Foundation
import Folio
@testable import FolioCore

/// A deliberately naive model of a document with Core Data delete semantics:
/// whole-state values, linear scans, no cleverness. Property tests compare
/// Folio's incremental graph, undo and redo against it.
struct ReferenceModel: Equatable {
    struct Object: Equatable {
        var entity: String
        var values: [String: Value]
        var links: [String: [UInt64]]
        /// Optional to-many relationships holding no collection (`nil`).
        var absent: Set<String> = []
    }

    let schema: Schema
    var objects: [UInt64: Object] = [:]
    /// Deleted objects (that existed at the last save) → the live objects denying it, at delete time.
    var denials: [UInt64: [UInt64]] = [:]

    static func == (lhs: ReferenceModel, rhs: ReferenceModel) -> Bool {
        lhs.objects == rhs.objects && lhs.denials == rhs.denials
    }

    init(schema: Schema) { self.schema = schema }

    func relationship(_ id: UInt64, _ name: String) -> Schema.Relationship {
        schema.entity(named: objects[id]!.entity)!.relationship(named: name)!
    }

    mutating func insert(_ id: UInt64, _ entity: String, _ values: [String: Value]) {
        let declaration = schema.entity(named: entity)!
        var all: [String: Value] = [:]
        for attribute in declaration.attributes { all[attribute.name] = values[attribute.name] ?? attribute.initialValue }
        objects[id] = Object(
            entity: entity, values: all,
            links: Dictionary(uniqueKeysWithValues: declaration.relationships.map { ($0.name, []) }),
            absent: Set(declaration.relationships.filter(\.isOptional).map(\.name)))
    }

    mutating func link(_ a: UInt64, _ name: String, _ b: UInt64) {
        let r = relationship(a, name)
        if objects[a]!.links[name]!.contains(b) { return }
        if !r.isToMany, let old = objects[a]!.links[name]!.first { unlink(a, name, old) }
        if let inverse = r.inverse, !relationship(b, inverse).isToMany, let partner = objects[b]!.links[inverse]!.first {
            unlink(partner, name, b)
        }
        if r.isToMany { objects[a]!.links[name]!.append(b) } else { objects[a]!.links[name] = [b] }
        objects[a]!.absent.remove(name)
        if let inverse = r.inverse {
            if relationship(b, inverse).isToMany { objects[b]!.links[inverse]!.append(a) } else { objects[b]!.links[inverse] = [a] }
            objects[b]!.absent.remove(inverse)
        }
    }

    mutating func unlink(_ a: UInt64, _ name: String, _ b: UInt64) {
        let r = relationship(a, name)
        objects[a]!.links[name]!.removeAll { $0 == b }
        if let inverse = r.inverse { objects[b]!.links[inverse]!.removeAll { $0 == a } }
    }

    /// Empties a relationship: with `absent`, an optional to-many then holds no collection.
    mutating func clear(_ a: UInt64, _ name: String, absent: Bool) {
        for b in objects[a]!.links[name]! { unlink(a, name, b) }
        if absent, relationship(a, name).isOptional { objects[a]!.absent.insert(name) } else { objects[a]!.absent.remove(name) }
    }

    /// Deletes objects and their cascade; every survivor's lists drop them.
    /// Returns how many objects went.
    @discardableResult
    mutating func delete(_ ids: [UInt64], saved: ReferenceModel) -> Int {
        var doomed = Set<UInt64>()
        var queue = ids.filter { objects[$0] != nil }
        while let id = queue.popLast() {
            guard doomed.insert(id).inserted else { continue }
            for r in schema.entity(named: objects[id]!.entity)!.relationships where r.deleteRule == .cascade {
                queue += objects[id]!.links[r.name]!
            }
        }
        for id in doomed where saved.objects[id] != nil {
            var denying: [UInt64] = []
            for r in schema.entity(named: objects[id]!.entity)!.relationships where r.deleteRule == .deny {
                denying += objects[id]!.links[r.name]!.filter { !doomed.contains($0) }
            }
            if !denying.isEmpty { denials[id] = denying }
        }
        for id in doomed { objects[id] = nil }
        for id in objects.keys {
            for name in objects[id]!.links.keys { objects[id]!.links[name]!.removeAll { doomed.contains($0) } }
        }
        return doomed.count
    }

    /// The deny rules a save would break: only deletes not yet saved count (an
    /// object the last save already removed cannot be denied any more).
    func denyViolations(saved: ReferenceModel) -> Bool {
        denials.contains { id, targets in
            objects[id] == nil && saved.objects[id] != nil && targets.contains { objects[$0] != nil }
        }
    }

    /// The same content as Folio's `GraphSnapshot`.
    var snapshot: GraphSnapshot {
        var result: [String: [UInt64: GraphSnapshot.Object]] = [:]
        for entity in schema.entities { result[entity.name] = [:] }
        for (id, object) in objects {
            let entity = schema.entity(named: object.entity)!
            var values = object.values
            for attribute in entity.attributes where attribute.isTransient { values[attribute.name] = nil }
            result[object.entity]![id] = GraphSnapshot.Object(values: values, links: object.links, absent: object.absent)
        }
        return GraphSnapshot(objects: result)
    }
}
