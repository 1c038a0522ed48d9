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
            animals.append(
                AnimalRow(
                    id: Int64(categoryCount + i + 1), name: Zoo.name(i), age: Zoo.age(i),
                    weight: Zoo.weight(i), born: Zoo.born(i), notes: Zoo.notes(i),
                    categoryID: Int64(category(of: i) + 1)))
        }
        return (categories, animals)
    }

    /// Inserts the zoo through `insert` (an entity and its values, giving the
    /// new object's identifier) and `link` (an animal to its category, from the
    /// to-one side): categories first, then each animal, linked as it is made.
    /// From `rows` when given: the input made before the clock starts, as GRDB's is.
    func insertObjects(
        rows: ([CategoryRow], [AnimalRow])? = nil,
        insert: (String, [String: Value]) throws -> PersistentIdentifier,
        link: (PersistentIdentifier, PersistentIdentifier) throws -> Void
    ) rethrows {
        let (categoryRows, animalRows) = rows ?? self.rows()
        var categories: [PersistentIdentifier] = []
        categories.reserveCapacity(categoryCount)
        for row in categoryRows {
            categories.append(try insert("AnimalCategory", ["name": .string(row.name)]))
        }
        for row in animalRows {
            let animal = try insert(
                "Animal",
                [
                    "name": .string(row.name), "age": .int(row.age), "weight": .double(row.weight),
                    "born": .date(row.born), "notes": .string(row.notes),
                ])
            try link(animal, categories[Int(row.categoryID) - 1])
        }
    }

    /// The zoo as the engine's object graph, built directly (no context).
    func graph(rows: ([CategoryRow], [AnimalRow])? = nil) throws -> ObjectGraph {
        let graph = ObjectGraph(schema: try Zoo.schema())
        try insertObjects(rows: rows, insert: { try graph.insert($0, $1) }, link: { try graph.link($0, "category", to: $1) })
        return graph
    }

    /// Inserts the zoo through the dynamic API of a context.
    func insertDynamic(into context: ModelContext, rows: ([CategoryRow], [AnimalRow])? = nil) throws {
        try insertObjects(rows: rows, insert: { try context.insert($0, $1) }, link: { try context.link($0, "category", to: $1) })
    }

    /// Inserts the zoo as SwiftData users write it: `Animal(...)`, `insert`, then set `category`.
    func insertTyped(into context: ModelContext, rows: ([CategoryRow], [AnimalRow])? = nil) {
        let (categoryRows, animalRows) = rows ?? self.rows()
        let categories = categoryRows.map { AnimalCategory(name: $0.name) }
        for category in categories { context.insert(category) }
        for row in animalRows {
            let animal = Animal(name: row.name, age: Int(row.age), weight: row.weight, born: row.born, notes: row.notes)
            context.insert(animal)
            animal.category = categories[Int(row.categoryID) - 1]
        }
    }
}
