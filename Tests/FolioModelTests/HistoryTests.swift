import Folio
import Foundation
import Testing
import FolioTestSupport

// SwiftData's history API as an app uses it: a token kept between launches,
// changes cast to their model's type, tombstones read by key path.

@Model
final class Ticket {
    @Attribute(.preserveValueOnDeletion) var code: String
    var seat: Int
    @Attribute(.preserveValueOnDeletion) var holder: String?
    var venue: Venue?

    init(code: String, seat: Int, holder: String? = nil) {
        self.code = code
        self.seat = seat
        self.holder = holder
    }
}

@Model
final class Venue {
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \Ticket.venue) var tickets: [Ticket] = []

    init(name: String) { self.name = name }
}

@Suite struct HistoryTests {
    static func container(_ folder: TemporaryFolder) throws -> ModelContainer {
        try ModelContainer(
            for: Ticket.self, Venue.self,
            configurations: ModelConfiguration(url: folder.url.appendingPathComponent("Tickets.folio")))
    }

    @Test @MainActor func `changes are typed by model: inserts and updates cast to their class, updated attributes as key paths`() throws {
        let folder = try TemporaryFolder()
        let container = try Self.container(folder)
        let context = container.mainContext
        let hall = Venue(name: "Hall")
        let ticket = Ticket(code: "A1", seat: 4)
        context.insert(hall)
        context.insert(ticket)
        ticket.venue = hall
        try context.save()
        ticket.seat = 5
        try context.save()

        let history = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(history.count == 2)
        let inserted = history[0].changes.compactMap { change -> PersistentIdentifier? in
            guard case .insert(let insert as DefaultHistoryInsert<Ticket>) = change else { return nil }
            return insert.changedPersistentIdentifier
        }
        #expect(inserted == [ticket.persistentModelID])
        let updates = history[1].changes.compactMap { change -> DefaultHistoryUpdate<Ticket>? in
            guard case .update(let update as DefaultHistoryUpdate<Ticket>) = change else { return nil }
            return update
        }
        #expect(updates.count == 1)
        #expect(updates.first?.updatedAttributes == [\Ticket.seat])
        #expect(updates.first?.updatedAttributeNames == ["seat"])
        #expect(context.model(for: updates[0].changedPersistentIdentifier) as? Ticket === ticket)
    }

    @Test @MainActor func `a deleted model's tombstone gives its preserved values by key path, and nothing else`() throws {
        let folder = try TemporaryFolder()
        do {
            let context = try Self.container(folder).mainContext
            let hall = Venue(name: "Hall")
            context.insert(hall)
            let ticket = Ticket(code: "B7", seat: 9, holder: "Ada")
            context.insert(ticket)
            ticket.venue = hall
            try context.save()
            context.delete(hall)  // cascades to the ticket
            try context.save()
        }
        // A later launch reads it.
        let context = try Self.container(folder).mainContext
        let deletes = try #require(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).last).changes
        let tombstones = deletes.compactMap { change -> HistoryTombstone<Ticket>? in
            guard case .delete(let delete as DefaultHistoryDelete<Ticket>) = change else { return nil }
            return delete.tombstone
        }
        #expect(tombstones.count == 1)
        #expect(tombstones.first?[\Ticket.code] as? String == "B7")
        #expect(tombstones.first?[\Ticket.holder] as? String? == "Ada")
        #expect(tombstones.first?[\Ticket.seat] == nil)
        #expect(deletes.contains { if case .delete(let delete as DefaultHistoryDelete<Venue>) = $0 { delete.tombstone.values.isEmpty } else { false } })
    }

    @Test @MainActor func `an app keeps the last token across launches and processes only what came after it`() throws {
        let folder = try TemporaryFolder()
        var saved = Data()
        do {
            let context = try Self.container(folder).mainContext
            context.insert(Ticket(code: "C1", seat: 1))
            try context.save()
            let token = try #require(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).last?.token)
            saved = try JSONEncoder().encode(token)  // as an app keeps it in its defaults
            let widget = ModelContext(context.container)
            widget.author = "widget"
            widget.insert(Ticket(code: "C2", seat: 2))
            try widget.save()
        }
        let context = try Self.container(folder).mainContext
        let token = try JSONDecoder().decode(DefaultHistoryToken.self, from: saved)
        var descriptor = HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > token && $0.author == "widget" })
        descriptor.fetchLimit = 10
        let news = try context.fetchHistory(descriptor)
        #expect(news.map(\.author) == ["widget"])
        let codes = news.flatMap(\.changes).compactMap { context.model(for: $0.changedPersistentIdentifier) as? Ticket }.map(\.code)
        #expect(codes == ["C2"])
        // Processed: the app deletes what it no longer needs.
        try context.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token <= token }))
        #expect(
            try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).map(\.transactionIdentifier)
                == news.map(\.transactionIdentifier))
    }
}
