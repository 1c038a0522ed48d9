import Foundation
// Internal only for `ResultsObserver.reevaluatedCount` and `refetchCount`: the
// counts that show an update costs what changed, not the size of the result.
import Folio
@testable import FolioCore
import Testing
import FolioTestSupport

/// What keeping a `ResultsObserver` up to date costs: the objects a change
/// touched are re-evaluated, never the whole result, and nothing is fetched again.
@Suite struct ResultsObserverCostTests {
    static let count = 5000

    /// A context holding `count` saved sightings "s0"… with age = their number.
    static func populated() throws -> ModelContext {
        let context = ModelContext(try TypedFetchTests.container())
        for number in 0..<count { context.insert(FetchResultsCollectionTests.sighting(number)) }
        try context.save()
        return context
    }

    static let adults = #Predicate<Sighting> { $0.age >= 1000 }
    static var descriptor: FetchDescriptor<Sighting> { FetchDescriptor(predicate: adults, sortBy: [SortDescriptor(\.name)]) }

    @Test func `an edit re-evaluates only the object it changed, whatever the number of results`() throws {
        let context = try Self.populated()
        let observer = try ResultsObserver<Sighting, Never>(fetchDescriptor: Self.descriptor, modelContext: context)
        #expect(observer.results.count == Self.count - 1000)
        let before = observer.reevaluatedCount

        let young = try #require(try context.fetch(FetchDescriptor<Sighting>(predicate: #Predicate { $0.age == 7 })).first)
        young.age = 2000  // enters the results
        young.name = "zzz"  // moves to the end
        let old = try #require(try context.fetch(FetchDescriptor<Sighting>(predicate: #Predicate { $0.age == 4321 })).first)
        context.delete(old)  // leaves them
        try context.save()

        #expect(observer.results.count == Self.count - 1000)
        #expect(observer.results.last === young)
        #expect(observer.reevaluatedCount - before == 2, "the two edits of a live object; the delete needs no evaluation")
        #expect(observer.refetchCount == 1, "the first fetch only")
        #expect(observer.results.map(\.persistentModelID) == (try context.fetch(Self.descriptor)).map(\.persistentModelID))
    }

    @Test func `another context's save of one object re-evaluates that object only`() throws {
        let context = try Self.populated()
        let observer = try ResultsObserver<Sighting, Never>(fetchDescriptor: Self.descriptor, modelContext: context)
        _ = observer.results
        let before = observer.reevaluatedCount

        let other = ModelContext(context.container)
        let sighting = try #require(try other.fetch(FetchDescriptor<Sighting>(predicate: #Predicate { $0.age == 3 })).first)
        sighting.age = 3000
        try other.save()

        #expect(observer.results.count == Self.count - 999)
        #expect(observer.reevaluatedCount - before == 1)
        #expect(observer.refetchCount == 1)
        #expect(observer.results.map(\.persistentModelID) == (try context.fetch(Self.descriptor)).map(\.persistentModelID))
    }

    @Test func `many changes at once are taken in by one fetch`() throws {
        let context = try Self.populated()
        let observer = try ResultsObserver<Sighting, Never>(fetchDescriptor: Self.descriptor, modelContext: context)
        _ = observer.results
        try context.delete(model: Sighting.self, where: #Predicate { $0.age < 3000 })
        #expect(observer.results.count == Self.count - 3000)
        #expect(observer.refetchCount == 2)
    }
}
