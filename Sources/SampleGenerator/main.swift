// Writes the sample documents into the folder given as the only argument
// (SampleDocuments/ in the repository). Uses only Folio's public API, and is
// deterministic: running it again gives byte-identical packages.
import Folio
import Foundation

func date(_ text: String) -> Value {
    let parts = text.split(separator: "-").compactMap { Int($0) }
    var components = DateComponents()
    (components.year, components.month, components.day) = (parts[0], parts[1], parts[2])
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC") ?? .current
    return .date(calendar.date(from: components) ?? Date(timeIntervalSince1970: 0))
}

func write(_ name: String, schema: Schema, into folder: URL, fill: (ModelContext) throws -> Void) throws {
    let url = folder.appendingPathComponent("\(name).folio")
    try? FileManager.default.removeItem(at: url)
    let container = try ModelContainer(for: schema, configurations: ModelConfiguration(url: url))
    let context = ModelContext(container)
    try fill(context)
    try context.save()
    print(
        "wrote \(url.path) (\(try schema.entities.map { try context.fetchCount(DynamicFetchDescriptor(entity: $0.name, includesSubentities: false)) }.reduce(0, +)) objects)"
    )
}

let arguments = CommandLine.arguments.dropFirst()
guard let path = arguments.first else {
    FileHandle.standardError.write(Data("usage: SampleGenerator FOLDER\n".utf8))
    exit(2)
}
let folder = URL(fileURLWithPath: path)
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)

// The SwiftData sample "Deleting persistent data from your app": categories cascade to animals.
try write(
    "Animals",
    schema: Schema([
        .init(
            "AnimalCategory", attributes: [.init("name", .string, options: [.unique])],
            relationships: [.init("animals", to: "Animal", toMany: true, inverse: "category", deleteRule: .cascade)]),
        .init(
            "Animal", attributes: [.init("name", .string), .init("diet", .string)],
            relationships: [.init("category", to: "AnimalCategory", inverse: "animals")]),
    ]), into: folder
) { context in
    let animals: [(String, [(String, String)])] = [
        ("Amphibian", [("Newt", "carnivorous"), ("Tree Frog", "carnivorous"), ("Axolotl", "carnivorous"), ("Salamander", "carnivorous")]),
        (
            "Bird",
            [
                ("Bald Eagle", "carnivorous"), ("Cardinal", "herbivorous"), ("Toucan", "omnivorous"), ("Emperor Penguin", "carnivorous"),
                ("Hummingbird", "herbivorous"), ("Barn Owl", "carnivorous"),
            ]
        ),
        ("Fish", [("Goldfish", "omnivorous"), ("Clownfish", "omnivorous"), ("Great White Shark", "carnivorous"), ("Salmon", "carnivorous")]),
        (
            "Invertebrate",
            [
                ("Monarch Butterfly", "herbivorous"), ("Octopus", "carnivorous"), ("Honeybee", "herbivorous"),
                ("Garden Snail", "herbivorous"), ("Tarantula", "carnivorous"),
            ]
        ),
        (
            "Mammal",
            [
                ("Dromedary", "herbivorous"), ("Gray Wolf", "carnivorous"), ("Red Fox", "omnivorous"), ("Koala", "herbivorous"),
                ("Bottlenose Dolphin", "carnivorous"), ("Giant Panda", "herbivorous"), ("Brown Bear", "omnivorous"),
            ]
        ),
        (
            "Reptile",
            [
                ("Komodo Dragon", "carnivorous"), ("Green Sea Turtle", "herbivorous"), ("Chameleon", "carnivorous"),
                ("Gila Monster", "carnivorous"),
            ]
        ),
    ]
    for (categoryName, members) in animals {
        let category = try context.insert("AnimalCategory", ["name": .string(categoryName)])
        for (name, diet) in members {
            let animal = try context.insert("Animal", ["name": .string(name), "diet": .string(diet)])
            try context.link(animal, "category", to: category)
        }
    }
}

// "SwiftData Deleting Data": countries with a visited flag, for delete-where.
try write(
    "Countries",
    schema: Schema([
        .init(
            "Country",
            attributes: [
                .init("name", .string, options: [.unique]), .init("code", .string),
                .init("visited", .bool), .init("population", .int, isOptional: true),
            ])
    ]), into: folder
) { context in
    let countries: [(String, String, Bool, Int?)] = [
        ("Argentina", "AR", false, 46), ("Australia", "AU", true, 26), ("Brazil", "BR", false, 216), ("Canada", "CA", true, 40),
        ("Chile", "CL", false, 19), ("Egypt", "EG", true, 112), ("France", "FR", true, 68), ("Germany", "DE", true, 84),
        ("Iceland", "IS", false, nil), ("India", "IN", false, 1428), ("Italy", "IT", true, 59), ("Japan", "JP", true, 125),
        ("Kenya", "KE", false, 55), ("Mexico", "MX", true, 128), ("Morocco", "MA", false, 37), ("Nepal", "NP", false, 30),
        ("New Zealand", "NZ", true, 5), ("Norway", "NO", false, 5), ("Peru", "PE", true, 34), ("Portugal", "PT", true, 10),
        ("South Africa", "ZA", false, 60), ("Spain", "ES", true, 48), ("Thailand", "TH", false, 72), ("Vietnam", "VN", false, 99),
    ]
    for (name, code, visited, population) in countries {
        try context.insert(
            "Country",
            [
                "name": .string(name), "code": .string(code), "visited": .bool(visited),
                "population": population.map { .int(Int64($0)) } ?? .null,
            ])
    }
}

