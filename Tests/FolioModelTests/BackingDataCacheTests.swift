import Foundation
import Folio
import PropertyBased
import Testing
import FolioTestSupport

/// A model caches its object's row and its class's columns for the graph it
/// was resolved in, so a property read is a column read. These tests hold the
/// cache to the edges where that row stops being the object's: a rollback (a
/// new graph), undo of an insert, a merge of another context's save, a saved
/// delete, and detached models reading their snapshot.
@Suite struct BackingDataCacheTests {
    let folder: TemporaryFolder

    init() throws { folder = try TemporaryFolder() }

    func container() throws -> ModelContainer {
        try ModelContainer(for: Site.self, configurations: ModelConfiguration(url: folder.url.appendingPathComponent("Sites.folio")))
    }

    static func sighting(_ name: String, age: Int = 1) -> Sighting {
        Sighting(
            name: name, nickname: nil, age: age, small: nil, score: 0.5, rating: 1, born: Date(timeIntervalSinceReferenceDate: 0),
            code: UUID(), amount: 1, flag: false, tags: [])
    }

    @Test func `a rollback makes every model read the saved state, even when rows moved`() throws {
        let container = try container()
        let main = ModelContext(container)
        let other = ModelContext(container)
        // `other` saves first, so the saved graph's rows are in another order than `main`'s.
        let early = Self.sighting("early", age: 1)
        main.insert(early)
        other.insert(Self.sighting("other", age: 2))
        try other.save()
        try main.save()
        let site = Site(name: "Park")
        main.insert(site)
        early.site = site
        early.age = 40
        #expect(early.age == 40)
        main.rollback()
        #expect(early.modelContext === main)
        #expect(early.name == "early")
        #expect(early.age == 1)
        #expect(early.site == nil)
        let id = early.persistentModelID
        #expect(.int(Int64(early.age)) == (try main.value("age", of: id)))
        // The unsaved site is gone: detached, it keeps the values it had.
        #expect(site.modelContext == nil)
        #expect(site.name == "Park")
    }

    @Test func `undoing an insert detaches the model, which keeps its values; redo attaches it again`() throws {
        let context = ModelContext(try container())
        context.undoManager = UndoManager()
        let sighting = Self.sighting("Ada", age: 7)
        context.insert(sighting)
        context.processPendingChanges()
        #expect(sighting.age == 7)
        context.undoManager?.undo()
        #expect(sighting.modelContext == nil)
        #expect(sighting.name == "Ada")
        #expect(sighting.age == 7)
        context.undoManager?.redo()
        #expect(sighting.modelContext === context)
        sighting.age = 8
        #expect(sighting.age == 8)
        #expect(try context.value("age", of: sighting.persistentModelID) == .int(8))
    }

    @Test func `a merge of another context's save is read through the cached row`() throws {
        let container = try container()
        let main = ModelContext(container)
        let other = ModelContext(container)
        let sighting = Self.sighting("Ada", age: 7)
        main.insert(sighting)
        try main.save()
        #expect(sighting.age == 7)
        let copy = try #require(try other.fetch(FetchDescriptor<Sighting>()).first)
        let site = Site(name: "Lake")
        other.insert(site)
        copy.age = 9
        copy.nickname = "A"
        copy.site = site
        try other.save()
        _ = try main.fetch(FetchDescriptor<Site>())  // merges
        #expect(sighting.age == 9)
        #expect(sighting.nickname == "A")
        #expect(sighting.site?.name == "Lake")
        // A delete saved there detaches the model here; it keeps its last values.
        other.delete(copy)
        try other.save()
        _ = try main.fetch(FetchDescriptor<Site>())
        #expect(sighting.modelContext == nil)
        #expect(sighting.age == 9)
    }

    @Test func `a deleted model reads its values until and after the delete is saved`() throws {
        let context = ModelContext(try container())
        let sighting = Self.sighting("Ada", age: 3)
        context.insert(sighting)
        try context.save()
        context.delete(sighting)
        #expect(sighting.isDeleted)
        #expect(sighting.age == 3)
        try context.save()
        #expect(sighting.modelContext == nil)
        #expect(!sighting.isDeleted)
        #expect(sighting.name == "Ada")
        #expect(sighting.age == 3)
    }

