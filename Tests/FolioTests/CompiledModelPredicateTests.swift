import Foundation
import Folio
@testable import FolioCore
import Testing

@Model
final class Probe {
    var name: String
    var nickname: String?
    var level: Int
    var small: Int8?
    var readings: [Double]
    var serial: UInt64 = 0
    var station: Station?
    @Transient var scratch = 0

    init(name: String, nickname: String? = nil, level: Int, small: Int8? = nil, readings: [Double] = []) {
        self.name = name
        self.nickname = nickname
        self.level = level
        self.small = small
        self.readings = readings
    }

    /// Not persisted: only Foundation can evaluate it.
    var isHigh: Bool { level > 10 }
}

@Model
final class Station {
    var name: String
    @Relationship(deleteRule: .nullify, inverse: \Probe.station) var probes: [Probe] = []

    init(name: String) { self.name = name }
}

/// Which `#Predicate`s and `SortDescriptor`s Folio compiles onto the graph's
/// columns, and which it leaves to Foundation; FolioModelTests' TypedFetchTests
/// hold both paths to the same results.
@Suite struct CompiledModelPredicateTests {
    let context: ModelContext
    let entity: Int

    init() throws {
        context = ModelContext(try ModelContainer(for: Probe.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true)))
        context.insert(Probe(name: "a", level: 3, readings: [1, 2]))
        entity = try #require(context.graph.layout.entityIndex["Probe"])
    }

    func compiles(_ predicate: Predicate<Probe>) -> Bool {
        CompiledModelPredicate(predicate, entity: entity, graph: context.graph) != nil
    }

    func compiles(_ sort: [SortDescriptor<Probe>]) -> Bool {
        CompiledModelSort(sort, entity: entity, graph: context.graph) != nil
    }

    @Test func `comparisons, logic, nil coalescing and key paths on values compile`() {
        let (names, needle, low) = (["a", "b"], "x", -3)
        #expect(compiles(#Predicate { $0.level >= 2 && $0.name != "b" || !($0.level < low) }))
        #expect(compiles(#Predicate { $0.nickname == nil || ($0.nickname ?? "") == "z" }))
        #expect(compiles(#Predicate { ($0.small ?? 0) > 2 }))
        #expect(compiles(#Predicate { $0.name.contains(needle) && $0.name.starts(with: "a") }))
        #expect(compiles(#Predicate { names.contains($0.name) && $0.readings.contains(2) }))
        #expect(compiles(#Predicate { $0.name.count > 1 && !$0.name.isEmpty && $0.level > -1 }))
        #expect(compiles(#Predicate { _ in true }))
    }

    @Test func `relationships, forced unwraps, computed and transient properties are left to Foundation`() {
        #expect(!compiles(#Predicate { $0.station?.name == "North" }))
        #expect(!compiles(#Predicate { $0.nickname != nil && $0.nickname! == "a" }))
        #expect(!compiles(#Predicate { $0.isHigh }))
        #expect(!compiles(#Predicate { $0.scratch == 0 }))
    }

    @Test func `sorts on scalar attributes compile; relationship paths are left to Foundation`() {
        #expect(compiles([SortDescriptor(\.level), SortDescriptor(\.name, order: .reverse)]))
        #expect(compiles([SortDescriptor(\.nickname, comparator: .lexical), SortDescriptor(\.small), SortDescriptor(\.serial)]))
        #expect(!compiles([SortDescriptor(\.station?.name)]))
        #expect(!compiles([SortDescriptor(\.level), SortDescriptor(\.station?.name)]))
    }

    @Test func `a stored value the property's type cannot hold reads as the getter reads it`() throws {
        let probe = Probe(name: "b", level: 1)
        context.insert(probe)
        // 300 fits the column but not an Int8 (only a write that skips the graph's
        // type check can store it): the getter reads nil, and so must the predicate.
        let small = try #require(context.graph.layout.entities[entity].attributeIndex["small"])
        let ref = try #require(context.graph.index[probe.persistentModelID.id])
        context.graph.setValue(.int(300), ref, small)
        #expect(probe.small == nil)
        let matches = try context.fetch(FetchDescriptor<Probe>(predicate: #Predicate { $0.small == nil && $0.name == "b" }))
        #expect(matches == [probe])
    }
}