// "Preserving your app's model data across launches": trips cascade to their accommodation.
try write(
    "Trips",
    schema: Schema([
        .init(
            "Trip",
            attributes: [
                .init("name", .string, options: [.unique]), .init("destination", .string),
                .init("startDate", .date), .init("endDate", .date),
                .init("destinationWeather", .string, options: [.transient]),
            ],
            relationships: [.init("accommodation", to: "Accommodation", inverse: "trip", deleteRule: .cascade)]),
        .init(
            "Accommodation", attributes: [.init("name", .string), .init("address", .string), .init("nights", .int)],
            relationships: [.init("trip", to: "Trip", inverse: "accommodation")]),
    ]), into: folder
) { context in
    let trips: [(String, String, String, String, String, String, Int)] = [
        ("Spring Break", "Lisbon", "2025-03-14", "2025-03-21", "Casa do Rio", "Rua do Alecrim 12", 7),
        ("Family Reunion", "Toronto", "2025-06-28", "2025-07-03", "Harbour Hotel", "55 Queens Quay", 5),
        ("Ski Week", "Zermatt", "2026-01-10", "2026-01-17", "Chalet Alpina", "Schluhmattstrasse 4", 7),
        ("Conference", "San Jose", "2025-06-08", "2025-06-13", "Fairmont", "170 S Market St", 5),
        ("Honeymoon", "Kyoto", "2025-10-02", "2025-10-16", "Ryokan Hiiragiya", "Nakahakusancho, Nakagyo Ward", 14),
        ("Road Trip", "Reykjavik", "2025-08-01", "2025-08-10", "Hotel Borg", "Pósthússtræti 11", 9),
    ]
    for (name, destination, start, end, hotel, address, nights) in trips {
        let trip = try context.insert(
            "Trip",
            [
                "name": .string(name), "destination": .string(destination),
                "startDate": date(start), "endDate": date(end),
            ])
        let stay = try context.insert("Accommodation", ["name": .string(hotel), "address": .string(address), "nights": .int(Int64(nights))])
        try context.link(trip, "accommodation", to: stay)
    }
}

// Realm's "Delete" guide: people own dogs (cascade), dogs have toys, clubs have members.
try write(
    "Dogs",
    schema: Schema([
        .init(
            "DogToy", attributes: [.init("name", .string)],
            relationships: [.init("dogs", to: "Dog", toMany: true, inverse: "favoriteToy")]),
        .init(
            "Dog",
            attributes: [
                .init("name", .string), .init("age", .int), .init("color", .string),
                .init("currentCity", .string), .init("citiesVisited", .set(.string)),
                .init("companion", .any), .init("favoriteParksByCity", .dictionary(.string)),
            ],
            relationships: [
                .init("favoriteToy", to: "DogToy", inverse: "dogs"),
                .init("owner", to: "Person", inverse: "dogs"),
            ]),
        .init(
            "Person", attributes: [.init("_id", .int, options: [.unique]), .init("name", .string)],
            relationships: [
                .init("dogs", to: "Dog", toMany: true, inverse: "owner", deleteRule: .cascade),
                .init("clubs", to: "DogClub", toMany: true, inverse: "members"),
            ]),
        .init(
            "DogClub", attributes: [.init("name", .string)],
            relationships: [.init("members", to: "Person", toMany: true, inverse: "clubs")]),
    ]), into: folder
) { context in
    let toys = try ["Tennis Ball", "Rope", "Squeaky Duck", "Frisbee"].map { try context.insert("DogToy", ["name": .string($0)]) }
    let people = try [(1, "Ali"), (2, "Maria"), (3, "Wen"), (4, "Jonas")].map {
        try context.insert("Person", ["_id": .int(Int64($0.0)), "name": .string($0.1)])
    }
    let clubs = try ["Seattle Dog Club", "Paws of Portland"].map { try context.insert("DogClub", ["name": .string($0)]) }
    let dogs: [(String, Int, String, String, [String], Value, [String: String], Int, Int)] = [
        ("Max", 5, "brown", "New York", ["New York", "Boston", "Toronto"], .string("Wolfie"), ["New York": "Central Park"], 0, 0),
        ("Wolfie", 1, "gray", "Boston", ["Boston"], .null, ["Boston": "Boston Common"], 1, 0),
        ("Rex", 1, "black", "Seattle", ["Seattle", "Portland"], .int(3), ["Seattle": "Discovery Park", "Portland": "Forest Park"], 2, 1),
        ("Bella", 7, "golden", "Portland", [], .string("a cat named Tom"), [:], 0, 1),
        ("Luna", 0, "white", "Toronto", ["Toronto", "Montreal"], .bool(true), ["Toronto": "High Park"], 3, 2),
        (
            "Charlie", 3, "brown", "Berlin", ["Berlin", "Munich", "Hamburg"], .date(Date(timeIntervalSince1970: 1_700_000_000)),
            ["Berlin": "Tiergarten"], 1, 3
        ),
        ("Daisy", 12, "spotted", "Seattle", ["Seattle"], .double(2.5), [:], 2, 3),
    ]
    for (name, age, color, city, visited, companion, parks, toy, owner) in dogs {
        let dog = try context.insert(
            "Dog",
            [
                "name": .string(name), "age": .int(Int64(age)), "color": .string(color), "currentCity": .string(city),
                "citiesVisited": .set(visited.map(Value.string)), "companion": companion,
                "favoriteParksByCity": .dictionary(parks.mapValues(Value.string)),
            ])
        try context.link(dog, "favoriteToy", to: toys[toy])
        try context.link(dog, "owner", to: people[owner])
    }
    try context.setRelated([people[0], people[1], people[2]], for: "members", of: clubs[0])
    try context.setRelated([people[1], people[3]], for: "members", of: clubs[1])
}