    @Test func `a detached model reads and keeps edits in its snapshot, without touching the document`() throws {
        let context = ModelContext(try container())
        try context.save()
        let sighting = Self.sighting("Ada", age: 3)
        context.insert(sighting)
        context.rollback()
        #expect(sighting.modelContext == nil)
        #expect(sighting.age == 3)
        sighting.age = 4
        #expect(sighting.age == 4)
        #expect(try context.fetchCount(FetchDescriptor<Sighting>()) == 0)
    }

    @Test func `a fetched model reads every stored type as the dynamic API does`() throws {
        let context = ModelContext(try container())
        let sighting = Sighting(
            name: "é", nickname: "n", age: -5, small: -3, score: -0.25, rating: .pi,
            born: Date(timeIntervalSinceReferenceDate: 12.5), code: UUID(), amount: Decimal(string: "1.5") ?? 1,
            flag: true, tags: ["a", "b"])
        sighting.serial = .max
        context.insert(sighting)
        try context.save()
        let reopened = ModelContext(try container())
        let fetched = try #require(try reopened.fetch(FetchDescriptor<Sighting>()).first)
        try Self.expectSame(fetched, reopened)
        #expect(fetched.serial == .max)
        #expect(fetched.small == -3)
        #expect(fetched.rating == .pi)
    }

    /// Every typed read of a managed model equals what the dynamic API reads.
    static func expectSame(_ sighting: Sighting, _ context: ModelContext) throws {
        let id = sighting.persistentModelID
        #expect(try context.value("name", of: id) == .string(sighting.name))
        #expect(try context.value("nickname", of: id) == (sighting.nickname.map(Value.string) ?? .null))
        #expect(try context.value("age", of: id) == .int(Int64(sighting.age)))
        #expect(try context.value("small", of: id) == (sighting.small.map { .int(Int64($0)) } ?? .null))
        #expect(try context.value("score", of: id) == .double(sighting.score))
        #expect(try context.value("rating", of: id) == .float(sighting.rating))
        #expect(try context.value("born", of: id) == .date(sighting.born))
        #expect(try context.value("code", of: id) == .uuid(sighting.code))
        #expect(try context.value("amount", of: id) == .decimal(sighting.amount))
        #expect(try context.value("flag", of: id) == .bool(sighting.flag))
        #expect(try context.value("tags", of: id) == .array(sighting.tags.map(Value.string)))
        #expect(try context.value("serial", of: id) == .uint(sighting.serial))
        #expect(try context.related("site", of: id) == (sighting.site.map { [$0.persistentModelID] } ?? []))
    }

    /// What a model's attributes read, to compare a model gone from its context
    /// with what it read there (its relationships read empty once it is gone).
    struct Reading: Equatable {
        var name: String, nickname: String?, age: Int, small: Int8?, score: Double, flag: Bool, serial: UInt64

        init(_ sighting: Sighting) {
            (name, nickname, age, small, score) = (sighting.name, sighting.nickname, sighting.age, sighting.small, sighting.score)
            (flag, serial) = (sighting.flag, sighting.serial)
        }
    }

