import Foundation
import PropertyBased
import Testing
import Folio
@testable import FolioCore
import FolioTestSupport

/// Random sessions of link, unlink, delete, undo and redo on relationships
/// into a hierarchy (a to-many with its inverse on the base entity, cascading,
/// and a to-one without one), checked after every step against a plain model
/// of who holds what, kept as values so undo is popping a state.
@Suite struct HierarchyRelationshipPropertyTests {
    /// Who holds what, by identifier: each live person's trips in order and
    /// favourite; the live trips.
    struct Reference: Equatable {
        var people: [PersistentIdentifier] = []
        var trips: [PersistentIdentifier] = []
        var held: [PersistentIdentifier: [PersistentIdentifier]] = [:]
        var favourite: [PersistentIdentifier: PersistentIdentifier] = [:]

        func traveler(of trip: PersistentIdentifier) -> PersistentIdentifier? {
            held.first { $0.value.contains(trip) }?.key
        }

        mutating func removeTrip(_ trip: PersistentIdentifier) {
            trips.removeAll { $0 == trip }
            for person in people { held[person]?.removeAll { $0 == trip } }
            for (person, liked) in favourite where liked == trip { favourite[person] = nil }
        }
    }

    static func session(plan: [SessionStep]) throws {
        let container = try ModelContainer(for: try HierarchyRelationshipTests.schema(), configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        context.undoManager = UndoManager()
        var reference = Reference()
        var undone: [Reference] = []
        var done: [Reference] = []
        let entities = ["Trip", "BusinessTrip", "PersonalTrip"]
        for (step, planned) in plan.enumerated() {
            var rng = planned.choices
            let before = reference
            var edited = true
            switch planned.roll / 10 {
            case 0:
                let person = try context.insert("Person", ["name": .string("p\(step)")])
                reference.people.append(person)
                reference.held[person] = []
            case 1, 2:
                let entity = entities.randomElement(using: &rng)!
                reference.trips.append(try context.insert(entity, ["name": .string("t\(step)")]))
            case 3, 4:
                guard let person = reference.people.randomElement(using: &rng), let trip = reference.trips.randomElement(using: &rng),
                    reference.held[person]?.contains(trip) == false
                else { edited = false; break }
                try context.link(person, "trips", to: trip)
                if let old = reference.traveler(of: trip) { reference.held[old]?.removeAll { $0 == trip } }
                reference.held[person, default: []].append(trip)
            case 5:
                guard let person = reference.people.randomElement(using: &rng), let trip = reference.held[person]?.randomElement(using: &rng)
                else { edited = false; break }
                try context.unlink(person, "trips", from: trip)
                reference.held[person]?.removeAll { $0 == trip }
            case 6:
                guard let person = reference.people.randomElement(using: &rng), let trip = reference.trips.randomElement(using: &rng),
                    reference.favourite[person] != trip
                else { edited = false; break }
                try context.link(person, "favourite", to: trip)
                reference.favourite[person] = trip
            case 7:
                if Bool.random(using: &rng), let trip = reference.trips.randomElement(using: &rng) {
                    try context.delete(trip)
                    reference.removeTrip(trip)
                } else if let person = reference.people.randomElement(using: &rng) {
                    try context.delete(person)
                    for trip in reference.held[person] ?? [] { reference.removeTrip(trip) }
                    reference.people.removeAll { $0 == person }
                    reference.held[person] = nil
                    reference.favourite[person] = nil
                } else {
                    edited = false
                }
            case 8:
                edited = false
                guard let previous = done.popLast() else { break }
                context.undoManager?.undo()
                undone.append(reference)
                reference = previous
            default:
                edited = false
                guard let next = undone.popLast() else { break }
                context.undoManager?.redo()
                done.append(reference)
                reference = next
            }
            if edited {
                done.append(before)
                undone = []
            }
            context.processPendingChanges()
            let problems = context.graph.invariantViolations()
            guard problems.isEmpty else {
                Issue.record("step \(step): \(problems)")
                return
            }
            let live = Set(try context.fetchIdentifiers(DynamicFetchDescriptor(entity: "Trip")))
            guard live == Set(reference.trips) else {
                Issue.record("step \(step): live trips \(live.sorted()) but expected \(reference.trips.sorted())")
                return
            }
            for person in reference.people {
                let trips = try context.related("trips", of: person)
                let favourite = try context.related("favourite", of: person)
                guard trips == reference.held[person] ?? [], favourite == reference.favourite[person].map({ [$0] }) ?? [] else {
                    Issue.record(
                        "step \(step): \(person) holds \(trips), favourite \(favourite); expected \(reference.held[person] ?? []), \(String(describing: reference.favourite[person]))"
                    )
                    return
                }
            }
            for trip in reference.trips {
                let traveler = try context.related("traveler", of: trip)
                guard traveler == reference.traveler(of: trip).map({ [$0] }) ?? [] else {
                    Issue.record("step \(step): \(trip)'s traveler is \(traveler)")
                    return
                }
            }
        }
    }

    @Test("after every step of random link, unlink, delete, undo and redo on relationships into a hierarchy, the links equal a plain model's", .tags(.long))
    func randomSessions() async throws {
        await checkProperty(count: TestEffort.cases(60), input: SessionStep.generator.array(of: 1...60)) { plan in
            try Self.session(plan: plan)
        }
    }

    /// Two contexts on one document editing relationships into a hierarchy at
    /// random — link, unlink, delete, save, undo and redo, each taking in the
    /// other's saves — after every step of which each context's graph keeps
    /// its invariants (every link with its inverse); at the end the package
    /// opens with the strict reader, which checks both sides of every link.
    static func twoContexts(plan: [SessionStep]) throws {
        let folder = try TemporaryFolder()
        let url = folder.appending("Trips.folio")
        let container = try ModelContainer(for: try HierarchyRelationshipTests.schema(), configurations: ModelConfiguration(url: url))
        let contexts = [ModelContext(container), ModelContext(container)]
        _ = try contexts[0].insert("Person", ["name": .string("first")])
        try contexts[0].save()
        for context in contexts { context.undoManager = UndoManager() }
        let entities = ["Trip", "BusinessTrip", "PersonalTrip"]
        for (step, planned) in plan.enumerated() {
            var rng = planned.choices
            let context = contexts[planned.roll % 2]
            let people = try context.fetchIdentifiers(DynamicFetchDescriptor(entity: "Person"))
            let trips = try context.fetchIdentifiers(DynamicFetchDescriptor(entity: "Trip"))
            switch planned.roll / 10 {
            case 0: _ = try context.insert("Person", ["name": .string("p\(step)")])
            case 1: _ = try context.insert(entities.randomElement(using: &rng)!, ["name": .string("t\(step)")])
            case 2, 3:
                if let person = people.randomElement(using: &rng), let trip = trips.randomElement(using: &rng) {
                    try context.link(person, Bool.random(using: &rng) ? "trips" : "favourite", to: trip)
                }
            case 4:
                if let person = people.randomElement(using: &rng), let trip = try context.related("trips", of: person).randomElement(using: &rng) {
                    try context.unlink(person, "trips", from: trip)
                }
            case 5:
                if let victim = (Bool.random(using: &rng) ? trips : people).randomElement(using: &rng) { try context.delete(victim) }
            case 6, 7:
                // A save a deny rule refuses (never linked here) or a stale save is not expected.
                try context.save()
            case 8: context.undoManager?.undo()
            default: context.undoManager?.redo()
            }
            context.processPendingChanges()
            for (index, each) in contexts.enumerated() {
                let problems = each.graph.invariantViolations()
                guard problems.isEmpty else {
                    Issue.record("step \(step), context \(index): \(problems)")
                    return
                }
            }
        }
        for context in contexts { try context.save() }
        let reopened = try DocumentPackage(url: url).read()
        #expect(reopened.invariantViolations().isEmpty)
    }

    @Test(
        "two contexts editing relationships into a hierarchy at random, saving and undoing, keep every link with its inverse, and the package opens",
        .tags(.long))
    func randomTwoContextSessions() async throws {
        await checkProperty(count: TestEffort.cases(30), input: SessionStep.generator.array(of: 1...40)) { plan in
            try Self.twoContexts(plan: plan)
        }
    }
}
