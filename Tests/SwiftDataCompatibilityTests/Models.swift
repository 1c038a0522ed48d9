import Foundation
import FolioTestSupport
import Folio

// A trip planner's model layer, written as a SwiftData app writes it; the
// only change from the app is `import Folio` for `import SwiftData`.

enum TripKind: String, Codable, CaseIterable {
    case business
    case leisure
    case family
}

struct Budget: Codable, Hashable {
    var amount: Decimal
    var currency: String
}

@Model
final class Trip {
    @Attribute(.unique) var name: String
    var destination: String
    var startDate: Date
    var endDate: Date
    var kind: TripKind = TripKind.leisure
    var budget: Budget?
    var notes: String?
    @Relationship(deleteRule: .cascade, inverse: \Accommodation.trip)
    var accommodations: [Accommodation] = []
    @Relationship(inverse: \Traveller.trips)
    var travellers: [Traveller] = []
    @Transient var isExpanded = false

    init(name: String, destination: String, startDate: Date, endDate: Date, kind: TripKind = .leisure) {
        self.name = name
        self.destination = destination
        self.startDate = startDate
        self.endDate = endDate
        self.kind = kind
    }

    var nights: Int {
        Calendar(identifier: .gregorian).dateComponents([.day], from: startDate, to: endDate).day ?? 0
    }
}

@Model
final class Accommodation {
    var name: String
    var address: String?
    var trip: Trip?

    init(name: String, address: String? = nil) {
        self.name = name
        self.address = address
    }
}

@Model
final class Traveller {
    #Unique<Traveller>([\.givenName, \.familyName])

    var givenName: String
    var familyName: String
    var email: String?
    var trips: [Trip] = []

    init(givenName: String, familyName: String, email: String? = nil) {
        self.givenName = givenName
        self.familyName = familyName
        self.email = email
    }
}

extension Date {
    /// A fixed day in 2025, so tests do not depend on today.
    static func day(_ day: Int, month: Int = 6) -> Date {
        var components = DateComponents()
        (components.year, components.month, components.day, components.hour) = (2025, month, day, 12)
        components.timeZone = TimeZone(identifier: "UTC")
        return Calendar(identifier: .gregorian).date(from: components)!
    }
}

extension TemporaryFolder {
    /// Where a store of this name goes in the folder.
    func storeURL(_ name: String = "Trips.store") -> URL { url.appendingPathComponent(name) }
}