    /// One session: each step's `roll` picks one of the 12 actions, its `seed`
    /// the action's choices, so a failing plan shrinks to fewer, simpler steps.
    static func session(plan: [SessionStep], at url: URL) throws {
        var rng = SeededGenerator(seed: 0)
        let container = try ModelContainer(for: Site.self, configurations: ModelConfiguration(url: url))
        let main = ModelContext(container)
        main.undoManager = UndoManager()
        // Reading a sighting whose site was deleted in a step it does not know of
        // reports the site as gone (and reads nil); nothing else may fail.
        nonisolated(unsafe) var unexpected: [ModelError] = []
        main.autosaveErrorHandler = { error in
            if case .graph(.objectNotFound) = error { return }
            unexpected.append(error)
        }
        defer { #expect(unexpected.isEmpty, "\(unexpected)") }
        let other = ModelContext(container)
        // Every model `main` handed out stays alive, so its cached row is what each read uses.
        var held: [Sighting] = []
        var sites: [Site] = []
        var readings: [ObjectIdentifier: Reading] = [:]
        var attachedLastStep: Set<ObjectIdentifier> = []
        func attached() -> [Sighting] { held.filter { $0.modelContext === main && !$0.isDeleted } }

        for step in plan {
            rng = step.choices
            switch step.roll * 12 / 100 {
            case 0:
                let sighting = Self.sighting(["a", "b", "é"].randomElement(using: &rng) ?? "a", age: Int.random(in: -9...9, using: &rng))
                main.insert(sighting)
                if Bool.random(using: &rng) { sighting.site = sites.filter { $0.modelContext === main }.randomElement(using: &rng) }
                held.append(sighting)
            case 1:
                let site = Site(name: "S\(Int.random(in: 0...9, using: &rng))")
                main.insert(site)
                sites.append(site)
            case 2:
                guard let sighting = attached().randomElement(using: &rng) else { continue }
                switch Int.random(in: 0..<5, using: &rng) {
                case 0: sighting.age = Int.random(in: -9...9, using: &rng)
                case 1: sighting.nickname = Bool.random(using: &rng) ? "n\(Int.random(in: 0...3, using: &rng))" : nil
                case 2: sighting.small = Bool.random(using: &rng) ? Int8.random(in: -5...5, using: &rng) : nil
                case 3: sighting.serial = UInt64.random(in: 0...UInt64.max, using: &rng)
                default: sighting.name += "x"
                }
            case 3:
                guard let sighting = attached().randomElement(using: &rng) else { continue }
                sighting.site = Bool.random(using: &rng) ? sites.filter { $0.modelContext === main }.randomElement(using: &rng) : nil
            case 4:
                guard let sighting = attached().randomElement(using: &rng) else { continue }
                try main.setValue(.int(Int64.random(in: -9...9, using: &rng)), for: "age", of: sighting.persistentModelID)
            case 5:
                if Bool.random(using: &rng), let site = sites.filter({ $0.modelContext === main && !$0.isDeleted }).randomElement(using: &rng) {
                    main.delete(site)
                } else if let sighting = attached().randomElement(using: &rng) {
                    main.delete(sighting)
                }
            case 6: main.undoManager?.undo()
            case 7: main.undoManager?.redo()
            case 8: try main.save()
            case 9: main.rollback()
            case 10:
                // Another context's save, merged into `main` by its next fetch.
                let ids = try other.fetchIdentifiers(FetchDescriptor<Sighting>())
                if let id = ids.randomElement(using: &rng) {
                    if Int.random(in: 0..<4, using: &rng) == 0 {
                        try other.delete(id)
                    } else {
                        try other.setValue(.int(Int64.random(in: 100...199, using: &rng)), for: "age", of: id)
                        try other.setValue(.string("merged"), for: "name", of: id)
                    }
                }
                try other.insert("Sighting", ["name": .string("theirs"), "age": .int(5)])
                try other.save()
            default:
                // A fetch merges what others saved and hands out models for their objects.
                for sighting in try main.fetch(FetchDescriptor<Sighting>()) where !held.contains(where: { $0 === sighting }) {
                    held.append(sighting)
                }
            }
            main.processPendingChanges()
            for sighting in held {
                let key = ObjectIdentifier(sighting)
                if sighting.modelContext === main || (try? main.value("name", of: sighting.persistentModelID)) != nil {
                    // Attached, or gone but still a row of the context's graph (its insert
                    // undone, its delete saved or merged): it reads that row.
                    try expectSame(sighting, main)
                } else if let last = readings[key], !attachedLastStep.contains(key) {
                    // Detached (rolled back) since an earlier step: it keeps reading its snapshot.
                    #expect(Reading(sighting) == last, "\(sighting.persistentModelID)")
                }
                if sighting.modelContext === main { attachedLastStep.insert(key) } else { attachedLastStep.remove(key) }
                readings[key] = Reading(sighting)
            }
        }
    }

    @Test(.tags(.long)) func `typed reads match the dynamic API through edits, undo, redo, saves, rollbacks and merges`() async throws {
        let folder = folder
        await checkProperty(count: TestEffort.cases(60), input: SessionStep.generator.array(of: 1...80)) { plan in
            let url = folder.url.appendingPathComponent("\(UUID()).folio")
            try Self.session(plan: plan, at: url)
        }
    }
}
