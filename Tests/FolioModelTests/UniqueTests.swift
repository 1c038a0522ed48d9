import Foundation
import Folio
import Testing

/// A walking tour: one per city a day, and each code used once.
@Model
final class Tour {
    #Unique<Tour>([\.city, \.day], [\.code])
    var city: String
    var day: Int
    var code: String
    var note = ""
    var guide: TourGuide?

    init(city: String, day: Int, code: String, note: String = "") {
        self.city = city
        self.day = day
        self.code = code
        self.note = note
    }
}

@Model
final class TourGuide {
    var name: String
    var tours: [Tour] = []
    init(name: String) { self.name = name }
}

/// Tours as they were before `#Unique`: the same entity, no constraints.
@Model
final class LooseTour {
    var city: String
    var day: Int
    init(city: String, day: Int) { self.city = city; self.day = day }
}

/// A constraint on a relationship, which Folio does not support.
@Model
final class GuidedTour {
    #Unique<GuidedTour>([\.city, \.guide])
    var city: String
    var guide: TourGuide?
    init(city: String) { self.city = city }
}

/// `#Unique` on model classes, as SwiftData has it: compound constraints that
/// turn a matching insert into an update, and refuse a save that would repeat.
@Suite struct UniqueTests {
    static func context() throws -> ModelContext {
        let context = ModelContext(try ModelContainer(for: Tour.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true)))
        context.undoManager = UndoManager()
        return context
    }

    @Test func `#Unique gives the entity its compound constraint, and a one-key-path constraint is that attribute's unique option`() throws {
        let tour = try #require(Schema([Tour.self]).entity(named: "Tour"))
        #expect(tour.uniquenessConstraints == [["city", "day"]])
        #expect(tour.attribute(named: "code")?.isUnique == true)
        #expect(tour.attribute(named: "city")?.isUnique == false)
        #expect(Schema([TourGuide.self]).entity(named: "TourGuide")?.uniquenessConstraints == [])
    }

    @Test func `inserting a tour for a taken city and day updates the stored tour, and undo restores it`() throws {
        let context = try Self.context()
        let first = Tour(city: "Rome", day: 3, code: "R3", note: "first")
        context.insert(first)
        context.insert(Tour(city: "Rome", day: 4, code: "R4"))
        context.processPendingChanges()

        let second = Tour(city: "Rome", day: 3, code: "R3", note: "second")
        context.insert(second)
        #expect(second.persistentModelID == first.persistentModelID)
        #expect(first.note == "second")
        #expect(try context.fetchCount(FetchDescriptor<Tour>()) == 2)
        context.undoManager?.undo()
        #expect(first.note == "first")

        // The same city another day is another tour.
        context.insert(Tour(city: "Rome", day: 5, code: "R5"))
        #expect(try context.fetchCount(FetchDescriptor<Tour>()) == 3)
    }

    @Test func `moving a tour onto a taken city and day makes the save fail, naming both tours`() throws {
        let context = try Self.context()
        let monday = Tour(city: "Oslo", day: 1, code: "O1")
        let tuesday = Tour(city: "Oslo", day: 2, code: "O2")
        context.insert(monday)
        context.insert(tuesday)
        try context.save()
        tuesday.day = 1
        #expect {
            try context.save()
        } throws: { error in
            guard case .validation(let issues) = error as? ModelError, let issue = issues.first else { return false }
            return issues.count == 1 && issue.kind == .unique && issue.object == tuesday.persistentModelID
                && issue.relationship == "city, day" && issue.related == [monday.persistentModelID]
        }
        tuesday.city = "Bergen"
        try context.save()
    }

    @Test func `a package saved before #Unique migrates on open when its tours are distinct, and is left untouched when not`() throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "UniqueTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for (name, days) in [("Distinct", [1, 2]), ("Repeated", [1, 1])] {
            let url = folder.appending(path: "\(name).folio")
            // The old models stored "LooseTour"; rename the entity in the schema the way a package keeps it.
            var schema = Schema([LooseTour.self])
            schema = try Schema(schema.entities.map { entity in
                var entity = entity
                entity.name = "Tour"
                entity.attributes += [.init("code", .string, isOptional: true), .init("note", .string, defaultValue: .string(""))]
                return entity
            } + [Schema.Entity("TourGuide", attributes: [.init("name", .string)])])
            do {  // the old container, and its lock on the package, end here
                let old = ModelContext(try ModelContainer(for: schema, configurations: ModelConfiguration(url: url)))
                for (index, day) in days.enumerated() {
                    try old.insert("Tour", ["city": .string("Rome"), "day": .int(Int64(day)), "code": .string("R\(index)")])
                }
                try old.save()
            }
            let before = try Data(contentsOf: url.appending(path: "document.xml"))

            do {
                let container = try ModelContainer(for: Tour.self, configurations: ModelConfiguration(url: url))
                #expect(name == "Distinct")
                #expect(try ModelContext(container).fetchCount(FetchDescriptor<Tour>()) == 2)
            } catch let error as ModelError {
                #expect(name == "Repeated")
                guard case .migration(_, .duplicateUniqueValue(let entity, let attributes, _, _)) = error else {
                    Issue.record("expected a migration refusal, got \(error)")
                    continue
                }
                #expect(entity == "Tour" && attributes == "city, day")
                #expect(try Data(contentsOf: url.appending(path: "document.xml")) == before)
            }
        }
    }

    @Test func `a constraint on a relationship is refused when the container is made`() {
        #expect {
            try ModelContainer(for: GuidedTour.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        } throws: { error in
            guard case .schema(.invalidUniquenessConstraint(let entity, let attributes, let reason)) = error as? ModelError else { return false }
            return entity == "GuidedTour" && attributes == ["city", "guide"] && reason.contains("'guide' is a relationship")
        }
    }
}
