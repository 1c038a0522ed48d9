import Foundation
import PropertyBased
import Testing
import Folio
@testable import FolioCore
import FolioTestSupport

/// Random typed sessions over `IndexedCow` — inserts, property edits,
/// deletes, undo and redo — after each step of which every `#Predicate` fetch
/// an index answers returns the models a scan returns, in the same order.
@MainActor
@Suite struct IndexPropertyTests {
    /// Precomposed and decomposed é are equal to Swift, so to a `#Predicate`.
    static let names = ["a", "b", "caf\u{E9}", "cafe\u{301}", "Z", ""]

    /// One session: each step's `roll` picks the action (by tens), its `seed`
    /// the action's choices and the step's queries.
    static func session(plan: [SessionStep]) throws {
        var rng = SeededGenerator(seed: 0)
        let container = try ModelContainer(for: IndexedCow.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = container.mainContext
        context.undoManager = UndoManager()
        func weight() -> Double {
            switch Int.random(in: 0..<8, using: &rng) {
            case 0: return .nan
            case 1: return -0.0
            default: return Double(Int.random(in: 0...4, using: &rng))
            }
        }
        func day() -> Date { Date(timeIntervalSinceReferenceDate: Double(Int.random(in: 0...4, using: &rng))) }
        func ids(_ descriptor: FetchDescriptor<IndexedCow>) throws -> [PersistentIdentifier] {
            try context.fetchIdentifiers(descriptor)
        }
        for (step, planned) in plan.enumerated() {
            rng = planned.choices
            let cows = try context.fetch(FetchDescriptor<IndexedCow>())
            switch planned.roll / 10 {
            case 0..<4:
                let age = Int.random(in: 0...4, using: &rng)
                context.insert(
                    IndexedCow(
                        name: names.randomElement(using: &rng)!, age: age, weight: weight(), born: day(),
                        tag: Bool.random(using: &rng) ? nil : "t", serial: age))
            case 4..<6:
                guard let cow = cows.randomElement(using: &rng) else { break }
                switch Int.random(in: 0..<4, using: &rng) {
                case 0: cow.name = names.randomElement(using: &rng)!
                case 1: cow.age = Int.random(in: 0...4, using: &rng); cow.serial = cow.age
                case 2: cow.weight = weight()
                default: cow.born = day()
                }
            case 6:
                if let cow = cows.randomElement(using: &rng) { context.delete(cow) }
            case 7..<9: context.undoManager?.undo()
            default: context.undoManager?.redo()
            }
            context.processPendingChanges()
            let name = names.randomElement(using: &rng)!
            let age = Int.random(in: -1...5, using: &rng)
            let upper = age + Int.random(in: 0...3, using: &rng)
            let limit = weight()
            let date = day()
            let pairs: [(String, Predicate<IndexedCow>, Predicate<IndexedCow>)] = [
                ("name == \(name)", #Predicate { $0.name == name }, #Predicate { $0.name == name || false }),
                (
                    "age == \(age), weight > \(limit)", #Predicate { $0.age == age && $0.weight > limit },
                    #Predicate { $0.serial == age && $0.weight > limit }
                ),
                (
                    "\(age) <= age < \(upper)", #Predicate { age <= $0.age && $0.age < upper },
                    #Predicate { age <= $0.serial && $0.serial < upper }
                ),
                ("born <= \(date)", #Predicate { $0.born <= date }, #Predicate { $0.born <= date || false }),
            ]
            for (label, indexed, scanned) in pairs {
                let sorted = [SortDescriptor(\IndexedCow.weight), SortDescriptor(\IndexedCow.name, order: .reverse)]
                guard try ids(FetchDescriptor(predicate: indexed)) == ids(FetchDescriptor(predicate: scanned)),
                    try ids(FetchDescriptor(predicate: indexed, sortBy: sorted)) == ids(FetchDescriptor(predicate: scanned, sortBy: sorted))
                else {
                    Issue.record("step \(step): \(label) differs from the scan")
                    return
                }
            }
            let problems = context.graph.invariantViolations()
            guard problems.isEmpty else {
                Issue.record("step \(step): \(problems)")
                return
            }
        }
    }

    @Test("after every step of random typed sessions, each #Predicate fetch an index answers equals the scan", .tags(.long))
    func randomSessions() async throws {
        await checkProperty(count: TestEffort.cases(60), input: SessionStep.generator.array(of: 1...80)) { plan in
            try await MainActor.run { try Self.session(plan: plan) }
        }
    }
}
