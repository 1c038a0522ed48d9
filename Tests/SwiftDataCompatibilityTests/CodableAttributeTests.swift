// `@Attribute(.codable)` (SwiftData, iOS 27): a property stored through its
// Codable form whatever its type — a class, a type that encodes as a single
// value, an enum or an array Folio would otherwise store directly.
import Foundation
import FolioTestSupport
import Folio
import Testing

/// A class: `@Model` cannot look inside it, only encode it.
final class Palette: Codable, Equatable, @unchecked Sendable {
    var colors: [String]
    var isDark: Bool
    init(colors: [String], isDark: Bool) { self.colors = colors; self.isDark = isDark }
    static func == (lhs: Palette, rhs: Palette) -> Bool { lhs.colors == rhs.colors && lhs.isDark == rhs.isDark }
}

/// Encodes as one number, not a keyed container.
struct Celsius: Codable, Equatable {
    var degrees: Double
    init(_ degrees: Double) { self.degrees = degrees }
    init(from decoder: any Decoder) throws { degrees = try decoder.singleValueContainer().decode(Double.self) }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(degrees)
    }
}

enum Season: String, Codable, CaseIterable {
    case spring, summer, autumn, winter
}

@Model
final class Garden {
    var name: String
    @Attribute(.codable) var palette: Palette
    @Attribute(.codable) var temperature: Celsius
    @Attribute(.codable) var season: Season
    @Attribute(.codable) var plants: [String]
    @Attribute(.codable) var note: String?

    init(name: String, palette: Palette, temperature: Celsius, season: Season, plants: [String], note: String? = nil) {
        self.name = name
        self.palette = palette
        self.temperature = temperature
        self.season = season
        self.plants = plants
        self.note = note
    }
}

@Suite @MainActor struct CodableAttributeTests {
    static func container(_ url: URL) throws -> ModelContainer {
        try ModelContainer(for: Garden.self, configurations: ModelConfiguration(url: url))
    }

    @Test("the schema records each .codable property as a codable attribute, isCodable, whatever its Swift type")
    func schema() throws {
        let container = try ModelContainer(for: Garden.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let entity = try #require(container.schema.entity(named: "Garden"))
        for name in ["palette", "temperature", "season", "plants", "note"] {
            let attribute = try #require(entity.attribute(named: name))
            #expect(attribute.isCodable && attribute.type == .codable, "\(name)")
        }
        #expect(entity.attribute(named: "note")?.isOptional == true)
        #expect(entity.attribute(named: "name")?.isCodable == false)
    }

    @Test("values of every kind are kept before insertion, saved, and read back equal after reopening")
    func roundTrip() throws {
        let folder = try TemporaryFolder()
        let url = folder.storeURL("Gardens.store")
        do {
            let context = ModelContext(try Self.container(url))
            let garden = Garden(
                name: "Back", palette: Palette(colors: ["green", "ochre"], isDark: false),
                temperature: Celsius(18.5), season: .spring, plants: ["fern", "moss"])
            #expect(garden.temperature == Celsius(18.5) && garden.plants == ["fern", "moss"])
            context.insert(garden)
            #expect(garden.palette == Palette(colors: ["green", "ochre"], isDark: false))
            #expect(garden.season == .spring && garden.note == nil)
            try context.save()
        }
        let container = try Self.container(url)
        let garden = try #require(try ModelContext(container).fetch(FetchDescriptor<Garden>()).first)
        #expect(garden.name == "Back")
        #expect(garden.palette == Palette(colors: ["green", "ochre"], isDark: false))
        #expect(garden.temperature == Celsius(18.5))
        #expect(garden.season == .spring)
        #expect(garden.plants == ["fern", "moss"])
        #expect(garden.note == nil)
        // Reopened without the classes, the package declares the same attributes.
        let stored = try #require(try ModelContainer(contentsOf: url, allowsSave: false).schema.entity(named: "Garden"))
        #expect(stored.attribute(named: "season")?.isCodable == true)
    }

    @Test("an edit is saved through the Codable form and undone exactly")
    func editAndUndo() throws {
        let container = try ModelContainer(for: Garden.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = container.mainContext
        context.undoManager = UndoManager()
        let garden = Garden(
            name: "Roof", palette: Palette(colors: [], isDark: true), temperature: Celsius(-2),
            season: .winter, plants: [])
        context.insert(garden)
        try context.save()
        garden.palette = Palette(colors: ["white"], isDark: true)
        garden.season = .summer
        garden.note = "windy"
        context.processPendingChanges()
        #expect(garden.palette == Palette(colors: ["white"], isDark: true) && garden.season == .summer && garden.note == "windy")
        context.undoManager?.undo()
        #expect(garden.palette == Palette(colors: [], isDark: true))
        #expect(garden.season == .winter && garden.note == nil)
    }
}
