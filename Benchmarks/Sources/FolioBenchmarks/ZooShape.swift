import Folio
import Foundation

/// How the animals of a zoo are spread over its categories: the one thing the
/// benchmarks' workloads differ in. Animal `i` has `Zoo`'s values for `i` in
/// every workload; categories are inserted first (ids 1…C), then animals (C+1…).
protocol ZooShape {
    /// Animals.
    var n: Int { get }
    var categoryCount: Int { get }
    /// The category index of animal `i`.
    func category(of i: Int) -> Int
}

/// zoo-N: animal `i` in category `i % (N/1000)`, so every category holds 1000.
struct UniformZoo: ZooShape {
    var n: Int
    var categoryCount: Int { Zoo.categoryCount(n) }
    func category(of i: Int) -> Int { i % categoryCount }
}

extension ContextWorkload: ZooShape {}

extension ZooShape {
    /// Categories plus animals.
    var objectCount: Int { n + categoryCount }

    /// The zoo as SQLite rows, with the ids Folio assigns.
    func rows() -> ([CategoryRow], [AnimalRow]) {
        let categories = (0..<categoryCount).map { CategoryRow(id: Int64($0 + 1), name: Zoo.categoryName($0)) }
        var animals: [AnimalRow] = []
        animals.reserveCapacity(n)
        for i in 0..<n {
            animals.append(AnimalRow(id: Int64(categoryCount + i + 1), name: Zoo.name(i), age: Zoo.age(i),
                                     weight: Zoo.weight(i), born: Zoo.born(i), notes: Zoo.notes(i),
                                     categoryID: Int64(category(of: i) + 1)))
        }
        return (categories, animals)
    }

    /// The zoo as the engine's object graph, built directly (no context):
    /// `insert`, then `link` from the to-one side.
    func graph() throws -> ObjectGraph {
        let graph = ObjectGraph(schema: try Zoo.schema())
        var categories: [PersistentIdentifier] = []
        categories.reserveCapacity(categoryCount)
        for c in 0..<categoryCount {
            categories.append(try graph.insert("AnimalCategory", ["name": .string(Zoo.categoryName(c))]))
        }
        for i in 0..<n {
            let animal = try graph.insert("Animal", [
                "name": .string(Zoo.name(i)), "age": .int(Zoo.age(i)), "weight": .double(Zoo.weight(i)),
                "born": .date(Zoo.born(i)), "notes": .string(Zoo.notes(i)),
            ])
            try graph.link(animal, "category", to: categories[category(of: i)])
        }
        return graph
    }

    /// Inserts the zoo through the dynamic API (`insert`, then `link` from the to-one side).
    func insertDynamic(into context: ModelContext) throws {
        var categories: [PersistentIdentifier] = []
        categories.reserveCapacity(categoryCount)
        for c in 0..<categoryCount {
            categories.append(try context.insert("AnimalCategory", ["name": .string(Zoo.categoryName(c))]))
        }
        for i in 0..<n {
            let animal = try context.insert("Animal", [
                "name": .string(Zoo.name(i)), "age": .int(Zoo.age(i)), "weight": .double(Zoo.weight(i)),
                "born": .date(Zoo.born(i)), "notes": .string(Zoo.notes(i)),
            ])
            try context.link(animal, "category", to: categories[category(of: i)])
        }
    }

    /// Inserts the zoo as SwiftData users write it: `Animal(...)`, `insert`, then set `category`.
    func insertTyped(into context: ModelContext) {
        let categories = (0..<categoryCount).map { AnimalCategory(name: Zoo.categoryName($0)) }
        for category in categories { context.insert(category) }
        for i in 0..<n {
            let animal = Animal(name: Zoo.name(i), age: Int(Zoo.age(i)), weight: Zoo.weight(i), born: Zoo.born(i),
                                notes: Zoo.notes(i))
            context.insert(animal)
            animal.category = categories[category(of: i)]
        }
    }
}
