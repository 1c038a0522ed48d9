import Foundation
import Folio
import Testing

// The queries a SwiftData app's list and search screens run, and the edits
// its detail screens make, on an in-memory container.

/// A model with its own `id`, as many SwiftData apps declare one.
@Model
final class Contact {
    @Attribute(.unique) var id: UUID
    var name: String
    var city: String?

    init(id: UUID = UUID(), name: String, city: String? = nil) {
        self.id = id
        self.name = name
        self.city = city
    }
}

/// A generic helper of the kind apps write over their models.
func count<T: PersistentModel>(_ type: T.Type, in context: ModelContext) throws -> Int {
    try context.fetchCount(FetchDescriptor<T>())
}

@Suite @MainActor struct QueryTests {
    let container: ModelContainer
    let context: ModelContext

    init() throws {
        container = try ModelContainer(for: Trip.self, Contact.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        context = container.mainContext
        let rome = Trip(name: "Rome", destination: "Italy", startDate: .day(1), endDate: .day(4))
        rome.accommodations = [Accommodation(name: "Hotel Roma"), Accommodation(name: "Villa Borghese B&B")]
        rome.notes = "Colosseum at dawn"
        let oslo = Trip(name: "Oslo", destination: "Norway", startDate: .day(9), endDate: .day(12))
        oslo.accommodations = [Accommodation(name: "Thon")]
        let aarhus = Trip(name: "Aarhus", destination: "Denmark", startDate: .day(20), endDate: .day(21))
        let zurich = Trip(name: "zurich", destination: "Switzerland", startDate: .day(25), endDate: .day(27))
        for trip in [rome, oslo, aarhus, zurich] { context.insert(trip) }
        try context.save()
    }

    /// `localizedStandardContains`, which apps search with, is missing from
    /// Foundation's `#Predicate` on Linux (KnownGaps.swift).
    @Test func searchingWithContains() throws {
        let search = "om"
        let trips = try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.name.contains(search) }))
        #expect(trips.map(\.name) == ["Rome"])
    }

    /// `.localizedStandard`, which apps use most, is missing from Foundation on Linux (KnownGaps.swift).
    @Test func sortingWithAStringComparator() throws {
        let trips = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name, comparator: .lexical)]))
        #expect(trips.map(\.name) == ["Aarhus", "Oslo", "Rome", "zurich"])
    }

    @Test func predicatesOverOptionalAttributes() throws {
        let withNotes = try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.notes != nil }))
        #expect(withNotes.map(\.name) == ["Rome"])
        let dawn = try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { ($0.notes ?? "").contains("dawn") }))
        #expect(dawn.map(\.name) == ["Rome"])
    }

    @Test func predicatesOverRelationships() throws {
        let busy = try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.accommodations.count > 1 }))
        #expect(busy.map(\.name) == ["Rome"])

        let thon = try context.fetch(
            FetchDescriptor<Trip>(
                predicate: #Predicate { trip in
                    trip.accommodations.contains { $0.name == "Thon" }
                }))
        #expect(thon.map(\.name) == ["Oslo"])

        let inRome = try context.fetch(
            FetchDescriptor<Accommodation>(
                predicate: #Predicate { $0.trip?.name == "Rome" },
                sortBy: [SortDescriptor(\.name)]
            ))
        #expect(inRome.map(\.name) == ["Hotel Roma", "Villa Borghese B&B"])
    }

    @Test func sortingByTwoKeys() throws {
        let accommodations = try context.fetch(
            FetchDescriptor<Accommodation>(sortBy: [
                SortDescriptor(\.trip?.startDate, order: .reverse),
                SortDescriptor(\.name),
            ]))
        #expect(accommodations.map(\.name) == ["Thon", "Hotel Roma", "Villa Borghese B&B"])
    }

    @Test func appendingToAndRemovingFromAToManyAfterInsert() throws {
        let oslo = try #require(try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.name == "Oslo" })).first)
        oslo.accommodations.append(Accommodation(name: "Saga"))
        #expect(try count(Accommodation.self, in: context) == 4)

        oslo.accommodations.removeAll { $0.name == "Thon" }
        try context.save()
        #expect(oslo.accommodations.map(\.name) == ["Saga"])
        // Removed from the relationship, not deleted: the inverse is nil.
        let thon = try #require(try context.fetch(FetchDescriptor<Accommodation>(predicate: #Predicate { $0.name == "Thon" })).first)
        #expect(thon.trip == nil)
    }

    @Test func enumeratingAndTheChangeLists() throws {
        var names: [String] = []
        try context.enumerate(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.startDate)])) { trip in
            names.append(trip.name)
        }
        #expect(names == ["Rome", "Oslo", "Aarhus", "zurich"])

        context.autosaveEnabled = false
        let lima = Trip(name: "Lima", destination: "Peru", startDate: .day(1, month: 10), endDate: .day(9, month: 10))
        context.insert(lima)
        let rome = try #require(try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.name == "Rome" })).first)
        rome.destination = "Lazio"
        #expect(context.insertedModelsArray.compactMap { $0 as? Trip } == [lima])
        #expect(context.changedModelsArray.compactMap { $0 as? Trip } == [rome])
    }

    @Test func aModelsOwnIdIsItsIdentity() throws {
        let id = UUID()
        let contact = Contact(id: id, name: "Grace")
        context.insert(contact)
        try context.save()
        #expect(contact.id == id)

        let found = try context.fetch(FetchDescriptor<Contact>(predicate: #Predicate { $0.id == id }))
        #expect(found.map(\.name) == ["Grace"])

        context.insert(Contact(id: id, name: "Grace Hopper", city: "Arlington"))
        try context.save()
        #expect(try count(Contact.self, in: context) == 1)
        #expect(contact.name == "Grace Hopper")
    }
}

// A long list read in batches, as SwiftData's `fetch(_:batchSize:)` lets an
// app do: the collection holds every match in order, and models are made only
// as the batches are read.

@Suite @MainActor struct BatchedFetchTests {
    func countInBatches(_ context: ModelContext) throws -> Int {
        try context.fetch(FetchDescriptor<Trip>(), batchSize: 50).count
    }

    @Test func aBatchedFetchHoldsEveryMatchInOrder() throws {
        let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        for number in 0..<120 {
            context.insert(Trip(name: "Trip \(number)", destination: "", startDate: .day(1), endDate: .day(2)))
        }
        try context.save()
        #expect(try countInBatches(context) == 120)

        let descriptor = FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name, order: .reverse)])
        let trips = try context.fetch(descriptor, batchSize: 50)
        #expect(trips.count == 120)
        #expect(trips.first?.name == "Trip 99")
        #expect(trips.map(\.name) == (try context.fetch(descriptor)).map(\.name))
    }
}
